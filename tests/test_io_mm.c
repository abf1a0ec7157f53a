/* The Matrix Market writer (lib/io/mm.c, mm_entries.c): the five files of
 * random models against a reference written here with printf and the names'
 * escaping rules, byte for byte, serially and with the entries' threads
 * forced on small matrices (2-4 threads, chunks of 1-7 entries), over values
 * of every kind (tiny, subnormal, huge, inf, nan, -0 and explicit zeros,
 * which are dropped), unsorted columns, empty matrices and names with
 * newlines, backslashes, carriage returns and a leading '#'; then the
 * all-or-nothing rule and the messages of unwritable paths, a directory in
 * the names' place and a disk that is full (/dev/full) in the middle of a
 * threaded matrix.
 *
 *   test_io_mm [MODELS]   random models (default 60) */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "jacgraph/io.h"
#include "jacgraph/linearize.h"
#include "io/io_impl.h"
#include "tap.h"
#include "testlib.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint64_t next(void) { return tl_xorshift(&rng); }
static double unit(void) { return (double)(next() >> 11) * 0x1p-53; }

static double rand_value(void)
{
    uint64_t b;
    double v;
    switch (next() % 14) {
    case 0: return INFINITY;
    case 1: return -INFINITY;
    case 2: return NAN;
    case 3: return -0.0;   /* a zero: dropped */
    case 4: return 0.0;
    case 5:   /* subnormal */
        b = (next() & ((1ull << 52) - 1)) | (next() & (1ull << 63));
        memcpy(&v, &b, sizeof v);
        return v == 0 ? DBL_TRUE_MIN : v;
    case 6: return (2 * unit() - 1) * pow(10, -(double)(next() % 300) - 20);   /* rounding residues */
    case 7: return (2 * unit() - 1) * pow(10, (double)(next() % 290) + 18);    /* huge */
    case 8: return (double)(int64_t)(next() % 2001) - 1000;                      /* integers */
    case 9: return 1e16 + (double)(next() % 7);
    default: return (2 * unit() - 1) * pow(10, (double)(next() % 25) - 12);
    }
}

/* An m x n matrix with about density * m * n entries; shuffled: the rows of
 * a column in a random order (the writer sorts them). */
static cs_dl *rand_matrix(int64_t m, int64_t n, double density, int shuffled)
{
    cs_dl *S = cs_dl_spalloc(m, n, m * n > 0 ? (int64_t)(density * (double)(m * n)) + m + 1 : 1, 1, 0);
    int64_t nz = 0;
    for (int64_t j = 0; j < n; j++) {
        S->p[j] = nz;
        for (int64_t i = 0; i < m; i++)
            if (unit() < density && nz < S->nzmax) {
                S->i[nz] = i;
                S->x[nz++] = rand_value();
            }
        if (shuffled)
            for (int64_t a = S->p[j]; a + 1 < nz; a++) {
                int64_t b = a + (int64_t)(next() % (uint64_t)(nz - a));
                int64_t ti = S->i[a];
                double tx = S->x[a];
                S->i[a] = S->i[b];
                S->x[a] = S->x[b];
                S->i[b] = ti;
                S->x[b] = tx;
            }
    }
    S->p[n] = nz;
    return S;
}

static char *rand_name(void)
{
    static const char alpha[] = "ab#\\\n\r /(1)\xc2\xb0xy";   /* "°" in UTF-8 */
    if (next() % 8 == 0) return NULL;   /* unnamed: x1, u2, y3 */
    int len = (int)(next() % 14);
    char *s = malloc((size_t)len + 1);
    for (int k = 0; k < len; k++) s[k] = alpha[next() % (sizeof alpha - 1)];
    s[len] = 0;
    return s;
}

static char **rand_names(int64_t n)
{
    if (next() % 6 == 0) return NULL;
    char **v = calloc((size_t)n + 1, sizeof *v);
    for (int64_t k = 0; k < n; k++) v[k] = rand_name();
    return v;
}

static void free_names(char **v, int64_t n)
{
    if (v)
        for (int64_t k = 0; k < n; k++) free(v[k]);
    free(v);
}

static jg_lin_sys_t *rand_sys(int64_t nx, int64_t nu, int64_t ny, double density, int shuffled)
{
    jg_lin_sys_t *s = calloc(1, sizeof *s);
    s->nx = nx;
    s->nu = nu;
    s->ny = ny;
    s->A = rand_matrix(nx, nx, density, shuffled);
    s->B = rand_matrix(nx, nu, density, shuffled);
    s->C = rand_matrix(ny, nx, density, shuffled);
    s->D = rand_matrix(ny, nu, density, shuffled);
    s->state_names = rand_names(nx);
    s->input_names = rand_names(nu);
    s->output_names = rand_names(ny);
    s->t = next() % 2 ? 0 : rand_value();
    s->Ts = next() % 2 ? 0 : 0.1;
    return s;
}

static void free_sys(jg_lin_sys_t *s)
{
    cs_dl_spfree(s->A);
    cs_dl_spfree(s->B);
    cs_dl_spfree(s->C);
    cs_dl_spfree(s->D);
    free_names(s->state_names, s->nx);
    free_names(s->input_names, s->nu);
    free_names(s->output_names, s->ny);
    free(s);
}

/* ------------------------------------------------ the reference writer */

typedef struct {
    char *b;
    size_t n, cap;
} text_t;

static void add(text_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(text_t *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (t->n + (size_t)len + 1 > t->cap) {
        t->cap = 2 * (t->n + (size_t)len + 1);
        t->b = realloc(t->b, t->cap);
    }
    va_start(ap, fmt);
    vsnprintf(t->b + t->n, (size_t)len + 1, fmt, ap);
    va_end(ap);
    t->n += (size_t)len;
}

typedef struct {
    int64_t i;
    double x;
} entry_t;

static int by_row(const void *a, const void *b)
{
    int64_t x = ((const entry_t *)a)->i, y = ((const entry_t *)b)->i;
    return (x > y) - (x < y);
}

static const char *const WHAT[4] = {"A", "B", "C", "D"};
static const char *const ROWS[4] = {"states", "states", "outputs", "outputs"};
static const char *const COLS[4] = {"states", "inputs", "states", "inputs"};

/* Matrix k as the format says: a column's rows in increasing order, no zero
 * (the rows of a column are distinct here: no duplicates to sum). */
static char *ref_matrix(int k, const cs_dl *M, const jg_lin_sys_t *s)
{
    text_t t = {0};
    int64_t nnz = 0;
    for (int64_t p = 0; p < M->p[M->n]; p++) nnz += M->x[p] != 0;
    add(&t, "%%%%MatrixMarket matrix coordinate real general\n");
    add(&t, "%% jacgraph %s (%s x %s) of a model with %lld states, %lld inputs, %lld outputs at t = %.17g\n",
        WHAT[k], ROWS[k], COLS[k], (long long)s->nx, (long long)s->nu, (long long)s->ny, s->t);
    add(&t, "%% Ts = %.17g\n", s->Ts);
    add(&t, "%lld %lld %lld\n", (long long)M->m, (long long)M->n, (long long)nnz);
    entry_t *e = malloc(sizeof *e * (size_t)(M->m + 1));
    for (int64_t j = 0; j < M->n; j++) {
        int64_t ne = 0;
        for (int64_t p = M->p[j]; p < M->p[j + 1]; p++)
            if (M->x[p] != 0) e[ne++] = (entry_t){M->i[p], M->x[p]};
        qsort(e, (size_t)ne, sizeof *e, by_row);
        for (int64_t q = 0; q < ne; q++) add(&t, "%lld %lld %.17g\n", (long long)e[q].i + 1, (long long)j + 1, e[q].x);
    }
    free(e);
    if (!t.b) add(&t, "%s", "");
    return t.b;
}

static void ref_names_section(text_t *t, const char *sec, char *const *v, int64_t n, char pfx)
{
    add(t, "# %s\n", sec);
    for (int64_t k = 0; k < n; k++) {
        if (!v || !v[k]) {
            add(t, "%c%lld\n", pfx, (long long)k + 1);
            continue;
        }
        if (v[k][0] == '#') add(t, "\\");
        for (const char *c = v[k]; *c; c++)
            if (*c == '\\') add(t, "\\\\");
            else if (*c == '\n') add(t, "\\n");
            else if (*c == '\r') add(t, "\\r");
            else add(t, "%c", *c);
        add(t, "\n");
    }
}

static char *ref_names(const jg_lin_sys_t *s)
{
    text_t t = {0};
    ref_names_section(&t, "states", s->state_names, s->nx, 'x');
    ref_names_section(&t, "inputs", s->input_names, s->nu, 'u');
    ref_names_section(&t, "outputs", s->output_names, s->ny, 'y');
    return t.b;
}

/* ------------------------------------------------ checks */

static char dir[512];

static void path_of(char *p, size_t n, const char *prefix, int k)
{
    if (k < 4) snprintf(p, n, "%s_%s.mtx", prefix, WHAT[k]);
    else snprintf(p, n, "%s_names.txt", prefix);
}

/* The five files of prefix are ref[0..4]; the first difference in *why. */
static int files_are(const char *prefix, char *const ref[5], char *why, size_t nwhy)
{
    for (int k = 0; k < 5; k++) {
        char p[700];
        path_of(p, sizeof p, prefix, k);
        size_t len;
        char *got = tl_slurp(p, &len);
        int same = got && len == strlen(ref[k]) && !memcmp(got, ref[k], len);
        if (!same) {
            size_t at = 0;
            while (got && at < len && ref[k][at] && got[at] == ref[k][at]) at++;
            snprintf(why, nwhy, "%s differs at byte %zu (%s)", p, at, got ? "read" : "missing");
        }
        free(got);
        if (!same) return 0;
    }
    return 1;
}

static int none_of(const char *prefix, int from, int to)
{
    for (int k = from; k < to; k++) {
        char p[700];
        struct stat sb;
        path_of(p, sizeof p, prefix, k);
        if (lstat(p, &sb) == 0) return 0;
    }
    return 1;
}

static void remove_all(const char *prefix)
{
    for (int k = 0; k < 5; k++) {
        char p[700];
        path_of(p, sizeof p, prefix, k);
        remove(p);
    }
}

/* One model written every way, each against the reference. */
static long nbad;
static char first_bad[1400];

static void check_model(const jg_lin_sys_t *s, int id)
{
    char *ref[5];
    const cs_dl *M[4] = {s->A, s->B, s->C, s->D};
    for (int k = 0; k < 4; k++) ref[k] = ref_matrix(k, M[k], s);
    ref[4] = ref_names(s);
    const jg__io_mm_par_t ways[] = {
        {1, 0, 8192},                    /* serial */
        {2, 0, 1 + (int64_t)(next() % 7)},
        {3, 0, 1 + (int64_t)(next() % 7)},
        {4, 0, 1},
        {2, 1 << 30, 3},                 /* threads, but below min_nnz: serial */
    };
    char prefix[600], why[1200];
    const int nways = (int)(sizeof ways / sizeof *ways);
    for (int w = 0; w <= nways + 2; w++) {
        snprintf(prefix, sizeof prefix, "%s/m%d_%d", dir, id, w);
        jg_error_t err;
        jg_error_clear(&err);
        jg_status_t st = w < nways       ? jg__io_write_linsys_mm_par(prefix, s, &ways[w], &err)
                         : w == nways    ? jg_io_write_linsys_mm(prefix, s, &err)   /* the defaults */
                                         : jg_io_write_linsys_mm_threads(prefix, s, w == nways + 1 ? 1 : 3, &err);
        int ok = st == JG_OK;
        if (!ok) snprintf(why, sizeof why, "status %d: %s", (int)st, err.msg);
        else ok = files_are(prefix, ref, why, sizeof why);
        if (!ok && nbad++ == 0)
            snprintf(first_bad, sizeof first_bad, "model %d (%lld states, %lld inputs, %lld outputs), way %d: %s",
                     id, (long long)s->nx, (long long)s->nu, (long long)s->ny, w, why);
        remove_all(prefix);
    }
    for (int k = 0; k < 5; k++) free(ref[k]);
}

static void report(const char *what)
{
    if (!tap_ok(nbad == 0, "%s: the five files byte for byte, serial and threaded", what))
        printf("#   %ld differ, first: %s\n", nbad, first_bad);
    nbad = 0;
}

/* The error of writing s under prefix (threads forced) is "PATH: cannot
 * write: why" naming the file of index bad, and leaves none of the five
 * behind (links and directories excepted: not ours). */
static void check_error(const jg_lin_sys_t *s, const char *prefix, int bad, int why_errno, const char *what)
{
    const jg__io_mm_par_t par = {2, 0, 3};
    jg_error_t err;
    jg_error_clear(&err);
    jg_status_t st = jg__io_write_linsys_mm_par(prefix, s, &par, &err);
    char p[700], want[900];
    path_of(p, sizeof p, prefix, bad);
    snprintf(want, sizeof want, "%s: cannot write: %s", p, strerror(why_errno));
    tap_ok(st == JG_IO, "%s: JG_IO (got %d)", what, (int)st);
    tap_streq(err.msg, want, what);
    tap_ok(none_of(prefix, 0, bad) && none_of(prefix, bad + 1, 5), "%s: no file of the set left behind", what);
}

int main(int argc, char **argv)
{
    int nmodels = argc > 1 ? atoi(argv[1]) : 60;
    if (!tl_tmpdir(dir, sizeof dir, "test_io_mm")) {
        tap_ok(0, "a scratch directory: %s", strerror(errno));
        return tap_done();
    }

    /* hand-checked: the layout of one small model */
    {
        jg_lin_sys_t *s = rand_sys(2, 1, 1, 0, 0);
        free_names(s->state_names, 2);
        s->state_names = calloc(3, sizeof(char *));
        s->state_names[0] = strdup("#a\\b\nc\rd");
        s->state_names[1] = NULL;
        free_names(s->input_names, 1);
        s->input_names = NULL;
        free_names(s->output_names, 1);
        s->output_names = NULL;
        s->t = 0;
        s->Ts = 0;
        s->A->i[0] = 1;
        s->A->x[0] = -2.5e-5;
        s->A->i[1] = 0;
        s->A->x[1] = 0.1;
        s->A->p[0] = 0;
        s->A->p[1] = 1;
        s->A->p[2] = 2;
        char prefix[600];
        snprintf(prefix, sizeof prefix, "%s/hand", dir);
        const jg__io_mm_par_t par = {2, 0, 1};
        jg_error_t err;
        jg_error_clear(&err);
        tap_ok(jg__io_write_linsys_mm_par(prefix, s, &par, &err) == JG_OK, "a hand-made model is written (%s)", err.msg);
        char p[700];
        path_of(p, sizeof p, prefix, 0);
        char *a = tl_slurp(p, NULL);
        tap_streq(a, "%%MatrixMarket matrix coordinate real general\n"
                     "% jacgraph A (states x states) of a model with 2 states, 1 inputs, 1 outputs at t = 0\n"
                     "% Ts = 0\n2 2 2\n2 1 -2.5000000000000001e-05\n1 2 0.10000000000000001\n",
                  "A by hand: one entry per line, 1-based, %.17g");
        free(a);
        path_of(p, sizeof p, prefix, 4);
        char *nm = tl_slurp(p, NULL);
        tap_streq(nm, "# states\n\\#a\\\\b\\nc\\rd\nx2\n# inputs\nu1\n# outputs\ny1\n",
                  "names by hand: '#', backslash, newline, return escaped; unnamed as x2, u1");
        free(nm);
        remove_all(prefix);
        free_sys(s);
    }

    /* random small models, empty ones among them */
    for (int id = 0; id < nmodels; id++) {
        int64_t nx = (int64_t)(next() % 9), nu = (int64_t)(next() % 4), ny = (int64_t)(next() % 4);
        jg_lin_sys_t *s = rand_sys(nx, nu, ny, unit(), id % 3 == 0);
        check_model(s, id);
        free_sys(s);
    }
    report("random small models (0 to 8 states, values of every kind, unsorted columns)");
    {
        jg_lin_sys_t *s = rand_sys(0, 0, 0, 0.5, 0);
        check_model(s, 1000);
        free_sys(s);
        s = rand_sys(0, 3, 2, 0.5, 0);
        check_model(s, 1001);
        free_sys(s);
        s = rand_sys(4, 0, 0, 0, 0);
        check_model(s, 1002);
        free_sys(s);
    }
    report("empty models and matrices (0 rows, 0 columns, no entries)");
    {   /* above the default threshold: the defaults take the threads on two cores */
        jg_lin_sys_t *s = rand_sys(400, 3, 3, 0.6, 0);
        check_model(s, 2000);
        free_sys(s);
    }
    report("a model of ~100,000 entries");

    /* ---- errors: the message, and no file of the set left behind */
    jg_lin_sys_t *s = rand_sys(60, 2, 2, 0.5, 0);
    char prefix[600], p[700];
    snprintf(prefix, sizeof prefix, "%s/no/such/dir/x", dir);
    check_error(s, prefix, 0, ENOENT, "a prefix in a missing directory");
    snprintf(prefix, sizeof prefix, "%s/e1", dir);
    path_of(p, sizeof p, prefix, 4);
    mkdir(p, 0700);
    check_error(s, prefix, 4, EISDIR, "a directory where the names go: A..D removed");
    rmdir(p);
    if (access("/dev/full", W_OK) == 0) {
        snprintf(prefix, sizeof prefix, "%s/e2", dir);
        path_of(p, sizeof p, prefix, 0);
        int linked = symlink("/dev/full", p) == 0;
        check_error(s, prefix, 0, ENOSPC, "A to a full disk, on threads");
        struct stat sb;
        tap_ok(linked && lstat(p, &sb) == 0 && S_ISLNK(sb.st_mode), "the link to /dev/full is left alone");
        remove(p);
        snprintf(prefix, sizeof prefix, "%s/e3", dir);
        path_of(p, sizeof p, prefix, 2);
        if (symlink("/dev/full", p)) tap_ok(0, "a link to /dev/full: %s", strerror(errno));
        check_error(s, prefix, 2, ENOSPC, "C to a full disk: A and B removed");
        remove(p);
    } else {
        tap_ok(1, "# SKIP no writable /dev/full");
    }
    free_sys(s);
    tl_rmtree(dir);
    return tap_done();
}
