/* Evaluating one MATLAB expression: a tokenizer that applies MATLAB's
 * whitespace rules inside brackets, and a recursive-descent parser that
 * computes as it parses (no syntax tree). */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "expr_impl.h"

#define MAX_DEPTH 200   /* nesting of brackets and unary operators */
#define MAX_ARGS 16

/* ------------------------------------------------------------ public values */

void jg_expr_value_clear(jg_expr_value_t *v)
{
    if (!v) return;
    free(v->x);
    free(v->str);
    memset(v, 0, sizeof *v);
}

jg_status_t jg_expr_value_copy(jg_expr_value_t *dst, const jg_expr_value_t *src)
{
    jg_expr_value_t d = {.kind = src->kind, .rows = src->rows, .cols = src->cols};
    if (src->str) {
        size_t n = strlen(src->str) + 1;
        if (!(d.str = malloc(n))) return JG_NOMEM;
        memcpy(d.str, src->str, n);
    }
    int64_t n = src->rows * src->cols;
    if (src->x && n > 0) {
        if (!(d.x = malloc(sizeof(double) * (size_t)n))) {
            free(d.str);
            return JG_NOMEM;
        }
        memcpy(d.x, src->x, sizeof(double) * (size_t)n);
    }
    *dst = d;
    return JG_OK;
}

jg_status_t jg_expr_value_scalar(jg_expr_value_t *v, double x)
{
    memset(v, 0, sizeof *v);
    if (!(v->x = malloc(sizeof(double)))) return JG_NOMEM;
    v->x[0] = x;
    v->rows = v->cols = 1;
    return JG_OK;
}

int jg_expr_is_number(const char *src, double *x)
{
    const char *p = src;
    while (*p == ' ' || *p == '\t') p++;
    /* strtod also takes "inf", "nan" and hex, which MATLAB reads otherwise */
    for (const char *q = p; *q; q++)
        if (!strchr("0123456789.eE+- \t", *q)) return 0;
    if (!*p) return 0;
    char *end;
    double v = strtod(p, &end);
    if (end == p) return 0;
    while (*end == ' ' || *end == '\t') end++;
    if (*end) return 0;
    *x = v;
    return 1;
}

/* ------------------------------------------------------------------ tokens */

typedef enum {
    T_EOF, T_NUM, T_ID, T_STR, T_END, T_OP, T_LP, T_RP, T_LB, T_RB, T_LC, T_RC, T_COMMA,
    T_SEMI, T_COLON
} ttype_t;

typedef enum {
    O_NONE, O_PLUS, O_MINUS, O_MUL, O_DIV, O_LDIV, O_POW, O_EMUL, O_EDIV, O_ELDIV, O_EPOW,
    O_TRANS, O_DTRANS, O_NOT, O_EQ, O_NE, O_LT, O_LE, O_GT, O_GE, O_AND, O_OR, O_ANDAND,
    O_OROR, O_ASSIGN
} op_t;

typedef struct {
    ttype_t type;
    op_t op;
    int pos, len;   /* in the source */
    double num;
} tok_t;

typedef struct {
    const char *src;
    tok_t *t;
    int nt, cap, k;
    tok_t local[64];   /* most expressions need no heap for tokens */
    jg_expr_lookup_fn lookup;
    void *ctx;
    jg__xerr_t E;
    int depth;
    int dry;   /* syntax only: every value is a scalar 0, no operation can fail */
    /* the value being indexed, for `end` */
    const jg__xv_t *end_obj;
    int end_dim, end_ndim;
} parser_t;

static int perr_at(parser_t *P, int pos, const char *fmt, const char *arg)
{
    P->E.col = pos + 1;
    return jg__xerr(&P->E, fmt, arg);
}

static int push_tok(parser_t *P, ttype_t type, op_t op, int pos, int len)
{
    if (P->nt == P->cap) {
        int cap = P->cap * 2;
        tok_t *nt = malloc(sizeof *nt * (size_t)cap);
        if (!nt) return jg__xnomem(&P->E);
        memcpy(nt, P->t, sizeof *nt * (size_t)P->nt);
        if (P->t != P->local) free(P->t);
        P->t = nt;
        P->cap = cap;
    }
    P->t[P->nt++] = (tok_t){type, op, pos, len, 0};
    return 0;
}

static int ends_value(const tok_t *t)
{
    switch (t->type) {
    case T_NUM: case T_ID: case T_STR: case T_END: case T_RP: case T_RB: case T_RC: return 1;
    case T_OP: return t->op == O_TRANS || t->op == O_DTRANS;
    default: return 0;
    }
}

static int is_blank(char c) { return c == ' ' || c == '\t'; }

/* Inside [] a blank separates elements when what follows starts one: "[a -b]"
 * is two elements, "[a - b]" and "[a -= b]" are not. */
static int starts_value(const char *s)
{
    char c = s[0];
    if (isalnum((unsigned char)c) || c == '_' || c == '\'' || c == '"' || c == '(' || c == '[' ||
        c == '{' || c == '@')
        return 1;
    if (c == '.' && isdigit((unsigned char)s[1])) return 1;
    if (c == '+' || c == '-') return s[1] && !is_blank(s[1]) && s[1] != '=' && s[1] != '\n' && s[1] != '\r';
    if (c == '~' || c == '!') return s[1] != '=';
    return 0;
}

static int lex(parser_t *P)
{
    const char *s = P->src;
    char stack[MAX_DEPTH + 1];
    int sp = 0, ws = 0;
    for (int i = 0; s[i];) {
        char c = s[i];
        int in_matrix = sp > 0 && (stack[sp - 1] == '[' || stack[sp - 1] == '{');
        const tok_t *prev = P->nt ? &P->t[P->nt - 1] : NULL;
        if (is_blank(c)) {
            ws = 1;
            i++;
            continue;
        }
        if (c == '.' && s[i + 1] == '.' && s[i + 2] == '.') {   /* continuation */
            while (s[i] && s[i] != '\n') i++;
            if (s[i]) i++;
            ws = 1;
            continue;
        }
        if (c == '\n' || c == '\r') {
            i++;
            if (in_matrix && prev && prev->type != T_LB && prev->type != T_LC && prev->type != T_SEMI) {
                if (push_tok(P, T_SEMI, O_NONE, i - 1, 1)) return -1;
            }
            ws = 1;
            continue;
        }
        int quote_is_transpose = c == '\'' && prev && ends_value(prev) && !(in_matrix && ws);
        if (in_matrix && ws && prev && ends_value(prev) && starts_value(s + i) &&
            !(c == '\'' && quote_is_transpose)) {
            if (push_tok(P, T_COMMA, O_NONE, i, 0)) return -1;
            prev = &P->t[P->nt - 1];
        }
        ws = 0;
        int start = i;
        if (isdigit((unsigned char)c) || (c == '.' && isdigit((unsigned char)s[i + 1]))) {
            while (isdigit((unsigned char)s[i])) i++;
            /* "1./x", "2.^k", "x.'": the dot belongs to the operator */
            if (s[i] == '.' && !(s[i + 1] && strchr("*/\\^'", s[i + 1]))) {
                i++;
                while (isdigit((unsigned char)s[i])) i++;
            }
            if ((s[i] == 'e' || s[i] == 'E') &&
                (isdigit((unsigned char)s[i + 1]) ||
                 ((s[i + 1] == '+' || s[i + 1] == '-') && isdigit((unsigned char)s[i + 2])))) {
                i += 2;
                while (isdigit((unsigned char)s[i])) i++;
            }
            char buf[64];
            int n = i - start < 63 ? i - start : 63;
            memcpy(buf, s + start, (size_t)n);
            buf[n] = 0;
            if (push_tok(P, T_NUM, O_NONE, start, i - start)) return -1;
            P->t[P->nt - 1].num = strtod(buf, NULL);
            continue;
        }
        if (isalpha((unsigned char)c)) {
            while (isalnum((unsigned char)s[i]) || s[i] == '_' ||
                   (s[i] == '.' && isalpha((unsigned char)s[i + 1])))   /* struct fields: p.Kp */
                i++;
            int isend = i - start == 3 && !memcmp(s + start, "end", 3);
            if (push_tok(P, isend ? T_END : T_ID, O_NONE, start, i - start)) return -1;
            continue;
        }
        if ((c == '\'' && !quote_is_transpose) || c == '"') {
            for (i++;; i++) {
                if (!s[i] || s[i] == '\n' || s[i] == '\r')
                    return perr_at(P, start, "unterminated string%s", "");
                if (s[i] == c) {
                    if (s[i + 1] == c) {
                        i++;
                        continue;
                    }
                    break;
                }
            }
            i++;
            if (push_tok(P, T_STR, O_NONE, start, i - start)) return -1;
            continue;
        }
        static const struct { const char *s; ttype_t t; op_t op; } ops[] = {
            {".*", T_OP, O_EMUL}, {"./", T_OP, O_EDIV}, {".\\", T_OP, O_ELDIV}, {".^", T_OP, O_EPOW},
            {".'", T_OP, O_DTRANS}, {"==", T_OP, O_EQ}, {"~=", T_OP, O_NE}, {"!=", T_OP, O_NE},
            {"<=", T_OP, O_LE}, {">=", T_OP, O_GE}, {"&&", T_OP, O_ANDAND}, {"||", T_OP, O_OROR},
            {"+", T_OP, O_PLUS}, {"-", T_OP, O_MINUS}, {"*", T_OP, O_MUL}, {"/", T_OP, O_DIV},
            {"\\", T_OP, O_LDIV}, {"^", T_OP, O_POW}, {"'", T_OP, O_TRANS}, {"~", T_OP, O_NOT},
            {"!", T_OP, O_NOT}, {"<", T_OP, O_LT}, {">", T_OP, O_GT}, {"&", T_OP, O_AND},
            {"|", T_OP, O_OR}, {"=", T_OP, O_ASSIGN}, {":", T_COLON, O_NONE}, {"(", T_LP, O_NONE},
            {")", T_RP, O_NONE}, {"[", T_LB, O_NONE}, {"]", T_RB, O_NONE}, {"{", T_LC, O_NONE},
            {"}", T_RC, O_NONE}, {",", T_COMMA, O_NONE}, {";", T_SEMI, O_NONE}};
        size_t k;
        for (k = 0; k < sizeof ops / sizeof *ops; k++) {
            size_t n = strlen(ops[k].s);
            if (!strncmp(s + i, ops[k].s, n)) break;
        }
        if (k == sizeof ops / sizeof *ops) {
            char ch[2] = {c, 0};
            if (c == '@') return perr_at(P, i, "function handles (@) are not supported%s", "");
            if (c == '%') return perr_at(P, i, "unexpected '%%' (comments are not part of expressions)%s", "");
            if ((unsigned char)c < 32 || (unsigned char)c > 126)
                return perr_at(P, i, "unexpected character%s", "");
            return perr_at(P, i, "unexpected character '%s'", ch);
        }
        int n = (int)strlen(ops[k].s);
        if (push_tok(P, ops[k].t, ops[k].op, i, n)) return -1;
        i += n;
        if (ops[k].t == T_LP || ops[k].t == T_LB || ops[k].t == T_LC) {
            if (sp == MAX_DEPTH) return perr_at(P, start, "expression nested too deeply%s", "");
            stack[sp++] = c;
        } else if ((ops[k].t == T_RP && sp && stack[sp - 1] == '(') ||
                   (ops[k].t == T_RB && sp && stack[sp - 1] == '[') ||
                   (ops[k].t == T_RC && sp && stack[sp - 1] == '{')) {
            sp--;
        }
    }
    int len = (int)strlen(s);
    return push_tok(P, T_EOF, O_NONE, len, 0);
}

/* ------------------------------------------------------------------ parser */

static tok_t *cur(parser_t *P) { return &P->t[P->k]; }

static int unexpected(parser_t *P, const tok_t *t)
{
    if (t->type == T_EOF) return perr_at(P, t->pos, "unexpected end of expression%s", "");
    char buf[40];
    int n = t->len < 32 ? t->len : 32;
    memcpy(buf, P->src + t->pos, (size_t)n);
    buf[n] = 0;
    if (t->type == T_COMMA && t->len == 0) strcpy(buf, " ");   /* an implied separator */
    return perr_at(P, t->pos, "unexpected '%s'", buf);
}

static int parse_expr(parser_t *P, jg__xv_t *out);
static int parse_unary(parser_t *P, jg__xv_t *out);

static int enter(parser_t *P)
{
    if (++P->depth > MAX_DEPTH) return perr_at(P, cur(P)->pos, "expression nested too deeply%s", "");
    return 0;
}

/* Apply a binary operator token to a and b (both freed). */
static int binop(parser_t *P, op_t op, int pos, jg__xv_t *a, jg__xv_t *b, jg__xv_t *out)
{
    jg__xerr_t *E = &P->E;
    E->col = pos + 1;
    int rc;
    if (P->dry) op = O_NONE;
    switch (op) {
    case O_NONE: jg__xv_scalar(out, 0); rc = 0; break;
    case O_PLUS: rc = jg__x_elementwise(E, JG__OP_ADD, a, b, out); break;
    case O_MINUS: rc = jg__x_elementwise(E, JG__OP_SUB, a, b, out); break;
    case O_MUL: rc = jg__x_mtimes(E, a, b, out); break;
    case O_DIV: rc = jg__x_mrdivide(E, a, b, out); break;
    case O_LDIV: rc = jg__x_mldivide(E, a, b, out); break;
    case O_POW: rc = jg__x_mpower(E, a, b, out); break;
    case O_EMUL: rc = jg__x_elementwise(E, JG__OP_EMUL, a, b, out); break;
    case O_EDIV: rc = jg__x_elementwise(E, JG__OP_EDIV, a, b, out); break;
    case O_ELDIV: rc = jg__x_elementwise(E, JG__OP_ELDIV, a, b, out); break;
    case O_EPOW: rc = jg__x_elementwise(E, JG__OP_EPOW, a, b, out); break;
    case O_EQ: rc = jg__x_elementwise(E, JG__OP_EQ, a, b, out); break;
    case O_NE: rc = jg__x_elementwise(E, JG__OP_NE, a, b, out); break;
    case O_LT: rc = jg__x_elementwise(E, JG__OP_LT, a, b, out); break;
    case O_LE: rc = jg__x_elementwise(E, JG__OP_LE, a, b, out); break;
    case O_GT: rc = jg__x_elementwise(E, JG__OP_GT, a, b, out); break;
    case O_GE: rc = jg__x_elementwise(E, JG__OP_GE, a, b, out); break;
    case O_AND: rc = jg__x_elementwise(E, JG__OP_AND, a, b, out); break;
    case O_OR: rc = jg__x_elementwise(E, JG__OP_OR, a, b, out); break;
    case O_ANDAND: case O_OROR: {
        double x, y;
        if (jg__xv_get_scalar(E, a, "an operand of && and ||", &x) ||
            jg__xv_get_scalar(E, b, "an operand of && and ||", &y)) {
            rc = -1;
            break;
        }
        jg__xv_scalar(out, op == O_ANDAND ? (x != 0 && y != 0) : (x != 0 || y != 0));
        rc = 0;
        break;
    }
    default: rc = jg__xerr(E, "internal: bad operator");
    }
    jg__xv_free(a);
    jg__xv_free(b);
    return rc;
}

/* One left-associative binary level: operators ops[] over sub-expressions. */
typedef int (*level_fn)(parser_t *P, jg__xv_t *out);

static int binary_level(parser_t *P, jg__xv_t *out, level_fn sub, const op_t *ops)
{
    if (sub(P, out)) return -1;
    for (;;) {
        tok_t *t = cur(P);
        if (t->type != T_OP) return 0;
        int hit = 0;
        for (const op_t *o = ops; *o; o++) hit |= *o == t->op;
        if (!hit) return 0;
        op_t op = t->op;
        int pos = t->pos;
        P->k++;
        jg__xv_t a = *out, b = {0};
        memset(out, 0, sizeof *out);
        if (sub(P, &b)) {
            jg__xv_free(&a);
            return -1;
        }
        if (binop(P, op, pos, &a, &b, out)) return -1;
    }
}

/* Unary +, -, ~ applied to v (in place). */
static int apply_unary(parser_t *P, op_t op, int pos, jg__xv_t *v)
{
    if (op == O_PLUS) return 0;
    P->E.col = pos + 1;
    if (v->kind == JG_EXPR_STR) return jg__xerr(&P->E, "arithmetic on strings is not supported");
    double *x = jg__xv_data(v);
    for (int64_t k = 0; k < jg__xv_numel(v); k++) x[k] = op == O_MINUS ? -x[k] : x[k] == 0;
    return 0;
}

/* Count the arguments between the '(' at P->k and its ')'. */
static int count_args(parser_t *P)
{
    int depth = 0, n = 0;
    if (P->t[P->k + 1].type == T_RP) return 0;
    for (int k = P->k; k < P->nt; k++) {
        ttype_t t = P->t[k].type;
        if (t == T_LP || t == T_LB || t == T_LC) depth++;
        else if ((t == T_RP || t == T_RB || t == T_RC) && --depth == 0) break;
        else if (t == T_EOF) break;
        else if (depth == 1 && t == T_COMMA) n++;
    }
    return n + 1;
}

/* '(' args ')': with obj set, an index list (':' allowed, `end` = obj's size). */
static int parse_args(parser_t *P, const jg__xv_t *obj, jg__xidx_t *args, int *nargs)
{
    tok_t *open = cur(P);
    int n = count_args(P);
    *nargs = 0;
    P->k++;   /* '(' */
    if (n > MAX_ARGS) return perr_at(P, open->pos, "too many arguments (more than 16)%s", "");
    const jg__xv_t *save_obj = P->end_obj;
    int save_dim = P->end_dim, save_ndim = P->end_ndim;
    if (cur(P)->type == T_RP) {
        P->k++;
        return 0;
    }
    int rc = -1;
    for (int k = 0;; k++) {
        if (k >= MAX_ARGS) {
            perr_at(P, cur(P)->pos, "too many arguments (more than 16)%s", "");
            goto done;
        }
        memset(&args[k], 0, sizeof args[k]);
        tok_t *t = cur(P);
        if (t->type == T_COLON && (P->t[P->k + 1].type == T_COMMA || P->t[P->k + 1].type == T_RP)) {
            if (!obj) {
                perr_at(P, t->pos, "':' alone is only valid as an index%s", "");
                goto done;
            }
            args[k].all = 1;
            P->k++;
        } else {
            if (obj) {
                P->end_obj = obj;
                P->end_dim = k;
                P->end_ndim = n;
            }
            int r = parse_expr(P, &args[k].v);
            P->end_obj = save_obj;
            P->end_dim = save_dim;
            P->end_ndim = save_ndim;
            if (r) goto done;
        }
        *nargs = k + 1;
        t = cur(P);
        if (t->type == T_COMMA) {
            P->k++;
            continue;
        }
        if (t->type == T_RP) {
            P->k++;
            break;
        }
        if (t->type == T_EOF) {
            perr_at(P, open->pos, "missing ')'%s", "");
            goto done;
        }
        unexpected(P, t);
        goto done;
    }
    rc = 0;
done:
    if (rc) {   /* the argument that failed is already empty */
        for (int k = 0; k < *nargs; k++) jg__xv_free(&args[k].v);
        *nargs = 0;
    }
    return rc;
}

static void free_args(jg__xidx_t *args, int n)
{
    for (int k = 0; k < n; k++) jg__xv_free(&args[k].v);
}

static int parse_matrix(parser_t *P, jg__xv_t *out)
{
    tok_t *open = cur(P);
    P->k++;
    jg__xv_t elem_local[8], row_local[4];
    jg__xv_t *elem = elem_local, *rows = row_local;
    int64_t ne = 0, nr = 0, ce = 8, cr = 4;
    int rc = -1;
    for (;;) {
        tok_t *t = cur(P);
        if (t->type == T_RB || t->type == T_SEMI) {
            if (ne) {   /* finish the row */
                if (nr == cr) {
                    jg__xv_t *n = malloc(sizeof *n * (size_t)(2 * cr));
                    if (!n) {
                        jg__xnomem(&P->E);
                        goto done;
                    }
                    memcpy(n, rows, sizeof *n * (size_t)nr);
                    if (rows != row_local) free(rows);
                    rows = n;
                    cr *= 2;
                }
                P->E.col = open->pos + 1;
                if (P->dry) jg__xv_scalar(&rows[nr], 0);
                else if (jg__x_concat(&P->E, elem, ne, 1, &rows[nr])) goto done;
                nr++;
                for (int64_t k = 0; k < ne; k++) jg__xv_free(&elem[k]);
                ne = 0;
            }
            P->k++;
            if (t->type == T_RB) break;
            continue;
        }
        if (t->type == T_COMMA) {
            P->k++;
            continue;
        }
        if (t->type == T_EOF) {
            perr_at(P, open->pos, "missing ']'%s", "");
            goto done;
        }
        if (t->type == T_RP || t->type == T_RC) {
            unexpected(P, t);
            goto done;
        }
        if (ne == ce) {
            jg__xv_t *n = malloc(sizeof *n * (size_t)(2 * ce));
            if (!n) {
                jg__xnomem(&P->E);
                goto done;
            }
            memcpy(n, elem, sizeof *n * (size_t)ne);
            if (elem != elem_local) free(elem);
            elem = n;
            ce *= 2;
        }
        memset(&elem[ne], 0, sizeof elem[ne]);
        if (parse_expr(P, &elem[ne])) goto done;
        ne++;
        t = cur(P);
        if (t->type != T_COMMA && t->type != T_SEMI && t->type != T_RB) {
            if (t->type == T_EOF) perr_at(P, open->pos, "missing ']'%s", "");
            else unexpected(P, t);
            goto done;
        }
    }
    P->E.col = open->pos + 1;
    if (nr == 0 || P->dry) rc = jg__xv_alloc(&P->E, out, 0, 0);
    else rc = jg__x_concat(&P->E, rows, nr, 0, out);
done:
    for (int64_t k = 0; k < ne; k++) jg__xv_free(&elem[k]);
    for (int64_t k = 0; k < nr; k++) jg__xv_free(&rows[k]);
    if (elem != elem_local) free(elem);
    if (rows != row_local) free(rows);
    return rc;
}

/* The text of a string token without quotes, '' / "" unescaped. */
static int string_value(parser_t *P, const tok_t *t, jg__xv_t *out)
{
    const char *s = P->src + t->pos;
    char q = s[0];
    if (jg__xv_str(&P->E, out, "", 0)) return -1;
    char *d = realloc(out->str, (size_t)t->len);
    if (!d) return jg__xnomem(&P->E);
    out->str = d;
    int n = 0;
    for (int i = 1; i < t->len - 1; i++) {
        d[n++] = s[i];
        if (s[i] == q) i++;
    }
    d[n] = 0;
    out->c = n;
    out->r = n ? 1 : 0;
    return 0;
}

static int parse_identifier(parser_t *P, jg__xv_t *out)
{
    tok_t *t = cur(P);
    char local[64], *name = local;
    if (t->len >= (int)sizeof local && !(name = malloc((size_t)t->len + 1)))
        return jg__xnomem(&P->E);
    memcpy(name, P->src + t->pos, (size_t)t->len);
    name[t->len] = 0;
    int pos = t->pos, len = t->len, rc = -1;
    P->k++;
    int call = cur(P)->type == T_LP;
    jg__xidx_t args[MAX_ARGS];
    int nargs = 0;
    int r = 0;
    jg__xv_t var = {0};
    if (P->dry) {   /* any name: a scalar; its arguments parsed as an index list */
        jg__xv_scalar(&var, 0);
        if (call && parse_args(P, &var, args, &nargs)) goto done;
        jg__xv_scalar(out, 0);
        rc = 0;
        goto done;
    }
    if (P->lookup) {
        jg_expr_value_t pub = {0};
        if (P->E.err) P->E.err->msg[0] = 0;
        r = P->lookup(P->ctx, name, &pub, P->E.err);
        if (r < 0) {
            jg_expr_value_clear(&pub);
            P->E.col = pos + 1;
            if (P->E.err && !P->E.err->msg[0]) jg__xerr(&P->E, "cannot evaluate '%s'", name);
            P->E.failed = 1;
            if (P->E.err) P->E.err->column = pos + 1;
            goto done;
        }
        if (r > 0) jg__xv_from_public(&var, &pub);
        else jg_expr_value_clear(&pub);
    }
    if (r > 0) {
        if (!call) {
            *out = var;
            memset(&var, 0, sizeof var);
            rc = 0;
            goto done;
        }
        if (parse_args(P, &var, args, &nargs)) goto done;
        P->E.col = pos + 1;
        rc = jg__x_index(&P->E, &var, args, nargs, out);
        goto done;
    }
    double c;
    const jg__xfn_t *fn;
    if (jg__xconst_find(name, (size_t)len, &c)) {
        if (!call) {
            jg__xv_scalar(out, c);
            rc = 0;
            goto done;
        }
        /* inf(2,1), nan(3): a filled matrix */
        if (parse_args(P, NULL, args, &nargs)) goto done;
        const jg__xfn_t *ones = jg__xfn_find("ones", 4);
        jg__xv_t a[MAX_ARGS];
        for (int k = 0; k < nargs; k++) a[k] = args[k].v;
        P->E.col = pos + 1;
        if (nargs > 2) {
            jg__xerr(&P->E, "'%s' takes at most 2 arguments", name);
            goto done;
        }
        if (ones->fn(&P->E, a, nargs, out)) goto done;
        double *x = jg__xv_data(out);
        for (int64_t k = 0; k < jg__xv_numel(out); k++) x[k] = c;
        rc = 0;
        goto done;
    }
    if ((fn = jg__xfn_find(name, (size_t)len))) {
        if (call && parse_args(P, NULL, args, &nargs)) goto done;
        P->E.col = pos + 1;
        if (nargs < fn->min_args || nargs > fn->max_args) {
            if (fn->min_args == fn->max_args)
                jg__xerr(&P->E, "'%s' takes %d argument%s, got %d", name, fn->min_args,
                         fn->min_args == 1 ? "" : "s", nargs);
            else
                jg__xerr(&P->E, "'%s' takes %d to %d arguments, got %d", name, fn->min_args,
                         fn->max_args, nargs);
            goto done;
        }
        jg__xv_t a[MAX_ARGS];
        for (int k = 0; k < nargs; k++) a[k] = args[k].v;
        rc = fn->fn(&P->E, a, nargs, out);
        goto done;
    }
    P->E.col = pos + 1;
    jg__xerr(&P->E, call ? "undefined function or variable '%s'" : "undefined variable '%s'", name);
done:
    free_args(args, nargs);
    jg__xv_free(&var);
    if (name != local) free(name);
    return rc;
}

static int parse_primary(parser_t *P, jg__xv_t *out)
{
    tok_t *t = cur(P);
    memset(out, 0, sizeof *out);
    switch (t->type) {
    case T_NUM:
        jg__xv_scalar(out, t->num);
        P->k++;
        return 0;
    case T_STR:
        P->k++;
        return string_value(P, t, out);
    case T_ID:
        return parse_identifier(P, out);
    case T_END:
        if (!P->end_obj) return perr_at(P, t->pos, "'end' is only valid inside an index%s", "");
        {
            const jg__xv_t *o = P->end_obj;
            int64_t r = o->kind == JG_EXPR_STR ? (o->c ? 1 : 0) : o->r;
            double v = P->end_ndim == 1 ? (double)(o->r * o->c)
                       : P->end_dim == 0 ? (double)r : P->end_dim == 1 ? (double)o->c : 1;
            jg__xv_scalar(out, v);
        }
        P->k++;
        return 0;
    case T_LP: {
        if (enter(P)) return -1;
        P->k++;
        if (parse_expr(P, out)) return -1;
        if (cur(P)->type != T_RP) {
            if (cur(P)->type == T_EOF) perr_at(P, t->pos, "missing ')'%s", "");
            else unexpected(P, cur(P));
            jg__xv_free(out);
            return -1;
        }
        P->k++;
        P->depth--;
        return 0;
    }
    case T_LB: {
        if (enter(P)) return -1;
        int r = parse_matrix(P, out);
        P->depth--;
        return r;
    }
    case T_LC:
        return perr_at(P, t->pos, "cell arrays ({...}) are not supported%s", "");
    default:
        return unexpected(P, t);
    }
}

/* The operand of ^ and .^: unary signs allowed ("2^-1"), no further power. */
static int parse_power_operand(parser_t *P, jg__xv_t *out)
{
    tok_t *t = cur(P);
    if (t->type == T_OP && (t->op == O_PLUS || t->op == O_MINUS || t->op == O_NOT)) {
        if (enter(P)) return -1;
        P->k++;
        if (parse_power_operand(P, out)) return -1;
        P->depth--;
        if (apply_unary(P, t->op, t->pos, out)) {
            jg__xv_free(out);
            return -1;
        }
        return 0;
    }
    return parse_primary(P, out);
}

/* Transposes and powers, left to right at one level (2^3^2 = 64, a'^2). */
static int parse_postfix(parser_t *P, jg__xv_t *out)
{
    if (parse_primary(P, out)) return -1;
    for (;;) {
        tok_t *t = cur(P);
        if (t->type != T_OP) return 0;
        if (t->op == O_TRANS || t->op == O_DTRANS) {
            P->k++;
            jg__xv_t a = *out;
            memset(out, 0, sizeof *out);
            P->E.col = t->pos + 1;
            int r = P->dry ? (*out = a, memset(&a, 0, sizeof a), 0) : jg__x_transpose(&P->E, &a, out);
            jg__xv_free(&a);
            if (r) return -1;
            continue;
        }
        if (t->op != O_POW && t->op != O_EPOW) return 0;
        P->k++;
        jg__xv_t a = *out, b = {0};
        memset(out, 0, sizeof *out);
        if (parse_power_operand(P, &b)) {
            jg__xv_free(&a);
            return -1;
        }
        if (binop(P, t->op, t->pos, &a, &b, out)) return -1;
    }
}

/* Unary signs bind looser than ^ (-2^2 = -4) and tighter than * and +. */
static int parse_unary(parser_t *P, jg__xv_t *out)
{
    tok_t *t = cur(P);
    if (t->type == T_OP && (t->op == O_PLUS || t->op == O_MINUS || t->op == O_NOT)) {
        if (enter(P)) return -1;
        P->k++;
        if (parse_unary(P, out)) return -1;
        P->depth--;
        if (apply_unary(P, t->op, t->pos, out)) {
            jg__xv_free(out);
            return -1;
        }
        return 0;
    }
    return parse_postfix(P, out);
}

static int parse_mul(parser_t *P, jg__xv_t *out)
{
    static const op_t ops[] = {O_MUL, O_DIV, O_LDIV, O_EMUL, O_EDIV, O_ELDIV, O_NONE};
    return binary_level(P, out, parse_unary, ops);
}

static int parse_add(parser_t *P, jg__xv_t *out)
{
    static const op_t ops[] = {O_PLUS, O_MINUS, O_NONE};
    return binary_level(P, out, parse_mul, ops);
}

/* a:b and a:b:c, a row vector (empty when the step points away from b). */
static int parse_range(parser_t *P, jg__xv_t *out)
{
    if (parse_add(P, out)) return -1;
    if (cur(P)->type != T_COLON) return 0;
    int pos = cur(P)->pos;
    jg__xv_t v[3] = {*out, {0}, {0}};
    int n = 1, rc = -1;
    memset(out, 0, sizeof *out);
    while (n < 3 && cur(P)->type == T_COLON) {
        P->k++;
        if (parse_add(P, &v[n])) goto done;
        n++;
    }
    double x[3];
    P->E.col = pos + 1;
    if (P->dry) {
        jg__xv_scalar(out, 0);
        rc = 0;
        goto done;
    }
    for (int k = 0; k < n; k++) {
        if (v[k].kind != JG_EXPR_NUM) {
            jg__xerr(&P->E, "a range needs numbers");
            goto done;
        }
        if (jg__xv_numel(&v[k]) == 0) {   /* MATLAB: an empty bound gives an empty range */
            rc = jg__xv_alloc(&P->E, out, 1, 0);
            goto done;
        }
        x[k] = jg__xv_cdata(&v[k])[0];
    }
    double a = x[0], step = n == 3 ? x[1] : 1, b = n == 3 ? x[2] : x[1];
    if (isnan(a) || isnan(step) || isnan(b) || step == 0 || (step > 0 && a > b) ||
        (step < 0 && a < b)) {
        rc = jg__xv_alloc(&P->E, out, 1, 0);
        goto done;
    }
    double cnt = floor((b - a) / step * (1 + 1e-15) + 1e-10) + 1;   /* tolerate round-off */
    if (!(cnt <= 1e8)) {
        jg__xerr(&P->E, "range %g:%g:%g is too long", a, step, b);
        goto done;
    }
    if (jg__xv_alloc(&P->E, out, 1, (int64_t)cnt)) goto done;
    double *z = jg__xv_data(out);
    for (int64_t k = 0; k < (int64_t)cnt; k++) z[k] = a + (double)k * step;
    rc = 0;
done:
    for (int k = 0; k < 3; k++) jg__xv_free(&v[k]);
    return rc;
}

static int parse_cmp(parser_t *P, jg__xv_t *out)
{
    static const op_t ops[] = {O_EQ, O_NE, O_LT, O_LE, O_GT, O_GE, O_NONE};
    return binary_level(P, out, parse_range, ops);
}

static int parse_and(parser_t *P, jg__xv_t *out)
{
    static const op_t ops[] = {O_AND, O_NONE};
    return binary_level(P, out, parse_cmp, ops);
}

static int parse_or(parser_t *P, jg__xv_t *out)
{
    static const op_t ops[] = {O_OR, O_NONE};
    return binary_level(P, out, parse_and, ops);
}

static int parse_andand(parser_t *P, jg__xv_t *out)
{
    static const op_t ops[] = {O_ANDAND, O_NONE};
    return binary_level(P, out, parse_or, ops);
}

static int parse_expr(parser_t *P, jg__xv_t *out)
{
    static const op_t ops[] = {O_OROR, O_NONE};
    memset(out, 0, sizeof *out);
    if (enter(P)) return -1;
    int r = binary_level(P, out, parse_andand, ops);
    P->depth--;
    return r;
}

/* Evaluation computes while it parses, so "2*(Kp" would report the unknown
 * Kp before the missing ')': after a failure, a syntax-only pass over the
 * same tokens reports the syntax error instead, when there is one. */
static void syntax_first(parser_t *P)
{
    jg_expr_error_t e2;
    parser_t D = *P;
    D.E = jg__xerr_init(&e2, NULL);
    D.dry = 1;
    D.k = D.depth = 0;
    jg__xv_t v = {0};
    if ((parse_expr(&D, &v) || (cur(&D)->type != T_EOF && unexpected(&D, cur(&D)))) && !D.E.nomem)
        *P->E.err = e2;
    jg__xv_free(&v);
}

static jg_status_t eval_tokens(const char *src, const jg_expr_limits_t *lim, jg_expr_lookup_fn lookup,
                               void *ctx, const jg__xv_t *obj, int dim, int ndim, jg_expr_value_t *out,
                               jg_expr_error_t *err, int dry)
{
    jg_expr_error_t local;
    if (!err) err = &local;
    err->column = 0;
    err->msg[0] = 0;
    memset(out, 0, sizeof *out);
    parser_t PP, *P = &PP;
    P->src = src ? src : "";
    P->t = P->local;
    P->cap = (int)(sizeof P->local / sizeof *P->local);
    P->lookup = lookup;
    P->ctx = ctx;
    P->E = jg__xerr_init(err, lim);
    P->nt = P->k = P->depth = 0;
    P->dry = dry;
    P->end_obj = obj;
    P->end_dim = dim;
    P->end_ndim = ndim;
    jg__xv_t v = {0};
    jg_status_t st = JG_PARAM;
    if (lex(P)) goto done;
    if (P->t[0].type == T_EOF) {
        perr_at(P, 0, "empty expression%s", "");
        goto done;
    }
    if (parse_expr(P, &v) || cur(P)->type != T_EOF) {
        if (!P->E.failed) unexpected(P, cur(P));
        else if (!P->E.nomem && !dry) syntax_first(P);
        goto done;
    }
    if (jg__xv_to_public(&P->E, &v, out)) goto done;
    st = JG_OK;
done:
    if (st && P->E.nomem) st = JG_NOMEM;
    jg__xv_free(&v);
    if (P->t != P->local) free(P->t);
    return st;
}

jg_status_t jg__expr_eval_index(const char *src, jg_expr_lookup_fn lookup, void *ctx,
                                const jg__xv_t *obj, int dim, int ndim, jg_expr_value_t *out,
                                jg_expr_error_t *err)
{
    return eval_tokens(src, NULL, lookup, ctx, obj, dim, ndim, out, err, 0);
}

jg_status_t jg_expr_eval_limits(const char *src, const jg_expr_limits_t *lim, jg_expr_lookup_fn lookup,
                                void *ctx, jg_expr_value_t *out, jg_expr_error_t *err)
{
    return eval_tokens(src, lim, lookup, ctx, NULL, 0, 0, out, err, 0);
}

jg_status_t jg_expr_eval(const char *src, jg_expr_lookup_fn lookup, void *ctx,
                         jg_expr_value_t *out, jg_expr_error_t *err)
{
    return eval_tokens(src, NULL, lookup, ctx, NULL, 0, 0, out, err, 0);
}
