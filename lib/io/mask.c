/* Reading a sparsing mask: the entries of the solver Jacobian to drop, from
 * JSON ({"drop": [[row, col], ...]}, indices or state names) or Matrix
 * Market (jacgraph/io.h). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <jansson.h>
#include "jacgraph/io.h"

/* The state named s, -1 when there is none. */
static int64_t state_index(const jg_program_t *p, const char *s)
{
    const int64_t n = jg_program_nstates(p);
    for (int64_t i = 0; i < n; i++)
        if (!strcmp(jg_program_state_name(p, i), s)) return i;
    return -1;
}

/* Element e (a row or a column of drop entry k) into *out. */
static jg_status_t json_index(const char *path, const jg_program_t *p, const json_t *e, int64_t k,
                              const char *what, int64_t *out, jg_error_t *err)
{
    const int64_t n = jg_program_nstates(p);
    if (json_is_integer(e)) {
        json_int_t v = json_integer_value(e);
        if (v < 0 || v >= n)
            return jg_error_set(err, JG_ARG,
                                "%s: \"drop\" entry %lld: %s %lld outside 0..%lld (0-based, %lld states)",
                                path, (long long)k + 1, what, (long long)v, (long long)n - 1,
                                (long long)n);
        *out = (int64_t)v;
        return JG_OK;
    }
    if (json_is_string(e)) {
        int64_t i = state_index(p, json_string_value(e));
        if (i < 0)
            return jg_error_set(err, JG_ARG, "%s: \"drop\" entry %lld: unknown state \"%s\" (%s)", path,
                                (long long)k + 1, json_string_value(e), what);
        *out = i;
        return JG_OK;
    }
    return jg_error_set(err, JG_ARG,
                        "%s: \"drop\" entry %lld: the %s must be a 0-based index or a state name", path,
                        (long long)k + 1, what);
}

static jg_status_t read_json(const char *path, const char *text, size_t len, const jg_program_t *p,
                             int64_t **pairs, int64_t *npairs, jg_error_t *err)
{
    json_error_t je;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!root) return jg_error_set(err, JG_PARSE, "%s:%d:%d: %s", path, je.line, je.column, je.text);
    jg_status_t st = JG_OK;
    const json_t *drop = json_is_object(root) ? json_object_get(root, "drop") : NULL;
    if (!drop || !json_is_array(drop)) {
        st = jg_error_set(err, JG_ARG, "%s: expected an object with \"drop\": [[row, column], ...]", path);
        goto done;
    }
    size_t m = json_array_size(drop);
    int64_t *pr = malloc(sizeof(int64_t) * (2 * m + 1));
    if (!pr) {
        st = jg_error_set(err, JG_NOMEM, "%s: out of memory", path);
        goto done;
    }
    for (size_t k = 0; k < m && !st; k++) {
        const json_t *e = json_array_get(drop, k);
        if (!json_is_array(e) || json_array_size(e) != 2) {
            st = jg_error_set(err, JG_ARG, "%s: \"drop\" entry %lld: expected [row, column]", path,
                              (long long)k + 1);
            break;
        }
        st = json_index(path, p, json_array_get(e, 0), (int64_t)k, "row", &pr[2 * k], err);
        if (!st) st = json_index(path, p, json_array_get(e, 1), (int64_t)k, "column", &pr[2 * k + 1], err);
    }
    if (st) {
        free(pr);
        goto done;
    }
    *pairs = pr;
    *npairs = (int64_t)m;
done:
    json_decref(root);
    return st;
}

/* The next line of text at *at (NUL-terminated copy in line, at most cap - 1
 * characters), or 0 at the end. */
static int next_line(const char **at, const char *end, char *line, size_t cap)
{
    if (*at >= end) return 0;
    const char *e = memchr(*at, '\n', (size_t)(end - *at));
    if (!e) e = end;
    size_t k = (size_t)(e - *at);
    if (k >= cap) k = cap - 1;
    memcpy(line, *at, k);
    line[k] = '\0';
    *at = e < end ? e + 1 : end;
    return 1;
}

static jg_status_t read_mm(const char *path, const char *text, size_t len, const jg_program_t *p,
                           int64_t **pairs, int64_t *npairs, jg_error_t *err)
{
    const char *at = text, *end = text + len;
    const int64_t n = jg_program_nstates(p);
    char line[512], obj[64], fmt[64], field[64], sym[64];
    next_line(&at, end, line, sizeof line);
    if (sscanf(line, "%%%%MatrixMarket %63s %63s %63s %63s", obj, fmt, field, sym) != 4 ||
        strcasecmp(obj, "matrix") || strcasecmp(fmt, "coordinate") ||
        (strcasecmp(field, "pattern") && strcasecmp(field, "real") && strcasecmp(field, "integer")) ||
        strcasecmp(sym, "general"))
        return jg_error_set(err, JG_ARG,
                            "%s: expected a Matrix Market header \"%%%%MatrixMarket matrix coordinate "
                            "pattern|real|integer general\"",
                            path);
    long long lineno = 1, rows = -1, cols = -1, nnz = -1;
    while (next_line(&at, end, line, sizeof line)) {
        lineno++;
        const char *c = line;
        while (isspace((unsigned char)*c)) c++;
        if (*c == '%' || !*c) continue;
        if (sscanf(c, "%lld %lld %lld", &rows, &cols, &nnz) != 3 || rows < 0 || cols < 0 || nnz < 0)
            return jg_error_set(err, JG_ARG, "%s:%lld: expected the size line \"rows columns entries\"",
                                path, lineno);
        break;
    }
    if (nnz < 0) return jg_error_set(err, JG_ARG, "%s: no size line", path);
    if (rows != n || cols != n)
        return jg_error_set(err, JG_ARG, "%s: a %lld x %lld matrix; the Jacobian is %lld x %lld", path,
                            rows, cols, (long long)n, (long long)n);
    if ((unsigned long long)nnz > (unsigned long long)len)   /* each entry takes bytes */
        return jg_error_set(err, JG_ARG, "%s: %lld entries announced in %zu bytes", path, nnz, len);
    int64_t *pr = malloc(sizeof(int64_t) * (2 * (size_t)nnz + 1));
    if (!pr) return jg_error_set(err, JG_NOMEM, "%s: out of memory", path);
    long long k = 0;
    while (k < nnz && next_line(&at, end, line, sizeof line)) {
        lineno++;
        const char *c = line;
        while (isspace((unsigned char)*c)) c++;
        if (*c == '%' || !*c) continue;
        long long i, j;
        if (sscanf(c, "%lld %lld", &i, &j) != 2) {
            free(pr);
            return jg_error_set(err, JG_ARG, "%s:%lld: expected \"row column [value]\"", path, lineno);
        }
        if (i < 1 || i > n || j < 1 || j > n) {
            free(pr);
            return jg_error_set(err, JG_ARG, "%s:%lld: entry (%lld, %lld) outside 1..%lld (1-based)", path,
                                lineno, i, j, (long long)n);
        }
        pr[2 * k] = i - 1;
        pr[2 * k + 1] = j - 1;
        k++;
    }
    if (k < nnz) {
        free(pr);
        return jg_error_set(err, JG_ARG, "%s: %lld entries announced, %lld found", path, nnz, k);
    }
    *pairs = pr;
    *npairs = nnz;
    return JG_OK;
}

jg_status_t jg_io_read_mask(const char *path, const jg_program_t *p, int64_t **pairs, int64_t *npairs,
                            jg_error_t *err)
{
    if (pairs) *pairs = NULL;
    if (npairs) *npairs = 0;
    if (!path || !p || !pairs || !npairs) return jg_error_set(err, JG_ARG, "sparsing mask: NULL argument");
    FILE *f = fopen(path, "rb");
    if (!f) return jg_error_set(err, JG_IO, "%s: cannot open: %s", path, strerror(errno));
    /* one read: the file is small, and both readers want it whole */
    size_t cap = 1 << 16, len = 0, got;
    char *buf = malloc(cap + 1);
    jg_status_t st = JG_OK;
    while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            char *nb = realloc(buf, 2 * cap + 1);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    if (!buf) st = jg_error_set(err, JG_NOMEM, "%s: out of memory", path);
    else if (ferror(f)) st = jg_error_set(err, JG_IO, "%s: read failed", path);
    fclose(f);
    if (st) goto done;
    buf[len] = '\0';
    const char *c = buf;
    while (c < buf + len && isspace((unsigned char)*c)) c++;
    if (*c == '{') st = read_json(path, buf, len, p, pairs, npairs, err);
    else if (!strncmp(c, "%%MatrixMarket", 14)) st = read_mm(path, buf, len, p, pairs, npairs, err);
    else
        st = jg_error_set(err, JG_PARSE,
                          "%s: not a sparsing mask (expected JSON {\"drop\": [[row, column], ...]} or "
                          "a Matrix Market file)",
                          path);
done:
    free(buf);
    return st;
}
