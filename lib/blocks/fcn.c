/* Fcn: a scalar expression of the input vector u and the model's parameters.
 *
 *   "Expr": "mu*(1 - u(1)^2)*u(2) - u(1)"
 *
 * Grammar (MATLAB precedence; ^ binds tighter than unary minus and is right
 * associative, as this block documents: -2^2 = -4, 2^3^2 = 512):
 *
 *   expr    := term  (('+' | '-') term)*
 *   term    := unary (('*' | '/') unary)*
 *   unary   := ('-' | '+') unary | power
 *   power   := primary ('^' unary)?
 *   primary := NUMBER | '(' expr ')' | 'u' | 'u' '(' INTEGER ')'
 *            | NAME '(' expr (',' expr)* ')' | NAME
 *
 * A NAME alone is a scalar workspace parameter (model or enclosing SubSystem
 * "parameters", innermost first), else the constant pi.  `u` alone means u(1)
 * of a scalar input.
 *
 * Setup compiles the expression into postfix code (arena).  outputs() runs it
 * on a small value stack; jacobian() runs the same code once in forward mode:
 * every stack entry carries its gradient with respect to the u(k) that the
 * expression uses (and a flag for "constant", whose gradient is zero), so the
 * value and the 1 x n row d = dy/du come from one pass, exactly (no finite
 * differences).  The pattern of d is the set of u(k) that appear, so unused
 * inputs make no Jacobian entry and an expression without u has no direct
 * feedthrough.  Domain errors (log of a non-positive number, sqrt of a
 * negative one, division by zero, asin/acos outside [-1, 1], overflow) and
 * points where the derivative is needed but does not exist (sqrt at 0,
 * atan2/hypot at the origin) are reported with jg_eval_error, naming the
 * function, its argument values and the column in the expression. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "block_impl.h"

#define FCN_PI 3.14159265358979323846
#define FCN_LN10 2.30258509299404568402
#define FCN_MAX_NEST 200          /* parser recursion: parentheses, unary signs, powers */
#define FCN_MAX_INDEX 2147483647  /* largest k in u(k) */

enum {
    OP_CONST, OP_U, OP_NEG, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_POW,
    OP_SIN, OP_COS, OP_TAN, OP_ASIN, OP_ACOS, OP_ATAN, OP_SINH, OP_COSH, OP_TANH,
    OP_EXP, OP_LOG, OP_LOG10, OP_SQRT, OP_ABS, OP_SIGN,
    OP_ATAN2, OP_HYPOT, OP_MIN, OP_MAX
};

typedef struct {
    const char *name;
    int op, nargs;
} fcn_func_t;

static const fcn_func_t funcs[] = {
    {"sin", OP_SIN, 1},     {"cos", OP_COS, 1},     {"tan", OP_TAN, 1},
    {"asin", OP_ASIN, 1},   {"acos", OP_ACOS, 1},   {"atan", OP_ATAN, 1},
    {"atan2", OP_ATAN2, 2}, {"sinh", OP_SINH, 1},   {"cosh", OP_COSH, 1},
    {"tanh", OP_TANH, 1},   {"exp", OP_EXP, 1},     {"log", OP_LOG, 1},
    {"log10", OP_LOG10, 1}, {"sqrt", OP_SQRT, 1},   {"abs", OP_ABS, 1},
    {"pow", OP_POW, 2},     {"hypot", OP_HYPOT, 2}, {"min", OP_MIN, 2},
    {"max", OP_MAX, 2},     {"sign", OP_SIGN, 1},
};
#define NFUNCS (sizeof funcs / sizeof *funcs)
static const char func_names[] = "sin, cos, tan, asin, acos, atan, atan2, sinh, cosh, tanh, "
                                 "exp, log, log10, sqrt, abs, pow, hypot, min, max, sign";

/* One instruction of the postfix program. */
typedef struct {
    uint8_t op;
    int32_t arg;   /* OP_CONST: index in k[]; OP_U: slot in used[]; functions: 1 */
    int32_t col;   /* 1-based column in the expression, for messages */
} fcn_insn_t;

typedef struct {
    const char *expr;     /* copy of "Expr" (the program outlives the model) */
    int32_t ncode;
    fcn_insn_t *code;
    double *k;            /* constants: literals, parameters, pi */
    int32_t depth;        /* largest stack depth */
    int64_t nused;        /* distinct u(k) used: sorted 0-based element indices */
    int64_t *used;
    int64_t maxk;         /* largest k used (1-based), 0 when none */
    int32_t maxk_col;     /* its first column */
    int32_t bare_col;     /* column of the first bare `u`, 0 when none */
} fcn_t;

/* ================================================================= parser */

enum { TK_END, TK_NUM, TK_NAME, TK_CHAR };

typedef struct {
    int kind;
    size_t pos, len;   /* byte offset and length in the expression */
    double num;
} fcn_tok_t;

typedef struct {
    jg_block_t *b;
    jg_setup_t *s;
    const char *src;
    size_t pos;          /* scanner position */
    fcn_tok_t tok;       /* current token */
    fcn_insn_t *code;    /* at most strlen(src) + 1 instructions */
    int32_t ncode;
    double *k;
    int32_t nk;
    int64_t *uidx;       /* element index of each OP_U, in code order */
    int32_t nu;
    int32_t sp, depth;   /* simulated stack depth */
    int nest;
    int64_t maxk;
    int32_t maxk_col, bare_col;
} fcn_parser_t;

/* The expression in quotes for a message; a long one as the 120 characters
 * around byte pos, with their place: "..." (characters 1201-1320 of 4000). */
static void quote_expr(char *buf, size_t size, const char *expr, size_t pos)
{
    size_t len = strlen(expr);
    if (len <= 160) {
        snprintf(buf, size, "\"%s\"", expr);
        return;
    }
    size_t a = pos > 60 ? pos - 60 : 0, b = a + 120 > len ? len : a + 120;
    snprintf(buf, size, "\"%.*s\" (characters %zu-%zu of %zu)", (int)(b - a), expr + a, a + 1, b,
             len);
}

static int perr(fcn_parser_t *P, size_t pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int perr(fcn_parser_t *P, size_t pos, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char q[200];
    quote_expr(q, sizeof q, P->src, pos);
    jg_setup_error(P->b, P->s, JG_PARAM, "Expr", "column %zu: %s in %s", pos + 1, msg, q);
    return -1;
}

/* "'*'", "'sin'", "the end of the expression": what the current token is. */
static const char *tok_desc(const fcn_parser_t *P, char *buf, size_t size)
{
    const fcn_tok_t *t = &P->tok;
    if (t->kind == TK_END) return "the end of the expression";
    unsigned char c = (unsigned char)P->src[t->pos];
    if (t->kind == TK_CHAR && (c < 0x20 || c > 0x7e))
        snprintf(buf, size, "the byte 0x%02X", c);
    else
        snprintf(buf, size, "'%.*s'", (int)(t->len > 40 ? 40 : t->len), P->src + t->pos);
    return buf;
}

static int is_name_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* Scan the next token into P->tok.  Numbers: 12, 1.5, .5, 1., 1e-3, 2.5E+4. */
static int next(fcn_parser_t *P)
{
    const char *s = P->src;
    size_t i = P->pos;
    while (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') i++;
    fcn_tok_t *t = &P->tok;
    t->pos = i;
    t->num = 0;
    if (!s[i]) {
        t->kind = TK_END;
        t->len = 0;
    } else if (is_digit(s[i]) || (s[i] == '.' && is_digit(s[i + 1]))) {
        size_t j = i;
        while (is_digit(s[j])) j++;
        if (s[j] == '.') {
            j++;
            while (is_digit(s[j])) j++;
        }
        if (s[j] == 'e' || s[j] == 'E') {
            size_t k = j + 1;
            if (s[k] == '+' || s[k] == '-') k++;
            if (!is_digit(s[k])) {
                t->kind = TK_NUM;
                t->len = k - i;
                return perr(P, i, "malformed number '%.*s': expected digits in the exponent",
                            (int)(k - i), s + i);
            }
            while (is_digit(s[k])) k++;
            j = k;
        }
        t->kind = TK_NUM;
        t->len = j - i;
        char buf[64], *tmp = t->len < sizeof buf ? buf : malloc(t->len + 1);
        if (!tmp) return jg_setup_error(P->b, P->s, JG_NOMEM, NULL, "out of memory");
        memcpy(tmp, s + i, t->len);
        tmp[t->len] = 0;
        t->num = strtod(tmp, NULL);
        if (tmp != buf) free(tmp);
        if (!isfinite(t->num))
            return perr(P, i, "the number '%.*s' is out of range", (int)(t->len > 40 ? 40 : t->len),
                        s + i);
    } else if (is_name_start(s[i])) {
        size_t j = i;
        while (is_name_start(s[j]) || is_digit(s[j])) j++;
        t->kind = TK_NAME;
        t->len = j - i;
    } else {
        t->kind = TK_CHAR;
        t->len = 1;
    }
    P->pos = t->pos + t->len;
    return 0;
}

static int is_char(const fcn_parser_t *P, char c)
{
    return P->tok.kind == TK_CHAR && P->src[P->tok.pos] == c;
}

/* Stack effect of each op: +1 for operands, 0 unary, -1 binary. */
static int emit(fcn_parser_t *P, int op, int32_t arg, size_t pos)
{
    int effect = op == OP_CONST || op == OP_U ? 1 : op == OP_NEG ? 0 : -1;
    if (op >= OP_SIN && op <= OP_SIGN) effect = 0;
    P->code[P->ncode++] = (fcn_insn_t){.op = (uint8_t)op, .arg = arg, .col = (int32_t)pos + 1};
    P->sp += effect;
    if (P->sp > P->depth) P->depth = P->sp;
    return 0;
}

static int emit_const(fcn_parser_t *P, double v, size_t pos)
{
    P->k[P->nk] = v;
    return emit(P, OP_CONST, P->nk++, pos);
}

static int parse_expr(fcn_parser_t *P);
static int parse_unary(fcn_parser_t *P);

/* Expect ')' closing the '(' at byte `open`. */
static int expect_close(fcn_parser_t *P, size_t open, const char *what)
{
    char buf[64];
    if (!is_char(P, ')'))
        return perr(P, P->tok.pos, "expected ')' to close the '(' at column %zu%s, found %s",
                    open + 1, what, tok_desc(P, buf, sizeof buf));
    return next(P);
}

/* u(k) after the name `u` at `upos`; the current token is '('. */
static int parse_index(fcn_parser_t *P, size_t upos)
{
    char buf[64];
    size_t open = P->tok.pos;
    if (next(P)) return -1;
    const fcn_tok_t *t = &P->tok;
    int digits = t->kind == TK_NUM;
    for (size_t i = 0; digits && i < t->len; i++) digits = is_digit(P->src[t->pos + i]);
    if (!digits || t->num < 1)
        return perr(P, t->pos, "expected a positive integer index in u(k), found %s",
                    tok_desc(P, buf, sizeof buf));
    if (t->num > FCN_MAX_INDEX)
        return perr(P, t->pos, "the index %s in u(k) is too large (at most %d)",
                    tok_desc(P, buf, sizeof buf), FCN_MAX_INDEX);
    int64_t k = (int64_t)t->num;
    if (k > P->maxk) {
        P->maxk = k;
        P->maxk_col = (int32_t)upos + 1;
    }
    P->uidx[P->nu++] = k - 1;
    if (emit(P, OP_U, 0, upos) || next(P)) return -1;
    return expect_close(P, open, " after the index of u(k)");
}

/* NAME '(' args ')': the current token is '(' after the name at `npos`. */
static int parse_call(fcn_parser_t *P, size_t npos, size_t nlen)
{
    const char *name = P->src + npos;
    const fcn_func_t *f = NULL;
    for (size_t i = 0; i < NFUNCS; i++)
        if (strlen(funcs[i].name) == nlen && !memcmp(funcs[i].name, name, nlen)) f = &funcs[i];
    if (!f)
        return perr(P, npos, "unknown function '%.*s' (known functions: %s)", (int)nlen, name,
                    func_names);
    size_t open = P->tok.pos;
    int nargs = 0;
    if (next(P)) return -1;
    for (;;) {
        if (parse_expr(P)) return -1;
        nargs++;
        if (!is_char(P, ',')) break;
        if (next(P)) return -1;
    }
    char buf[64];
    if (!is_char(P, ')') && nargs < f->nargs)
        return perr(P, P->tok.pos, "expected ',' and argument %d of %s, found %s", nargs + 1,
                    f->name, tok_desc(P, buf, sizeof buf));
    if (expect_close(P, open, "")) return -1;
    if (nargs != f->nargs)
        return perr(P, npos, "%s takes %d argument%s, found %d", f->name, f->nargs,
                    f->nargs == 1 ? "" : "s", nargs);
    return emit(P, f->op, 1, npos);   /* arg 1: function form, for messages (pow) */
}

/* A NAME without '(': u, a workspace parameter, or pi. */
static int parse_name(fcn_parser_t *P, size_t npos, size_t nlen)
{
    const char *name = P->src + npos;
    if (nlen == 1 && name[0] == 'u') {
        if (!P->bare_col) P->bare_col = (int32_t)npos + 1;
        if (P->maxk < 1) {
            P->maxk = 1;
            P->maxk_col = (int32_t)npos + 1;
        }
        P->uidx[P->nu++] = 0;
        return emit(P, OP_U, 0, npos);
    }
    char buf[64], *id = nlen < sizeof buf ? buf : malloc(nlen + 1);
    if (!id) return jg_setup_error(P->b, P->s, JG_NOMEM, NULL, "out of memory");
    memcpy(id, name, nlen);
    id[nlen] = 0;
    jg_value_t v;
    int r = jg_setup_workspace(P->b, P->s, id, &v);
    if (id != buf) free(id);
    if (r < 0) return -1;
    if (r > 0) {
        if (jg_value_numel(&v) != 1)
            return perr(P, npos, "the parameter '%.*s' is %lldx%lld, but an expression takes "
                                 "scalar parameters only",
                        (int)nlen, name, (long long)v.rows, (long long)v.cols);
        return emit_const(P, v.x[0], npos);
    }
    if (nlen == 2 && !memcmp(name, "pi", 2)) return emit_const(P, FCN_PI, npos);
    for (size_t i = 0; i < NFUNCS; i++)
        if (strlen(funcs[i].name) == nlen && !memcmp(funcs[i].name, name, nlen))
            return perr(P, npos, "the function '%s' needs its arguments in parentheses",
                        funcs[i].name);
    return perr(P, npos, "unknown name '%.*s' (not u, pi, a function, or a parameter in "
                         "\"parameters\" of the model or of an enclosing SubSystem)",
                (int)nlen, name);
}

static int parse_primary(fcn_parser_t *P)
{
    char buf[64];
    fcn_tok_t t = P->tok;
    if (t.kind == TK_NUM) {
        if (emit_const(P, t.num, t.pos)) return -1;
        return next(P);
    }
    if (is_char(P, '(')) {
        if (next(P) || parse_expr(P)) return -1;
        return expect_close(P, t.pos, "");
    }
    if (t.kind == TK_NAME) {
        if (next(P)) return -1;
        if (is_char(P, '(')) {
            if (t.len == 1 && P->src[t.pos] == 'u') return parse_index(P, t.pos);
            return parse_call(P, t.pos, t.len);
        }
        return parse_name(P, t.pos, t.len);
    }
    return perr(P, t.pos, "expected a number, u, u(k), a name, a function call or '(', found %s",
                tok_desc(P, buf, sizeof buf));
}

static int parse_power(fcn_parser_t *P)
{
    if (parse_primary(P)) return -1;
    if (!is_char(P, '^')) return 0;
    size_t pos = P->tok.pos;
    if (next(P) || parse_unary(P)) return -1;   /* right operand: 2^-1, 2^3^2 = 2^9 */
    return emit(P, OP_POW, 0, pos);
}

/* Every recursion of the parser passes here: the nesting limit bounds the C stack. */
static int parse_unary(fcn_parser_t *P)
{
    if (++P->nest > FCN_MAX_NEST)
        return perr(P, P->tok.pos, "the expression nests deeper than %d levels", FCN_MAX_NEST);
    int r;
    if (is_char(P, '-')) {
        size_t pos = P->tok.pos;
        r = next(P) || parse_unary(P) || emit(P, OP_NEG, 0, pos) ? -1 : 0;
    } else if (is_char(P, '+')) {
        r = next(P) || parse_unary(P) ? -1 : 0;
    } else {
        r = parse_power(P);
    }
    P->nest--;
    return r;
}

static int parse_term(fcn_parser_t *P)
{
    if (parse_unary(P)) return -1;
    while (is_char(P, '*') || is_char(P, '/')) {
        size_t pos = P->tok.pos;
        int op = P->src[pos] == '*' ? OP_MUL : OP_DIV;
        if (next(P) || parse_unary(P) || emit(P, op, 0, pos)) return -1;
    }
    return 0;
}

static int parse_expr(fcn_parser_t *P)
{
    if (parse_term(P)) return -1;
    while (is_char(P, '+') || is_char(P, '-')) {
        size_t pos = P->tok.pos;
        int op = P->src[pos] == '+' ? OP_ADD : OP_SUB;
        if (next(P) || parse_term(P) || emit(P, op, 0, pos)) return -1;
    }
    return 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Compile P->src into f (arena).  Returns JG_BLOCK_DONE or JG_BLOCK_FAIL. */
static int compile(jg_block_t *b, jg_setup_t *s, const char *src, fcn_t *f)
{
    size_t len = strlen(src), cap = len + 1;
    fcn_parser_t P = {.b = b, .s = s, .src = src};
    P.code = malloc(sizeof *P.code * cap);
    P.k = malloc(sizeof *P.k * cap);
    P.uidx = malloc(sizeof *P.uidx * cap);
    int64_t *sorted = malloc(sizeof *sorted * cap);
    int r = JG_BLOCK_FAIL;
    char buf[64];
    if (!P.code || !P.k || !P.uidx || !sorted) {
        jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
        goto done;
    }
    if (next(&P) || parse_expr(&P)) goto done;
    if (P.tok.kind != TK_END) {
        perr(&P, P.tok.pos, "expected an operator or the end of the expression, found %s",
             tok_desc(&P, buf, sizeof buf));
        goto done;
    }
    /* the distinct u(k), sorted: slot j of the gradient is element used[j] */
    memcpy(sorted, P.uidx, sizeof *sorted * (size_t)P.nu);
    qsort(sorted, (size_t)P.nu, sizeof *sorted, cmp_i64);
    int64_t nused = 0;
    for (int32_t i = 0; i < P.nu; i++)
        if (!nused || sorted[i] != sorted[nused - 1]) sorted[nused++] = sorted[i];
    f->expr = jg_setup_alloc(s, len + 1);
    f->code = jg_setup_alloc(s, sizeof *f->code * (size_t)P.ncode);
    f->k = jg_setup_alloc(s, sizeof *f->k * (size_t)(P.nk + 1));
    f->used = jg_setup_alloc(s, sizeof *f->used * (size_t)(nused + 1));
    if (!f->expr || !f->code || !f->k || !f->used) {
        jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
        goto done;
    }
    memcpy((char *)f->expr, src, len + 1);
    memcpy(f->k, P.k, sizeof *f->k * (size_t)P.nk);
    memcpy(f->used, sorted, sizeof *f->used * (size_t)nused);
    f->nused = nused;
    int32_t iu = 0;
    for (int32_t i = 0; i < P.ncode; i++) {
        f->code[i] = P.code[i];
        if (P.code[i].op != OP_U) continue;
        int64_t *hit = bsearch(&P.uidx[iu++], f->used, (size_t)nused, sizeof *f->used, cmp_i64);
        f->code[i].arg = (int32_t)(hit - f->used);
    }
    f->ncode = P.ncode;
    f->depth = P.depth;
    f->maxk = P.maxk;
    f->maxk_col = P.maxk_col;
    f->bare_col = P.bare_col;
    r = JG_BLOCK_DONE;
done:
    free(P.code);
    free(P.k);
    free(P.uidx);
    free(sorted);
    return r;
}

/* ================================================================ block */

static int fcn_setup(jg_block_t *b, jg_setup_t *s)
{
    fcn_t *f = jg__setup_data(b, s, sizeof *f);
    if (!f) return JG_BLOCK_FAIL;
    const char *expr = NULL;
    int r = jg_setup_str(b, s, "Expr", &expr);
    if (r < 0) return JG_BLOCK_FAIL;
    if (r == 0)
        return jg_setup_error(b, s, JG_PARAM, "Expr",
                              "missing: expected an expression of u, e.g. \"sin(u(1))*u(2)\"");
    if (compile(b, s, expr, f) != JG_BLOCK_DONE) return JG_BLOCK_FAIL;
    return jg_setup_ports(b, s, 1, 1);
}

static int fcn_widths(jg_block_t *b, jg_setup_t *s)
{
    const fcn_t *f = b->data;
    b->out_w[0] = 1;   /* known at once: lets widths flow around loops */
    if (b->in_w[0] < 0) {
        if (!s->force) return JG_BLOCK_AGAIN;
        b->in_w[0] = f->maxk > 0 ? f->maxk : 1;
    }
    int64_t w = b->in_w[0];
    char q[200];
    if (f->bare_col && w != 1) {
        quote_expr(q, sizeof q, f->expr, (size_t)f->bare_col - 1);
        return jg_setup_error(b, s, JG_WIDTH, "Expr",
                              "u at column %d of %s needs a scalar input, but the input has "
                              "width %lld (write u(1) .. u(%lld))",
                              (int)f->bare_col, q, (long long)w, (long long)w);
    }
    if (f->maxk > w) {
        quote_expr(q, sizeof q, f->expr, (size_t)f->maxk_col - 1);
        return jg_setup_error(b, s, JG_WIDTH, "Expr",
                              "u(%lld) at column %d of %s needs an input of width %lld or more, "
                              "but the input has width %lld",
                              (long long)f->maxk, (int)f->maxk_col, q, (long long)f->maxk,
                              (long long)w);
    }
    return JG_BLOCK_DONE;
}

static int fcn_pattern(jg_block_t *b, jg_setup_t *s)
{
    const fcn_t *f = b->data;
    int64_t *rows = jg_setup_alloc(s, sizeof *rows * (size_t)(f->nused + 1));   /* zeros */
    if (!rows) return jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
    return jg_jac_pattern(b, s, JG_JAC_D, 0, 0, f->nused, rows, f->used) < 0 ? -1 : 0;
}

/* ============================================================= evaluation */

static const char *op_name(int op)
{
    for (size_t i = 0; i < NFUNCS; i++)
        if (funcs[i].op == op) return funcs[i].name;
    return "?";
}

/* y = op(a[, b]); with need_a / need_b also the partials da, db.  Returns NULL
 * or why (a, b) is outside the domain of the function, or of its derivative
 * when that is needed; *deriv tells which. */
static const char *apply(int op, double a, double b, int need_a, int need_b, double *y,
                         double *da, double *db, int *deriv)
{
    double t;
    *da = *db = 0;
    *deriv = 0;
    switch (op) {
    case OP_NEG: *y = -a; *da = -1; return NULL;
    case OP_ADD: *y = a + b; *da = 1; *db = 1; return NULL;
    case OP_SUB: *y = a - b; *da = 1; *db = -1; return NULL;
    case OP_MUL: *y = a * b; *da = b; *db = a; return NULL;
    case OP_DIV:
        if (b == 0) return "division by zero";
        *y = a / b;
        *da = 1 / b;
        *db = -*y / b;
        return NULL;
    case OP_POW:
        /* a^b is real for a > 0, for a < 0 only at integer b, at a = 0 for b >= 0 */
        if (a < 0 && b != floor(b)) return "a negative base needs an integer exponent";
        if (a == 0 && b < 0) return "division by zero: zero base with a negative exponent";
        *y = pow(a, b);
        *deriv = 1;
        if (need_a) {
            if (a == 0 && b > 0 && b < 1) return "the derivative is infinite at a zero base";
            *da = b == 0 ? 0 : a == 0 ? (b == 1 ? 1 : 0) : b * pow(a, b - 1);
        }
        if (need_b) {
            if (a < 0)
                return "the derivative with respect to the exponent does not exist for a "
                       "negative base";
            if (a == 0 && b == 0) return "not differentiable in the exponent at 0^0";
            *db = a == 0 ? 0 : *y * log(a);
        }
        *deriv = 0;
        return NULL;
    case OP_SIN: *y = sin(a); *da = cos(a); return NULL;
    case OP_COS: *y = cos(a); *da = -sin(a); return NULL;
    case OP_TAN: *y = tan(a); *da = 1 + *y * *y; return NULL;
    case OP_ASIN:
    case OP_ACOS:
        if (!(fabs(a) <= 1)) return "the argument must lie in [-1, 1]";
        *y = op == OP_ASIN ? asin(a) : acos(a);
        if (need_a) {
            *deriv = 1;
            if (fabs(a) == 1) return "the derivative is infinite at -1 and 1";
            *deriv = 0;
            t = 1 / sqrt((1 - a) * (1 + a));
            *da = op == OP_ASIN ? t : -t;
        }
        return NULL;
    case OP_ATAN: *y = atan(a); *da = 1 / (1 + a * a); return NULL;
    case OP_SINH: *y = sinh(a); *da = cosh(a); return NULL;
    case OP_COSH: *y = cosh(a); *da = sinh(a); return NULL;
    case OP_TANH: *y = tanh(a); *da = 1 - *y * *y; return NULL;
    case OP_EXP: *y = exp(a); *da = *y; return NULL;
    case OP_LOG:
    case OP_LOG10:
        if (!(a > 0)) return "the argument must be positive";
        *y = op == OP_LOG ? log(a) : log10(a);
        *da = op == OP_LOG ? 1 / a : 1 / (a * FCN_LN10);
        return NULL;
    case OP_SQRT:
        if (a < 0) return "the argument must not be negative";
        *y = sqrt(a);
        if (need_a) {
            *deriv = 1;
            if (a == 0) return "the derivative is infinite at 0";
            *deriv = 0;
            *da = 0.5 / *y;
        }
        return NULL;
    case OP_ABS:   /* slope 0 at 0, as the Abs block */
        *y = fabs(a);
        *da = a > 0 ? 1 : a < 0 ? -1 : 0;
        return NULL;
    case OP_SIGN:   /* piecewise constant: slope 0, also at the jump (as Simulink's Sign) */
        *y = a > 0 ? 1 : a < 0 ? -1 : a == 0 ? 0 : a;
        return NULL;
    case OP_ATAN2:   /* atan2(y = a, x = b); the branch cut is not a change of angle */
        *y = atan2(a, b);
        if (need_a || need_b) {
            t = hypot(a, b);
            *deriv = 1;
            if (t == 0) return "not differentiable at the origin";
            *deriv = 0;
            *da = b / t / t;
            *db = -a / t / t;
        }
        return NULL;
    case OP_HYPOT:
        *y = hypot(a, b);
        if (need_a || need_b) {
            *deriv = 1;
            if (*y == 0) return "not differentiable at the origin";
            *deriv = 0;
            *da = a / *y;
            *db = b / *y;
        }
        return NULL;
    case OP_MIN:
    case OP_MAX:
        /* at a tie the average of the two slopes: exact when they agree, and the
         * convention of Abs (abs(x) = max(x, -x) has slope 0 at 0) when not */
        if (isnan(a) || isnan(b)) {
            *y = a + b;
            return NULL;
        }
        if (a == b) {
            *y = a;
            *da = *db = 0.5;
        } else if ((a < b) == (op == OP_MIN)) {
            *y = a;
            *da = 1;
        } else {
            *y = b;
            *db = 1;
        }
        return NULL;
    }
    return "unknown operation";   /* not reached: the compiler emits known ops only */
}

static int is_binary(int op)
{
    return (op >= OP_ADD && op <= OP_POW) || op >= OP_ATAN2;
}

/* Shortest %g form that reads back as x (0.1, not 0.10000000000000001);
 * negative numbers in parentheses when paren is set. */
static void num_str(char *buf, size_t size, double x, int paren)
{
    char tmp[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, x);
        if (strtod(tmp, NULL) == x || prec == 17) break;
    }
    snprintf(buf, size, paren && x < 0 ? "(%s)" : "%s", tmp);
}

/* "log(0)", "1 / 0", "(-8) ^ 0.5", "atan2(0, 0)", "pow(0, -1)" */
static void call_str(char *buf, size_t size, const fcn_insn_t *in, double a, double b)
{
    static const char sym[] = {[OP_ADD] = '+', [OP_SUB] = '-', [OP_MUL] = '*', [OP_DIV] = '/',
                               [OP_POW] = '^'};
    int op = in->op, infix = op >= OP_ADD && op <= OP_POW && !in->arg;
    char sa[48], sb[48];
    num_str(sa, sizeof sa, a, infix);
    num_str(sb, sizeof sb, b, infix);
    if (op == OP_NEG)
        snprintf(buf, size, "-(%s)", sa);
    else if (infix)
        snprintf(buf, size, "%s %c %s", sa, sym[op], sb);
    else if (is_binary(op))
        snprintf(buf, size, "%s(%s, %s)", op_name(op), sa, sb);
    else
        snprintf(buf, size, "%s(%s)", op_name(op), sa);
}

static int fail(const jg_block_t *b, jg_eval_t *e, const fcn_t *f, const fcn_insn_t *in,
                double a, double bb, const char *why, int jac)
{
    char call[128];
    call_str(call, sizeof call, in, a, bb);
    char q[200];
    quote_expr(q, sizeof q, f->expr, (size_t)in->col - 1);
    return jg_eval_error(b, e, "%s%s: %s (column %d of %s)", jac ? "Jacobian of " : "", call,
                         why, (int)in->col, q);
}

typedef struct {
    double v;
    int g;   /* has a gradient (depends on u); else the gradient is zero */
} fcn_ent_t;

enum { LOCAL_STACK = 64, LOCAL_GRAD = 1024 };

/* Run the program.  grad == NULL: the value only.  Otherwise also the
 * gradient with respect to u(used[j]) in grad[j], by forward mode: stack
 * entry i keeps its gradient in G[i * nused ...]. */
static int run(const jg_block_t *b, jg_eval_t *e, double *y, double *grad)
{
    const fcn_t *f = b->data;
    const double *u = e->u[0];
    int64_t nv = grad ? f->nused : 0;
    fcn_ent_t st_local[LOCAL_STACK], *st = st_local;
    double g_local[LOCAL_GRAD], *G = g_local;
    if (f->depth > LOCAL_STACK) st = malloc(sizeof *st * (size_t)f->depth);
    if ((int64_t)f->depth * nv > LOCAL_GRAD) G = malloc(sizeof *G * (size_t)(f->depth * nv));
    int r = 0;
    if (!st || !G) {
        jg_error_set(e->err, JG_NOMEM, "out of memory");
        r = -1;
        goto done;
    }
    int32_t sp = 0;
    st[0] = (fcn_ent_t){0, 0};   /* programs push at least one operand; for -Wmaybe-uninitialized */
    for (int32_t pc = 0; pc < f->ncode; pc++) {
        const fcn_insn_t *in = &f->code[pc];
        if (in->op == OP_CONST) {
            st[sp++] = (fcn_ent_t){f->k[in->arg], 0};
            continue;
        }
        if (in->op == OP_U) {
            st[sp] = (fcn_ent_t){u[f->used[in->arg]], nv > 0};
            if (nv) {
                double *g = G + (int64_t)sp * nv;
                for (int64_t j = 0; j < nv; j++) g[j] = 0;
                g[in->arg] = 1;
            }
            sp++;
            continue;
        }
        int bin = is_binary(in->op);
        fcn_ent_t *A = &st[sp - 1 - bin], *B = bin ? &st[sp - 1] : NULL;
        double a = A->v, bv = B ? B->v : 0, v, da, db;
        int need_a = nv && A->g, need_b = nv && B && B->g, deriv;
        const char *why = apply(in->op, a, bv, need_a, need_b, &v, &da, &db, &deriv);
        /* a non-finite result from finite arguments is this operation's overflow
         * (exp(1000), tan near pi/2); non-finite inputs are the driver's business */
        if (!why && isfinite(a) && isfinite(bv)) {
            if (!isfinite(v))
                why = "the result overflows";
            else if ((need_a && !isfinite(da)) || (need_b && !isfinite(db)))
                why = "the derivative overflows", deriv = 1;
        }
        if (why) {
            r = fail(b, e, f, in, a, bv, why, deriv);
            goto done;
        }
        if (need_a || need_b) {
            double *ga = G + (int64_t)(sp - 1 - bin) * nv, *gb = ga + nv;
            int finite = 1;
            for (int64_t j = 0; j < nv; j++) {
                double d = (need_a ? da * ga[j] : 0) + (need_b ? db * gb[j] : 0);
                finite &= isfinite(d) != 0;
                ga[j] = d;
            }
            if (!finite && isfinite(a) && isfinite(bv)) {
                r = fail(b, e, f, in, a, bv, "the derivative overflows", 1);
                goto done;
            }
        }
        A->v = v;
        A->g = need_a || need_b;
        sp -= bin;
    }
    *y = st[0].v;
    for (int64_t j = 0; j < nv; j++) grad[j] = st[0].g ? G[j] : 0;
done:
    if (st != st_local) free(st);
    if (G != g_local) free(G);
    return r;
}

static int fcn_outputs(const jg_block_t *b, jg_eval_t *e)
{
    return run(b, e, &e->y[0][0], NULL);
}

static int fcn_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    const fcn_t *f = b->data;
    cs_dl *m = e->jac[0];
    double y, g_local[64], *g = f->nused <= 64 ? g_local : malloc(sizeof *g * (size_t)f->nused);
    if (!g) {
        jg_error_set(e->err, JG_NOMEM, "out of memory");
        return -1;
    }
    int r = run(b, e, &y, g);
    if (!r) {
        /* the pattern is row 0 at the used columns, in ascending order */
        int64_t j = 0;
        for (int64_t c = 0; c < m->n; c++)
            for (int64_t k = m->p[c]; k < m->p[c + 1]; k++) m->x[k] = g[j++];
    }
    if (g != g_local) free(g);
    return r;
}

const jg_block_type_t jg_block_fcn = {
    .name = "Fcn", .flags = 0,
    .setup = fcn_setup, .widths = fcn_widths, .pattern = fcn_pattern,
    .outputs = fcn_outputs, .jacobian = fcn_jacobian,
};
