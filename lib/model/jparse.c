/* Parse JSON text into the compact document, accepting exactly what jansson's json_loadb accepts. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "model_internal.h"

/* Anything this parser refuses goes back to jansson, which either words the
 * error (file:line:col and its own text, as before) or parses a document this
 * parser leaves to it.  So every refusal here must be conservative: never
 * accept what jansson would not. */
#define MAX_DEPTH 2000   /* jansson's JSON_PARSER_MAX_DEPTH is 2048 */

typedef struct {
    const unsigned char *p;   /* the next byte; buf[len] is a NUL sentinel */
    jg__jdoc_t *d;
    jg__jv_t *s;              /* members (their keys set) and elements of the open containers */
    size_t ns, caps;
    char *esc;                /* decoded strings with escapes */
    size_t capesc;
    int nomem;
} parser_t;

/* 0: a byte a string copies as it is; 1: quote, backslash, control, non-ASCII */
static inline int special(unsigned c) { return c < 0x20 || c == '"' || c == '\\' || c >= 0x80; }

static int is_ws(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static void skip_ws(parser_t *P)
{
    while (is_ws(*P->p)) P->p++;
}

/* Bytes of the UTF-8 sequence at s that jansson accepts (utf8_check_first,
 * utf8_check_full: no overlong form, no surrogate, at most U+10FFFF); 0: invalid. */
static int utf8_len(const unsigned char *s)
{
    unsigned c = s[0], n, v;
    if (c >= 0xC2 && c <= 0xDF) n = 2, v = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF) n = 3, v = c & 0x0F;
    else if (c >= 0xF0 && c <= 0xF4) n = 4, v = c & 0x07;
    else return 0;
    for (unsigned k = 1; k < n; k++) {
        if ((s[k] & 0xC0) != 0x80) return 0;
        v = (v << 6) | (s[k] & 0x3F);
    }
    if ((n == 3 && (v < 0x800 || (v >= 0xD800 && v <= 0xDFFF))) || (n == 4 && (v < 0x10000 || v > 0x10FFFF)))
        return 0;
    return (int)n;
}

static int hex4(const unsigned char *s, unsigned *v)
{
    *v = 0;
    for (int k = 0; k < 4; k++) {
        unsigned c = s[k], d;
        if (c >= '0' && c <= '9') d = c - '0';
        else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
        else return -1;
        *v = *v << 4 | d;
    }
    return 0;
}

/* A string with escapes, from its opening quote at P->p: decoded into
 * P->esc, *raw; -1 refused (or P->nomem). */
static int string_escaped(parser_t *P, const char **raw, uint32_t *len)
{
    const unsigned char *q = P->p + 1;
    size_t n = 0;
    for (;;) {
        if (n + 8 > P->capesc) {
            size_t nc = P->capesc ? 2 * P->capesc : 256;
            char *e = realloc(P->esc, nc);
            if (!e) {
                P->nomem = 1;
                return -1;
            }
            P->esc = e;
            P->capesc = nc;
        }
        unsigned c = *q;
        if (c == '"') break;
        if (c < 0x20) return -1;
        if (c >= 0x80) {
            int k = utf8_len(q);
            if (!k) return -1;
            memcpy(P->esc + n, q, (size_t)k);
            n += (size_t)k;
            q += k;
            continue;
        }
        if (c != '\\') {
            P->esc[n++] = (char)c;
            q++;
            continue;
        }
        c = q[1];
        q += 2;
        switch (c) {
        case '"': case '\\': case '/': P->esc[n++] = (char)c; continue;
        case 'b': P->esc[n++] = '\b'; continue;
        case 'f': P->esc[n++] = '\f'; continue;
        case 'n': P->esc[n++] = '\n'; continue;
        case 'r': P->esc[n++] = '\r'; continue;
        case 't': P->esc[n++] = '\t'; continue;
        case 'u': break;
        default: return -1;
        }
        unsigned u, lo;
        if (hex4(q, &u)) return -1;
        q += 4;
        if (u == 0 || (u >= 0xDC00 && u <= 0xDFFF)) return -1;
        if (u >= 0xD800 && u <= 0xDBFF) {   /* a pair */
            if (q[0] != '\\' || q[1] != 'u' || hex4(q + 2, &lo) || lo < 0xDC00 || lo > 0xDFFF)
                return -1;
            q += 6;
            u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
        }
        char *o = P->esc + n;
        if (u < 0x80) o[0] = (char)u, n += 1;
        else if (u < 0x800) o[0] = (char)(0xC0 | u >> 6), o[1] = (char)(0x80 | (u & 0x3F)), n += 2;
        else if (u < 0x10000)
            o[0] = (char)(0xE0 | u >> 12), o[1] = (char)(0x80 | ((u >> 6) & 0x3F)),
            o[2] = (char)(0x80 | (u & 0x3F)), n += 3;
        else
            o[0] = (char)(0xF0 | u >> 18), o[1] = (char)(0x80 | ((u >> 12) & 0x3F)),
            o[2] = (char)(0x80 | ((u >> 6) & 0x3F)), o[3] = (char)(0x80 | (u & 0x3F)), n += 4;
    }
    if (n > UINT32_MAX - 1) return -1;
    *raw = P->esc;
    *len = (uint32_t)n;
    P->p = q + 1;
    return 0;
}

/* The string at P->p (its opening quote): its bytes *raw[0..*len), in the
 * text (not NUL-terminated) or, with escapes, decoded in P->esc; the caller
 * keeps its copy (jg__jdoc_string, jg__jdoc_intern).  -1: refused (or
 * P->nomem). */
static int string(parser_t *P, const char **raw, uint32_t *len)
{
    const unsigned char *q = P->p + 1;
    for (;;) {
        while (!special(*q)) q++;
        if (*q == '"') break;
        if (*q < 0x80) return *q == '\\' ? string_escaped(P, raw, len) : -1;
        int k = utf8_len(q);
        if (!k) return -1;
        q += k;
    }
    size_t n = (size_t)(q - (P->p + 1));
    if (n > UINT32_MAX - 1) return -1;
    *raw = (const char *)P->p + 1;
    *len = (uint32_t)n;
    P->p = q + 1;
    return 0;
}

static const double pow10tab[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                    1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                    1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* jansson's number grammar; an integer as json_number_value of its
 * json_int_t, a real correctly rounded: exactly (Clinger's fast path: at most
 * 2^53 and 10^22 are exact, one IEEE operation rounds once) or by strtod.
 * -1: refused (not a number, an integer of more than 18 digits, a real that
 * overflows). */
static int number(parser_t *P, double *out)
{
    const unsigned char *p = P->p, *start = p;
    int neg = 0, slow = 0, nd = 0, e10 = 0;
    uint64_t m = 0;
    if (*p == '-') neg = 1, p++;
    if (*p == '0') {
        p++;
        if (*p >= '0' && *p <= '9') return -1;
    } else if (*p >= '1' && *p <= '9') {
        for (; *p >= '0' && *p <= '9'; p++) {
            if (nd < 19) m = m * 10 + (uint64_t)(*p - '0'), nd++;
            else slow = 1, e10++;
        }
    } else
        return -1;
    if (*p != '.' && *p != 'e' && *p != 'E') {
        if (slow || nd > 18) return -1;
        int64_t v = (int64_t)m;
        *out = (double)(neg ? -v : v);
        P->p = p;
        return 0;
    }
    if (*p == '.') {
        p++;
        if (!(*p >= '0' && *p <= '9')) return -1;
        for (; *p >= '0' && *p <= '9'; p++) {
            if (m == 0 && *p == '0') e10--;
            else if (nd < 19) m = m * 10 + (uint64_t)(*p - '0'), nd++, e10--;
            else slow = 1;
        }
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        int es = 1, ex = 0;
        if (*p == '+' || *p == '-') es = *p == '-' ? -1 : 1, p++;
        if (!(*p >= '0' && *p <= '9')) return -1;
        for (; *p >= '0' && *p <= '9'; p++)
            if (ex < 100000) ex = ex * 10 + (*p - '0');
        e10 += es * ex;
    }
    double v;
    if (!slow && m <= (1ull << 53) && e10 >= -22 && e10 <= 22) {
        v = (double)m;
        v = e10 < 0 ? v / pow10tab[-e10] : v * pow10tab[e10];
        if (neg) v = -v;
    } else {
        char tmp[512];
        size_t n = (size_t)(p - start);
        if (n >= sizeof tmp) return -1;
        memcpy(tmp, start, n);
        tmp[n] = '\0';
        char *end;
        errno = 0;
        v = strtod(tmp, &end);
        /* a locale with another decimal point stops strtod early: jansson's turn */
        if (end != tmp + n || ((v == HUGE_VAL || v == -HUGE_VAL) && errno == ERANGE)) return -1;
    }
    *out = v;
    P->p = p;
    return 0;
}

static int push(parser_t *P, jg__jkey_t key, const jg__jv_t *val)
{
    if (P->ns == P->caps) {
        size_t nc = P->caps ? 2 * P->caps : 1024;
        jg__jv_t *s = realloc(P->s, sizeof *s * nc);
        if (!s) {
            P->nomem = 1;
            return -1;
        }
        P->s = s;
        P->caps = nc;
    }
    if (val) P->s[P->ns] = *val;
    P->s[P->ns].key = key;
    P->ns++;
    return 0;
}

/* The container opened at scratch position start, closed into *v. */
static int close_container(parser_t *P, size_t start, int obj, jg__jv_t *v)
{
    size_t n = P->ns - start;
    if (n > UINT32_MAX / 4) return -1;
    if (obj) {
        int r = jg__jdoc_object(P->d, P->s + start, (uint32_t)n, v);
        if (r < 0) P->nomem = 1;
        if (r) return -1;   /* a duplicate key: jansson's message */
    } else {
        jg__jv_t *it = n ? jg_arena_alloc(&P->d->arena, sizeof *it * n) : NULL;
        if (n && !it) {
            P->nomem = 1;
            return -1;
        }
        if (n) memcpy(it, P->s + start, sizeof *it * n);   /* keys 0 (push) */
        v->type = JG_JV_ARR;
        v->n = (uint32_t)n;
        v->u.item = it;
    }
    P->ns = start;
    return 0;
}

static const jg__jv_t *parse(parser_t *P)
{
    struct {
        size_t start;
        int obj;
    } fr[MAX_DEPTH + 1];
    int depth = 0;
    jg__jv_t v;   /* the value just read, stored into its container at got */
    skip_ws(P);
    if (*P->p != '{' && *P->p != '[') return NULL;   /* no JSON_DECODE_ANY */
value:
    memset(&v, 0, sizeof v);
    switch (*P->p) {
    case '{':
    case '[':
        if (depth == MAX_DEPTH) return NULL;
        fr[depth].start = P->ns;
        fr[depth].obj = *P->p == '{';
        depth++;
        P->p++;
        skip_ws(P);
        if (*P->p == (fr[depth - 1].obj ? '}' : ']')) {
            P->p++;
            depth--;
            if (close_container(P, fr[depth].start, fr[depth].obj, &v)) return NULL;
            goto got;
        }
        if (fr[depth - 1].obj) goto key;
        goto value;
    case '"': {
        const char *raw;
        if (string(P, &raw, &v.n)) return NULL;
        v.type = JG_JV_STR;
        if (!(v.u.str = jg__jdoc_string(P->d, raw, v.n))) {
            P->nomem = 1;
            return NULL;
        }
        goto got;
    }
    case 't':
    case 'f':
    case 'n': {
        const char *lit = *P->p == 't' ? "true" : *P->p == 'f' ? "false" : "null";
        size_t n = strlen(lit);
        if (strncmp((const char *)P->p, lit, n)) return NULL;
        /* "nullx": jansson reads the letters as one token */
        unsigned char c = P->p[n];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')
            return NULL;
        P->p += n;
        v.type = *lit == 't' ? JG_JV_TRUE : *lit == 'f' ? JG_JV_FALSE : JG_JV_NULL;
        goto got;
    }
    default:
        v.type = JG_JV_NUM;
        if (number(P, &v.u.num)) return NULL;
        goto got;
    }
key:
    if (*P->p != '"') return NULL;
    {
        uint32_t kl;
        const char *raw;
        jg__jkey_t k = 0;
        if (string(P, &raw, &kl)) return NULL;
        if (!(k = jg__jdoc_intern(P->d, raw, kl))) P->nomem = 1;
        if (!k || push(P, k, NULL)) return NULL;
    }
    skip_ws(P);
    if (*P->p != ':') return NULL;
    P->p++;
    skip_ws(P);
    goto value;
got:
    if (!depth) {
        skip_ws(P);
        if (*P->p) return NULL;   /* end of file expected (the sentinel is the end) */
        jg__jv_t *root = jg_arena_alloc(&P->d->arena, sizeof *root);
        if (!root) {
            P->nomem = 1;
            return NULL;
        }
        *root = v;
        return root;
    }
    if (fr[depth - 1].obj) {   /* the member's value, under the key pushed */
        jg__jkey_t k = P->s[P->ns - 1].key;
        P->s[P->ns - 1] = v;
        P->s[P->ns - 1].key = k;
    } else if (push(P, 0, &v)) return NULL;
    skip_ws(P);
    if (*P->p == ',') {
        P->p++;
        skip_ws(P);
        if (fr[depth - 1].obj) goto key;
        goto value;
    }
    if (*P->p != (fr[depth - 1].obj ? '}' : ']')) return NULL;
    P->p++;
    depth--;
    if (close_container(P, fr[depth].start, fr[depth].obj, &v)) return NULL;
    goto got;
}

jg_status_t jg__jdoc_parse(const char *buf, size_t len, jg__jdoc_t **out)
{
    jg_status_t st = JG_OK;
    *out = NULL;
    if (buf[len] != '\0') return JG_PARSE;   /* no sentinel: jansson reads it */
    parser_t P = {.p = (const unsigned char *)buf};
    P.d = calloc(1, sizeof *P.d);
    if (!P.d) return JG_NOMEM;
    /* chunks in proportion to the text: a 100 MB model takes a few dozen */
    jg_arena_init(&P.d->arena, len > (1u << 22) ? 1u << 22 : 1u << 16);
    const jg__jv_t *root = parse(&P);
    /* a NUL inside the text stops the parser where it is */
    if (root && (size_t)(P.p - (const unsigned char *)buf) != len) root = NULL;
    if (!root) {
        st = P.nomem ? JG_NOMEM : JG_PARSE;
        jg__jdoc_free(P.d);
        goto done;
    }
    P.d->root = root;
    *out = P.d;
done:
    free(P.s);
    free(P.esc);
    return st;
}
