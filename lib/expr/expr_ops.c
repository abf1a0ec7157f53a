/* Matrix operations of the expression evaluator: MATLAB's element-wise rules
 * with implicit expansion, matrix products, divisions and powers,
 * concatenation, indexing and indexed assignment (row-major storage,
 * column-major linear indices). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "expr_impl.h"
#include "../core/dense.h"

int jg__xerr(jg__xerr_t *E, const char *fmt, ...)
{
    if (E->failed) return -1;
    E->failed = 1;
    if (E->err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(E->err->msg, sizeof E->err->msg, fmt, ap);
        va_end(ap);
        E->err->column = E->col;
    }
    return -1;
}

int jg__xnomem(jg__xerr_t *E)
{
    if (!E->failed) E->nomem = 1;
    return jg__xerr(E, "out of memory");
}

void jg__xv_free(jg__xv_t *v)
{
    if (!v) return;
    free(v->x);
    free(v->str);
    memset(v, 0, sizeof *v);
}

jg__xerr_t jg__xerr_init(jg_expr_error_t *err, const jg_expr_limits_t *lim)
{
    jg__xerr_t E = {.err = err, .max_el = JG_EXPR_MAX_ELEMENTS, .work = JG_EXPR_MAX_WORK};
    if (lim && lim->elements > 0) E.max_el = lim->elements;
    if (lim && lim->work > 0) E.work = lim->work;
    if (lim) E.max_el_by = lim->elements_by;
    return E;
}

int jg__xv_alloc(jg__xerr_t *E, jg__xv_t *v, int64_t r, int64_t c)
{
    memset(v, 0, sizeof *v);
    int64_t lim = E->max_el > 0 ? E->max_el : JG_EXPR_MAX_ELEMENTS;
    if (r < 0 || c < 0 || (c && r > INT64_MAX / 8 / c) || r * c > lim)
        return jg__xerr(E, "matrix of %lldx%lld elements is too large (at most %lld elements%s%s)",
                        (long long)r, (long long)c, (long long)lim, E->max_el_by ? ", " : "",
                        E->max_el_by ? E->max_el_by : "");
    v->r = r;
    v->c = c;
    if (r * c > 1) {
        v->x = malloc(sizeof(double) * (size_t)(r * c));
        if (!v->x) {
            v->r = v->c = 0;
            return jg__xnomem(E);
        }
    }
    return 0;
}

int jg__xv_zeros(jg__xerr_t *E, jg__xv_t *v, int64_t r, int64_t c)
{
    if (jg__xv_alloc(E, v, r, c)) return -1;
    double *d = jg__xv_data(v);
    for (int64_t k = 0; k < r * c; k++) d[k] = 0;
    return 0;
}

void jg__xv_scalar(jg__xv_t *v, double x)
{
    memset(v, 0, sizeof *v);
    v->r = v->c = 1;
    v->s = x;
}

int jg__xv_copy(jg__xerr_t *E, jg__xv_t *dst, const jg__xv_t *src)
{
    if (src->kind == JG_EXPR_STR) return jg__xv_str(E, dst, src->str, (size_t)src->c);
    if (jg__xv_alloc(E, dst, src->r, src->c)) return -1;
    if (src->r * src->c > 0)
        memcpy(jg__xv_data(dst), jg__xv_cdata(src), sizeof(double) * (size_t)(src->r * src->c));
    return 0;
}

int jg__xv_str(jg__xerr_t *E, jg__xv_t *v, const char *s, size_t n)
{
    memset(v, 0, sizeof *v);
    v->str = malloc(n + 1);
    if (!v->str) return jg__xnomem(E);
    if (n) memcpy(v->str, s, n);
    v->str[n] = '\0';
    v->kind = JG_EXPR_STR;
    v->r = n ? 1 : 0;
    v->c = (int64_t)n;
    return 0;
}

void jg__xv_from_public(jg__xv_t *v, jg_expr_value_t *pub)
{
    memset(v, 0, sizeof *v);
    v->kind = pub->kind;
    if (pub->kind == JG_EXPR_STR) {
        v->str = pub->str;
        v->c = pub->str ? (int64_t)strlen(pub->str) : 0;
        v->r = v->c ? 1 : 0;
        if (!v->str) v->kind = JG_EXPR_NUM;   /* a malformed value: treat as empty */
        free(pub->x);
    } else {
        v->r = pub->rows;
        v->c = pub->cols;
        if (v->r < 0 || v->c < 0 || (v->r * v->c > 0 && !pub->x)) v->r = v->c = 0;
        if (v->r * v->c == 1) {
            v->s = pub->x[0];
            free(pub->x);
        } else if (v->r * v->c > 1) {
            v->x = pub->x;
        } else {
            free(pub->x);
        }
        free(pub->str);
    }
    memset(pub, 0, sizeof *pub);
}

int jg__xv_to_public(jg__xerr_t *E, jg__xv_t *v, jg_expr_value_t *pub)
{
    memset(pub, 0, sizeof *pub);
    pub->kind = v->kind;
    pub->rows = v->r;
    pub->cols = v->c;
    if (v->kind == JG_EXPR_STR) {
        pub->rows = 1;
        pub->str = v->str;
        v->str = NULL;
    } else if (v->x) {
        pub->x = v->x;
        v->x = NULL;
    } else if (v->r * v->c == 1) {
        pub->x = malloc(sizeof(double));
        if (!pub->x) {
            pub->rows = pub->cols = 0;
            jg__xv_free(v);
            return jg__xnomem(E);
        }
        pub->x[0] = v->s;
    }
    jg__xv_free(v);
    return 0;
}

int jg__xv_get_scalar(jg__xerr_t *E, const jg__xv_t *v, const char *what, double *x)
{
    if (v->kind != JG_EXPR_NUM || v->r * v->c != 1)
        return jg__xerr(E, "%s must be a numeric scalar, got %s %lldx%lld", what,
                        v->kind == JG_EXPR_STR ? "a string" : "a matrix", (long long)v->r,
                        (long long)v->c);
    *x = jg__xv_cdata(v)[0];
    return 0;
}

int jg__xv_get_count(jg__xerr_t *E, const jg__xv_t *v, const char *what, int64_t *n)
{
    double x;
    if (jg__xv_get_scalar(E, v, what, &x)) return -1;
    if (isnan(x)) return jg__xerr(E, "%s is NaN", what);
    if (x < 0) x = 0;   /* MATLAB: zeros(-1) is empty */
    if (x > 1e9 || x != floor(x)) return jg__xerr(E, "%s must be an integer, got %g", what, x);
    *n = (int64_t)x;
    return 0;
}

static int need_num(jg__xerr_t *E, const jg__xv_t *a, const jg__xv_t *b)
{
    if (a->kind == JG_EXPR_STR || (b && b->kind == JG_EXPR_STR))
        return jg__xerr(E, "arithmetic on strings is not supported");
    return 0;
}

double jg__x_apply(jg__xop_t op, double a, double b)
{
    switch (op) {
    case JG__OP_ADD: return a + b;
    case JG__OP_SUB: return a - b;
    case JG__OP_EMUL: return a * b;
    case JG__OP_EDIV: return a / b;
    case JG__OP_ELDIV: return b / a;
    case JG__OP_EPOW: return pow(a, b);
    case JG__OP_LT: return a < b;
    case JG__OP_LE: return a <= b;
    case JG__OP_GT: return a > b;
    case JG__OP_GE: return a >= b;
    case JG__OP_EQ: return a == b;
    case JG__OP_NE: return a != b;
    case JG__OP_AND: return a != 0 && b != 0;
    case JG__OP_OR: return a != 0 || b != 0;
    case JG__OP_ATAN2: return atan2(a, b);
    case JG__OP_HYPOT: return hypot(a, b);
    case JG__OP_MOD: {   /* MATLAB: sign of the divisor, mod(x,0) = x */
        if (b == 0) return a;
        double r = fmod(a, b);
        if (r != 0 && ((r < 0) != (b < 0))) r += b;
        return r;
    }
    case JG__OP_REM: return b == 0 ? a : fmod(a, b);
    case JG__OP_MIN: return isnan(a) ? b : isnan(b) ? a : fmin(a, b);   /* NaN ignored */
    case JG__OP_MAX: return isnan(a) ? b : isnan(b) ? a : fmax(a, b);
    }
    return NAN;
}

/* A string as its character codes (for == and ~=, as MATLAB compares). */
static int codes(jg__xerr_t *E, const jg__xv_t *s, jg__xv_t *out)
{
    if (jg__xv_alloc(E, out, s->c ? 1 : 0, s->c)) return -1;
    for (int64_t k = 0; k < s->c; k++) jg__xv_data(out)[k] = (unsigned char)s->str[k];
    return 0;
}

int jg__x_elementwise(jg__xerr_t *E, jg__xop_t op, const jg__xv_t *a, const jg__xv_t *b,
                      jg__xv_t *out)
{
    if ((op == JG__OP_EQ || op == JG__OP_NE) &&
        (a->kind == JG_EXPR_STR || b->kind == JG_EXPR_STR)) {
        jg__xv_t ca = {0}, cb = {0};
        int rc = (a->kind == JG_EXPR_STR ? codes(E, a, &ca) : jg__xv_copy(E, &ca, a)) ||
                 (b->kind == JG_EXPR_STR ? codes(E, b, &cb) : jg__xv_copy(E, &cb, b)) ||
                 jg__x_elementwise(E, op, &ca, &cb, out);
        jg__xv_free(&ca);
        jg__xv_free(&cb);
        return rc ? -1 : 0;
    }
    if (need_num(E, a, b)) return -1;
    int64_t r, c;
    if (a->r == b->r || a->r == 1 || b->r == 1) r = a->r == 1 ? b->r : a->r;
    else goto mismatch;
    if (a->c == b->c || a->c == 1 || b->c == 1) c = a->c == 1 ? b->c : a->c;
    else goto mismatch;
    if (jg__xv_alloc(E, out, r, c)) return -1;
    const double *x = jg__xv_cdata(a), *y = jg__xv_cdata(b);
    double *z = jg__xv_data(out);
    if (a->r * a->c == 1 && b->r * b->c == r * c) {
        for (int64_t k = 0; k < r * c; k++) z[k] = jg__x_apply(op, x[0], y[k]);
    } else if (b->r * b->c == 1 && a->r * a->c == r * c) {
        for (int64_t k = 0; k < r * c; k++) z[k] = jg__x_apply(op, x[k], y[0]);
    } else {
        for (int64_t i = 0; i < r; i++)
            for (int64_t j = 0; j < c; j++)
                z[i * c + j] = jg__x_apply(op, x[(a->r == 1 ? 0 : i) * a->c + (a->c == 1 ? 0 : j)],
                                           y[(b->r == 1 ? 0 : i) * b->c + (b->c == 1 ? 0 : j)]);
    }
    return 0;
mismatch:
    return jg__xerr(E, "matrix dimensions must agree: %lldx%lld and %lldx%lld", (long long)a->r,
                    (long long)a->c, (long long)b->r, (long long)b->c);
}

/* The work of a dense product or factorization, r * k * c multiply-adds,
 * charged to the whole evaluation (2^28 by default: a fraction of a second):
 * zeros(8000) * zeros(8000) fits the element limit of jg__xv_alloc but would
 * run for many minutes, and so would ones(448)^1e9 in 448^3-sized steps; no
 * parameter is near. */
int jg__xwork(jg__xerr_t *E, const char *what, int64_t r, int64_t k, int64_t c)
{
    const double w = (double)r * (double)k * (double)c;
    if (w <= E->work) {
        E->work -= w;
        return 0;
    }
    return jg__xerr(E, "%s of this size needs %.3g multiply-adds, more than the %.3g left of the "
                    "limit of one evaluation", what, w, E->work);
}

int jg__x_mtimes(jg__xerr_t *E, const jg__xv_t *a, const jg__xv_t *b, jg__xv_t *out)
{
    if (need_num(E, a, b)) return -1;
    if (a->r * a->c == 1 || b->r * b->c == 1) return jg__x_elementwise(E, JG__OP_EMUL, a, b, out);
    if (a->c != b->r)
        return jg__xerr(E, "inner matrix dimensions must agree: %lldx%lld * %lldx%lld",
                        (long long)a->r, (long long)a->c, (long long)b->r, (long long)b->c);
    if (jg__xwork(E, "a matrix product", a->r, a->c, b->c)) return -1;
    if (jg__xv_alloc(E, out, a->r, b->c)) return -1;
    const double *x = jg__xv_cdata(a), *y = jg__xv_cdata(b);
    double *z = jg__xv_data(out);
    for (int64_t i = 0; i < a->r; i++)
        for (int64_t j = 0; j < b->c; j++) {
            double s = 0;
            for (int64_t k = 0; k < a->c; k++) s += x[i * a->c + k] * y[k * b->c + j];
            z[i * b->c + j] = s;
        }
    return 0;
}

/* Column-major copy of a row-major matrix (or back: the same transposition). */
static double *colmajor(const double *x, int64_t r, int64_t c)
{
    double *y = malloc(sizeof(double) * (size_t)(r * c > 0 ? r * c : 1));
    if (!y) return NULL;
    for (int64_t i = 0; i < r; i++)
        for (int64_t j = 0; j < c; j++) y[j * r + i] = x[i * c + j];
    return y;
}

/* A \ B for square A (n x n) and B (n x m). */
int jg__x_mldivide(jg__xerr_t *E, const jg__xv_t *a, const jg__xv_t *b, jg__xv_t *out)
{
    if (need_num(E, a, b)) return -1;
    if (a->r * a->c == 1) return jg__x_elementwise(E, JG__OP_ELDIV, a, b, out);
    if (a->r != a->c)
        return jg__xerr(E, "left division needs a square matrix, got %lldx%lld (least squares "
                        "is not supported)", (long long)a->r, (long long)a->c);
    if (b->r != a->r)
        return jg__xerr(E, "matrix dimensions must agree: %lldx%lld \\ %lldx%lld",
                        (long long)a->r, (long long)a->c, (long long)b->r, (long long)b->c);
    int64_t n = a->r, m = b->c;
    if (jg__xwork(E, "left division", n, n, n + m)) return -1;
    double *A = colmajor(jg__xv_cdata(a), n, n), *B = colmajor(jg__xv_cdata(b), n, m);
    int rc = -1;
    if (!A || !B) {
        jg__xnomem(E);
        goto done;
    }
    if (n && jg__dense_solve(n, A, m, B)) {
        jg__xerr(E, "matrix is singular to working precision");
        goto done;
    }
    if (jg__xv_alloc(E, out, n, m)) goto done;
    double *z = jg__xv_data(out);
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < m; j++) z[i * m + j] = B[j * n + i];
    rc = 0;
done:
    free(A);
    free(B);
    return rc;
}

int jg__x_transpose(jg__xerr_t *E, const jg__xv_t *a, jg__xv_t *out)
{
    if (a->kind == JG_EXPR_STR) {
        if (a->c > 1) return jg__xerr(E, "transposing a string is not supported");
        return jg__xv_copy(E, out, a);
    }
    if (jg__xv_alloc(E, out, a->c, a->r)) return -1;
    const double *x = jg__xv_cdata(a);
    double *z = jg__xv_data(out);
    for (int64_t i = 0; i < a->r; i++)
        for (int64_t j = 0; j < a->c; j++) z[j * a->r + i] = x[i * a->c + j];
    return 0;
}

/* A / B = (B' \ A')' */
int jg__x_mrdivide(jg__xerr_t *E, const jg__xv_t *a, const jg__xv_t *b, jg__xv_t *out)
{
    if (need_num(E, a, b)) return -1;
    if (b->r * b->c == 1) return jg__x_elementwise(E, JG__OP_EDIV, a, b, out);
    if (b->c != a->c)
        return jg__xerr(E, "matrix dimensions must agree: %lldx%lld / %lldx%lld", (long long)a->r,
                        (long long)a->c, (long long)b->r, (long long)b->c);
    jg__xv_t at = {0}, bt = {0}, xt = {0};
    int rc = -1;
    if (jg__x_transpose(E, a, &at) || jg__x_transpose(E, b, &bt) ||
        jg__x_mldivide(E, &bt, &at, &xt) || jg__x_transpose(E, &xt, out))
        goto done;
    rc = 0;
done:
    jg__xv_free(&at);
    jg__xv_free(&bt);
    jg__xv_free(&xt);
    return rc;
}

int jg__x_inv(jg__xerr_t *E, const jg__xv_t *a, jg__xv_t *out)
{
    if (need_num(E, a, NULL)) return -1;
    if (a->r != a->c) return jg__xerr(E, "inv needs a square matrix, got %lldx%lld",
                                      (long long)a->r, (long long)a->c);
    int64_t n = a->r;
    if (jg__xwork(E, "inv", n, n, n)) return -1;
    double *A = colmajor(jg__xv_cdata(a), n, n);
    if (!A) return jg__xnomem(E);
    if (n && jg__dense_inverse(n, A)) {
        free(A);
        return jg__xerr(E, "matrix is singular to working precision");
    }
    int rc = jg__xv_alloc(E, out, n, n);
    if (!rc)
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < n; j++) jg__xv_data(out)[i * n + j] = A[j * n + i];
    free(A);
    return rc;
}

/* Gaussian elimination with partial pivoting (exact zero pivots give 0). */
int jg__x_det(jg__xerr_t *E, const jg__xv_t *a, double *d)
{
    if (need_num(E, a, NULL)) return -1;
    if (a->r != a->c) return jg__xerr(E, "det needs a square matrix, got %lldx%lld",
                                      (long long)a->r, (long long)a->c);
    int64_t n = a->r;
    if (jg__xwork(E, "det", n, n, n)) return -1;
    double *A = malloc(sizeof(double) * (size_t)(n * n + 1));
    if (!A) return jg__xnomem(E);
    if (n) memcpy(A, jg__xv_cdata(a), sizeof(double) * (size_t)(n * n));
    double det = 1;
    for (int64_t k = 0; k < n; k++) {
        int64_t p = k;
        for (int64_t i = k + 1; i < n; i++)
            if (fabs(A[i * n + k]) > fabs(A[p * n + k])) p = i;
        if (A[p * n + k] == 0) {
            det = 0;
            break;
        }
        if (p != k) {
            for (int64_t j = 0; j < n; j++) {
                double t = A[k * n + j];
                A[k * n + j] = A[p * n + j];
                A[p * n + j] = t;
            }
            det = -det;
        }
        det *= A[k * n + k];
        for (int64_t i = k + 1; i < n; i++) {
            double f = A[i * n + k] / A[k * n + k];
            for (int64_t j = k; j < n; j++) A[i * n + j] -= f * A[k * n + j];
        }
    }
    free(A);
    *d = det;
    return 0;
}

int jg__x_mpower(jg__xerr_t *E, const jg__xv_t *a, const jg__xv_t *b, jg__xv_t *out)
{
    if (need_num(E, a, b)) return -1;
    if (a->r * a->c == 1 && b->r * b->c == 1) {
        jg__xv_scalar(out, pow(jg__xv_cdata(a)[0], jg__xv_cdata(b)[0]));
        return 0;
    }
    if (b->r * b->c != 1)
        return jg__xerr(E, "matrix power needs a scalar exponent (use .^ for element-wise)");
    if (a->r != a->c)
        return jg__xerr(E, "matrix power needs a square matrix, got %lldx%lld (use .^ for "
                        "element-wise)", (long long)a->r, (long long)a->c);
    double p = jg__xv_cdata(b)[0];
    if (p != floor(p) || fabs(p) > 1e9)
        return jg__xerr(E, "matrix power needs an integer exponent, got %g", p);
    jg__xv_t base = {0}, acc = {0}, t = {0};
    int rc = -1;
    if (p < 0 ? jg__x_inv(E, a, &base) : jg__xv_copy(E, &base, a)) goto done;
    int64_t n = a->r;
    long long e = (long long)fabs(p);
    if (jg__xv_zeros(E, &acc, n, n)) goto done;
    for (int64_t i = 0; i < n; i++) jg__xv_data(&acc)[i * n + i] = 1;
    while (e) {   /* repeated squaring */
        if (e & 1) {
            if (jg__x_mtimes(E, &acc, &base, &t)) goto done;
            jg__xv_free(&acc);
            acc = t;
            memset(&t, 0, sizeof t);
        }
        e >>= 1;
        if (e) {
            if (jg__x_mtimes(E, &base, &base, &t)) goto done;
            jg__xv_free(&base);
            base = t;
            memset(&t, 0, sizeof t);
        }
    }
    *out = acc;
    memset(&acc, 0, sizeof acc);
    rc = 0;
done:
    jg__xv_free(&base);
    jg__xv_free(&acc);
    jg__xv_free(&t);
    return rc;
}

int jg__x_concat(jg__xerr_t *E, jg__xv_t *parts, int64_t n, int horiz, jg__xv_t *out)
{
    int64_t r = 0, c = 0, nstr = 0, nonempty = 0;
    for (int64_t k = 0; k < n; k++) {
        const jg__xv_t *p = &parts[k];
        if (p->kind == JG_EXPR_STR) nstr++;
        if (p->r * p->c == 0) continue;
        if (!nonempty++) {
            r = p->r;
            c = p->c;
        } else if (horiz) {
            if (p->r != r)
                return jg__xerr(E, "dimensions of matrices being concatenated are not consistent: "
                                "%lld rows and %lld rows side by side", (long long)r, (long long)p->r);
            c += p->c;
        } else {
            if (p->c != c)
                return jg__xerr(E, "dimensions of matrices being concatenated are not consistent: "
                                "%lld columns and %lld columns stacked", (long long)c, (long long)p->c);
            r += p->r;
        }
    }
    if (nstr) {   /* strings concatenate side by side only */
        if (nstr != n || (!horiz && nonempty > 1))
            return jg__xerr(E, "concatenating strings with numbers or stacking strings is not "
                            "supported");
        size_t len = 0;
        for (int64_t k = 0; k < n; k++) len += (size_t)parts[k].c;
        memset(out, 0, sizeof *out);
        char *s = malloc(len + 1);
        if (!s) return jg__xnomem(E);
        len = 0;
        for (int64_t k = 0; k < n; k++) {
            memcpy(s + len, parts[k].str, (size_t)parts[k].c);
            len += (size_t)parts[k].c;
        }
        s[len] = 0;
        out->kind = JG_EXPR_STR;
        out->str = s;
        out->r = len ? 1 : 0;
        out->c = (int64_t)len;
        return 0;
    }
    if (nonempty == 1) {   /* the common case [x]: no copy through the loop below */
        for (int64_t k = 0; k < n; k++)
            if (parts[k].r * parts[k].c > 0) {
                *out = parts[k];
                memset(&parts[k], 0, sizeof parts[k]);
                return 0;
            }
    }
    if (jg__xv_alloc(E, out, r, c)) return -1;
    double *z = jg__xv_data(out);
    int64_t off = 0;
    for (int64_t k = 0; k < n; k++) {
        const jg__xv_t *p = &parts[k];
        const double *x = jg__xv_cdata(p);
        if (p->r * p->c == 0) continue;
        for (int64_t i = 0; i < p->r; i++)
            for (int64_t j = 0; j < p->c; j++) {
                if (horiz) z[i * c + off + j] = x[i * p->c + j];
                else z[(off + i) * c + j] = x[i * p->c + j];
            }
        off += horiz ? p->c : p->r;
    }
    return 0;
}

/* ---- indexing ---- */

/* The k-th index (column-major order, as MATLAB counts) as a validated
 * 1-based integer; 0-based in *i. */
static int index_at(jg__xerr_t *E, const jg__xidx_t *ix, int64_t k, int64_t *i)
{
    double v = jg__xv_cdata(&ix->v)[(k % ix->v.r) * ix->v.c + k / ix->v.r];
    if (!(v >= 1) || v != floor(v) || v > 4e18)
        return jg__xerr(E, "index must be a positive integer, got %g", v);
    *i = (int64_t)v - 1;
    return 0;
}

static int64_t idx_count(const jg__xidx_t *ix, int64_t dim)
{
    return ix->all ? dim : jg__xv_numel(&ix->v);
}

static int check_idx_num(jg__xerr_t *E, const jg__xidx_t *ix)
{
    if (!ix->all && ix->v.kind != JG_EXPR_NUM) return jg__xerr(E, "an index must be numeric");
    return 0;
}

int jg__x_index(jg__xerr_t *E, const jg__xv_t *a, jg__xidx_t *idx, int nidx, jg__xv_t *out)
{
    for (int k = 0; k < nidx; k++)
        if (check_idx_num(E, &idx[k])) return -1;
    for (int k = 2; k < nidx; k++) {   /* trailing dimensions of a 2-D value */
        int64_t n = idx_count(&idx[k], 1);
        for (int64_t q = 0; q < n && !idx[k].all; q++) {
            int64_t i;
            if (index_at(E, &idx[k], q, &i)) return -1;
            if (i != 0) return jg__xerr(E, "index %lld exceeds dimension %d of size 1",
                                        (long long)i + 1, k + 1);
        }
    }
    int isstr = a->kind == JG_EXPR_STR;
    const double *x = isstr ? NULL : jg__xv_cdata(a);
    int64_t r, c, numel = a->r * a->c;
    if (nidx == 0) return jg__xv_copy(E, out, a);
    if (nidx == 1) {
        const jg__xidx_t *ix = &idx[0];
        int64_t n = idx_count(ix, numel);
        if (ix->all) {
            r = n;
            c = 1;
        } else if ((a->r == 1 || a->c == 1) && numel >= 1 && (ix->v.r == 1 || ix->v.c == 1)) {
            r = a->r == 1 ? 1 : n;   /* a vector indexed by a vector keeps its orientation */
            c = a->r == 1 ? n : 1;
        } else {
            r = ix->v.r;
            c = ix->v.c;
        }
        if (isstr) {
            memset(out, 0, sizeof *out);
            char *s = malloc((size_t)n + 1);
            if (!s) return jg__xnomem(E);
            for (int64_t q = 0; q < n; q++) {
                int64_t i = q;
                if (!ix->all && index_at(E, ix, q, &i)) {
                    free(s);
                    return -1;
                }
                if (i >= numel) {
                    free(s);
                    return jg__xerr(E, "index %lld exceeds %lld elements", (long long)i + 1,
                                    (long long)numel);
                }
                s[q] = a->str[i];
            }
            s[n] = 0;
            out->kind = JG_EXPR_STR;
            out->str = s;
            out->r = n ? 1 : 0;
            out->c = n;
            return 0;
        }
        if (jg__xv_alloc(E, out, r, c)) return -1;
        double *z = jg__xv_data(out);
        for (int64_t q = 0; q < n; q++) {
            int64_t i = q;
            if (!ix->all && index_at(E, ix, q, &i)) goto fail;
            if (i >= numel) {
                jg__xerr(E, "index %lld exceeds %lld elements", (long long)i + 1, (long long)numel);
                goto fail;
            }
            int64_t ri = i % a->r, ci = i / a->r;   /* column-major linear index */
            /* z is filled in column-major order of its own shape */
            int64_t zr = q % r, zc = q / r;
            z[zr * c + zc] = x[ri * a->c + ci];
        }
        return 0;
    }
    if (isstr) return jg__xerr(E, "two-dimensional indexing of a string is not supported");
    r = idx_count(&idx[0], a->r);
    c = idx_count(&idx[1], a->c);
    if (jg__xv_alloc(E, out, r, c)) return -1;
    double *z = jg__xv_data(out);
    for (int64_t p = 0; p < r; p++) {
        int64_t i = p;
        if (!idx[0].all && index_at(E, &idx[0], p, &i)) goto fail;
        if (i >= a->r) {
            jg__xerr(E, "row index %lld exceeds %lld rows", (long long)i + 1, (long long)a->r);
            goto fail;
        }
        for (int64_t q = 0; q < c; q++) {
            int64_t j = q;
            if (!idx[1].all && index_at(E, &idx[1], q, &j)) goto fail;
            if (j >= a->c) {
                jg__xerr(E, "column index %lld exceeds %lld columns", (long long)j + 1,
                         (long long)a->c);
                goto fail;
            }
            z[p * c + q] = x[i * a->c + j];
        }
    }
    return 0;
fail:
    jg__xv_free(out);
    return -1;
}

/* Grow a (NUM) to nr x nc, zero-filled, keeping its elements in place. */
static int grow(jg__xerr_t *E, jg__xv_t *a, int64_t nr, int64_t nc)
{
    if (nr <= a->r && nc <= a->c) return 0;
    if (nr < a->r) nr = a->r;
    if (nc < a->c) nc = a->c;
    jg__xv_t g;
    if (jg__xv_zeros(E, &g, nr, nc)) return -1;
    const double *x = jg__xv_cdata(a);
    double *z = jg__xv_data(&g);
    for (int64_t i = 0; i < a->r; i++)
        for (int64_t j = 0; j < a->c; j++) z[i * nc + j] = x[i * a->c + j];
    jg__xv_free(a);
    *a = g;
    return 0;
}

int jg__x_assign(jg__xerr_t *E, jg__xv_t *a, jg__xidx_t *idx, int nidx, const jg__xv_t *rhs)
{
    if (a->kind == JG_EXPR_STR || rhs->kind == JG_EXPR_STR)
        return jg__xerr(E, "indexed assignment of strings is not supported");
    if (nidx < 1 || nidx > 2) return jg__xerr(E, "indexed assignment takes 1 or 2 indices");
    for (int k = 0; k < nidx; k++)
        if (check_idx_num(E, &idx[k])) return -1;
    int64_t nrhs = jg__xv_numel(rhs);
    const double *y = jg__xv_cdata(rhs);
    if (nidx == 1) {
        jg__xidx_t *ix = &idx[0];
        int64_t numel = jg__xv_numel(a), n = ix->all ? numel : jg__xv_numel(&ix->v), top = 0;
        if (nrhs != 1 && nrhs != n)
            return jg__xerr(E, "assignment of %lld elements to %lld indexed elements",
                            (long long)nrhs, (long long)n);
        for (int64_t q = 0; q < n && !ix->all; q++) {
            int64_t i;
            if (index_at(E, ix, q, &i)) return -1;
            if (i + 1 > top) top = i + 1;
        }
        if (top > numel) {   /* grows a vector (a row when empty) */
            if (numel == 0 || a->r == 1) {
                if (grow(E, a, 1, top)) return -1;
            } else if (a->c == 1) {
                if (grow(E, a, top, 1)) return -1;
            } else {
                return jg__xerr(E, "linear index %lld is out of bounds of a %lldx%lld matrix; "
                                "use A(i,j) to grow a matrix", (long long)top, (long long)a->r,
                                (long long)a->c);
            }
        }
        double *z = jg__xv_data(a);
        for (int64_t q = 0; q < n; q++) {
            int64_t i = q;
            if (!ix->all) index_at(E, ix, q, &i);
            z[(i % a->r) * a->c + i / a->r] = y[nrhs == 1 ? 0 : (q % rhs->r) * rhs->c + q / rhs->r];
        }
        return 0;
    }
    int64_t nr = idx[0].all ? a->r : jg__xv_numel(&idx[0].v);
    int64_t nc = idx[1].all ? a->c : jg__xv_numel(&idx[1].v);
    /* A(:,j) = v on an empty A takes its extent from v */
    if (idx[0].all && a->r == 0) nr = nrhs == 1 ? 1 : (idx[1].all ? rhs->r : nrhs / (nc ? nc : 1));
    if (idx[1].all && a->c == 0) nc = nrhs == 1 ? 1 : nrhs / (nr ? nr : 1);
    if (nrhs != 1 && nrhs != nr * nc)
        return jg__xerr(E, "assignment of %lld elements to a %lldx%lld block", (long long)nrhs,
                        (long long)nr, (long long)nc);
    int64_t top_r = idx[0].all ? nr : 0, top_c = idx[1].all ? nc : 0;
    for (int64_t p = 0; p < nr && !idx[0].all; p++) {
        int64_t i;
        if (index_at(E, &idx[0], p, &i)) return -1;
        if (i + 1 > top_r) top_r = i + 1;
    }
    for (int64_t q = 0; q < nc && !idx[1].all; q++) {
        int64_t j;
        if (index_at(E, &idx[1], q, &j)) return -1;
        if (j + 1 > top_c) top_c = j + 1;
    }
    if (grow(E, a, top_r, top_c)) return -1;
    double *z = jg__xv_data(a);
    /* the right-hand side fills the block in column-major order */
    for (int64_t q = 0; q < nc; q++)
        for (int64_t p = 0; p < nr; p++) {
            int64_t i = p, j = q;
            if (!idx[0].all) index_at(E, &idx[0], p, &i);
            if (!idx[1].all) index_at(E, &idx[1], q, &j);
            int64_t k = q * nr + p;
            z[i * a->c + j] = y[nrhs == 1 ? 0 : (k % rhs->r) * rhs->c + k / rhs->r];
        }
    return 0;
}
