/* Parse JSON text into the compact document, accepting exactly what jansson's json_loadb accepts (large: 2 threads). */
#define _GNU_SOURCE 1   /* sched_getaffinity, CPU_COUNT */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "model_internal.h"

/* Anything this parser refuses goes back to jansson, which either words the
 * error (file:line:col and its own text, as before) or parses a document this
 * parser leaves to it.  So every refusal here must be conservative: never
 * accept what jansson would not. */
#define MAX_DEPTH 2000   /* jansson's JSON_PARSER_MAX_DEPTH is 2048 */

typedef struct par par_t;
typedef struct {
    size_t start;   /* the container's first member or element in the scratch */
    int obj;
} frame_t;

typedef struct {
    const unsigned char *p;   /* the next byte; buf[len] is a NUL sentinel */
    jg__jdoc_t *d;
    jg__jv_t *s;              /* members (their keys set) and elements of the open containers */
    size_t ns, caps;
    char *esc;                /* decoded strings with escapes */
    size_t capesc;
    int nomem;
    /* The two-thread parse (below parse()).  An array element starting at
     * mark or later calls checkpoint() (in the second thread an object
     * member too: its poll); mark is past the text when there is none to
     * come. */
    const unsigned char *mark;
    par_t *par;               /* NULL: one thread */
    /* The second thread reads a part that starts inside an array it did not
     * open (frag): when a container closes that it did not open, that
     * level's members or elements read so far are its tail (lv), and the
     * level around it is next, its kind unknown (ukind -1) until a member
     * or its closing bracket shows it. */
    int frag, ukind;          /* ukind: 0 array, 1 object, -1 not known yet */
    uint32_t lvl;             /* levels closed */
    size_t lstart;            /* the scratch position of level lvl's first member */
    int maxrel;               /* the deepest container opened, less the levels closed */
    struct {
        size_t start, end;
        int obj;
    } *lv;                    /* MAX_DEPTH of them */
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

static int checkpoint(parser_t *P, const frame_t *fr, int depth, jg__jv_t *v);
static const jg__jv_t frag_done;   /* parse()'s result for a part read to the end */

static const jg__jv_t *parse(parser_t *P)
{
    frame_t fr[MAX_DEPTH + 1];
    int depth = 0;
    jg__jv_t v;   /* the value just read, stored into its container at got */
    if (P->frag) {   /* an element of an array opened before the part */
        P->ukind = 0;
        goto value;
    }
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
        if (P->frag && depth - (int)P->lvl > P->maxrel) P->maxrel = depth - (int)P->lvl;
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
        if (P->frag) goto frag_got;
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
        if (fr[depth - 1].obj) {
            if (P->frag && P->p >= P->mark && checkpoint(P, fr, depth, &v)) return NULL;   /* a poll */
            goto key;
        }
        if (P->p >= P->mark) {
            int r = checkpoint(P, fr, depth, &v);
            if (r < 0) return NULL;
            if (r > 0) {   /* the second thread's part merged: v is the root */
                depth = 0;
                goto got;
            }
        }
        goto value;
    }
    if (*P->p != (fr[depth - 1].obj ? '}' : ']')) return NULL;
    P->p++;
    depth--;
    if (close_container(P, fr[depth].start, fr[depth].obj, &v)) return NULL;
    goto got;
frag_got:   /* a value of a level the part did not open */
    if (P->ukind == 1) {
        jg__jkey_t k = P->s[P->ns - 1].key;
        P->s[P->ns - 1] = v;
        P->s[P->ns - 1].key = k;
    } else if (push(P, 0, &v)) return NULL;
frag_next:
    skip_ws(P);
    if (*P->p == ',') {
        P->p++;
        skip_ws(P);
        if (P->ukind == 1) goto key;
        if (P->ukind < 0) {
            /* a string followed by ':' is a key (in an array it would be
             * an error, which the merge's kind check leaves to the
             * one-thread parse) */
            P->ukind = 0;
            if (*P->p == '"') {
                const char *raw;
                uint32_t n;
                if (string(P, &raw, &n)) return NULL;
                skip_ws(P);
                if (*P->p == ':') {
                    P->ukind = 1;
                    jg__jkey_t k = jg__jdoc_intern(P->d, raw, n);
                    if (!k) P->nomem = 1;
                    if (!k || push(P, k, NULL)) return NULL;
                    P->p++;
                    skip_ws(P);
                    goto value;
                }
                memset(&v, 0, sizeof v);
                v.type = JG_JV_STR;
                v.n = n;
                if (!(v.u.str = jg__jdoc_string(P->d, raw, n))) {
                    P->nomem = 1;
                    return NULL;
                }
                goto got;
            }
        }
        goto value;
    }
    if (*P->p == ']' || *P->p == '}') {   /* a level closes: its tail is read */
        int obj = *P->p == '}';
        if ((P->ukind >= 0 && P->ukind != obj) || P->lvl == MAX_DEPTH) return NULL;
        P->lv[P->lvl].start = P->lstart;
        P->lv[P->lvl].end = P->ns;
        P->lv[P->lvl].obj = obj;
        P->lvl++;
        P->lstart = P->ns;
        P->ukind = -1;
        P->p++;
        goto frag_next;
    }
    if (!*P->p && P->lvl) return &frag_done;   /* the end: the merge checks it ends the text */
    return NULL;
}

/* ------------------------------------------------------ two threads
 *
 * A large text is read by two threads: the first from the start, the
 * second from an array element boundary S near the middle of the rest,
 * found by a scan for ',' followed by '{' or '[' -- a guess, since a scan
 * cannot know whether S is inside a string, nor at which level it is.  The
 * first thread vouches for the guess: its parse must reach an array element
 * starting exactly at S (so S is not inside a string and the second part is
 * what the one-thread parse would read there), with as many containers open
 * as the second thread saw close without opening them, of the same kinds,
 * and no deeper than MAX_DEPTH with the second part's own nesting.  Then the
 * second part's tails are appended to the open containers, which close as
 * the one-thread parse would close them (duplicate keys across the two
 * parts included).  Otherwise -- a wrong guess, a second part the second
 * thread refused (a malformed text, a construct left to jansson), or out of
 * memory -- the first thread reads on from S alone, so that every outcome
 * (the document, a refusal, JG_NOMEM) is the one-thread parse's.
 *
 * Keys: the document's key indexes are in order of first appearance, which
 * the second thread cannot know; it starts with the keys the first thread
 * has read by then (a model uses few keys, and names them all early), so
 * that its indexes are usually the final ones.  When they are not, the
 * merge rewrites its part's keys and rebuilds its objects' hash indexes.
 * Its strings are its own copies (jg__jdoc_t.arena2). */

#define POLL_BYTES (1u << 16)   /* the second thread looks for a stop this often */
#define SCAN_BYTES (1u << 22)   /* the split is sought this far from its target */

static const jg__jparse_tune_t tune_default = {8u << 20, 0, 0, 0};

struct par {
    const unsigned char *base, *never;   /* the text; past its sentinel */
    const unsigned char *split;          /* S */
    pthread_t th;
    int started, joined;
    atomic_int stop;                     /* the first thread's word: the part is not wanted */
    parser_t Q;                          /* the second thread's parser */
    const jg__jv_t *res;                 /* Q's parse (&frag_done: read to the end) */
    size_t split_at;                     /* jg__jparse_tune_t's */
    jg__jparse_stats_t stats;            /* what happened (jg__jdoc_parse_ex's *stats) */
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int two_cores(void)
{
    cpu_set_t set;
    return sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) >= 2;
}

static void *second(void *arg)
{
    par_t *T = arg;
    T->res = parse(&T->Q);
    return NULL;
}

static void stop_second(par_t *T)
{
    if (!T->started || T->joined) return;
    atomic_store_explicit(&T->stop, 1, memory_order_relaxed);
    pthread_join(T->th, NULL);
    T->joined = 1;
}

static void free_second(par_t *T)
{
    stop_second(T);
    free(T->Q.s);
    free(T->Q.esc);
    free(T->Q.lv);
    jg__jdoc_free(T->Q.d);
    T->Q.s = NULL, T->Q.esc = NULL, T->Q.lv = NULL, T->Q.d = NULL;
}

/* At the first array element from the seed on: pick S, give the second
 * thread the keys read so far and start it.  Nothing started: no split. */
static void start_second(parser_t *P, par_t *T)
{
    size_t pos = (size_t)(P->p - T->base), len = (size_t)(T->never - 1 - T->base);
    size_t target = T->split_at ? T->split_at : pos + (len - pos) / 2;
    if (target <= pos) target = pos + 1;
    const unsigned char *q = T->base + target, *lim = T->base + len;
    if ((size_t)(lim - q) > SCAN_BYTES) lim = q + SCAN_BYTES;
    for (; q < lim; q++) {
        if (*q != ',') continue;
        const unsigned char *r = q + 1;
        while (is_ws(*r)) r++;
        if (*r == '{' || *r == '[') {
            T->split = r;
            break;
        }
    }
    if (!T->split) return;
    parser_t *Q = &T->Q;
    *Q = (parser_t){.p = T->split, .frag = 1, .par = T};
    Q->mark = (size_t)(T->never - Q->p) > POLL_BYTES ? Q->p + POLL_BYTES : T->never;
    Q->d = calloc(1, sizeof *Q->d);
    Q->lv = malloc(sizeof *Q->lv * MAX_DEPTH);
    if (!Q->d || !Q->lv) goto fail;
    /* The part's values in one chunk allocated here, of the size the text
     * read so far suggests (no more: the heap's unused pages are resident
     * in the CLI, tools/heap.c), and further chunks of 4 MiB should it need
     * more: from this thread, the memory comes from the heap the rest of
     * the program reuses once the document is freed (a second thread's
     * allocations would stay in a heap of their own: more peak memory).
     * At most 2 bytes per byte of text (a model takes 1.5), so that an
     * unusual start (numbers: 16 bytes for 2) does not reserve too much. */
    size_t part = len - (size_t)(T->split - T->base);
    double per = pos ? (double)(P->d->arena.used + sizeof *P->s * P->ns) / (double)pos : 2;
    double want = (per < 2 ? per : 2) * (double)part + 65536;
    jg_arena_init(&Q->d->arena, want < (double)(1u << 30) ? (size_t)want : 1u << 30);
    if (!jg_arena_alloc(&Q->d->arena, 16)) goto fail;
    Q->d->arena.chunk_size = 1u << 22;
    for (uint32_t k = 1; k <= P->d->nkeys; k++)   /* the same indexes for the keys read so far */
        if (jg__jdoc_intern(Q->d, P->d->keyv[k], strlen(P->d->keyv[k])) != k) goto fail;
    /* every signal blocked in the second thread, so that the caller's
     * handlers (SIGINT) run in the caller's thread, as without it */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int e = pthread_create(&T->th, NULL, second, T);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (e) goto fail;
    T->started = 1;
    T->stats.split = 1;
    P->mark = T->split;
    return;
fail:
    free_second(T);
    T->split = NULL;
}

/* The object or array a of the second part (n values) and everything in it
 * with its keys renamed by map, objects' hash indexes rebuilt. */
static void remap(jg__jv_t *a, uint32_t n, int obj, const jg__jkey_t *map)
{
    for (uint32_t i = 0; i < n; i++) {
        jg__jv_t *e = &a[i];
        if (obj) e->key = map[e->key];
        if (e->type == JG_JV_ARR) remap((jg__jv_t *)e->u.item, e->n, 0, map);
        if (e->type != JG_JV_OBJ) continue;
        jg__jv_t *m = (jg__jv_t *)e->u.mem;
        remap(m, e->n, 1, map);
        if (e->n <= JG__JV_HASH_MIN) continue;
        uint32_t cap = jg__jv_hash_cap(e->n), mask = cap - 1, *h = (uint32_t *)(m + e->n);
        memset(h, 0xff, sizeof(uint32_t) * cap);
        for (uint32_t j = 0; j < e->n; j++) {   /* its keys are distinct (checked) */
            uint32_t sl = jg__jv_hash(m[j].key, mask);
            while (h[sl] != UINT32_MAX) sl = (sl + 1) & mask;
            h[sl] = j;
        }
    }
}

/* The first thread at S, depth containers open (fr): the second part
 * vouched for and merged, *v the root (1); not vouched for: 0, read on
 * alone; -1: refused (a duplicate key across the parts) or out of memory. */
static int handoff(parser_t *P, par_t *T, const frame_t *fr, int depth, jg__jv_t *v)
{
    pthread_join(T->th, NULL);
    T->joined = 1;
    parser_t *Q = &T->Q;
    if (T->res != &frag_done || Q->lvl != (uint32_t)depth || depth + Q->maxrel > MAX_DEPTH) return 0;
    for (int k = 0; k < depth; k++)
        if (Q->lv[k].obj != fr[depth - 1 - k].obj) return 0;
    double t0 = now();
    int r = -1;
    jg__jdoc_t *qd = Q->d;
    jg__jkey_t *map = malloc(sizeof *map * ((size_t)qd->nkeys + 1));
    if (!map) goto nomem;
    int same = 1;
    map[0] = 0;
    /* in the part's order: its new keys are numbered as one thread numbers them */
    for (uint32_t k = 1; k <= qd->nkeys; k++) {
        if (!(map[k] = jg__jdoc_intern(P->d, qd->keyv[k], strlen(qd->keyv[k])))) goto nomem;
        same &= map[k] == k;
    }
    if (!same) remap(Q->s, (uint32_t)Q->ns, 0, map);   /* the tails' containers; their keys below */
    for (uint32_t k = 0; k < Q->lvl; k++) {
        int obj = Q->lv[k].obj;
        for (size_t i = Q->lv[k].start; i < Q->lv[k].end; i++)
            if (push(P, obj ? map[Q->s[i].key] : 0, &Q->s[i])) goto nomem;
        depth--;
        if (close_container(P, fr[depth].start, fr[depth].obj, v)) goto done;
        if (!depth) break;
        if (fr[depth - 1].obj) {   /* as parse()'s got */
            jg__jkey_t key = P->s[P->ns - 1].key;
            P->s[P->ns - 1] = *v;
            P->s[P->ns - 1].key = key;
        } else if (push(P, 0, v)) goto nomem;
    }
    P->p = Q->p;
    P->d->arena2 = qd->arena;   /* the part's values and strings */
    qd->arena.head = NULL;
    T->stats.merged = 1;
    T->stats.remapped = !same;
    T->stats.merge_s = now() - t0;
    r = 1;
    goto done;
nomem:
    P->nomem = 1;
done:
    free(map);
    return r;
}

/* An array element at P->mark or after: the first thread's seed (start the
 * second) or S, the second's poll.  As handoff(). */
static int checkpoint(parser_t *P, const frame_t *fr, int depth, jg__jv_t *v)
{
    par_t *T = P->par;
    if (P->frag) {
        if (atomic_load_explicit(&T->stop, memory_order_relaxed)) return -1;
        P->mark = (size_t)(T->never - P->p) > POLL_BYTES ? P->p + POLL_BYTES : T->never;
        return 0;
    }
    P->mark = T->never;
    if (!T->started) {
        start_second(P, T);
        return 0;
    }
    if (P->p == T->split && !T->joined) return handoff(P, T, fr, depth, v);
    /* S passed elsewhere (inside a string, not at an element): the second
     * thread stops at its next poll and is joined at the end */
    atomic_store_explicit(&T->stop, 1, memory_order_relaxed);
    return 0;
}

jg_status_t jg__jdoc_parse(const char *buf, size_t len, jg__jdoc_t **out)
{
    return jg__jdoc_parse_ex(buf, len, NULL, NULL, out);
}

jg_status_t jg__jdoc_parse_ex(const char *buf, size_t len, const jg__jparse_tune_t *tune,
                              jg__jparse_stats_t *stats, jg__jdoc_t **out)
{
    if (!tune) tune = &tune_default;
    if (stats) *stats = (jg__jparse_stats_t){0};
    jg_status_t st = JG_OK;
    *out = NULL;
    if (buf[len] != '\0') return JG_PARSE;   /* no sentinel: jansson reads it */
    parser_t P = {.p = (const unsigned char *)buf, .mark = (const unsigned char *)buf + len + 1};
    par_t *T = NULL;
    P.d = calloc(1, sizeof *P.d);
    if (!P.d) return JG_NOMEM;
    /* chunks in proportion to the text: a 100 MB model takes a few dozen */
    jg_arena_init(&P.d->arena, len > (1u << 22) ? 1u << 22 : 1u << 16);
    if (tune->min_bytes && len >= tune->min_bytes && (tune->force || two_cores()) &&
        (T = calloc(1, sizeof *T))) {
        size_t seed = tune->seed_bytes ? tune->seed_bytes : len / 64 < (1u << 20) ? len / 64 : 1u << 20;
        T->split_at = tune->split_at;
        T->base = (const unsigned char *)buf;
        T->never = P.mark;
        P.par = T;
        P.mark = seed < len ? T->base + seed : T->never;
    }
    const jg__jv_t *root = parse(&P);
    if (T) free_second(T);
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
    if (T && stats) *stats = T->stats;
    free(P.s);
    free(P.esc);
    free(T);
    return st;
}
