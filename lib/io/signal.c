/* Root Inport signals from a CSV table (RFC 4180): the reader, with errors
 * naming file:line:column, and the zero-order-hold or linear interpolation a
 * simulation reads its inputs from. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/io.h"

struct jg_io_signal {
    jg_io_interp_t interp;
    int64_t nrows, ncols;     /* data rows; value columns (time excluded) */
    double *time;             /* nrows, strictly increasing */
    double *val;              /* nrows x ncols, row-major */
    int64_t *elem;            /* per column: its element of jg_eval_inputs */
    int64_t cursor;           /* the row of the last lookup (lookups are mostly in order) */
};

/* ---- the CSV scanner: one field at a time, with its line and column */

typedef struct {
    const char *path, *s, *end;
    long line, col;           /* of *s, 1-based */
    char *buf;                /* the last field, unquoted, NUL-terminated */
    size_t cap;
    jg_error_t *err;
} scan_t;

static void advance(scan_t *c)
{
    if (*c->s == '\n') {
        c->line++;
        c->col = 1;
    } else {
        c->col++;
    }
    c->s++;
}

static int put(scan_t *c, size_t *n, char ch)
{
    if (*n + 1 >= c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 64;
        char *b = realloc(c->buf, cap);
        if (!b) return -1;
        c->buf = b;
        c->cap = cap;
    }
    c->buf[(*n)++] = ch;
    return 0;
}

/* The field at c->s into c->buf; *line, *col its start; *last: it ended the
 * record (line break or end of file).  JG_OK, or an error set. */
static jg_status_t field(scan_t *c, long *line, long *col, int *last)
{
    size_t n = 0;
    *line = c->line;
    *col = c->col;
    if (c->s < c->end && *c->s == '"') {
        advance(c);
        for (;;) {
            if (c->s >= c->end)
                return jg_error_set(c->err, JG_PARSE, "%s:%ld:%ld: quoted field not closed", c->path,
                                    *line, *col);
            if (*c->s == '"') {
                if (c->s + 1 < c->end && c->s[1] == '"') {
                    advance(c);
                } else {
                    advance(c);
                    break;
                }
            }
            if (put(c, &n, *c->s)) goto nomem;
            advance(c);
        }
        if (c->s < c->end && *c->s != ',' && *c->s != '\n' && *c->s != '\r')
            return jg_error_set(c->err, JG_PARSE, "%s:%ld:%ld: text after a closing quote", c->path,
                                c->line, c->col);
    } else {
        for (; c->s < c->end && *c->s != ',' && *c->s != '\n' && *c->s != '\r'; advance(c)) {
            if (*c->s == '"')
                return jg_error_set(c->err, JG_PARSE, "%s:%ld:%ld: quote inside an unquoted field",
                                    c->path, c->line, c->col);
            if (put(c, &n, *c->s)) goto nomem;
        }
    }
    if (put(c, &n, '\0')) goto nomem;
    *last = 1;
    if (c->s < c->end && *c->s == ',') {
        advance(c);
        *last = 0;
    } else if (c->s < c->end) {   /* \n, \r\n, or a lone \r */
        if (*c->s == '\r') {
            c->s++;
            c->col++;
            if (c->s < c->end && *c->s == '\n') advance(c);
            else {
                c->line++;
                c->col = 1;
            }
        } else {
            advance(c);
        }
    }
    return JG_OK;
nomem:
    return jg_error_set(c->err, JG_NOMEM, "%s: out of memory", c->path);
}

/* Skips empty lines; 1 when a record follows. */
static int more(scan_t *c)
{
    while (c->s < c->end && (*c->s == '\n' || *c->s == '\r')) {
        if (*c->s == '\r' && c->s + 1 < c->end && c->s[1] == '\n') c->s++;
        c->line++;
        c->col = 1;
        c->s++;
    }
    return c->s < c->end;
}

/* ---- columns: "NAME" (a one-element Inport) or "NAME(K)" (element K) */

static int64_t column_elem(const jg_program_t *p, const char *name)
{
    int n = jg_program_ninputs(p);
    int64_t off = 0;
    for (int k = 0; k < n; k++) {
        int32_t b = jg_program_input_block(p, k);
        const char *path = jg_program_block_path(p, b);
        int64_t w = jg_program_port_width(p, b, 1, 0);
        size_t len = strlen(path);
        if (!strcmp(path, name) && w == 1) return off;
        if (!strncmp(path, name, len) && name[len] == '(') {
            char *end;
            errno = 0;
            long long e = strtoll(name + len + 1, &end, 10);
            if (!errno && end != name + len + 1 && !strcmp(end, ")") && name[len + 1] != '+' &&
                name[len + 1] != '-' && e >= 1 && e <= w)
                return off + e - 1;
        }
        off += w;
    }
    return -1;
}

static void inport_list(const jg_program_t *p, char *buf, size_t size)
{
    size_t used = 0;
    int n = jg_program_ninputs(p);
    buf[0] = '\0';
    if (!n) snprintf(buf, size, "(the model has none)");
    for (int k = 0; k < n && used + 1 < size; k++) {
        int32_t b = jg_program_input_block(p, k);
        int64_t w = jg_program_port_width(p, b, 1, 0);
        int r;
        if (w == 1) r = snprintf(buf + used, size - used, "%s%s", k ? ", " : "", jg_program_block_path(p, b));
        else r = snprintf(buf + used, size - used, "%s%s(1)..%s(%lld)", k ? ", " : "",
                          jg_program_block_path(p, b), jg_program_block_path(p, b), (long long)w);
        if (r < 0) break;
        used += (size_t)r;
    }
}

/* A number filling the whole field (blanks around it allowed). */
static int number(const char *s, double *v)
{
    char *end;
    while (*s == ' ' || *s == '\t') s++;
    if (!*s) return 0;
    *v = strtod(s, &end);
    while (*end == ' ' || *end == '\t') end++;
    return !*end && end != s && isfinite(*v);
}

static char *slurp(const char *path, size_t *len, jg_error_t *err)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    size_t cap = 0, n = 0;
    if (!f) {
        jg_error_set(err, JG_IO, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap = cap ? 2 * cap : 65536;
            char *t = realloc(text, cap);
            if (!t) {
                jg_error_set(err, JG_NOMEM, "%s: out of memory", path);
                goto fail;
            }
            text = t;
        }
        size_t got = fread(text + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) break;
    }
    if (ferror(f)) {
        jg_error_set(err, JG_IO, "%s: read failed", path);
        goto fail;
    }
    fclose(f);
    text[n] = '\0';
    *len = n;
    return text;
fail:
    fclose(f);
    free(text);
    return NULL;
}

jg_status_t jg_io_signal_read(const char *path, const jg_program_t *p, jg_io_interp_t interp,
                              jg_io_signal_t **out, jg_error_t *err)
{
    if (!out) return jg_error_set(err, JG_ARG, "input signal: no result pointer");
    *out = NULL;
    if (!path || !p) return jg_error_set(err, JG_ARG, "input signal: no file or no program");
    if (interp != JG_IO_INTERP_ZOH && interp != JG_IO_INTERP_LINEAR)
        return jg_error_set(err, JG_ARG, "input signal: unknown interpolation %d", (int)interp);
    size_t len = 0;
    char *text = slurp(path, &len, err);
    if (!text) return err ? err->status : JG_IO;
    jg_status_t st = JG_OK;
    jg_io_signal_t *sg = calloc(1, sizeof *sg);
    scan_t c = {path, text, text + len, 1, 1, NULL, 0, err};
    int64_t cap_rows = 0, nelem = 0;
    unsigned char *seen = NULL;
    long line, col;
    int last = 0;
    if (!sg) {
        st = jg_error_set(err, JG_NOMEM, "%s: out of memory", path);
        goto done;
    }
    sg->interp = interp;
    for (int k = 0; k < jg_program_ninputs(p); k++)
        nelem += jg_program_port_width(p, jg_program_input_block(p, k), 1, 0);
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) c.s += 3;   /* a UTF-8 byte-order mark */

    /* the header: time, then one column per Inport element */
    if (!more(&c)) {
        st = jg_error_set(err, JG_PARSE, "%s: empty file (expected a header \"time,NAME,...\")", path);
        goto done;
    }
    if ((st = field(&c, &line, &col, &last))) goto done;
    if (strcmp(c.buf, "time")) {
        st = jg_error_set(err, JG_PARSE, "%s:%ld:%ld: the first column must be \"time\", not \"%s\"",
                          path, line, col, c.buf);
        goto done;
    }
    seen = calloc((size_t)nelem + 1, 1);
    if (!seen) {
        st = jg_error_set(err, JG_NOMEM, "%s: out of memory", path);
        goto done;
    }
    while (!last) {
        if ((st = field(&c, &line, &col, &last))) goto done;
        int64_t e = column_elem(p, c.buf);
        if (e < 0) {
            char list[512];
            inport_list(p, list, sizeof list);
            st = jg_error_set(err, JG_ARG, "%s:%ld:%ld: unknown column \"%s\" (the root Inports: %s)",
                              path, line, col, c.buf, list);
            goto done;
        }
        if (seen[e]) {
            st = jg_error_set(err, JG_ARG, "%s:%ld:%ld: column \"%s\" given twice", path, line, col,
                              c.buf);
            goto done;
        }
        seen[e] = 1;
        int64_t *el = realloc(sg->elem, sizeof(int64_t) * (size_t)(sg->ncols + 1));
        if (!el) {
            st = jg_error_set(err, JG_NOMEM, "%s: out of memory", path);
            goto done;
        }
        sg->elem = el;
        sg->elem[sg->ncols++] = e;
    }

    /* the rows */
    while (more(&c)) {
        long row_line = c.line;
        if (sg->nrows == cap_rows) {
            cap_rows = cap_rows ? 2 * cap_rows : 64;
            double *t = realloc(sg->time, sizeof(double) * (size_t)cap_rows);
            if (t) sg->time = t;
            double *v = t ? realloc(sg->val, sizeof(double) * (size_t)(cap_rows * (sg->ncols + 1))) : NULL;
            if (v) sg->val = v;
            if (!t || !v) {
                st = jg_error_set(err, JG_NOMEM, "%s: out of memory", path);
                goto done;
            }
        }
        for (int64_t k = 0; k <= sg->ncols; k++) {
            if (last && k) {
                st = jg_error_set(err, JG_PARSE, "%s:%ld: %lld fields, the header has %lld", path,
                                  row_line, (long long)k, (long long)sg->ncols + 1);
                goto done;
            }
            if ((st = field(&c, &line, &col, &last))) goto done;
            double v;
            if (!number(c.buf, &v)) {
                st = jg_error_set(err, JG_PARSE, "%s:%ld:%ld: not a finite number: \"%s\"", path, line,
                                  col, c.buf);
                goto done;
            }
            if (k) sg->val[sg->nrows * sg->ncols + k - 1] = v;
            else sg->time[sg->nrows] = v;
        }
        if (!last) {
            st = jg_error_set(err, JG_PARSE, "%s:%ld: more fields than the header's %lld", path,
                              row_line, (long long)sg->ncols + 1);
            goto done;
        }
        if (sg->nrows && !(sg->time[sg->nrows] > sg->time[sg->nrows - 1])) {
            st = jg_error_set(err, JG_ARG, "%s:%ld: time %.17g is not after the previous row's %.17g "
                              "(times must increase strictly)", path, row_line, sg->time[sg->nrows],
                              sg->time[sg->nrows - 1]);
            goto done;
        }
        sg->nrows++;
    }
    if (!sg->nrows) st = jg_error_set(err, JG_PARSE, "%s: no data rows after the header", path);
done:
    free(c.buf);
    free(seen);
    free(text);
    if (st) jg_io_signal_free(sg);
    else *out = sg;
    return st;
}

void jg_io_signal_free(jg_io_signal_t *s)
{
    if (!s) return;
    free(s->time);
    free(s->val);
    free(s->elem);
    free(s);
}

const double *jg_io_signal_times(const jg_io_signal_t *s, int64_t *n)
{
    *n = s ? s->nrows : 0;
    return s ? s->time : NULL;
}

int64_t jg_io_signal_ncolumns(const jg_io_signal_t *s) { return s ? s->ncols : 0; }

/* The last row k with time[k] <= t (left: < t), or -1 before the first. */
static int64_t row_at(jg_io_signal_t *s, double t, int left)
{
    const double *T = s->time;
    int64_t n = s->nrows, k = s->cursor;
    double tol = left ? 0 : 1e-12 * fmax(1.0, fabs(t));   /* a step landing a hair short */
#define BEFORE(i) (left ? T[i] < t : T[i] <= t + tol)
    if (k >= 0 && k < n && BEFORE(k) && (k + 1 == n || !BEFORE(k + 1))) return k;   /* same row */
    if (k + 1 >= 0 && k + 1 < n && BEFORE(k + 1) && (k + 2 >= n || !BEFORE(k + 2))) {
        k++;   /* the next row: the usual case as time moves on */
    } else {   /* bisect for the last row before t */
        int64_t lo = -1, hi = n;   /* BEFORE(lo) (or lo = -1), !BEFORE(hi) (or hi = n) */
        while (hi - lo > 1) {
            int64_t mid = lo + (hi - lo) / 2;
            if (BEFORE(mid)) lo = mid;
            else hi = mid;
        }
        k = lo;
    }
#undef BEFORE
    if (k >= 0) s->cursor = k;
    return k;
}

void jg_io_signal_eval(jg_io_signal_t *s, double t, int left, double *u)
{
    int64_t k = row_at(s, t, left), m = s->ncols;
    const double *a, *b = NULL;
    double w = 0;
    if (k < 0) a = s->val;                                      /* hold the first row */
    else if (k + 1 >= s->nrows) a = s->val + (s->nrows - 1) * m;   /* hold the last */
    else {
        a = s->val + k * m;
        if (s->interp == JG_IO_INTERP_LINEAR) {
            b = a + m;
            w = (t - s->time[k]) / (s->time[k + 1] - s->time[k]);
            w = w < 0 ? 0 : w > 1 ? 1 : w;
        }
    }
    for (int64_t c = 0; c < m; c++) u[s->elem[c]] = b ? a[c] + w * (b[c] - a[c]) : a[c];
}

int jg_io_signal_input(double t, int left, double *u, void *ctx)
{
    jg_io_signal_eval(ctx, t, left, u);
    return 0;
}
