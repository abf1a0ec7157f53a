/* JSON values appended to a byte buffer with jansson's exact bytes (jsonw.h):
 * its separators (", " and ": "), string escapes and real layout, without
 * building a tree or calling printf per number. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "io_impl.h"
#include "jsonw.h"

/* The longest single item written through room(): a real ("-" 17 digits
 * "." "e-308" and the ".0"/NUL fmt17 may add) with its ", " separator. */
enum { ITEM_MAX = 48 };

int jg__io_jw_init(jg__io_jw_t *w, FILE *f, size_t cap)
{
    memset(w, 0, sizeof *w);
    w->f = f;
    w->cap = cap < 2 * ITEM_MAX ? 2 * ITEM_MAX : cap;
    if (!(w->buf = malloc(w->cap))) {
        w->cap = 0;
        w->nomem = 1;
        return -1;
    }
    return 0;
}

void jg__io_jw_free(jg__io_jw_t *w)
{
    free(w->buf);
    w->buf = NULL;
    w->len = w->cap = 0;
}

int jg__io_jw_flush(jg__io_jw_t *w)
{
    if (w->f && w->len && !w->ioerr && fwrite(w->buf, 1, w->len, w->f) != w->len) w->ioerr = 1;
    w->len = 0;
    return w->ioerr ? -1 : 0;
}

/* Room for n more bytes at w->buf + w->len: a sink is emptied, a buffer
 * without one grows.  0 when the writer has failed (nothing may be written). */
static int room(jg__io_jw_t *w, size_t n)
{
    if (w->nomem || w->ioerr) return 0;
    if (w->cap - w->len >= n) return 1;
    if (w->f) {
        if (jg__io_jw_flush(w)) return 0;
        if (w->cap >= n) return 1;
    }
    size_t cap = w->cap * 2 > w->len + n ? w->cap * 2 : w->len + n;
    char *b = realloc(w->buf, cap);
    if (!b) {
        w->nomem = 1;
        return 0;
    }
    w->buf = b;
    w->cap = cap;
    return 1;
}

void jg__io_jw_raw(jg__io_jw_t *w, const char *s, size_t n)
{
    if (w->f && n > w->cap / 2) {   /* long: past the buffer, straight to the sink */
        if (jg__io_jw_flush(w)) return;
        if (n && fwrite(s, 1, n, w->f) != n) w->ioerr = 1;
        return;
    }
    if (!room(w, n)) return;
    memcpy(w->buf + w->len, s, n);
    w->len += n;
}

char *jg__io_put_u64(char *o, uint64_t v)
{
    static const char pairs[201] =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
        "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
        "8081828384858687888990919293949596979899";
    char t[20];
    int k = 20;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        t[--k] = pairs[2 * r + 1];
        t[--k] = pairs[2 * r];
    }
    if (v >= 10) {
        t[--k] = pairs[2 * v + 1];
        t[--k] = pairs[2 * v];
    } else {
        t[--k] = (char)('0' + v);
    }
    memcpy(o, t + k, (size_t)(20 - k));
    return o + (20 - k);
}

static char *put_int(char *o, int64_t v)
{
    if (v < 0) {
        *o++ = '-';
        return jg__io_put_u64(o, -(uint64_t)v);
    }
    return jg__io_put_u64(o, (uint64_t)v);
}

/* v as jansson's jsonp_dtostr (snprintf build, precision 17) at o, which
 * has ITEM_MAX bytes; returns the end. */
static char *put_real(char *o, double v)
{
    if (!isfinite(v)) {
        memcpy(o, "null", 4);
        return o + 4;
    }
    size_t n = (size_t)jg__io_fmt17(o, v);
    /* %g's exponent has 2 or 3 digits: the 'e' is 4 or 5 from the end
     * (scanned here, a memchr call costs more than the short strings) */
    char *e = n >= 5 && o[n - 5] == 'e' ? o + n - 5 : n >= 4 && o[n - 4] == 'e' ? o + n - 4 : NULL;
    if (e) {   /* "e+05" -> "e5", "e-05" -> "e-5", "e+123" -> "e123" */
        /* fmt17 hands the huge (2^127 and above) to snprintf, whose point
         * follows LC_NUMERIC; jansson wrote '.' whatever the locale */
        char *point = o + (o[0] == '-') + 1;
        if (point < e) *point = '.';
        char *to = e + 1, *from = e + 2;
        if (*to == '-') to++;
        while (*from == '0') from++;
        size_t tail = (size_t)(o + n - from);
        memmove(to, from, tail);
        return to + tail;
    }
    size_t k = 0;
    while (k < n && o[k] != '.') k++;
    if (k == n) {   /* an integral value stays a real when read back */
        o[n++] = '.';
        o[n++] = '0';
    }
    return o + n;
}

void jg__io_jw_int(jg__io_jw_t *w, int64_t v)
{
    if (!room(w, ITEM_MAX)) return;
    w->len = (size_t)(put_int(w->buf + w->len, v) - w->buf);
}

void jg__io_jw_real(jg__io_jw_t *w, double v)
{
    if (!room(w, ITEM_MAX)) return;
    w->len = (size_t)(put_real(w->buf + w->len, v) - w->buf);
}

void jg__io_jw_string(jg__io_jw_t *w, const char *s)
{
    const char *run = s, *p = s;
    jg__io_jw_raw(w, "\"", 1);
    for (;; p++) {
        unsigned char c = (unsigned char)*p;
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        jg__io_jw_raw(w, run, (size_t)(p - run));
        if (!c) break;
        char esc[8] = {'\\', 0};
        size_t n = 2;
        switch (c) {
        case '"': esc[1] = '"'; break;
        case '\\': esc[1] = '\\'; break;
        case '\b': esc[1] = 'b'; break;
        case '\f': esc[1] = 'f'; break;
        case '\n': esc[1] = 'n'; break;
        case '\r': esc[1] = 'r'; break;
        case '\t': esc[1] = 't'; break;
        default:   /* jansson writes the hex digits in upper case */
            memcpy(esc + 1, "u00", 3);
            esc[4] = "0123456789ABCDEF"[c >> 4];
            esc[5] = "0123456789ABCDEF"[c & 15];
            n = 6;
        }
        jg__io_jw_raw(w, esc, n);
        run = p + 1;
    }
    jg__io_jw_raw(w, "\"", 1);
}

void jg__io_jw_names(jg__io_jw_t *w, char *const *v, int64_t n, char pfx)
{
    jg__io_jw_raw(w, "[", 1);
    for (int64_t k = 0; k < n; k++) {
        if (k) jg__io_jw_raw(w, ", ", 2);
        if (v && v[k]) {
            jg__io_jw_string(w, v[k]);
        } else if (room(w, ITEM_MAX)) {
            char *o = w->buf + w->len;
            *o++ = '"';
            *o++ = pfx;
            o = put_int(o, k + 1);
            *o++ = '"';
            w->len = (size_t)(o - w->buf);
        }
    }
    jg__io_jw_raw(w, "]", 1);
}

void jg__io_jw_reals(jg__io_jw_t *w, const double *v, int64_t n)
{
    jg__io_jw_raw(w, "[", 1);
    for (int64_t k = 0; k < n; k++) {
        if (!room(w, ITEM_MAX)) return;
        char *o = w->buf + w->len;
        if (k) *o++ = ',', *o++ = ' ';
        w->len = (size_t)(put_real(o, v[k]) - w->buf);
    }
    jg__io_jw_raw(w, "]", 1);
}

void jg__io_jw_matrix(jg__io_jw_t *w, const cs_dl *M)
{
    cs_dl *own = NULL;
    const cs_dl *S = jg__io_canonical(M, &own);
    if (!S) {
        w->nomem = 1;
        return;
    }
    int64_t nz = S->p[S->n];
    char *o;
    if (room(w, 3 * ITEM_MAX)) {
        o = w->buf + w->len;
        memcpy(o, "{\"rows\": ", 9);
        o = put_int(o + 9, S->m);
        memcpy(o, ", \"cols\": ", 10);
        o = put_int(o + 10, S->n);
        memcpy(o, ", \"i\": [", 8);
        w->len = (size_t)(o + 8 - w->buf);
    }
    /* one room() per entry: the common case is a compare and a store */
    for (int64_t p = 0; p < nz; p++) {
        if (!room(w, ITEM_MAX)) goto done;
        o = w->buf + w->len;
        if (p) *o++ = ',', *o++ = ' ';
        w->len = (size_t)(put_int(o, S->i[p]) - w->buf);
    }
    jg__io_jw_raw(w, "], \"j\": [", 9);
    for (int64_t j = 0; j < S->n; j++) {
        char col[24];   /* j's digits, once for all of its entries */
        size_t len = (size_t)(put_int(col, j) - col);
        for (int64_t p = S->p[j]; p < S->p[j + 1]; p++) {
            if (!room(w, ITEM_MAX)) goto done;
            o = w->buf + w->len;
            if (p) *o++ = ',', *o++ = ' ';
            memcpy(o, col, len);
            w->len = (size_t)(o + len - w->buf);
        }
    }
    jg__io_jw_raw(w, "], \"x\": ", 8);
    jg__io_jw_reals(w, S->x, nz);
    jg__io_jw_raw(w, "}", 1);
done:
    cs_dl_spfree(own);
}
