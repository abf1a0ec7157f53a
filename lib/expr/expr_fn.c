/* The built-in functions and constants of the expression evaluator (MATLAB
 * semantics for real matrices: reductions run along a vector, or down the
 * columns of a matrix). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <lapacke.h>
#include "expr_impl.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static int num_arg(jg__xerr_t *E, const jg__xv_t *a, const char *fn)
{
    if (a->kind != JG_EXPR_NUM) return jg__xerr(E, "%s: a string argument is not supported", fn);
    return 0;
}

/* ---- element-wise functions of one argument ---- */

static double fix(double x) { return x < 0 ? ceil(x) : floor(x); }
static double sign(double x) { return x > 0 ? 1 : x < 0 ? -1 : x == 0 ? 0 : x; }
static double ident(double x) { return x; }
static double round_away(double x) { return round(x); }   /* C round: halves away from 0, as MATLAB */
static double notzero(double x) { return x != 0; }
static double deg2rad(double x) { return x * (M_PI / 180); }
static double rad2deg(double x) { return x * (180 / M_PI); }

static int map1(jg__xerr_t *E, const jg__xv_t *a, jg__xv_t *out, double (*f)(double),
                const char *name)
{
    if (num_arg(E, a, name) || jg__xv_alloc(E, out, a->r, a->c)) return -1;
    const double *x = jg__xv_cdata(a);
    double *z = jg__xv_data(out);
    for (int64_t k = 0; k < a->r * a->c; k++) z[k] = f(x[k]);
    return 0;
}

#define MAP1(NAME, F) \
    static int fn_##NAME(jg__xerr_t *E, jg__xv_t *a, int na, jg__xv_t *out) \
    { (void)na; return map1(E, &a[0], out, F, #NAME); }
MAP1(sqrt, sqrt)
MAP1(exp, exp)
MAP1(log, log)
MAP1(log10, log10)
MAP1(log2, log2)
MAP1(abs, fabs)
MAP1(sin, sin)
MAP1(cos, cos)
MAP1(tan, tan)
MAP1(asin, asin)
MAP1(acos, acos)
MAP1(atan, atan)
MAP1(sinh, sinh)
MAP1(cosh, cosh)
MAP1(tanh, tanh)
MAP1(floor, floor)
MAP1(ceil, ceil)
MAP1(round, round_away)
MAP1(fix, fix)
MAP1(sign, sign)
MAP1(real, ident)
MAP1(double, ident)
MAP1(logical, notzero)
MAP1(deg2rad, deg2rad)
MAP1(rad2deg, rad2deg)

#define MAP2(NAME, OP) \
    static int fn_##NAME(jg__xerr_t *E, jg__xv_t *a, int na, jg__xv_t *out) \
    { (void)na; return jg__x_elementwise(E, OP, &a[0], &a[1], out); }
MAP2(atan2, JG__OP_ATAN2)
MAP2(hypot, JG__OP_HYPOT)
MAP2(mod, JG__OP_MOD)
MAP2(rem, JG__OP_REM)
MAP2(power, JG__OP_EPOW)
MAP2(plus, JG__OP_ADD)
MAP2(minus, JG__OP_SUB)
MAP2(times, JG__OP_EMUL)
MAP2(rdivide, JG__OP_EDIV)

static int fn_single(jg__xerr_t *E, jg__xv_t *a, int na, jg__xv_t *out)
{
    (void)na;
    if (map1(E, &a[0], out, ident, "single")) return -1;
    double *z = jg__xv_data(out);
    for (int64_t k = 0; k < out->r * out->c; k++) z[k] = (float)z[k];
    return 0;
}

static int fn_transpose(jg__xerr_t *E, jg__xv_t *a, int na, jg__xv_t *out)
{
    (void)na;
    return jg__x_transpose(E, &a[0], out);
}

static int fn_mtimes(jg__xerr_t *E, jg__xv_t *a, int na, jg__xv_t *out)
{
    (void)na;
    return jg__x_mtimes(E, &a[0], &a[1], out);
}

static int fn_inv(jg__xerr_t *E, jg__xv_t *a, int na, jg__xv_t *out)
{
    (void)na;
    return jg__x_inv(E, &a[0], out);
}

static int fn_det(jg__xerr_t *E, jg__xv_t *a, int na, jg__xv_t *out)
{
    (void)na;
    double d;
    if (jg__x_det(E, &a[0], &d)) return -1;
    jg__xv_scalar(out, d);
    return 0;
}

/* ---- reductions ---- */

typedef enum { R_SUM, R_PROD, R_MIN, R_MAX, R_CUMSUM, R_MEAN, R_ANY, R_ALL } red_t;

/* Along a vector, else down each column (a row of results). */
static int reduce(jg__xerr_t *E, const jg__xv_t *a, red_t op, jg__xv_t *out, const char *name)
{
    if (num_arg(E, a, name)) return -1;
    const double *x = jg__xv_cdata(a);
    int vec = a->r == 1 || a->c == 1;
    if (op == R_CUMSUM) {
        if (jg__xv_alloc(E, out, a->r, a->c)) return -1;
        double *z = jg__xv_data(out);
        if (vec) {
            double s = 0;
            for (int64_t k = 0; k < a->r * a->c; k++) z[k] = s += x[k];
        } else {
            for (int64_t j = 0; j < a->c; j++) {
                double s = 0;
                for (int64_t i = 0; i < a->r; i++) z[i * a->c + j] = s += x[i * a->c + j];
            }
        }
        return 0;
    }
    int64_t ncol = vec ? 1 : a->c, len = vec ? a->r * a->c : a->r;
    if (a->r == 0 && a->c == 0) {   /* sum([]) = 0, prod([]) = 1, min([]) = [] */
        if (op == R_MIN || op == R_MAX) return jg__xv_alloc(E, out, 0, 0);
        jg__xv_scalar(out, op == R_PROD || op == R_ALL ? 1 : op == R_MEAN ? NAN : 0);
        return 0;
    }
    if (jg__xv_alloc(E, out, 1, ncol)) return -1;
    double *z = jg__xv_data(out);
    for (int64_t j = 0; j < ncol; j++) {
        double s = op == R_PROD || op == R_ALL ? 1 : op == R_MIN ? INFINITY : op == R_MAX ? -INFINITY : 0;
        int64_t seen = 0;
        for (int64_t k = 0; k < len; k++) {
            double v = vec ? x[k] : x[k * a->c + j];
            switch (op) {
            case R_SUM: case R_MEAN: s += v; break;
            case R_PROD: s *= v; break;
            case R_MIN: if (!isnan(v)) { s = seen++ ? fmin(s, v) : v; } break;
            case R_MAX: if (!isnan(v)) { s = seen++ ? fmax(s, v) : v; } break;
            case R_ANY: s = s || v != 0; break;
            case R_ALL: s = s && v != 0; break;
            case R_CUMSUM: break;
            }
        }
        if ((op == R_MIN || op == R_MAX) && !seen) s = NAN;
        if (op == R_MEAN) s /= (double)len;
        z[j] = s;
    }
    return 0;
}

#define RED(NAME, OP) \
    static int fn_##NAME(jg__xerr_t *E, jg__xv_t *a, int na, jg__xv_t *out) \
    { (void)na; return reduce(E, &a[0], OP, out, #NAME); }
RED(sum, R_SUM)
RED(prod, R_PROD)
RED(cumsum, R_CUMSUM)
RED(mean, R_MEAN)
RED(any, R_ANY)
RED(all, R_ALL)

static int fn_min(jg__xerr_t *E, jg__xv_t *a, int na, jg__xv_t *out)
{
    if (na == 2) return jg__x_elementwise(E, JG__OP_MIN, &a[0], &a[1], out);
    return reduce(E, &a[0], R_MIN, out, "min");
}

static int fn_max(jg__xerr_t *E, jg__xv_t *a, int na, jg__xv_t *out)
{
    if (na == 2) return jg__x_elementwise(E, JG__OP_MAX, &a[0], &a[1], out);
    return reduce(E, &a[0], R_MAX, out, "max");
}

/* ---- sizes ---- */

static int fn_numel(jg__xerr_t *E, jg__xv_t *a, int na, jg__xv_t *out)
{
    (void)E, (void)na;
    jg__xv_scalar(out, (double)(a[0].r * a[0].c));
    return 0;
}

static int fn_length(jg__xerr_t *E, jg__xv_t *a, int na, jg__xv_t *out)
{
    (void)E, (void)na;
    jg__xv_scalar(out, a[0].r * a[0].c > 0 ? (double)(a[0].r > a[0].c ? a[0].r : a[0].c) : 0);
    return 0;
}

static int fn_isempty(jg__xerr_t *E, jg__xv_t *a, int na, jg__xv_t *out)
{
    (void)E, (void)na;
    jg__xv_scalar(out, a[0].r * a[0].c == 0);
    return 0;
}

static int fn_size(jg__xerr_t *E, jg__xv_t *a, int na, jg__xv_t *out)
{
    int64_t r = a[0].kind == JG_EXPR_STR ? (a[0].c ? 1 : 0) : a[0].r, c = a[0].c;
    if (na == 2) {
        int64_t d;
        if (jg__xv_get_count(E, &a[1], "size: the dimension", &d)) return -1;
        if (d < 1) return jg__xerr(E, "size: the dimension must be a positive integer");
        jg__xv_scalar(out, d == 1 ? (double)r : d == 2 ? (double)c : 1);
        return 0;
    }
    if (jg__xv_alloc(E, out, 1, 2)) return -1;
    out->x[0] = (double)r;
    out->x[1] = (double)c;
    return 0;
}

/* Size arguments of zeros/ones/eye: (), (n), ([m n]), (m, n). */
static int size_args(jg__xerr_t *E, jg__xv_t *a, int na, int64_t *r, int64_t *c, const char *fn)
{
    *r = *c = 1;
    if (na == 0) return 0;
    for (int k = 0; k < na; k++)
        if (num_arg(E, &a[k], fn)) return -1;
    if (na == 1 && a[0].r * a[0].c == 2) {
        jg__xv_t t;
        jg__xv_scalar(&t, a[0].x[0]);
        if (jg__xv_get_count(E, &t, "a size", r)) return -1;
        jg__xv_scalar(&t, a[0].x[1]);
        return jg__xv_get_count(E, &t, "a size", c);
    }
    if (jg__xv_get_count(E, &a[0], "a size", r)) return -1;
    if (na == 1) {
        *c = *r;
        return 0;
    }
    return jg__xv_get_count(E, &a[1], "a size", c);
}

static int fill(jg__xerr_t *E, jg__xv_t *a, int na, jg__xv_t *out, double v, const char *fn)
{
    int64_t r, c;
    if (size_args(E, a, na, &r, &c, fn) || jg__xv_alloc(E, out, r, c)) return -1;
    double *z = jg__xv_data(out);
    for (int64_t k = 0; k < r * c; k++) z[k] = v;
    return 0;
}

static int fn_zeros(jg__xerr_t *E, jg__xv_t *a, int na, jg__xv_t *out)
{
    return fill(E, a, na, out, 0, "zeros");
}

static int fn_ones(jg__xerr_t *E, jg__xv_t *a, int na, jg__xv_t *out)
{
    return fill(E, a, na, out, 1, "ones");
}

static int fn_eye(jg__xerr_t *E, jg__xv_t *a, int na, jg__xv_t *out)
{
    if (fill(E, a, na, out, 0, "eye")) return -1;
    double *z = jg__xv_data(out);
    for (int64_t i = 0; i < out->r && i < out->c; i++) z[i * out->c + i] = 1;
    return 0;
}

static int fn_diag(jg__xerr_t *E, jg__xv_t *a, int na, jg__xv_t *out)
{
    (void)na;
    if (num_arg(E, &a[0], "diag")) return -1;
    const double *x = jg__xv_cdata(&a[0]);
    if (a[0].r == 1 || a[0].c == 1) {
        int64_t n = a[0].r * a[0].c;
        if (jg__xv_zeros(E, out, n, n)) return -1;
        for (int64_t i = 0; i < n; i++) jg__xv_data(out)[i * n + i] = x[i];
        return 0;
    }
    int64_t n = a[0].r < a[0].c ? a[0].r : a[0].c;
    if (jg__xv_alloc(E, out, n, 1)) return -1;
    for (int64_t i = 0; i < n; i++) jg__xv_data(out)[i] = x[i * a[0].c + i];
    return 0;
}

static int fn_linspace(jg__xerr_t *E, jg__xv_t *a, int na, jg__xv_t *out)
{
    double lo, hi;
    int64_t n = 100;
    if (jg__xv_get_scalar(E, &a[0], "linspace: the start", &lo) ||
        jg__xv_get_scalar(E, &a[1], "linspace: the end", &hi))
        return -1;
    if (na == 3) {
        double x;
        if (jg__xv_get_scalar(E, &a[2], "linspace: the count", &x)) return -1;
        x = floor(x);
        if (isnan(x) || x > 1e8) return jg__xerr(E, "linspace: bad count %g", x);
        n = x < 1 ? 1 : (int64_t)x;   /* linspace(a,b,0) is b in MATLAB */
    }
    if (jg__xv_alloc(E, out, 1, n)) return -1;
    double *z = jg__xv_data(out);
    for (int64_t k = 0; k < n; k++) z[k] = n == 1 ? hi : lo + (hi - lo) * (double)k / (double)(n - 1);
    return 0;
}

static int fn_reshape(jg__xerr_t *E, jg__xv_t *a, int na, jg__xv_t *out)
{
    int64_t r, c;
    if (num_arg(E, &a[0], "reshape") || size_args(E, a + 1, na - 1, &r, &c, "reshape")) return -1;
    if (na == 2 && a[1].r * a[1].c != 2)
        return jg__xerr(E, "reshape: the size must be [m n] or m, n");
    if (r * c != a[0].r * a[0].c)
        return jg__xerr(E, "reshape: %lld elements cannot make %lldx%lld",
                        (long long)(a[0].r * a[0].c), (long long)r, (long long)c);
    if (jg__xv_alloc(E, out, r, c)) return -1;
    const double *x = jg__xv_cdata(&a[0]);
    double *z = jg__xv_data(out);
    for (int64_t k = 0; k < r * c; k++)   /* column-major order is kept */
        z[(k % r) * c + k / r] = x[(k % a[0].r) * a[0].c + k / a[0].r];
    return 0;
}

static int flip(jg__xerr_t *E, const jg__xv_t *a, jg__xv_t *out, int lr)
{
    if (num_arg(E, a, lr ? "fliplr" : "flipud") || jg__xv_alloc(E, out, a->r, a->c)) return -1;
    const double *x = jg__xv_cdata(a);
    double *z = jg__xv_data(out);
    for (int64_t i = 0; i < a->r; i++)
        for (int64_t j = 0; j < a->c; j++)
            z[i * a->c + j] = lr ? x[i * a->c + (a->c - 1 - j)] : x[(a->r - 1 - i) * a->c + j];
    return 0;
}

static int fn_fliplr(jg__xerr_t *E, jg__xv_t *a, int na, jg__xv_t *out)
{
    (void)na;
    return flip(E, &a[0], out, 1);
}

static int fn_flipud(jg__xerr_t *E, jg__xv_t *a, int na, jg__xv_t *out)
{
    (void)na;
    return flip(E, &a[0], out, 0);
}

static int fn_repmat(jg__xerr_t *E, jg__xv_t *a, int na, jg__xv_t *out)
{
    int64_t m, n;
    if (num_arg(E, &a[0], "repmat") || size_args(E, a + 1, na - 1, &m, &n, "repmat")) return -1;
    const jg__xv_t *s = &a[0];
    if (jg__xv_alloc(E, out, s->r * m, s->c * n)) return -1;
    const double *x = jg__xv_cdata(s);
    double *z = jg__xv_data(out);
    for (int64_t i = 0; i < out->r; i++)
        for (int64_t j = 0; j < out->c; j++) z[i * out->c + j] = x[(i % s->r) * s->c + j % s->c];
    return 0;
}

/* ---- polynomials ---- */

static int fn_conv(jg__xerr_t *E, jg__xv_t *a, int na, jg__xv_t *out)
{
    (void)na;
    if (num_arg(E, &a[0], "conv") || num_arg(E, &a[1], "conv")) return -1;
    int64_t n = a[0].r * a[0].c, m = a[1].r * a[1].c;
    if ((n && a[0].r != 1 && a[0].c != 1) || (m && a[1].r != 1 && a[1].c != 1))
        return jg__xerr(E, "conv: the arguments must be vectors");
    if (!n || !m) return jg__xv_alloc(E, out, 0, 0);
    /* MATLAB: a column result only when both are columns... keep the first's shape */
    int col = a[0].c == 1 && n > 1;
    if (jg__xv_alloc(E, out, col ? n + m - 1 : 1, col ? 1 : n + m - 1)) return -1;
    const double *x = jg__xv_cdata(&a[0]), *y = jg__xv_cdata(&a[1]);
    double *z = jg__xv_data(out);
    for (int64_t k = 0; k < n + m - 1; k++) z[k] = 0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < m; j++) z[i + j] += x[i] * y[j];
    return 0;
}

/* Characteristic polynomial of a square matrix (Faddeev-LeVerrier). */
static int charpoly(jg__xerr_t *E, const jg__xv_t *a, jg__xv_t *out)
{
    int64_t n = a->r;
    const double *A = jg__xv_cdata(a);
    double *M = calloc((size_t)(n * n + 1), sizeof(double)), *T = calloc((size_t)(n * n + 1), sizeof(double));
    if (!M || !T || jg__xv_alloc(E, out, 1, n + 1)) {
        free(M);
        free(T);
        return E->failed ? -1 : jg__xnomem(E);
    }
    double *c = jg__xv_data(out);
    c[0] = 1;
    for (int64_t k = 1; k <= n; k++) {
        /* M_k = A M_{k-1} + c_{k-1} I, c_k = -tr(A M_k)/k, with M_0 = 0 */
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < n; j++) {
                double s = 0;
                for (int64_t q = 0; q < n; q++) s += A[i * n + q] * M[q * n + j];
                T[i * n + j] = s + (i == j ? c[k - 1] : 0);
            }
        memcpy(M, T, sizeof(double) * (size_t)(n * n));
        double tr = 0;
        for (int64_t i = 0; i < n; i++)
            for (int64_t q = 0; q < n; q++) tr += A[i * n + q] * M[q * n + i];
        c[k] = -tr / (double)k;
    }
    free(M);
    free(T);
    return 0;
}

static int fn_poly(jg__xerr_t *E, jg__xv_t *a, int na, jg__xv_t *out)
{
    (void)na;
    if (num_arg(E, &a[0], "poly")) return -1;
    int64_t n = a[0].r * a[0].c;
    if (n && a[0].r != 1 && a[0].c != 1) {
        if (a[0].r != a[0].c) return jg__xerr(E, "poly: the argument must be a vector or a square matrix");
        return charpoly(E, &a[0], out);
    }
    if (jg__xv_alloc(E, out, 1, n + 1)) return -1;
    const double *r = jg__xv_cdata(&a[0]);
    double *c = jg__xv_data(out);
    c[0] = 1;
    for (int64_t k = 0; k < n; k++) {   /* multiply by (s - r_k) */
        c[k + 1] = 0;
        for (int64_t j = k + 1; j >= 1; j--) c[j] -= r[k] * c[j - 1];
    }
    return 0;
}

static int fn_polyval(jg__xerr_t *E, jg__xv_t *a, int na, jg__xv_t *out)
{
    (void)na;
    if (num_arg(E, &a[0], "polyval") || num_arg(E, &a[1], "polyval") ||
        jg__xv_alloc(E, out, a[1].r, a[1].c))
        return -1;
    const double *p = jg__xv_cdata(&a[0]), *x = jg__xv_cdata(&a[1]);
    double *z = jg__xv_data(out);
    int64_t n = a[0].r * a[0].c;
    for (int64_t k = 0; k < a[1].r * a[1].c; k++) {
        double s = 0;
        for (int64_t j = 0; j < n; j++) s = s * x[k] + p[j];
        z[k] = s;
    }
    return 0;
}

static int fn_norm(jg__xerr_t *E, jg__xv_t *a, int na, jg__xv_t *out)
{
    double p = 2;
    if (num_arg(E, &a[0], "norm")) return -1;
    if (na == 2) {
        if (a[1].kind == JG_EXPR_STR && !strcmp(a[1].str, "fro")) p = -1;
        else if (jg__xv_get_scalar(E, &a[1], "norm: the kind", &p)) return -1;
    }
    const double *x = jg__xv_cdata(&a[0]);
    int64_t n = a[0].r * a[0].c;
    int vec = a[0].r == 1 || a[0].c == 1 || n == 0;
    double s = 0;
    if (vec || p == -1) {
        if (p == INFINITY) for (int64_t k = 0; k < n; k++) s = fmax(s, fabs(x[k]));
        else if (p == 1) for (int64_t k = 0; k < n; k++) s += fabs(x[k]);
        else if (p == 2 || p == -1) {
            for (int64_t k = 0; k < n; k++) s = hypot(s, x[k]);
        } else if (p > 0) {
            for (int64_t k = 0; k < n; k++) s += pow(fabs(x[k]), p);
            s = pow(s, 1 / p);
        } else return jg__xerr(E, "norm: unsupported kind %g", p);
    } else if (p == 1 || p == INFINITY) {   /* max column / row sum */
        int64_t outer = p == 1 ? a[0].c : a[0].r, inner = p == 1 ? a[0].r : a[0].c;
        for (int64_t o = 0; o < outer; o++) {
            double t = 0;
            for (int64_t i = 0; i < inner; i++) t += fabs(p == 1 ? x[i * a[0].c + o] : x[o * a[0].c + i]);
            s = fmax(s, t);
        }
    } else if (p == 2) {   /* largest singular value */
        int64_t m = a[0].r, nc = a[0].c, k = m < nc ? m : nc;
        double *A = malloc(sizeof(double) * (size_t)n), *sv = malloc(sizeof(double) * (size_t)k),
               *sup = malloc(sizeof(double) * (size_t)k);
        if (!A || !sv || !sup) {
            free(A), free(sv), free(sup);
            return jg__xnomem(E);
        }
        memcpy(A, x, sizeof(double) * (size_t)n);
        lapack_int info = LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'N', 'N', (lapack_int)m, (lapack_int)nc, A,
                                         (lapack_int)nc, sv, NULL, 1, NULL, 1, sup);
        s = info == 0 ? sv[0] : NAN;
        free(A), free(sv), free(sup);
    } else {
        return jg__xerr(E, "norm: unsupported kind %g for a matrix", p);
    }
    jg__xv_scalar(out, s);
    return 0;
}

/* Sorted by name for bsearch. */
static const jg__xfn_t table[] = {
    {"abs", 1, 1, fn_abs},         {"acos", 1, 1, fn_acos},       {"all", 1, 1, fn_all},
    {"any", 1, 1, fn_any},         {"asin", 1, 1, fn_asin},       {"atan", 1, 1, fn_atan},
    {"atan2", 2, 2, fn_atan2},     {"ceil", 1, 1, fn_ceil},       {"conv", 2, 2, fn_conv},
    {"cos", 1, 1, fn_cos},         {"cosh", 1, 1, fn_cosh},       {"cumsum", 1, 1, fn_cumsum},
    {"deg2rad", 1, 1, fn_deg2rad}, {"det", 1, 1, fn_det},         {"diag", 1, 1, fn_diag},
    {"double", 1, 1, fn_double},   {"exp", 1, 1, fn_exp},         {"eye", 0, 2, fn_eye},
    {"fix", 1, 1, fn_fix},         {"fliplr", 1, 1, fn_fliplr},   {"flipud", 1, 1, fn_flipud},
    {"floor", 1, 1, fn_floor},     {"hypot", 2, 2, fn_hypot},     {"inv", 1, 1, fn_inv},
    {"isempty", 1, 1, fn_isempty}, {"length", 1, 1, fn_length},   {"linspace", 2, 3, fn_linspace},
    {"log", 1, 1, fn_log},         {"log10", 1, 1, fn_log10},     {"log2", 1, 1, fn_log2},
    {"logical", 1, 1, fn_logical}, {"max", 1, 2, fn_max},         {"mean", 1, 1, fn_mean},
    {"min", 1, 2, fn_min},         {"minus", 2, 2, fn_minus},     {"mod", 2, 2, fn_mod},
    {"mtimes", 2, 2, fn_mtimes},   {"norm", 1, 2, fn_norm},       {"numel", 1, 1, fn_numel},
    {"ones", 0, 2, fn_ones},       {"plus", 2, 2, fn_plus},       {"poly", 1, 1, fn_poly},
    {"polyval", 2, 2, fn_polyval}, {"power", 2, 2, fn_power},     {"prod", 1, 1, fn_prod},
    {"rad2deg", 1, 1, fn_rad2deg}, {"rdivide", 2, 2, fn_rdivide}, {"real", 1, 1, fn_real},
    {"rem", 2, 2, fn_rem},         {"repmat", 2, 3, fn_repmat},   {"reshape", 2, 3, fn_reshape},
    {"round", 1, 1, fn_round},     {"sign", 1, 1, fn_sign},       {"sin", 1, 1, fn_sin},
    {"single", 1, 1, fn_single},   {"sinh", 1, 1, fn_sinh},       {"size", 1, 2, fn_size},
    {"sqrt", 1, 1, fn_sqrt},       {"sum", 1, 1, fn_sum},         {"tan", 1, 1, fn_tan},
    {"tanh", 1, 1, fn_tanh},       {"times", 2, 2, fn_times},     {"transpose", 1, 1, fn_transpose},
    {"zeros", 0, 2, fn_zeros},
};

const jg__xfn_t *jg__xfn_find(const char *name, size_t len)
{
    size_t lo = 0, hi = sizeof table / sizeof *table;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strncmp(table[mid].name, name, len);
        if (c == 0 && table[mid].name[len]) c = 1;
        if (c == 0) return &table[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

int jg__xconst_find(const char *name, size_t len, double *x)
{
    static const struct { const char *n; double v; } c[] = {
        {"pi", M_PI}, {"eps", DBL_EPSILON}, {"inf", INFINITY}, {"Inf", INFINITY},
        {"nan", NAN}, {"NaN", NAN}, {"true", 1}, {"false", 0}};
    for (size_t k = 0; k < sizeof c / sizeof *c; k++)
        if (strlen(c[k].n) == len && !memcmp(c[k].n, name, len)) {
            *x = c[k].v;
            return 1;
        }
    return 0;
}
