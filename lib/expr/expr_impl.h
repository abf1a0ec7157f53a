/* Internal interface of lib/expr: the evaluator's value type, matrix
 * operations (expr_ops.c) and built-in functions (expr_fn.c). */
#ifndef JG_EXPR_IMPL_H
#define JG_EXPR_IMPL_H
#include <stdint.h>
#include "jacgraph/expr.h"

/* A value during evaluation.  Most values are scalars: a 1x1 number keeps its
 * element in s (x == NULL), so "2*pi/3" never allocates.  Row-major like
 * jg_expr_value_t. */
typedef struct jg__xv {
    jg_expr_kind_t kind;
    int64_t r, c;
    double *x;   /* heap elements, or NULL (then a 1x1 value is in s) */
    double s;
    char *str;   /* STR: c characters, NUL-terminated */
} jg__xv_t;

/* The evaluation's error sink: the first error wins. */
typedef struct jg__xerr {
    jg_expr_error_t *err;
    int failed;
    int nomem;
    int col;     /* column to blame when the reporter gives none */
    int64_t max_el;   /* elements of one matrix (jg_expr_limits_t; 0: the default) */
    double work;      /* multiply-adds left for the whole evaluation (jg__xwork) */
    const char *max_el_by;   /* what sets max_el, for the message (or NULL) */
} jg__xerr_t;

static inline double *jg__xv_data(jg__xv_t *v) { return v->x ? v->x : &v->s; }
static inline const double *jg__xv_cdata(const jg__xv_t *v) { return v->x ? v->x : &v->s; }
static inline int64_t jg__xv_numel(const jg__xv_t *v) { return v->r * v->c; }

/* Set the error (printf-style) unless one is set; returns -1. */
int jg__xerr(jg__xerr_t *E, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int jg__xnomem(jg__xerr_t *E);

/* The limits scripts run into ws evaluate under (zeros: the defaults). */
const jg_expr_limits_t *jg__expr_ws_limits(const jg_expr_ws_t *ws);
/* The evaluation state of limits lim (NULL: defaults) reporting into err. */
jg__xerr_t jg__xerr_init(jg_expr_error_t *err, const jg_expr_limits_t *lim);
/* Charge r * k * c multiply-adds of `what` to the evaluation: 0, or -1 with
 * the error set when the evaluation's work limit would be exceeded. */
int jg__xwork(jg__xerr_t *E, const char *what, int64_t r, int64_t k, int64_t c);

void jg__xv_free(jg__xv_t *v);                     /* leaves an empty 0x0 NUM */
/* v = uninitialized r x c NUM (v must be free); -1 on NOMEM (error set). */
int jg__xv_alloc(jg__xerr_t *E, jg__xv_t *v, int64_t r, int64_t c);
int jg__xv_zeros(jg__xerr_t *E, jg__xv_t *v, int64_t r, int64_t c);
void jg__xv_scalar(jg__xv_t *v, double x);
int jg__xv_copy(jg__xerr_t *E, jg__xv_t *dst, const jg__xv_t *src);
int jg__xv_str(jg__xerr_t *E, jg__xv_t *v, const char *s, size_t n);
/* Take over a public value (moved: *pub is left empty). */
void jg__xv_from_public(jg__xv_t *v, jg_expr_value_t *pub);
/* Move to a public value (v is left empty); -1 on NOMEM. */
int jg__xv_to_public(jg__xerr_t *E, jg__xv_t *v, jg_expr_value_t *pub);

/* The numeric scalar in v, or an error naming `what`. */
int jg__xv_get_scalar(jg__xerr_t *E, const jg__xv_t *v, const char *what, double *x);
/* A nonnegative integer (sizes, counts). */
int jg__xv_get_count(jg__xerr_t *E, const jg__xv_t *v, const char *what, int64_t *n);

/* ---- operations (expr_ops.c); results in *out (free), operands untouched ---- */
typedef enum {
    JG__OP_ADD, JG__OP_SUB, JG__OP_EMUL, JG__OP_EDIV, JG__OP_ELDIV, JG__OP_EPOW,
    JG__OP_LT, JG__OP_LE, JG__OP_GT, JG__OP_GE, JG__OP_EQ, JG__OP_NE, JG__OP_AND, JG__OP_OR,
    JG__OP_ATAN2, JG__OP_HYPOT, JG__OP_MOD, JG__OP_REM, JG__OP_MIN, JG__OP_MAX
} jg__xop_t;
/* Element-wise with MATLAB's implicit expansion (equal sizes or 1). */
int jg__x_elementwise(jg__xerr_t *E, jg__xop_t op, const jg__xv_t *a, const jg__xv_t *b,
                      jg__xv_t *out);
double jg__x_apply(jg__xop_t op, double a, double b);
int jg__x_mtimes(jg__xerr_t *E, const jg__xv_t *a, const jg__xv_t *b, jg__xv_t *out);
int jg__x_mrdivide(jg__xerr_t *E, const jg__xv_t *a, const jg__xv_t *b, jg__xv_t *out);
int jg__x_mldivide(jg__xerr_t *E, const jg__xv_t *a, const jg__xv_t *b, jg__xv_t *out);
int jg__x_mpower(jg__xerr_t *E, const jg__xv_t *a, const jg__xv_t *b, jg__xv_t *out);
int jg__x_transpose(jg__xerr_t *E, const jg__xv_t *a, jg__xv_t *out);
int jg__x_inv(jg__xerr_t *E, const jg__xv_t *a, jg__xv_t *out);
int jg__x_det(jg__xerr_t *E, const jg__xv_t *a, double *d);
/* Concatenate n values side by side (horiz) or stacked; empties skipped. */
int jg__x_concat(jg__xerr_t *E, jg__xv_t *parts, int64_t n, int horiz, jg__xv_t *out);

/* Index arguments: ':' (all) or a numeric value of 1-based indices. */
typedef struct jg__xidx {
    int all;
    jg__xv_t v;
} jg__xidx_t;
/* a(idx...) with nidx 1 (linear, column-major) or 2 (row, column); more
 * indices must be 1. */
int jg__x_index(jg__xerr_t *E, const jg__xv_t *a, jg__xidx_t *idx, int nidx, jg__xv_t *out);
/* a(idx...) = rhs, growing a as MATLAB does. */
int jg__x_assign(jg__xerr_t *E, jg__xv_t *a, jg__xidx_t *idx, int nidx, const jg__xv_t *rhs);

/* jg_expr_eval where `end` is the size of obj along dimension dim of ndim
 * (an index of an assignment target); obj NULL: as jg_expr_eval. */
jg_status_t jg__expr_eval_index(const char *src, jg_expr_lookup_fn lookup, void *ctx,
                                const jg__xv_t *obj, int dim, int ndim, jg_expr_value_t *out,
                                jg_expr_error_t *err);

/* ---- built-in functions (expr_fn.c) ---- */
typedef int (*jg__xfn_impl)(jg__xerr_t *E, jg__xv_t *a, int na, jg__xv_t *out);
typedef struct jg__xfn {
    const char *name;
    int min_args, max_args;
    jg__xfn_impl fn;
} jg__xfn_t;
const jg__xfn_t *jg__xfn_find(const char *name, size_t len);
/* pi, eps, inf, nan, true, false: 1 and *x, or 0. */
int jg__xconst_find(const char *name, size_t len, double *x);

#endif
