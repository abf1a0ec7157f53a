/* io: the JSON writers of linear models (jg_io_write_linsys_json and the
 * batch JSON Lines, both through lib/io/jsonw.c) against a reference: the
 * jansson tree those writers built before, dumped by json_dumpf with their
 * flags, kept here.  Random models with special values (inf, nan, -0,
 * subnormals, the %g layout switches at 1e-5 and 1e17, random bit
 * patterns), names that need escapes (quotes, backslashes, every control
 * character, DEL, two- to four-byte UTF-8), default names, empty matrices,
 * matrices that are not canonical (unsorted, duplicates, stored zeros),
 * delays and sample times must give the same bytes, and parse back with
 * jansson to the same values bit for bit.  Also the buffer's edges (a small
 * sink buffer, long strings) and the refusals (not UTF-8, bad shapes, a
 * full disk).
 *
 *   test_io_json_writer [N]   N random models (default 300) */
#define _POSIX_C_SOURCE 200809L   /* open_memstream, mkdtemp */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "jacgraph/io.h"
#include "jacgraph/linearize.h"
#include "io/io_impl.h"
#include "io/jsonw.h"
#include "testlib.h"

#define DUMP_FLAGS (JSON_ENCODE_ANY | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17))

static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint64_t next(void) { return tl_xorshift(&rng); }
static int below(int n) { return (int)(next() % (uint64_t)n); }

/* ---- the reference: the tree the writers built with jansson before */

static json_t *ref_real(double v) { return isfinite(v) ? json_real(v) : json_null(); }

static json_t *ref_names(char *const *v, int64_t n, char pfx)
{
    json_t *a = json_array();
    char buf[32];
    for (int64_t k = 0; a && k < n; k++) {
        const char *s = v && v[k] ? v[k] : buf;
        if (s == buf) snprintf(buf, sizeof buf, "%c%lld", pfx, (long long)k + 1);
        if (json_array_append_new(a, json_string(s))) {
            json_decref(a);
            a = NULL;
        }
    }
    return a;
}

static json_t *ref_matrix(const cs_dl *M)
{
    cs_dl *S = jg__io_sorted(M);
    json_t *ri = json_array(), *cj = json_array(), *vx = json_array(), *o = NULL;
    if (!S || !ri || !cj || !vx) goto done;
    for (int64_t j = 0; j < S->n; j++)
        for (int64_t p = S->p[j]; p < S->p[j + 1]; p++)
            if (json_array_append_new(ri, json_integer((json_int_t)S->i[p])) ||
                json_array_append_new(cj, json_integer((json_int_t)j)) ||
                json_array_append_new(vx, ref_real(S->x[p])))
                goto done;
    o = json_pack("{s:I, s:I, s:O, s:O, s:O}", "rows", (json_int_t)S->m, "cols", (json_int_t)S->n, "i",
                  ri, "j", cj, "x", vx);
done:
    json_decref(ri);
    json_decref(cj);
    json_decref(vx);
    cs_dl_spfree(S);
    return o;
}

static json_t *ref_reals(const double *v, int64_t n)
{
    json_t *d = json_array();
    for (int64_t q = 0; d && q < n; q++)
        if (json_array_append_new(d, ref_real(v[q]))) json_decref(d), d = NULL;
    return d;
}

/* The whole file jg_io_write_linsys_json wrote; malloc'd, NULL on failure. */
static char *ref_linsys(const jg_lin_sys_t *s)
{
    json_t *root = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "states",
                             ref_names(s->state_names, s->nx, 'x'), "inputs",
                             ref_names(s->input_names, s->nu, 'u'), "outputs",
                             ref_names(s->output_names, s->ny, 'y'), "t", ref_real(s->t), "Ts",
                             ref_real(s->Ts), "A", ref_matrix(s->A), "B", ref_matrix(s->B), "C",
                             ref_matrix(s->C), "D", ref_matrix(s->D));
    if (!root) return NULL;
    if (s->ndelays > 0) json_object_set_new(root, "InternalDelay", ref_reals(s->delays, s->ndelays));
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    const char *key;
    json_t *val;
    int first = 1;
    fputs("{\n", f);
    json_object_foreach(root, key, val) {
        fprintf(f, "%s \"%s\": ", first ? "" : ",\n", key);
        json_dumpf(val, f, DUMP_FLAGS);
        first = 0;
    }
    fputs("\n}\n", f);
    fclose(f);
    json_decref(root);
    return text;
}

/* Append o's dump and a newline to *acc (a memstream); o released. */
static void ref_line(FILE *acc, json_t *o)
{
    json_dumpf(o, acc, DUMP_FLAGS);
    fputc('\n', acc);
    json_decref(o);
}

/* ---- random models */

static const char *const pieces[] = {
    "a", "Z", "0", " ", "/", "//", ":", "\"", "\\", "\\\\", "\n", "\t", "\r", "\b", "\f", "\x01", "\x1b",
    "\x1f", "\x7f", "\xc2\x80", "\xc3\xa9", "\xe2\x82\xac", "\xef\xbf\xbf", "\xf0\x9f\x98\x80",
    "\xf4\x8f\xbf\xbf", "u(1)", "Plant x", "%s", "{}", "[\"\"]"};

static char *odd_name(void)
{
    char *s = malloc(128);
    size_t n = 0;
    int k = below(9);
    s[0] = '\0';
    for (int q = 0; q < k; q++) {
        const char *p = pieces[below((int)(sizeof pieces / sizeof *pieces))];
        if (n + strlen(p) >= 128) break;
        memcpy(s + n, p, strlen(p) + 1);
        n += strlen(p);
    }
    if (below(4) == 0 && n < 120) {   /* any other control character */
        s[n++] = (char)(1 + below(31));
        s[n] = '\0';
    }
    return s;
}

/* NULL (all default names), or names with some entries NULL (default). */
static char **names(int64_t n)
{
    if (below(5) == 0) return NULL;
    char **v = calloc((size_t)n + 1, sizeof *v);
    for (int64_t k = 0; k < n; k++)
        if (below(5)) v[k] = odd_name();
    return v;
}

static void free_names(char **v, int64_t n)
{
    for (int64_t k = 0; v && k < n; k++) free(v[k]);
    free(v);
}

static double from_bits(uint64_t b)
{
    double v;
    memcpy(&v, &b, sizeof v);
    return v;
}

static double value(void)
{
    static const double special[] = {0.1, 1.0, -1.0, 3.0, 0.5, -2.5, 1e16, 1e17, -1e17, 9999999999999998.0,
                                     1e-5, 1.5e-5, 1e-4, 9.9999999999999991e-6, 5e-324, -5e-324,
                                     2.2250738585072014e-308, 1.7976931348623157e308, -1.7976931348623157e308,
                                     1e100, 1e-100, 1e21, 123456789.0, 4503599627370497.0, 0.0, -0.0};
    switch (below(8)) {
    case 0: return special[below((int)(sizeof special / sizeof *special))];
    case 1: return below(3) == 0 ? NAN : below(2) ? INFINITY : -INFINITY;
    case 2: return from_bits(next());   /* any double, nan payloads and subnormals too */
    case 3: return (double)(below(2000) - 1000);
    case 4: return (double)(int64_t)(next() >> 11) * pow(10.0, below(40) - 20);
    default: return ((double)(next() >> 11) / 9007199254740992.0 - 0.5) * pow(10.0, below(12) - 6);
    }
}

/* An m x n matrix with about a density d of entries; half the time left
 * as cs_dl_compress makes it (unsorted rows, duplicates, stored zeros). */
static cs_dl *matrix(int64_t m, int64_t n)
{
    int64_t want = m > 0 && n > 0 ? (int64_t)below((int)(m * n) + 1) : 0;
    cs_dl *T = cs_dl_spalloc(m, n, want + 1, 1, 1);
    for (int64_t k = 0; k < want; k++) cs_dl_entry(T, below((int)m), below((int)n), value());
    cs_dl *C = cs_dl_compress(T);
    cs_dl_spfree(T);
    if (below(2)) {   /* canonical, as the linearizer leaves it */
        cs_dl *S = jg__io_sorted(C);
        cs_dl_spfree(C);
        C = S;
    }
    return C;
}

static cs_dl *empty(int64_t m, int64_t n)
{
    cs_dl *T = cs_dl_spalloc(m, n, 1, 1, 1), *C = cs_dl_compress(T);
    cs_dl_spfree(T);
    return C;
}

static jg_lin_sys_t *model(int64_t nx, int64_t nu, int64_t ny, int64_t nd, int fixed_names, char **nm[3])
{
    jg_lin_sys_t *s = calloc(1, sizeof *s);
    s->nx = nx, s->nu = nu, s->ny = ny;
    if (fixed_names) {
        s->state_names = nm[0], s->input_names = nm[1], s->output_names = nm[2];
        s->names_shared = 1;
    } else {
        s->state_names = names(nx), s->input_names = names(nu), s->output_names = names(ny);
    }
    s->A = matrix(nx, nx), s->B = matrix(nx, nu), s->C = matrix(ny, nx), s->D = matrix(ny, nu);
    s->t = below(3) ? (double)below(100) / 8 : value();
    s->Ts = below(2) ? 0.0 : below(3) ? 0.01 * (1 + below(100)) : value();
    s->ndelays = nd;
    if (nd) {
        s->delays = malloc(sizeof(double) * (size_t)nd);
        for (int64_t k = 0; k < nd; k++) s->delays[k] = below(2) ? 0.125 * (1 + below(16)) : value();
    }
    return s;
}

static void model_free(jg_lin_sys_t *s)
{
    if (!s) return;
    if (!s->names_shared) {
        free_names(s->state_names, s->nx);
        free_names(s->input_names, s->nu);
        free_names(s->output_names, s->ny);
    }
    cs_dl_spfree(s->A), cs_dl_spfree(s->B), cs_dl_spfree(s->C), cs_dl_spfree(s->D);
    free(s->delays);
    free(s);
}

static int64_t dim(void) { return below(6) == 0 ? 0 : below(8) == 0 ? 20 + below(30) : 1 + below(5); }

/* ---- parse-back */

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static int real_is(const json_t *v, double x)
{
    if (!isfinite(x)) return json_is_null(v);
    return json_is_real(v) && same_bits(json_real_value(v), x);
}

static int names_are(const json_t *a, char *const *v, int64_t n, char pfx)
{
    if (!json_is_array(a) || (int64_t)json_array_size(a) != n) return 0;
    for (int64_t k = 0; k < n; k++) {
        char buf[32];
        snprintf(buf, sizeof buf, "%c%lld", pfx, (long long)k + 1);
        const char *want = v && v[k] ? v[k] : buf;
        const char *got = json_string_value(json_array_get(a, (size_t)k));
        if (!got || strcmp(got, want)) return 0;
    }
    return 1;
}

static int matrix_is(const json_t *o, const cs_dl *M)
{
    cs_dl *S = jg__io_sorted(M);
    json_t *ri = json_object_get(o, "i"), *cj = json_object_get(o, "j"), *vx = json_object_get(o, "x");
    int ok = S && json_integer_value(json_object_get(o, "rows")) == S->m &&
             json_integer_value(json_object_get(o, "cols")) == S->n && json_is_array(ri) &&
             (int64_t)json_array_size(ri) == S->p[S->n] && json_array_size(cj) == json_array_size(ri) &&
             json_array_size(vx) == json_array_size(ri);
    for (int64_t j = 0; ok && j < S->n; j++)
        for (int64_t p = S->p[j]; ok && p < S->p[j + 1]; p++)
            ok = json_integer_value(json_array_get(ri, (size_t)p)) == S->i[p] &&
                 json_integer_value(json_array_get(cj, (size_t)p)) == j &&
                 real_is(json_array_get(vx, (size_t)p), S->x[p]);
    cs_dl_spfree(S);
    return ok;
}

static int parses_back(const char *text, const jg_lin_sys_t *s)
{
    json_t *r = json_loads(text, 0, NULL);
    int ok = r && names_are(json_object_get(r, "states"), s->state_names, s->nx, 'x') &&
             names_are(json_object_get(r, "inputs"), s->input_names, s->nu, 'u') &&
             names_are(json_object_get(r, "outputs"), s->output_names, s->ny, 'y') &&
             real_is(json_object_get(r, "t"), s->t) && real_is(json_object_get(r, "Ts"), s->Ts) &&
             matrix_is(json_object_get(r, "A"), s->A) && matrix_is(json_object_get(r, "B"), s->B) &&
             matrix_is(json_object_get(r, "C"), s->C) && matrix_is(json_object_get(r, "D"), s->D);
    json_t *d = json_object_get(r, "InternalDelay");
    ok = ok && (s->ndelays ? (int64_t)json_array_size(d) == s->ndelays : d == NULL);
    for (int64_t k = 0; ok && k < s->ndelays; k++) ok = real_is(json_array_get(d, (size_t)k), s->delays[k]);
    json_decref(r);
    return ok;
}

/* ---- the checks */

static char *write_new(const jg_lin_sys_t *s, jg_status_t *st)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    jg_error_t err = {0};
    *st = jg_io_write_linsys_json(f, s, &err);
    fclose(f);
    return text;
}

/* first differing byte, for the diagnostics */
static void show_diff(const char *a, const char *b)
{
    size_t k = 0;
    while (a[k] && a[k] == b[k]) k++;
    size_t from = k > 40 ? k - 40 : 0;
    printf("#   differ at byte %zu:\n#   new '%.80s'\n#   ref '%.80s'\n", k, a + from, b + from);
}

static void linsys_random(int n)
{
    int nsame = 0, nparse = 0, shown = 0;
    for (int q = 0; q < n; q++) {
        int64_t nx = dim(), nu = dim(), ny = dim();
        int64_t dmax = nu < ny ? nu : ny, nd = dmax && below(3) == 0 ? 1 + below((int)dmax) : 0;
        jg_lin_sys_t *s = model(nx, nu, ny, nd, 0, NULL);
        jg_status_t st;
        char *got = write_new(s, &st), *want = ref_linsys(s);
        int same = st == JG_OK && got && want && !strcmp(got, want);
        nsame += same;
        if (!same && !shown++) show_diff(got ? got : "", want ? want : "");
        nparse += st == JG_OK && parses_back(got, s);
        free(got);
        free(want);
        model_free(s);
    }
    tap_ok(nsame == n, "linearize --format json: %d/%d random models the bytes jansson wrote", nsame, n);
    tap_ok(nparse == n, "linearize --format json: %d/%d parse back to the same names and bits", nparse, n);
}

/* A hand-made model with the answer written out: every escape, the number
 * layouts, default names, an empty and a non-canonical matrix. */
static void linsys_fixed(void)
{
    char *st[2] = {"q\"b\\s\n\t\r\b\f\x01\x1f\x7f/\xc3\xa9\xf0\x9f\x98\x80", NULL};
    jg_lin_sys_t s = {0};
    s.nx = 2, s.nu = 1, s.ny = 0;
    s.state_names = st;
    s.t = 1e17, s.Ts = 1.5e-5;
    cs_dl *T = cs_dl_spalloc(2, 2, 6, 1, 1);
    cs_dl_entry(T, 1, 0, 1e16), cs_dl_entry(T, 0, 0, -0.0), cs_dl_entry(T, 0, 1, INFINITY);
    cs_dl_entry(T, 1, 1, NAN), cs_dl_entry(T, 0, 0, 0.1), cs_dl_entry(T, 0, 0, 0.2);
    s.A = cs_dl_compress(T);
    cs_dl_spfree(T);
    s.B = empty(2, 1), s.C = empty(0, 2), s.D = empty(0, 1);
    jg_status_t rc;
    char *got = write_new(&s, &rc);
    const char *want =
        "{\n"
        " \"states\": [\"q\\\"b\\\\s\\n\\t\\r\\b\\f\\u0001\\u001F\x7f/\xc3\xa9\xf0\x9f\x98\x80\", \"x2\"],\n"
        " \"inputs\": [\"u1\"],\n"
        " \"outputs\": [],\n"
        " \"t\": 1e17,\n"
        " \"Ts\": 1.5e-5,\n"
        " \"A\": {\"rows\": 2, \"cols\": 2, \"i\": [0, 1, 0, 1], \"j\": [0, 0, 1, 1], \"x\": "
        "[0.30000000000000004, 10000000000000000.0, null, null]},\n"
        " \"B\": {\"rows\": 2, \"cols\": 1, \"i\": [], \"j\": [], \"x\": []},\n"
        " \"C\": {\"rows\": 0, \"cols\": 2, \"i\": [], \"j\": [], \"x\": []},\n"
        " \"D\": {\"rows\": 0, \"cols\": 1, \"i\": [], \"j\": [], \"x\": []}\n"
        "}\n";
    if (!tap_streq(got, want, "linearize --format json: a hand-made model, the bytes written out"))
        show_diff(got ? got : "", want);
    char *ref = ref_linsys(&s);
    tap_streq(ref, want, "... and the jansson reference agrees");
    free(ref);
    free(got);

    /* refusals: nothing written */
    st[1] = "bad \xc3\x28";
    got = write_new(&s, &rc);
    tap_ok(rc == JG_ARG && got && !*got, "a name that is not UTF-8: JG_ARG, nothing written");
    free(got);
    st[1] = NULL;
    s.ny = 1;
    got = write_new(&s, &rc);
    tap_ok(rc == JG_ARG && got && !*got, "C of the wrong shape: JG_ARG, nothing written");
    free(got);
    s.ny = 0;
    jg_error_t err = {0};
    tap_ok(jg_io_write_linsys_json(NULL, &s, &err) == JG_ARG, "no file: JG_ARG");
    FILE *full = fopen("/dev/full", "w");
    if (full) {
        rc = jg_io_write_linsys_json(full, &s, &err);
        tap_ok(rc == JG_IO, "a full disk (/dev/full): JG_IO (%s)", err.msg);
        fclose(full);
    } else {
        tap_ok(1, "# SKIP no /dev/full");
    }
    cs_dl_spfree(s.A), cs_dl_spfree(s.B), cs_dl_spfree(s.C), cs_dl_spfree(s.D);
}

/* One batch of npts points of one size into a JSON Lines file against the
 * reference lines; some points fail (odd messages, NULL, not UTF-8). */
static int batch_one(const char *dir, int npts, char **first_diff)
{
    int64_t nx = dim(), nu = dim(), ny = dim();
    int64_t dmax = nu < ny ? nu : ny, nd = dmax && below(3) == 0 ? 1 + below((int)dmax) : 0;
    char **names3[3] = {names(nx), names(nu), names(ny)};
    char path[600];
    snprintf(path, sizeof path, "%s/b.jsonl", dir);
    jg_io_batch_t *w = NULL;
    jg_error_t err = {0};
    char *ref = NULL;
    size_t rlen = 0;
    FILE *acc = open_memstream(&ref, &rlen);
    json_t *held = json_array();   /* failed lines before the first model */
    int ok = jg_io_batch_open(path, JG_IO_BATCH_JSONL, npts, 0, NULL, &w, &err) == JG_OK, started = 0;
    for (int k = 0; ok && k < npts; k++) {
        if (below(4) == 0) {   /* a failure */
            char *msg = below(5) ? odd_name() : NULL;
            int bad8 = below(6) == 0;
            const char *text = bad8 ? "\xff not UTF-8" : msg;
            const char *as = bad8 ? "failed (the message was not UTF-8)" : msg ? msg : "failed";
            ok = jg_io_batch_put(w, k, NULL, NULL, text, &err) == JG_OK;
            json_t *o = json_pack("{s:I, s:b, s:s}", "index", (json_int_t)k, "ok", 0, "error", as);
            if (started) ref_line(acc, o);
            else json_array_append_new(held, o);
            free(msg);
            continue;
        }
        jg_lin_sys_t *s = model(nx, nu, ny, nd, 1, names3);
        if (!started) {
            json_t *o = json_pack("{s:o, s:o, s:o}", "states", ref_names(names3[0], nx, 'x'), "inputs",
                                  ref_names(names3[1], nu, 'u'), "outputs", ref_names(names3[2], ny, 'y'));
            if (s->Ts > 0) json_object_set_new(o, "Ts", ref_real(s->Ts));
            ref_line(acc, o);
            for (size_t q = 0; q < json_array_size(held); q++) ref_line(acc, json_incref(json_array_get(held, q)));
            json_array_clear(held);
            started = 1;   /* the first model's Ts is the file's */
        }
        json_t *o = json_pack("{s:I, s:b, s:o, s:o, s:o, s:o}", "index", (json_int_t)k, "ok", 1, "A",
                              ref_matrix(s->A), "B", ref_matrix(s->B), "C", ref_matrix(s->C), "D",
                              ref_matrix(s->D));
        if (nd) json_object_set_new(o, "InternalDelay", ref_reals(s->delays, nd));
        ref_line(acc, o);
        ok = jg_io_batch_put(w, k, NULL, s, NULL, &err) == JG_OK;
        model_free(s);
    }
    if (!started) {   /* no point succeeded: no names */
        ref_line(acc, json_pack("{s:[], s:[], s:[]}", "states", "inputs", "outputs"));
        for (size_t q = 0; q < json_array_size(held); q++) ref_line(acc, json_incref(json_array_get(held, q)));
    }
    json_decref(held);
    fclose(acc);
    if (jg_io_batch_close(w, ok, &err)) ok = 0;
    if (!ok) printf("#   batch: %s\n", err.msg);
    char *got = NULL;
    FILE *f = ok ? fopen(path, "rb") : NULL;
    if (f) {
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        rewind(f);
        got = calloc((size_t)n + 1, 1);
        if (fread(got, 1, (size_t)n, f) != (size_t)n) ok = 0;
        fclose(f);
        remove(path);
    }
    ok = ok && got && !strcmp(got, ref);
    if (!ok && !*first_diff && got) {
        show_diff(got, ref);
        *first_diff = got, got = NULL;
    }
    free(got);
    free(ref);
    for (int g = 0; g < 3; g++) free_names(names3[g], g == 0 ? nx : g == 1 ? nu : ny);
    return ok;
}

static void batch_random(int n)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/jg_jsonwXXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) {
        tap_ok(0, "batch: a temporary directory");
        return;
    }
    int nsame = 0;
    char *diff = NULL;
    for (int q = 0; q < n; q++) nsame += batch_one(dir, below(3) == 0 ? below(3) : 1 + below(12), &diff);
    free(diff);
    rmdir(dir);
    tap_ok(nsame == n, "batch JSON Lines: %d/%d random batches the bytes jansson wrote", nsame, n);
}

/* The writer's buffer: a 96-byte sink buffer (flushed every line or two),
 * strings longer than it, and a growing buffer, give the same bytes. */
static void buffer_edges(void)
{
    char *a = NULL, *b = NULL;
    size_t la = 0, lb = 0;
    FILE *fa = open_memstream(&a, &la);
    jg__io_jw_t small, grow;
    jg__io_jw_init(&small, fa, 96);
    jg__io_jw_init(&grow, NULL, 1);
    char long_name[700];
    for (int k = 0; k < 699; k++) long_name[k] = "ab\"\\\n\x01"[k % 6];
    long_name[699] = '\0';
    char *v[3] = {long_name, NULL, "short"};
    double x[300];
    for (int k = 0; k < 300; k++) x[k] = value();
    for (int r = 0; r < 2; r++) {
        jg__io_jw_t *w = r ? &grow : &small;
        for (int rep = 0; rep < 2; rep++) {
            jg__io_jw_names(w, v, 3, 'x');
            jg__io_jw_reals(w, x, 300);
            jg__io_jw_int(w, INT64_MIN);
            jg__io_jw_int(w, INT64_MAX);
            jg__io_jw_raw(w, long_name, 699);
        }
    }
    int ok = !jg__io_jw_flush(&small) && !small.nomem && !grow.nomem;
    fclose(fa);
    FILE *fb = open_memstream(&b, &lb);
    ok = ok && fwrite(grow.buf, 1, grow.len, fb) == grow.len;
    fclose(fb);
    tap_ok(ok && la == lb && la > 2000 && !memcmp(a, b, la),
           "jsonw: a 96-byte sink buffer and a growing one write the same %zu bytes", la);
    const char *tail = "-9223372036854775808" "9223372036854775807";
    tap_ok(la > 800 && !memcmp(a + la - 699 - strlen(tail), tail, strlen(tail)), "jsonw: INT64_MIN and INT64_MAX");
    jg__io_jw_free(&small);
    jg__io_jw_free(&grow);
    free(a);
    free(b);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 300;
    linsys_fixed();
    buffer_edges();
    linsys_random(n);
    batch_random(n / 3 + 1);
    return tap_done();
}
