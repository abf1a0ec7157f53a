/* jacgraph/expr.h -- MATLAB-style expressions and workspaces.
 *
 * Block parameters of Simulink files and of our JSON models are MATLAB source
 * ("1/m", "[1 2*zeta*wn wn^2]", "ICs(2)") evaluated in a chain of workspaces
 * (mask parameters, model workspace, base workspace).  This module evaluates
 * one expression to a value and runs scripts of assignments into a workspace;
 * where a name is looked up is the caller's business (a callback), so the
 * same evaluator serves lib/compile, lib/import and the CLI.
 *
 * Values are real double matrices (MATLAB's logical results are 0/1 doubles)
 * or character strings ('text').  Matrices are stored ROW-MAJOR, like the
 * block parameters of lib/blocks (jg_value_t); MATLAB's linear indexing v(k)
 * still counts column by column, as in MATLAB.
 */
#ifndef JACGRAPH_EXPR_H
#define JACGRAPH_EXPR_H
#include "jacgraph/export.h"
#include <stddef.h>
#include <stdint.h>
#include "jacgraph/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { JG_EXPR_NUM = 0, JG_EXPR_STR = 1 } jg_expr_kind_t;

/* A value.  NUM: rows x cols doubles, row-major, in x (NULL when empty).
 * STR: a 1 x n character row; str is NUL-terminated (n = cols).  The value
 * owns x / str (malloc); release with jg_expr_value_clear. */
typedef struct jg_expr_value {
    jg_expr_kind_t kind;
    int64_t rows, cols;
    double *x;
    char *str;
} jg_expr_value_t;

JG_API void jg_expr_value_clear(jg_expr_value_t *v);        /* frees, leaves an empty NUM; NULL ok */
/* Deep copy; JG_NOMEM. */
JG_API jg_status_t jg_expr_value_copy(jg_expr_value_t *dst, const jg_expr_value_t *src);
/* A 1x1 NUM. */
JG_API jg_status_t jg_expr_value_scalar(jg_expr_value_t *v, double x);

/* Detail of a failed evaluation: message and the 1-based column in the
 * expression (0 when not tied to a column). */
typedef struct jg_expr_error {
    int column;
    char msg[256];
} jg_expr_error_t;

/* Name lookup: fill *out (caller-initialized to empty) with the value of
 * `name` and return 1; return 0 when the name is unknown here; return -1 on
 * an error of its own (message in *err; e.g. the variable's own expression
 * failed).  Called for every identifier that is not a function of the
 * evaluator's table or a constant (pi, eps, inf, nan, true, false, i/j not
 * supported).  A name the lookup knows shadows a built-in function, as in
 * MATLAB. */
typedef int (*jg_expr_lookup_fn)(void *ctx, const char *name, jg_expr_value_t *out,
                                 jg_expr_error_t *err);

/* Evaluate expression `src` under the default limits (jg_expr_eval_limits).
 * *out receives a new value (caller clears).
 * Errors: JG_PARAM with err->column and err->msg ("unexpected ')'",
 * "undefined variable 'Kp'", "index 4 exceeds 3 elements", "matrix
 * dimensions must agree: 2x3 and 3x3"); JG_NOMEM.  Cost: linear in the
 * length of src plus the arithmetic. */
JG_API jg_status_t jg_expr_eval(const char *src, jg_expr_lookup_fn lookup, void *ctx,
                                jg_expr_value_t *out, jg_expr_error_t *err);

/* Bounds of one evaluation, so that a short parameter cannot ask for gigabytes
 * or minutes: `elements` bounds every matrix it builds (zeros(n), ranges,
 * concatenations, results), `work` the total multiply-adds of the dense
 * products, solves, inverses and determinants over the whole expression
 * (a matrix power's repeated products included).  A field <= 0 takes the
 * default below.  Beyond a bound the evaluation fails with JG_PARAM saying
 * which bound. */
#define JG_EXPR_MAX_ELEMENTS ((int64_t)1 << 26)   /* 512 MiB of doubles */
#define JG_EXPR_MAX_WORK 268435456.0                /* 2^28: a 645x645 product, a fraction of a second */
typedef struct jg_expr_limits {
    int64_t elements;
    double work;
    const char *elements_by;   /* what sets `elements`, named in its message
                                  ("--max-elements"); NULL: nothing named */
} jg_expr_limits_t;

/* jg_expr_eval under the limits lim (NULL: the defaults). */
JG_API jg_status_t jg_expr_eval_limits(const char *src, const jg_expr_limits_t *lim,
                                       jg_expr_lookup_fn lookup, void *ctx, jg_expr_value_t *out,
                                       jg_expr_error_t *err);

/* 1 when src is nothing but one real number literal (after blanks):
 * "2", "-0.5e3", " 1 ".  Then *x is its value.  The fast path for the
 * numbers that most parameters are. */
JG_API int jg_expr_is_number(const char *src, double *x);

/* ---- workspaces ---- */

/* An ordered map name -> value (insertion order kept; setting an existing
 * name replaces its value in place). */
typedef struct jg_expr_ws jg_expr_ws_t;

JG_API jg_expr_ws_t *jg_expr_ws_create(void);                          /* NULL when out of memory */
JG_API void jg_expr_ws_free(jg_expr_ws_t *ws);                          /* NULL ok */
/* Set name = value (copied). JG_NOMEM. */
JG_API jg_status_t jg_expr_ws_set(jg_expr_ws_t *ws, const char *name, const jg_expr_value_t *v);
/* The value of name, or NULL (valid until the next jg_expr_ws_set of that name). */
JG_API const jg_expr_value_t *jg_expr_ws_get(const jg_expr_ws_t *ws, const char *name);
JG_API size_t jg_expr_ws_count(const jg_expr_ws_t *ws);
/* Scripts run into ws (jg_expr_ws_run) evaluate under lim (copied; NULL: the
 * defaults). */
JG_API void jg_expr_ws_set_limits(jg_expr_ws_t *ws, const jg_expr_limits_t *lim);
/* Entry k in insertion order (name and value), k < jg_expr_ws_count. */
JG_API const char *jg_expr_ws_name(const jg_expr_ws_t *ws, size_t k);
JG_API const jg_expr_value_t *jg_expr_ws_value(const jg_expr_ws_t *ws, size_t k);

/* A lookup callback over a workspace, falling back to `parent` (may be NULL)
 * when the name is not in ws.  ctx is a jg_expr_ws_chain_t. */
typedef struct jg_expr_ws_chain {
    const jg_expr_ws_t *ws;
    jg_expr_lookup_fn parent;
    void *parent_ctx;
} jg_expr_ws_chain_t;
JG_API int jg_expr_ws_lookup(void *chain, const char *name, jg_expr_value_t *out, jg_expr_error_t *err);

/* Warning callback of jg_expr_ws_run: `line` 1-based in the script. */
typedef void (*jg_expr_warn_fn)(void *ctx, const char *source, int line, const char *msg);

/* Run a MATLAB script of assignments into ws: statements separated by
 * newlines, ';' and ','; '%' comments (not inside strings) and '%{ ... %}'
 * blocks; '...' continues a line; "NAME = EXPR", "NAME(i) = EXPR" and
 * "NAME(i,j) = EXPR" (growing the matrix as MATLAB does).  Names read in an
 * expression are looked up in ws first, then through parent/parent_ctx.
 * A statement that is not an assignment (a function call, if/for/end
 * blocks, clear, disp...) or whose right-hand side fails to evaluate is
 * skipped with a warning naming the source, the line and the statement; a
 * control block (if/for/while/switch/try ... end) is skipped whole.  Returns
 * JG_OK (warnings are not errors), JG_NOMEM.  `source` names the script in
 * warnings ("data.m", "InitFcn of 'dcmotor'"). */
JG_API jg_status_t jg_expr_ws_run(jg_expr_ws_t *ws, const char *script, const char *source,
                             jg_expr_lookup_fn parent, void *parent_ctx, jg_expr_warn_fn warn,
                             void *warn_ctx);

#ifdef __cplusplus
}
#endif
#endif
