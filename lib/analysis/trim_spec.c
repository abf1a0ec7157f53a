/* Trim specifications: the defaults and the JSON specification file, with
 * names resolved as in operating-point files and "did you mean" for typos. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "trim_impl.h"

int jg__trim_spec_alloc(const jg_analysis_trim_t *t, jg__trim_spec_t *s)
{
    size_t nv = (size_t)t->nv + 1, ny = (size_t)t->ny + 1;
    *s = (jg__trim_spec_t){0};
    s->val = malloc(sizeof(double) * nv);
    s->lo = malloc(sizeof(double) * nv);
    s->hi = malloc(sizeof(double) * nv);
    s->known = malloc(nv);
    s->steady = malloc(nv);
    s->yval = malloc(sizeof(double) * ny);
    s->ylo = malloc(sizeof(double) * ny);
    s->yhi = malloc(sizeof(double) * ny);
    s->yknown = malloc(ny);
    if (s->val && s->lo && s->hi && s->known && s->steady && s->yval && s->ylo && s->yhi && s->yknown)
        return 0;
    jg__trim_spec_free(s);
    return -1;
}

void jg__trim_spec_free(jg__trim_spec_t *s)
{
    free(s->val);
    free(s->lo);
    free(s->hi);
    free(s->known);
    free(s->steady);
    free(s->yval);
    free(s->ylo);
    free(s->yhi);
    free(s->yknown);
    *s = (jg__trim_spec_t){0};
}

void jg__trim_spec_defaults(const jg_analysis_trim_t *t, jg__trim_spec_t *s, int with_spec)
{
    int64_t nst = t->nx + t->nd;
    for (int64_t i = 0; i < t->nv; i++) {
        s->val[i] = t->v[i];
        s->lo[i] = -INFINITY;
        s->hi[i] = INFINITY;
        /* without a specification the inputs are the operating point's;
         * with one, operspec's default: everything not said is free */
        s->known[i] = i >= nst && !with_spec;
        s->steady[i] = i < nst;
    }
    for (int64_t k = 0; k < t->ny; k++) {
        s->yval[k] = 0;
        s->ylo[k] = -INFINITY;
        s->yhi[k] = INFINITY;
        s->yknown[k] = 0;
    }
}

/* ------------------------------------------------------- name lookup */

/* Edit distance (insertions, deletions, substitutions), capped: the caller
 * only wants close names. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    if (na > 256 || nb > 256) return (size_t)-1;
    size_t row[257];
    for (size_t j = 0; j <= nb; j++) row[j] = j;
    for (size_t i = 1; i <= na; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= nb; j++) {
            size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[nb];
}

static void consider(const char *key, const char *cand, const char **best, size_t *bestd)
{
    size_t d = edit_distance(key, cand);
    if (d < *bestd) {
        *bestd = d;
        *best = cand;
    }
}

/* ", did you mean \"X\"?" for the nearest of the candidates, "" when none is
 * near (more than a third of the key's length away, at least 2). */
static const char *suggest(char *buf, size_t n, const char *key, const char *best, size_t d)
{
    size_t limit = strlen(key) / 3;
    if (limit < 2) limit = 2;
    if (!best || d > limit) return "";
    snprintf(buf, n, "; did you mean \"%s\"?", best);
    return buf;
}

static const char *const sections[3] = {"states", "inputs", "outputs"};

/* The elements of section sec a key names: a group (a block with states, a
 * root Inport, an output point) or one element.  -1 when unknown. */
static int resolve(const jg_analysis_trim_t *t, int sec, const char *key, int64_t *first, int64_t *n,
                   const char **best, size_t *bestd)
{
    for (int g = 0; g < t->ngroup[sec]; g++)
        if (!strcmp(t->group[sec][g].name, key)) {
            *first = t->group[sec][g].first;
            *n = t->group[sec][g].n;
            return 0;
        }
    int64_t lo = sec == 0 ? 0 : sec == 1 ? t->nx + t->nd : 0;
    int64_t hi = sec == 0 ? t->nx + t->nd : sec == 1 ? t->nv : t->ny;
    const char *const *names = sec == 2 ? t->yname : t->vname;
    for (int64_t i = lo; i < hi; i++)
        if (names[i] && !strcmp(names[i], key)) {
            *first = i;
            *n = 1;
            return 0;
        }
    *best = NULL;
    *bestd = (size_t)-1;
    for (int g = 0; g < t->ngroup[sec]; g++) consider(key, t->group[sec][g].name, best, bestd);
    for (int64_t i = lo; i < hi; i++)
        if (names[i]) consider(key, names[i], best, bestd);
    return -1;
}

/* ------------------------------------------------------ entry values */

/* A number for every element or an array of n; null (min, max): unbounded. */
static jg_status_t numbers(const char *path, const char *where, const char *field, const json_t *v,
                           int64_t n, int null_ok, double null_val, double *out, jg_error_t *err)
{
    if (null_ok && json_is_null(v)) {
        for (int64_t e = 0; e < n; e++) out[e] = null_val;
        return JG_OK;
    }
    if (json_is_number(v)) {
        for (int64_t e = 0; e < n; e++) out[e] = json_number_value(v);
        return JG_OK;
    }
    if (!json_is_array(v) || (int64_t)json_array_size(v) != n)
        return jg_error_set(err, JG_ARG, "%s: %s: \"%s\" must be a number%s or an array of %lld numbers",
                            path, where, field, null_ok ? ", null" : "", (long long)n);
    for (int64_t e = 0; e < n; e++) {
        const json_t *x = json_array_get(v, (size_t)e);
        if (!json_is_number(x))
            return jg_error_set(err, JG_ARG, "%s: %s: \"%s\" element %lld is not a number", path, where,
                                field, (long long)e + 1);
        out[e] = json_number_value(x);
    }
    return JG_OK;
}

/* One entry NAME: {...} of section sec into s. */
static jg_status_t entry(const jg_analysis_trim_t *t, jg__trim_spec_t *s, const char *path, int sec,
                         const char *key, const json_t *obj, jg_error_t *err)
{
    static const char *const fields[5] = {"value", "known", "min", "max", "steady"};
    char where[512], hint[600];
    snprintf(where, sizeof where, "%s \"%s\"", sections[sec], key);
    int64_t first, n;
    const char *best;
    size_t bestd;
    if (resolve(t, sec, key, &first, &n, &best, &bestd))
        return jg_error_set(err, JG_ARG, "%s: unknown %s \"%s\"%s", path,
                            sec == 0 ? "state" : sec == 1 ? "input" : "output", key,
                            suggest(hint, sizeof hint, key, best, bestd));
    if (!json_is_object(obj))
        return jg_error_set(err, JG_ARG, "%s: %s: expected an object with value, known, min, max%s",
                            path, where, sec == 0 ? ", steady" : "");
    const char *f;
    json_t *v;
    json_object_foreach((json_t *)obj, f, v) {
        int k = 0, nf = sec == 0 ? 5 : 4;
        while (k < nf && strcmp(f, fields[k])) k++;
        if (k < nf) continue;
        if (!strcmp(f, "steady"))
            return jg_error_set(err, JG_ARG, "%s: %s: \"steady\" applies to states only", path, where);
        best = NULL;
        bestd = (size_t)-1;
        for (int j = 0; j < nf; j++) consider(f, fields[j], &best, &bestd);
        return jg_error_set(err, JG_ARG, "%s: %s: unknown key \"%s\"%s (expected value, known, min, max%s)",
                            path, where, f, suggest(hint, sizeof hint, f, best, bestd),
                            sec == 0 ? ", steady" : "");
    }
    double *tmp = malloc(sizeof(double) * (size_t)(3 * n + 1));
    if (!tmp) return jg_error_set(err, JG_NOMEM, "out of memory");
    double *val = tmp, *lo = tmp + n, *hi = tmp + 2 * n;
    const json_t *jv = json_object_get(obj, "value"), *jk = json_object_get(obj, "known"),
                 *jlo = json_object_get(obj, "min"), *jhi = json_object_get(obj, "max"),
                 *js = json_object_get(obj, "steady");
    int y = sec == 2;
    double *sval = y ? s->yval : s->val, *slo = y ? s->ylo : s->lo, *shi = y ? s->yhi : s->hi;
    unsigned char *sknown = y ? s->yknown : s->known;
    jg_status_t st = JG_OK;
    if ((jk && !json_is_boolean(jk)) || (js && !json_is_boolean(js))) {
        st = jg_error_set(err, JG_ARG, "%s: %s: \"%s\" must be true or false", path, where,
                          jk && !json_is_boolean(jk) ? "known" : "steady");
        goto done;
    }
    if (y && jk && json_is_true(jk) && !jv) {
        st = jg_error_set(err, JG_ARG, "%s: %s: a known output needs a \"value\"", path, where);
        goto done;
    }
    if (jv && (st = numbers(path, where, "value", jv, n, 0, 0, val, err))) goto done;
    if (jlo && (st = numbers(path, where, "min", jlo, n, 1, -INFINITY, lo, err))) goto done;
    if (jhi && (st = numbers(path, where, "max", jhi, n, 1, INFINITY, hi, err))) goto done;
    for (int64_t e = 0; e < n; e++) {
        int64_t i = first + e;
        if (jv) sval[i] = val[e];
        if (jlo) slo[i] = lo[e];
        if (jhi) shi[i] = hi[e];
        if (jk) sknown[i] = json_is_true(jk);
        if (js) s->steady[i] = json_is_true(js);
        if (!(slo[i] <= shi[i])) {
            st = jg_error_set(err, JG_ARG, "%s: %s: min %g is above max %g", path, where, slo[i], shi[i]);
            goto done;
        }
        if (sknown[i] && (sval[i] < slo[i] || sval[i] > shi[i])) {
            st = jg_error_set(err, JG_ARG, "%s: %s: the known value %g is outside [%g, %g]", path, where,
                              sval[i], slo[i], shi[i]);
            goto done;
        }
    }
done:
    free(tmp);
    return st;
}

jg_status_t jg_analysis_trim_read_spec(jg_analysis_trim_t *t, const char *path, jg_error_t *err)
{
    if (!t || !path) return jg_error_set(err, JG_ARG, "jg_analysis_trim_read_spec: NULL argument");
    json_error_t je;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        /* jansson says "unable to open" for a missing file: that is I/O */
        if (je.line <= 0) return jg_error_set(err, JG_IO, "%s: cannot read: %s", path, je.text);
        return jg_error_set(err, JG_PARSE, "%s:%d:%d: %s", path, je.line, je.column, je.text);
    }
    jg__trim_spec_t s;
    jg_status_t st = JG_OK;
    char hint[600];
    if (jg__trim_spec_alloc(t, &s)) {
        json_decref(root);
        return jg_error_set(err, JG_NOMEM, "out of memory");
    }
    jg__trim_spec_defaults(t, &s, 1);
    if (!json_is_object(root)) {
        st = jg_error_set(err, JG_ARG, "%s: expected an object with \"states\", \"inputs\", \"outputs\"", path);
        goto done;
    }
    const char *key;
    json_t *v;
    json_object_foreach(root, key, v) {
        int sec = 0;
        while (sec < 3 && strcmp(key, sections[sec])) sec++;
        if (sec == 3) {
            const char *best = NULL;
            size_t bestd = (size_t)-1;
            for (int k = 0; k < 3; k++) consider(key, sections[k], &best, &bestd);
            st = jg_error_set(err, JG_ARG, "%s: unknown key \"%s\"%s (expected states, inputs, outputs)", path,
                              key, suggest(hint, sizeof hint, key, best, bestd));
            goto done;
        }
        if (!json_is_object(v)) {
            st = jg_error_set(err, JG_ARG, "%s: \"%s\" must be an object NAME -> {...}", path, key);
            goto done;
        }
        const char *name;
        json_t *e;
        json_object_foreach(v, name, e) {
            if ((st = entry(t, &s, path, sec, name, e, err))) goto done;
        }
    }
    jg__trim_spec_free(&t->spec);
    t->spec = s;
    s = (jg__trim_spec_t){0};
    memcpy(t->v, t->spec.val, sizeof(double) * (size_t)t->nv);
done:
    jg__trim_spec_free(&s);
    json_decref(root);
    return st;
}
