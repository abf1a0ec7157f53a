/* test_expr.c -- the MATLAB expression evaluator and workspaces (lib/expr):
 * every operator, precedence, MATLAB's whitespace rules in brackets, ranges,
 * indexing, functions, errors with columns, scripts and their warnings, and
 * random input that must never crash. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/jacgraph.h"
#include "tap.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* A lookup over a fixed table: a = 2, b = 3, v = [1 2 3], M = [1 2; 3 4],
 * c = [10; 20; 30], Kp = 0.5, s = 'text', and "sin" shadowed by nothing. */
static int lookup(void *ctx, const char *name, jg_expr_value_t *out, jg_expr_error_t *err)
{
    (void)ctx, (void)err;
    static const double v[] = {1, 2, 3}, M[] = {1, 2, 3, 4}, c[] = {10, 20, 30};
    struct { const char *n; int64_t r, c; const double *x; double s; } t[] = {
        {"a", 1, 1, NULL, 2}, {"b", 1, 1, NULL, 3}, {"Kp", 1, 1, NULL, 0.5},
        {"v", 1, 3, v, 0}, {"M", 2, 2, M, 0}, {"c", 3, 1, c, 0}, {"e", 0, 0, NULL, 0},
        {"p.Kp", 1, 1, NULL, 7}, {"zeta", 1, 1, NULL, 0.5}, {"wn", 1, 1, NULL, 4}};
    if (!strcmp(name, "s")) {
        out->kind = JG_EXPR_STR;
        out->str = malloc(5);
        memcpy(out->str, "text", 5);
        out->rows = 1;
        out->cols = 4;
        return 1;
    }
    if (!strcmp(name, "bad")) {
        snprintf(err->msg, sizeof err->msg, "bad's own expression failed");
        return -1;
    }
    for (size_t k = 0; k < sizeof t / sizeof *t; k++)
        if (!strcmp(t[k].n, name)) {
            out->kind = JG_EXPR_NUM;
            out->rows = t[k].r;
            out->cols = t[k].c;
            int64_t n = t[k].r * t[k].c;
            out->x = n ? malloc(sizeof(double) * (size_t)n) : NULL;
            for (int64_t i = 0; i < n; i++) out->x[i] = t[k].x ? t[k].x[i] : t[k].s;
            return 1;
        }
    return 0;
}

/* src for a test name: newlines escaped, at most 60 characters. */
static const char *nm(const char *src)
{
    static char buf[80];
    size_t n = 0;
    for (const char *p = src; *p && n < 60; p++) {
        if (*p == '\n') {
            buf[n++] = '\\';
            buf[n++] = 'n';
        } else {
            buf[n++] = *p;
        }
    }
    strcpy(buf + n, *src && strlen(src) > 60 ? "..." : "");
    return buf;
}

/* src evaluates to the r x c row-major matrix x. */
static void is_mat(const char *src, int64_t r, int64_t c, const double *x)
{
    jg_expr_value_t v;
    jg_expr_error_t e;
    jg_status_t st = jg_expr_eval(src, lookup, NULL, &v, &e);
    int ok = st == JG_OK && v.kind == JG_EXPR_NUM && v.rows == r && v.cols == c;
    for (int64_t k = 0; ok && k < r * c; k++)
        ok = (isnan(x[k]) && isnan(v.x[k])) || v.x[k] == x[k] || fabs(v.x[k] - x[k]) <= 1e-12 * fmax(1, fabs(x[k]));
    if (!tap_ok(ok, "%s", nm(src))) {
        if (st) printf("#   error %d: %s (column %d)\n", st, e.msg, e.column);
        else {
            printf("#   got %lldx%lld:", (long long)v.rows, (long long)v.cols);
            for (int64_t k = 0; k < v.rows * v.cols && k < 20; k++) printf(" %.17g", v.x[k]);
            printf("\n");
        }
    }
    jg_expr_value_clear(&v);
}

static void is_num(const char *src, double x) { is_mat(src, 1, 1, &x); }

#define MAT(src, r, c, ...) do { const double _x[] = {__VA_ARGS__}; is_mat(src, r, c, _x); } while (0)

static void is_str(const char *src, const char *want)
{
    jg_expr_value_t v;
    jg_expr_error_t e;
    jg_status_t st = jg_expr_eval(src, lookup, NULL, &v, &e);
    int ok = st == JG_OK && v.kind == JG_EXPR_STR && !strcmp(v.str, want) &&
             v.cols == (int64_t)strlen(want);
    if (!tap_ok(ok, "%s is the string '%s'", nm(src), want))
        printf("#   status %d %s\n", st, st ? e.msg : v.str ? v.str : "(num)");
    jg_expr_value_clear(&v);
}

/* src fails with exactly msg at column col. */
static void is_err(const char *src, int col, const char *msg)
{
    jg_expr_value_t v;
    jg_expr_error_t e;
    jg_status_t st = jg_expr_eval(src, lookup, NULL, &v, &e);
    int ok = st == JG_PARAM && e.column == col && !strcmp(e.msg, msg);
    if (!tap_ok(ok, "error in '%s': %s", nm(src), msg))
        printf("#   status %d, column %d, message '%s'\n", st, e.column, st ? e.msg : "");
    jg_expr_value_clear(&v);
}

static void test_scalars(void)
{
    is_num("1", 1);
    is_num(".5", 0.5);
    is_num("1e-3", 1e-3);
    is_num("1.5E+2", 150);
    is_num("5.", 5);
    is_num("  7 ", 7);
    is_num("1+2*3", 7);
    is_num("(1+2)*3", 9);
    is_num("7-2-1", 4);
    is_num("8/2/2", 2);
    is_num("2\\8", 4);
    is_num("-2^2", -4);
    is_num("2^-1", 0.5);
    is_num("2^3^2", 64);
    is_num("-a", -2);
    is_num("+a", 2);
    is_num("--a", 2);
    is_num("2*-a", -4);
    is_num("a^b", 8);
    is_num("1/(2*a)", 0.25);
    is_num("5*(5/9)", 25.0 / 9);
    is_num("~0", 1);
    is_num("!3", 0);
    is_num("~a == 0", 1);
    is_num("1 < 2", 1);
    is_num("2 <= 2", 1);
    is_num("1 > 2", 0);
    is_num("2 >= 3", 0);
    is_num("2 == 2", 1);
    is_num("2 ~= 2", 0);
    is_num("2 != 3", 1);
    is_num("1 & 0", 0);
    is_num("1 | 0", 1);
    is_num("1 && 2", 1);
    is_num("0 || 0", 0);
    is_num("1 | 0 & 0", 1);   /* & binds tighter than | */
    is_num("1 + 1 == 2", 1);
    is_num("pi", M_PI);
    is_num("eps", 2.220446049250313e-16);
    is_num("-inf", -INFINITY);
    is_num("Inf", INFINITY);
    is_num("nan", NAN);
    is_num("NaN", NAN);
    is_num("true + true", 2);
    is_num("false", 0);
    is_num("Kp", 0.5);
    is_num("p.Kp*2", 14);
    is_num("1/0", INFINITY);
    is_num("3 ...\n + 1", 4);
}

static void test_matrices(void)
{
    MAT("[1 2 3]", 1, 3, 1, 2, 3);
    MAT("[1, 2; 3 4]", 2, 2, 1, 2, 3, 4);
    MAT("[a -b]", 1, 2, 2, -3);
    MAT("[a - b]", 1, 1, -1);
    MAT("[a-b]", 1, 1, -1);
    MAT("[a -b']", 1, 2, 2, -3);
    MAT("[a' b']", 1, 2, 2, 3);
    MAT("[v' c]", 3, 2, 1, 10, 2, 20, 3, 30);
    MAT("[ 1 +2 ]", 1, 2, 1, 2);
    MAT("[1 + 2]", 1, 1, 3);
    MAT("[1 (2/a) 1/a^2]", 1, 3, 1, 1, 0.25);
    MAT("[1\n2\n3]", 3, 1, 1, 2, 3);
    MAT("[1 2\n3 4\n]", 2, 2, 1, 2, 3, 4);
    MAT("[1 2;]", 1, 2, 1, 2);
    MAT("[M M; M M]", 4, 4, 1, 2, 1, 2, 3, 4, 3, 4, 1, 2, 1, 2, 3, 4, 3, 4);
    MAT("[M c(1:2)]", 2, 3, 1, 2, 10, 3, 4, 20);
    MAT("[M; v(1:2)]", 3, 2, 1, 2, 3, 4, 1, 2);
    MAT("[]", 0, 0, 0);
    MAT("[[] 1 e]", 1, 1, 1);
    MAT("[ a, 1]", 1, 2, 2, 1);
    MAT("pi/(4*b)*[1 0]", 1, 2, M_PI / 12, 0);
    MAT("b/sqrt(a^3)*[sqrt(3)*a,1]", 1, 2, 3 / sqrt(8) * sqrt(3) * 2, 3 / sqrt(8));
    MAT("[a*b  (a*b+a)  b  0]", 1, 4, 6, 8, 3, 0);
    MAT("[0, 105; -395, 0]", 2, 2, 0, 105, -395, 0);
    MAT("[1 2*zeta*wn wn^2]", 1, 3, 1, 4, 16);
    MAT("[0.03 1]", 1, 2, 0.03, 1);
    MAT("[1 -1]'", 2, 1, 1, -1);
    MAT("M'", 2, 2, 1, 3, 2, 4);
    MAT("M.'", 2, 2, 1, 3, 2, 4);
    MAT("v'*v", 3, 3, 1, 2, 3, 2, 4, 6, 3, 6, 9);
    MAT("v*v'", 1, 1, 14);
    MAT("M*M", 2, 2, 7, 10, 15, 22);
    MAT("M.*M", 2, 2, 1, 4, 9, 16);
    MAT("M.^2", 2, 2, 1, 4, 9, 16);
    MAT("M^2", 2, 2, 7, 10, 15, 22);
    MAT("M^0", 2, 2, 1, 0, 0, 1);
    MAT("M^-1", 2, 2, -2, 1, 1.5, -0.5);
    MAT("M./[1 2; 3 4]", 2, 2, 1, 1, 1, 1);
    MAT("2./v", 1, 3, 2, 1, 2.0 / 3);
    MAT("v.\\2", 1, 3, 2, 1, 2.0 / 3);
    MAT("M\\[1; 2]", 2, 1, 0, 0.5);
    MAT("[1 2]/M", 1, 2, 1, 0);
    MAT("M/2", 2, 2, 0.5, 1, 1.5, 2);
    MAT("v + c", 3, 3, 11, 12, 13, 21, 22, 23, 31, 32, 33);   /* implicit expansion */
    MAT("v - 1", 1, 3, 0, 1, 2);
    MAT("-M", 2, 2, -1, -2, -3, -4);
    MAT("v > 1", 1, 3, 0, 1, 1);
    MAT("~v", 1, 3, 0, 0, 0);
    MAT("[1 ~0]", 1, 2, 1, 1);
}

static void test_ranges_indexing(void)
{
    MAT("1:4", 1, 4, 1, 2, 3, 4);
    MAT("0:0.25:1", 1, 5, 0, 0.25, 0.5, 0.75, 1);
    MAT("5:-2:0", 1, 3, 5, 3, 1);
    MAT("3:1", 1, 0, 0);
    MAT("0:0.1:0.3", 1, 4, 0, 0.1, 0.2, 0.30000000000000004);
    MAT("[0:2 9]", 1, 4, 0, 1, 2, 9);
    MAT("1:a+1", 1, 3, 1, 2, 3);   /* ':' below '+' */
    is_num("v(2)", 2);
    is_num("v(end)", 3);
    is_num("v(end-1)", 2);
    is_num("M(2,1)", 3);    /* row-major storage, MATLAB indices */
    is_num("M(end,1)", 3);
    is_num("M(1,end)", 2);
    is_num("M(2)", 3);      /* linear: column-major */
    is_num("M(3)", 2);
    MAT("M(:)", 4, 1, 1, 3, 2, 4);
    MAT("M(:,2)", 2, 1, 2, 4);
    MAT("M(2,:)", 1, 2, 3, 4);
    MAT("v([1 3])", 1, 2, 1, 3);
    MAT("c([1 3])", 2, 1, 10, 30);    /* a vector keeps its orientation */
    MAT("M([1 2])", 1, 2, 1, 3);
    MAT("M([1 2; 3 4])", 2, 2, 1, 3, 2, 4);
    MAT("v(2:end)", 1, 2, 2, 3);
    MAT("v(end:-1:1)", 1, 3, 3, 2, 1);
    MAT("M(:, [2 1])", 2, 2, 2, 1, 4, 3);
    is_num("v(min(end, 5))", 3);
    is_num("v(v(2))", 2);
    is_num("a(1)", 2);
    is_num("a(1,1,1)", 2);
    is_num("s(2) == 'e'", 1);
}

static void test_functions(void)
{
    is_num("sqrt(16)", 4);
    is_num("exp(0)", 1);
    is_num("log(exp(2))", 2);
    is_num("log10(1000)", 3);
    is_num("log2(8)", 3);
    is_num("abs(-3)", 3);
    is_num("sin(pi/2)", 1);
    is_num("cos(0)", 1);
    is_num("tan(0)", 0);
    is_num("asin(1)", M_PI / 2);
    is_num("acos(1)", 0);
    is_num("atan(1)", M_PI / 4);
    is_num("atan2(1, 1)", M_PI / 4);
    is_num("sinh(0) + cosh(0) + tanh(0)", 1);
    is_num("floor(-2.5)", -3);
    is_num("ceil(-2.5)", -2);
    is_num("round(2.5)", 3);
    is_num("round(-2.5)", -3);
    is_num("fix(-2.5)", -2);
    is_num("mod(-1, 3)", 2);
    is_num("rem(-1, 3)", -1);
    is_num("mod(5, 0)", 5);
    is_num("sign(-4)", -1);
    is_num("hypot(3, 4)", 5);
    is_num("power(2, 10)", 1024);
    is_num("real(2)", 2);
    is_num("min(v)", 1);
    is_num("max(v)", 3);
    MAT("min(v, 2)", 1, 3, 1, 2, 2);
    MAT("max(M)", 1, 2, 3, 4);   /* down the columns */
    is_num("sum(v)", 6);
    MAT("sum(M)", 1, 2, 4, 6);
    is_num("sum(c)", 60);
    is_num("prod(v)", 6);
    MAT("cumsum(v)", 1, 3, 1, 3, 6);
    is_num("numel(M)", 4);
    is_num("length(c)", 3);
    is_num("length([])", 0);
    MAT("size(c)", 1, 2, 3, 1);
    is_num("size(M, 1)", 2);
    is_num("size(v, 2)", 3);
    MAT("eye(2)", 2, 2, 1, 0, 0, 1);
    MAT("eye(2, 3)", 2, 3, 1, 0, 0, 0, 1, 0);
    is_num("eye", 1);
    MAT("zeros(2, 1)", 2, 1, 0, 0);
    MAT("zeros(1, 0)", 1, 0, 0);
    MAT("ones(2)", 2, 2, 1, 1, 1, 1);
    MAT("ones([1 3])", 1, 3, 1, 1, 1);
    MAT("diag([1 2])", 2, 2, 1, 0, 0, 2);
    MAT("diag(M)", 2, 1, 1, 4);
    MAT("linspace(0, 1, 3)", 1, 3, 0, 0.5, 1);
    MAT("transpose(v)", 3, 1, 1, 2, 3);
    is_num("isempty([])", 1);
    is_num("isempty(v)", 0);
    MAT("reshape(1:6, 2, 3)", 2, 3, 1, 3, 5, 2, 4, 6);
    MAT("reshape(M, [1 4])", 1, 4, 1, 3, 2, 4);
    MAT("fliplr(v)", 1, 3, 3, 2, 1);
    MAT("flipud(M)", 2, 2, 3, 4, 1, 2);
    MAT("poly([-1 -2])", 1, 3, 1, 3, 2);
    MAT("poly([])", 1, 1, 1);
    MAT("poly(M)", 1, 3, 1, -5, -2);   /* characteristic polynomial */
    MAT("conv([1 1],[1 2])", 1, 3, 1, 3, 2);
    MAT("conv([1 2*zeta*wn wn^2], [1 0])", 1, 4, 1, 4, 16, 0);
    is_num("polyval([1 2 3], 2)", 11);
    MAT("polyval([1 0], v)", 1, 3, 1, 2, 3);
    MAT("inv(M)", 2, 2, -2, 1, 1.5, -0.5);
    is_num("det(M)", -2);
    is_num("det([2 0 0; 0 3 0; 0 0 4])", 24);
    is_num("norm([3 4])", 5);
    is_num("norm(M)", 5.4649857042190426);
    is_num("norm([3 -4], 1)", 7);
    is_num("norm([3 -4], inf)", 4);
    MAT("repmat([1 2], 2, 2)", 2, 4, 1, 2, 1, 2, 1, 2, 1, 2);
    MAT("inf(1, 2)", 1, 2, INFINITY, INFINITY);
    is_num("mean(v)", 2);
    is_num("any(v > 2) + all(v > 2)", 1);
    is_num("double(3)", 3);
    is_num("deg2rad(180)", M_PI);
}

static void test_strings(void)
{
    is_str("'abc'", "abc");
    is_str("'it''s'", "it's");
    is_str("\"say \"\"hi\"\"\"", "say \"hi\"");
    is_str("''", "");
    is_str("['ab' 'cd']", "abcd");
    is_str("[s '!']", "text!");
    is_str("s", "text");
    is_num("numel('abc')", 3);
    is_err("'a' + 1", 5, "arithmetic on strings is not supported");
    is_err("'abc", 1, "unterminated string");
}

static void test_errors(void)
{
    is_err("1 + )", 5, "unexpected ')'");
    is_err("(1 + 2", 1, "missing ')'");
    is_err("[1 2", 1, "missing ']'");
    is_err("[1 2)", 5, "unexpected ')'");
    is_err("1 2", 3, "unexpected '2'");
    is_err("2*Kq", 3, "undefined variable 'Kq'");
    is_err("foo(1)", 1, "undefined function or variable 'foo'");
    is_err("", 1, "empty expression");
    is_err("   ", 1, "empty expression");
    is_err("1 +", 4, "unexpected end of expression");
    is_err("[1 2] + [1 2 3]", 7, "matrix dimensions must agree: 1x2 and 1x3");
    is_err("[1 2; 3]", 1,
           "dimensions of matrices being concatenated are not consistent: 2 columns and 1 "
           "columns stacked");
    is_err("[M v]", 1,
           "dimensions of matrices being concatenated are not consistent: 2 rows and 1 rows side "
           "by side");
    is_err("v(4)", 1, "index 4 exceeds 3 elements");
    is_err("v(0)", 1, "index must be a positive integer, got 0");
    is_err("v(1.5)", 1, "index must be a positive integer, got 1.5");
    is_err("M(3,1)", 1, "row index 3 exceeds 2 rows");
    is_err("M(1,3)", 1, "column index 3 exceeds 2 columns");
    is_err("v*v", 2, "inner matrix dimensions must agree: 1x3 * 1x3");
    is_err("v^2", 2, "matrix power needs a square matrix, got 1x3 (use .^ for element-wise)");
    is_err("sqrt(1, 2)", 1, "'sqrt' takes 1 argument, got 2");
    is_err("sqrt", 1, "'sqrt' takes 1 argument, got 0");
    is_err("end + 1", 1, "'end' is only valid inside an index");
    is_err("1 + bad", 5, "bad's own expression failed");
    is_err("{1}", 1, "cell arrays ({...}) are not supported");
    is_err("@(x) x", 1, "function handles (@) are not supported");
    is_err("x = 1", 3, "unexpected '='");   /* the syntax error wins over the unknown x */
    is_err("2*(Kq", 3, "missing ')'");
    is_err("a = 1", 3, "unexpected '='");
    is_err("1 # 2", 3, "unexpected character '#'");
    is_err("inv([1 2; 2 4])", 1, "matrix is singular to working precision");
    is_err("[1 2] && 1", 7, "an operand of && and || must be a numeric scalar, got a matrix 1x2");
    is_err("sum(:)", 5, "':' alone is only valid as an index");
}

static void test_is_number(void)
{
    double x = 0;
    tap_ok(jg_expr_is_number("2", &x) && x == 2, "is_number 2");
    tap_ok(jg_expr_is_number(" -0.5e3 ", &x) && x == -500, "is_number -0.5e3");
    tap_ok(jg_expr_is_number("1.5E+2", &x) && x == 150, "is_number 1.5E+2");
    tap_ok(!jg_expr_is_number("inf", &x), "is_number: inf is a name, not a literal");
    tap_ok(!jg_expr_is_number("0x10", &x), "is_number: no hex");
    tap_ok(!jg_expr_is_number("1+2", &x), "is_number: 1+2 is an expression");
    tap_ok(!jg_expr_is_number("", &x), "is_number: empty");
    tap_ok(!jg_expr_is_number("k", &x), "is_number: a name");
    tap_ok(!jg_expr_is_number("1 2", &x), "is_number: two numbers");
}

/* ---- workspaces and scripts ---- */

typedef struct {
    char text[4096];
    int n;
} warns_t;

static void on_warn(void *ctx, const char *source, int line, const char *msg)
{
    warns_t *w = ctx;
    size_t len = strlen(w->text);
    snprintf(w->text + len, sizeof w->text - len, "%s:%d: %s\n", source, line, msg);
    w->n++;
}

static double ws_num(const jg_expr_ws_t *ws, const char *name, int64_t k)
{
    const jg_expr_value_t *v = jg_expr_ws_get(ws, name);
    if (!v || v->kind != JG_EXPR_NUM || k >= v->rows * v->cols) return NAN;
    return v->x[k];
}

static void test_workspace(void)
{
    jg_expr_ws_t *ws = jg_expr_ws_create();
    jg_expr_value_t v;
    jg_expr_value_scalar(&v, 1);
    jg_expr_ws_set(ws, "x", &v);
    v.x[0] = 2;
    jg_expr_ws_set(ws, "y", &v);
    v.x[0] = 3;
    jg_expr_ws_set(ws, "x", &v);   /* replaced in place */
    jg_expr_value_clear(&v);
    tap_ok(jg_expr_ws_count(ws) == 2 && !strcmp(jg_expr_ws_name(ws, 0), "x") &&
               !strcmp(jg_expr_ws_name(ws, 1), "y") && jg_expr_ws_value(ws, 0)->x[0] == 3,
           "workspace: insertion order kept, replacement in place");
    char name[16];
    for (int k = 0; k < 200; k++) {   /* rehashing */
        snprintf(name, sizeof name, "n%d", k);
        jg_expr_value_scalar(&v, k);
        jg_expr_ws_set(ws, name, &v);
        jg_expr_value_clear(&v);
    }
    tap_ok(jg_expr_ws_count(ws) == 202 && ws_num(ws, "n123", 0) == 123 && ws_num(ws, "x", 0) == 3,
           "workspace: 202 names after growth");
    tap_ok(jg_expr_ws_get(ws, "nope") == NULL, "workspace: unknown name");

    /* a chain: inner ws over the outer ws */
    jg_expr_ws_t *inner = jg_expr_ws_create();
    jg_expr_ws_chain_t outer_chain = {ws, NULL, NULL}, chain = {inner, jg_expr_ws_lookup, &outer_chain};
    jg_expr_value_scalar(&v, 10);
    jg_expr_ws_set(inner, "x", &v);
    jg_expr_value_clear(&v);
    jg_expr_error_t e;
    jg_status_t st = jg_expr_eval("x + y", jg_expr_ws_lookup, &chain, &v, &e);
    tap_ok(st == JG_OK && v.x[0] == 12, "workspace chain: inner x shadows, y from outside");
    jg_expr_value_clear(&v);
    jg_expr_ws_free(inner);
    jg_expr_ws_free(ws);
    jg_expr_ws_free(NULL);
}

static void test_scripts(void)
{
    jg_expr_ws_t *ws = jg_expr_ws_create();
    warns_t w = {{0}, 0};
    const char *script =
        "Jm=0.01; % [kgm^2]\n"
        "C=0.1;     % [Nms]\n"
        "a=1;b=2,c=3\n"
        "x = 5 % comment\n"
        "s = 'it''s 50% off';  t = [a' b'];\n"
        "%{\n"
        "bogus = 1\n"
        "%}\n"
        "long = [1 2 ...\n"
        "        3];\n"
        "M = [1 2\n"
        "     3 4];\n"
        "disp(x)\n"
        "if a > 0\n"
        "  inif = 1;\n"
        "  for k = 1:3, infor = k; end\n"
        "end\n"
        "after = Jm * 100;\n"
        "bad = undefined_thing + 1;\n"
        "v(3) = 7;\n"
        "G(2,3) = 1;\n"
        "G(1,:) = 5;\n"
        "M(end+1, :) = [5 6];\n"
        "c(2) = 4;\n"
        "p.Kp = 2;\n"
        "q = p.Kp * 3;\n"
        "z = (a + b) ';\n"
        "y == 3\n";
    jg_status_t st = jg_expr_ws_run(ws, script, "data.m", NULL, NULL, on_warn, &w);
    tap_ok(st == JG_OK, "script runs");
    tap_near(ws_num(ws, "Jm", 0), 0.01, 0, "script: Jm=0.01; % comment");
    tap_near(ws_num(ws, "C", 0), 0.1, 0, "script: C");
    tap_ok(ws_num(ws, "a", 0) == 1 && ws_num(ws, "b", 0) == 2, "script: a=1;b=2,c=3");
    tap_ok(ws_num(ws, "x", 0) == 5, "script: x = 5 %% comment");
    const jg_expr_value_t *s = jg_expr_ws_get(ws, "s");
    tap_ok(s && s->kind == JG_EXPR_STR && !strcmp(s->str, "it's 50% off"),
           "script: '%%' and '' inside a string");
    tap_ok(ws_num(ws, "t", 0) == 1 && ws_num(ws, "t", 1) == 2, "script: transposes in brackets");
    tap_ok(!jg_expr_ws_get(ws, "bogus"), "script: %%{ %%} block comment");
    const jg_expr_value_t *l = jg_expr_ws_get(ws, "long");
    tap_ok(l && l->rows == 1 && l->cols == 3 && l->x[2] == 3, "script: ... continuation");
    tap_ok(!jg_expr_ws_get(ws, "inif") && !jg_expr_ws_get(ws, "infor") && !jg_expr_ws_get(ws, "k"),
           "script: if/for blocks skipped whole");
    tap_near(ws_num(ws, "after", 0), 1, 1e-15, "script: statements after a skipped block run");
    tap_ok(!jg_expr_ws_get(ws, "bad"), "script: a failing statement is skipped");
    const jg_expr_value_t *v = jg_expr_ws_get(ws, "v");
    tap_ok(v && v->rows == 1 && v->cols == 3 && v->x[0] == 0 && v->x[2] == 7,
           "script: v(3) = 7 creates [0 0 7]");
    const jg_expr_value_t *G = jg_expr_ws_get(ws, "G");
    tap_ok(G && G->rows == 2 && G->cols == 3 && G->x[0] == 5 && G->x[1] == 5 && G->x[2] == 5 &&
               G->x[5] == 1 && G->x[3] == 0,
           "script: G(2,3) = 1 then G(1,:) = 5 grows a 2x3 matrix");
    const jg_expr_value_t *M = jg_expr_ws_get(ws, "M");
    tap_ok(M && M->rows == 3 && M->cols == 2 && M->x[4] == 5 && M->x[5] == 6 && M->x[2] == 3,
           "script: M(end+1,:) = [5 6] appends a row (newline rows in M = [1 2\\n3 4])");
    tap_ok(ws_num(ws, "c", 0) == 3 && ws_num(ws, "c", 1) == 4, "script: c(2) = 4 grows a scalar");
    tap_ok(ws_num(ws, "q", 0) == 6, "script: p.Kp struct-field names");
    tap_ok(ws_num(ws, "z", 0) == 3, "script: (a + b) ' is a transpose");
    tap_streq(w.text,
              "data.m:13: not an assignment, skipped: 'disp(x)'\n"
              "data.m:14: if block skipped (only assignments are run): 'if a > 0'\n"
              "data.m:19: 'bad = undefined_thing + 1' skipped: undefined variable "
              "'undefined_thing' (column 7)\n"
              "data.m:28: not an assignment, skipped: 'y == 3'\n",
              "script warnings: source, line, statement");
    jg_expr_ws_free(ws);

    /* an unclosed block, a parent lookup, and an assignment reading the parent */
    ws = jg_expr_ws_create();
    w.text[0] = 0;
    jg_expr_ws_chain_t parent = {NULL, lookup, NULL};
    st = jg_expr_ws_run(ws, "k = 2*a;\nM(1,1) = 9;\nwhile true\n  k = 0;\n", "InitFcn", jg_expr_ws_lookup,
                   &parent, on_warn, &w);
    tap_ok(st == JG_OK && ws_num(ws, "k", 0) == 4, "script: names read through the parent");
    tap_ok(ws_num(ws, "M", 0) == 9 && ws_num(ws, "M", 3) == 4,
           "script: an indexed assignment starts from the parent's value");
    tap_streq(w.text,
              "InitFcn:3: while block skipped (only assignments are run): 'while true'\n"
              "InitFcn:3: the while block starting here has no matching 'end'\n",
              "script: unclosed block warned");
    jg_expr_ws_free(ws);

    /* bad inputs never crash */
    ws = jg_expr_ws_create();
    const char *bad[] = {"x(", "=", "x = ", "(x) = 1", "[a, b] = deal(1)", "x(1,2,3) = 1",
                         "x(0) = 1", "x = [1 2]; x(5,5) = 1; x(30) = 2", "'unterminated",
                         "x = 'a\nb'", "%{\n", "end", "x(:) = [1 2 3]", "y = [1 2; 3 4]; y(:,3) = [5 6]",
                         "e = []; e(:,2) = [1;2]", NULL};
    int ok = 1;
    for (int k = 0; bad[k]; k++) ok &= jg_expr_ws_run(ws, bad[k], "bad", NULL, NULL, NULL, NULL) == JG_OK;
    tap_ok(ok, "script: malformed statements are skipped");
    tap_ok(ws_num(ws, "y", 2) == 5 && ws_num(ws, "y", 5) == 6 && ws_num(ws, "y", 4) == 4,
           "script: y(:,3) = [5 6] appends a column");
    const jg_expr_value_t *e = jg_expr_ws_get(ws, "e");
    tap_ok(e && e->rows == 2 && e->cols == 2 && e->x[1] == 1 && e->x[3] == 2,
           "script: e(:,2) = [1;2] on an empty e");
    jg_expr_ws_free(ws);
}

/* Random printable strings and deep nesting: an error or a value, never a crash. */
static void test_fuzz(void)
{
    static const char alphabet[] = "0123456789.eE+-*/\\^'\"()[]{},;: ~!=<>&|abvMcend pi\n%@";
    unsigned seed = 12345;
    char buf[64];
    int survived = 1;
    for (int n = 0; n < 20000; n++) {
        int len = (int)(seed % 40);
        for (int k = 0; k < len; k++) {
            seed = seed * 1103515245u + 12345u;
            buf[k] = alphabet[(seed >> 16) % (sizeof alphabet - 1)];
        }
        buf[len] = 0;
        seed = seed * 1103515245u + 12345u;
        jg_expr_value_t v;
        jg_expr_error_t e;
        jg_status_t st = jg_expr_eval(buf, lookup, NULL, &v, &e);
        if (st != JG_OK && st != JG_PARAM) survived = 0;
        if (st == JG_PARAM && (e.column < 0 || e.column > len + 1 || !e.msg[0])) {
            printf("#   '%s': column %d '%s'\n", buf, e.column, e.msg);
            survived = 0;
        }
        jg_expr_value_clear(&v);
        jg_expr_ws_t *ws = jg_expr_ws_create();
        jg_expr_ws_run(ws, buf, "fuzz", lookup, NULL, NULL, NULL);
        jg_expr_ws_free(ws);
    }
    tap_ok(survived, "20000 random expressions and scripts: values or errors with columns");

    char *deep = malloc(100001);
    for (int k = 0; k < 50000; k++) deep[k] = '(';
    deep[50000] = '1';
    for (int k = 0; k < 50000; k++) deep[50001 + k] = ')';
    deep[100001 - 1] = 0;
    is_err(deep, 201, "expression nested too deeply");
    memset(deep, '-', 100000);
    deep[99999] = '1';
    is_err(deep, 200, "expression nested too deeply");
    memset(deep, '[', 100000);
    is_err(deep, 201, "expression nested too deeply");
    strcpy(deep, "((((((((((1))))))))))");
    is_num(deep, 1);
    free(deep);
}

/* jg_expr_eval_limits: the element bound per matrix and the work bound summed
 * over the whole evaluation (a matrix power's products, a chain of products). */
static void test_limits(void)
{
    jg_expr_limits_t lim = {.elements = 100, .work = 1e6};   /* 50^3 = 125000 per product */
    jg_expr_value_t v;
    jg_expr_error_t e;
    tap_ok(!jg_expr_eval_limits("zeros(10, 10)", &lim, lookup, NULL, &v, &e) && v.rows == 10,
           "100 elements under a limit of 100");
    jg_expr_value_clear(&v);
    tap_ok(jg_expr_eval_limits("zeros(10, 11)", &lim, lookup, NULL, &v, &e) == JG_PARAM &&
               strstr(e.msg, "matrix of 10x11 elements is too large (at most 100 elements)"),
           "110 elements refused: %s", e.msg);
    jg_expr_value_clear(&v);
    lim.elements = 0;   /* the default */
    tap_ok(!jg_expr_eval_limits("sum(sum(ones(50)^8))", &lim, lookup, NULL, &v, &e) &&
               v.x && v.x[0] == 50.0 * 50 * pow(50, 7),
           "ones(50)^8: 3 squarings, 375000 multiply-adds fit in 1e6 (%s)", e.msg);
    jg_expr_value_clear(&v);
    /* 8 products in a chain: 1e6 exactly; a 9th passes the limit */
    const char *c8 = "sum(sum(ones(50)*ones(50)*ones(50)*ones(50)*ones(50)*ones(50)*ones(50)*ones(50)*ones(50)))";
    tap_ok(!jg_expr_eval_limits(c8, &lim, lookup, NULL, &v, &e), "8 products of 125000 fit in 1e6 (%s)",
           e.msg);
    jg_expr_value_clear(&v);
    const char *c9 = "ones(50)*ones(50)*ones(50)*ones(50)*ones(50)*ones(50)*ones(50)*ones(50)*ones(50)*ones(50)";
    tap_ok(jg_expr_eval_limits(c9, &lim, lookup, NULL, &v, &e) == JG_PARAM &&
               strstr(e.msg, "a matrix product of this size needs 1.25e+05 multiply-adds, more than the 0 "
                             "left of the limit of one evaluation"),
           "a 9th product is refused: %s", e.msg);
    jg_expr_value_clear(&v);
    tap_ok(jg_expr_eval_limits("ones(50)^1000000", &lim, lookup, NULL, &v, &e) == JG_PARAM &&
               strstr(e.msg, "multiply-adds"), "a matrix power stops at the limit: %s", e.msg);
    jg_expr_value_clear(&v);
    /* the budget is per evaluation: the next one starts afresh */
    tap_ok(!jg_expr_eval_limits(c8, &lim, lookup, NULL, &v, &e), "the next evaluation has its own budget");
    jg_expr_value_clear(&v);
    /* a workspace's scripts run under its limits: the statement is skipped with a warning */
    jg_expr_ws_t *ws = jg_expr_ws_create();
    jg_expr_ws_set_limits(ws, &lim);
    jg_expr_ws_run(ws, "a = ones(50)^1000000; b = zeros(1, 200); c = 1", "lim.m", NULL, NULL, NULL, NULL);
    tap_ok(ws && !jg_expr_ws_get(ws, "a") && jg_expr_ws_get(ws, "b") && jg_expr_ws_get(ws, "c"),
           "a script's matrix power stops at the workspace's work limit");
    jg_expr_ws_free(ws);
    tap_ok(jg_expr_eval_limits("inv(ones(101))", &lim, lookup, NULL, &v, &e) == JG_PARAM &&
               strstr(e.msg, "inv of this size"), "inv is charged too: %s", e.msg);
    jg_expr_value_clear(&v);
}

int main(void)
{
    test_scalars();
    test_matrices();
    test_ranges_indexing();
    test_functions();
    test_strings();
    test_errors();
    test_is_number();
    test_workspace();
    test_scripts();
    test_fuzz();
    test_limits();
    return tap_done();
}
