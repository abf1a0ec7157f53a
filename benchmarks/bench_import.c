/* bench_import: the cost of reading a generated model from our JSON, from a
 * classic Simulink MDL and from an SLX package (jg_import_load), and of
 * compiling and linearizing what was read.
 *
 *   bench_import [options] [KIND:N ...]        (default aerospace:10000
 *                                                aerospace:100000 power:100000)
 *
 * Per model: `jacgraph generate KIND --blocks N --seed S` writes the JSON
 * (a child process: the generator is part of the CLI), jg_io_write_simulink
 * converts it to .mdl and .slx (timed: the "write" column), and each file is
 * read `--runs` times; the medians of read and compile, and of `--lin-runs`
 * graph-method linearizations, are reported.  Every format's linear model
 * is compared with the JSON one (jg_lin_sys_diff; "diff" column): the three
 * encodings must describe the same model.  Rows: "json (model_read)" is the
 * plain JSON reader jg_model_read, the baseline; "json", "mdl" and "slx" go
 * through jg_import_load, which sniffs the content.
 * Output: a markdown table on stdout and in --md FILE.  Exit 1 when a step
 * fails or a diff exceeds 1e-12. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include "jacgraph/jacgraph.h"
#include "jacgraph/import.h"
#include "jacgraph/io.h"
#include "measure.h"

static const char usage[] =
    "usage: bench_import [options] [KIND:N ...]\n"
    "\n"
    "  KIND:N          a generated model (aerospace, power, deep; N blocks, k/M allowed)\n"
    "                  default: aerospace:10000 aerospace:100000 power:100000\n"
    "  --runs N        timed reads and compiles per file (default 5; the median is reported)\n"
    "  --lin-runs N    timed linearizations per file (default 3)\n"
    "  --seed S        generator seed (default 1)\n"
    "  --jacgraph PATH the jacgraph program (default: ../tools/jacgraph next to this program)\n"
    "  --dir DIR       keep the generated files in DIR (default: a temporary directory, removed)\n"
    "  --md FILE       also write the table to FILE\n";

typedef struct {
    const char *label;
    int fmt;          /* 0: JSON via jg_model_read; else the file of that format via jg_import_load */
    const char *ext;
} row_t;

static const row_t rows[] = {
    {"json (model_read)", 0, "json"},
    {"json", 1, "json"},
    {"mdl", 2, "mdl"},
    {"slx", 3, "slx"},
};

typedef struct {
    double read, compile, lin, write;
    int32_t nblocks;
    long long bytes;
    double diff;
    char err[1100];
} result_t;

static long long file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) ? -1 : (long long)sb.st_size;
}

static int run_generate(const char *jacgraph, const char *kind, const char *n, const char *seed,
                        const char *out)
{
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        execl(jacgraph, jacgraph, "generate", kind, "--blocks", n, "--seed", seed, "--out", out, "--quiet",
              (char *)NULL);
        fprintf(stderr, "bench_import: cannot run %s: %s\n", jacgraph, strerror(errno));
        _exit(127);
    }
    int st;
    if (waitpid(pid, &st, 0) < 0) return -1;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* Read (with the row's reader), compile, linearize; *sys keeps the first
 * linearization for the comparison. */
static int measure(const row_t *r, const char *path, int runs, int lin_runs, result_t *res, jg_lin_sys_t **sys)
{
    double *tr = calloc((size_t)runs, sizeof *tr), *tc = calloc((size_t)runs, sizeof *tc);
    double *tl = calloc((size_t)lin_runs, sizeof *tl);
    jg_model_t *m = NULL;
    jg_program_t *p = NULL;
    jg_lin_t *l = NULL;
    jg_error_t err;
    int rc = -1;
    if (!tr || !tc || !tl) {
        snprintf(res->err, sizeof res->err, "out of memory");
        goto done;
    }
    for (int k = 0; k < runs; k++) {
        jg_import_opts_t o;
        memset(&o, 0, sizeof o);
        double t0 = jgb_now();
        jg_status_t st = r->fmt ? jg_import_load(path, &o, &m, &err) : jg_model_read(path, &m, &err);
        double t1 = jgb_now();
        if (st == JG_OK) st = jg_program_compile(m, &p, &err);
        double t2 = jgb_now();
        if (st != JG_OK) {
            snprintf(res->err, sizeof res->err, "%s", err.msg);
            goto done;
        }
        tr[k] = t1 - t0, tc[k] = t2 - t1;
        res->nblocks = jg_program_nblocks(p);
        if (k + 1 < runs) {
            jg_program_free(p), p = NULL;
            jg_model_free(m), m = NULL;
        }
    }
    if (jg_lin_create(p, NULL, &l, &err) != JG_OK) {
        snprintf(res->err, sizeof res->err, "%s", err.msg);
        goto done;
    }
    for (int k = 0; k < lin_runs; k++) {
        jg_lin_sys_t *s = NULL;
        double t0 = jgb_now();
        if (jg_lin_run(l, JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ, &s, NULL, &err) != JG_OK) {
            snprintf(res->err, sizeof res->err, "%s", err.msg);
            goto done;
        }
        tl[k] = jgb_now() - t0;
        if (!*sys) *sys = s;
        else jg_lin_sys_free(s);
    }
    res->read = jgb_median(tr, runs);
    res->compile = jgb_median(tc, runs);
    res->lin = jgb_median(tl, lin_runs);
    rc = 0;
done:
    jg_lin_free(l);
    jg_program_free(p);
    jg_model_free(m);
    free(tr), free(tc), free(tl);
    return rc;
}

/* The 1-minute load average: the timings are wall-clock medians, so a busy
 * machine inflates them; the table says how busy it was. */
static double loadavg(void)
{
    double l = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &l) != 1) l = -1;
        fclose(f);
    }
    return l;
}

static void print_header(FILE *f)
{
    fprintf(f, "| model | format | blocks | file bytes | write s | read s | compile s | linearize s | "
               "diff vs JSON |\n");
    fprintf(f, "|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
}

static void print_row(FILE *f, const char *model, const row_t *r, const result_t *x)
{
    if (x->err[0]) {
        fprintf(f, "| %s | %s | | | | | | | failed: %s |\n", model, r->label, x->err);
        return;
    }
    char w[32] = "", diff[32] = "(reference)";
    if (r->fmt >= 2) snprintf(w, sizeof w, "%.3f", x->write);
    if (r->fmt) snprintf(diff, sizeof diff, "%.1e", x->diff);
    fprintf(f, "| %s | %s | %d | %lld | %s | %.3f | %.3f | %.3f | %s |\n", model, r->label, (int)x->nblocks,
            x->bytes, w, x->read, x->compile, x->lin, diff);
}

int main(int argc, char **argv)
{
    int runs = 5, lin_runs = 3, nspec = 0, failed = 0;
    const char *seed = "1", *dir = NULL, *md = NULL;
    char jacgraph[4096], tmpl[4096];
    const char *specs[64];
    const char *slash = strrchr(argv[0], '/');
    snprintf(jacgraph, sizeof jacgraph, "%.*s%s../tools/jacgraph", slash ? (int)(slash - argv[0] + 1) : 0,
             argv[0], "");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage, stdout);
            return 0;
        }
        if (i + 1 < argc && !strcmp(a, "--runs")) runs = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(a, "--lin-runs")) lin_runs = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(a, "--seed")) seed = argv[++i];
        else if (i + 1 < argc && !strcmp(a, "--jacgraph")) snprintf(jacgraph, sizeof jacgraph, "%s", argv[++i]);
        else if (i + 1 < argc && !strcmp(a, "--dir")) dir = argv[++i];
        else if (i + 1 < argc && !strcmp(a, "--md")) md = argv[++i];
        else if (a[0] != '-' && strchr(a, ':') && nspec < 64) specs[nspec++] = a;
        else {
            fprintf(stderr, "bench_import: bad argument '%s'\n%s", a, usage);
            return 2;
        }
    }
    if (runs < 1 || lin_runs < 1) {
        fprintf(stderr, "bench_import: --runs and --lin-runs must be at least 1\n");
        return 2;
    }
    if (!nspec) specs[nspec++] = "aerospace:10000", specs[nspec++] = "aerospace:100000",
                specs[nspec++] = "power:100000";
    int tmp = !dir;
    /* a fresh scratch directory under $TMPDIR: two runs never share it */
    const char *tmpbase = getenv("TMPDIR");
    snprintf(tmpl, sizeof tmpl, "%s/bench_import.XXXXXX", tmpbase && *tmpbase ? tmpbase : "/tmp");
    if (tmp && !(dir = mkdtemp(tmpl))) {
        fprintf(stderr, "bench_import: cannot create a temporary directory: %s\n", strerror(errno));
        return 1;
    }
    jgb_steady_heap();
    double load0 = loadavg();
    FILE *mdf = md ? fopen(md, "w") : NULL;
    if (md && !mdf) fprintf(stderr, "bench_import: cannot write '%s': %s\n", md, strerror(errno));
    if (mdf) {
        fprintf(mdf, "# Reading generated models from JSON, MDL and SLX\n\n"
                     "`benchmarks/bench_import --runs %d --lin-runs %d --seed %s`: medians in seconds. "
                     "\"write\" is jg_io_write_simulink converting the JSON text; \"read\" is jg_import_load "
                     "(jg_model_read for the first row) up to the jg_model; \"compile\" is "
                     "jg_program_compile; \"linearize\" is the graph method with Markowitz elimination; "
                     "\"diff\" is jg_lin_sys_diff against the JSON model's linearization.\n\n",
                runs, lin_runs, seed);
        print_header(mdf);
    }
    print_header(stdout);
    for (int s = 0; s < nspec; s++) {
        char kind[32], n[32], base[4200], path[4300];
        const char *c = strchr(specs[s], ':');
        snprintf(kind, sizeof kind, "%.*s", (int)(c - specs[s]), specs[s]);
        snprintf(n, sizeof n, "%s", c + 1);
        snprintf(base, sizeof base, "%s/%s_%s", dir, kind, n);
        snprintf(path, sizeof path, "%s.json", base);
        char model[80];
        snprintf(model, sizeof model, "%s %s", kind, n);
        if (run_generate(jacgraph, kind, n, seed, path)) {
            fprintf(stderr, "bench_import: %s generate %s --blocks %s failed\n", jacgraph, kind, n);
            failed = 1;
            continue;
        }
        char msg[256];
        char *text = jgb_slurp(path, msg, sizeof msg);
        double wt[4] = {0};
        for (int f = 2; text && f <= 3; f++) {
            char out[4300];
            jg_error_t err;
            snprintf(out, sizeof out, "%s.%s", base, rows[f].ext);
            double t0 = jgb_now();
            if (jg_io_write_simulink(text, strlen(text), f == 2 ? JG_SL_WRITE_MDL : JG_SL_WRITE_SLX, out, &err)) {
                fprintf(stderr, "bench_import: writing %s: %s\n", out, err.msg);
                failed = 1;
            }
            wt[f] = jgb_now() - t0;
        }
        free(text);
        jg_lin_sys_t *ref = NULL;
        for (int r = 0; r < 4; r++) {
            result_t x;
            memset(&x, 0, sizeof x);
            jg_lin_sys_t *sys = NULL;
            snprintf(path, sizeof path, "%s.%s", base, rows[r].ext);
            x.bytes = file_size(path);
            x.write = wt[r];
            if (measure(&rows[r], path, runs, lin_runs, &x, &sys) == 0) {
                if (!ref) ref = sys, sys = NULL;
                else {
                    const char *which = NULL;
                    x.diff = sys->nx == ref->nx && sys->nu == ref->nu && sys->ny == ref->ny
                                 ? jg_lin_sys_diff(sys, ref, &which) : 1e300;
                    if (!(x.diff <= 1e-12)) failed = 1;
                }
            } else failed = 1;
            jg_lin_sys_free(sys);
            print_row(stdout, model, &rows[r], &x);
            fflush(stdout);
            if (mdf) print_row(mdf, model, &rows[r], &x);
        }
        jg_lin_sys_free(ref);
        if (tmp)
            for (int r = 1; r < 4; r++) {
                snprintf(path, sizeof path, "%s.%s", base, rows[r].ext);
                remove(path);
            }
    }
    if (mdf) {
        fprintf(mdf, "\n%ld processors; 1-minute load average %.1f at the start, %.1f at the end "
                     "(wall-clock times: a load above the processor count inflates them).\n",
                sysconf(_SC_NPROCESSORS_ONLN), load0, loadavg());
        fclose(mdf);
    }
    if (tmp) rmdir(dir);
    return failed;
}
