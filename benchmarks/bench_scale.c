/* bench_scale: a generated model end to end, file read to A, B, C, D written,
 * stage by stage, at growing sizes; the time and the peak memory of each stage.
 *
 *   bench_scale [options]        (default: aerospace at 10k, 100k and 1M blocks)
 *
 * Per size: `jacgraph generate KIND --blocks N --seed S` writes the model;
 * then, `--runs` times each (medians reported):
 *  - end to end: `jacgraph linearize MODEL --format F --out OUT` as a child
 *    process (wall and CPU time, peak RSS: what a user of the CLI gets);
 *  - stages: a child process runs the CLI's path in-process with its heap
 *    settings and page-populating thread (tools/heap.c) and times each step
 *    (CPU: the main thread's clock): read (the file mapped, as the CLI does:
 *    its pages are read by the parse), parse (the compact JSON document), model (its shape check), compile (which frees
 *    the model once it has read it, jg_program_compile_free_model, as the
 *    CLI does), free model (what is left of it then: nothing), setup
 *    (jg_lin_create), evaluation (operating point and block Jacobians),
 *    graph build, elimination, replay, LFT (jg_lin_stats_t; its column
 *    solves on every core when it is large, as the CLI's default --jobs;
 *    its CPU then the main thread's share only), write (the
 *    writer of --format), free.  Memory: the peak RSS inside each stage
 *    (/proc/self/clear_refs restarts the high-water mark; Linux >= 4.0) and
 *    the RSS after it.  The sub-stages of the linearization share one peak.
 * Output: markdown tables (stdout, --md), CSV (--csv), a log-log SVG of time
 * and memory per stage against model size (--svg).  The machine may be
 * shared: CPU times are the steadier measure there; both are reported. */
#define _DEFAULT_SOURCE 1   /* clock_gettime, fork */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include "jacgraph/jacgraph.h"
#include "jacgraph/io.h"
#include "jacgraph/batch.h"   /* jg_batch_ncores: the CLI's --jobs default */
#include "model/model_internal.h"
#include "measure.h"
#include "blas.h"
#include "heap.h"

static const char usage[] =
    "usage: bench_scale [options]\n"
    "\n"
    "  --sizes \"N...\"   model sizes in blocks (default \"10000 100000 1000000\")\n"
    "  --kind K         aerospace, power or deep (default aerospace)\n"
    "  --seed S         generator seed (default 1)\n"
    "  --runs N         runs of each measurement (default 5; medians)\n"
    "  --format F       writer: mm (default) or mat\n"
    "  --jacgraph PATH  the jacgraph program (default ../tools/jacgraph next to this one)\n"
    "  --dir DIR        keep models and outputs in DIR (default a temporary directory)\n"
    "  --md FILE, --csv FILE, --svg FILE   also write the tables, the CSV, the plot\n"
    "  --notes FILE     markdown appended to the tables (what changed, read by hand)\n";

enum { S_READ, S_PARSE, S_MODEL, S_COMPILE, S_FREEMODEL, S_SETUP, S_EVAL, S_BUILD, S_ELIM, S_REPLAY,
       S_LFT, S_LINOTHER, S_WRITE, S_FREE, NSTAGE };
static const char *const stage_name[NSTAGE] = {
    "read", "parse", "model", "compile", "free model", "setup", "evaluation", "graph build",
    "elimination", "replay", "LFT", "linearize, rest", "write", "free"};

typedef struct {
    int ok;
    char err[256];
    double wall[NSTAGE], cpu[NSTAGE];
    double peak_mb[NSTAGE], rss_mb[NSTAGE];   /* peak inside, RSS after; NaN: not measured */
    double total_wall, total_cpu, peak_total_mb;
    int64_t nblocks, nx, nu, ny;
} stages_t;

typedef struct {
    double wall, cpu, maxrss_mb;
    int ok;
} e2e_t;

/* The stages run on this thread alone; the process clock would also count
 * OpenBLAS's pool, whose threads spin for about 0.1 s after the library
 * starts (and after fork), doubling the first stages' CPU at 10^4 blocks. */
static double now_cpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* VmHWM or VmRSS of this process in MB (NaN when unknown). */
static double status_mb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    double v = NAN;
    size_t kl = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, kl)) v = atof(line + kl + 1) / 1024.0;
    if (f) fclose(f);
    return v;
}

/* Restart the peak-RSS high-water mark; 0 when the kernel did. */
static int hwm_reset(void)
{
    int fd = open("/proc/self/clear_refs", O_WRONLY);
    if (fd < 0) return -1;
    int r = write(fd, "5", 1) == 1 ? 0 : -1;
    close(fd);
    return r;
}

typedef struct {
    double w, c;
    int hwm;
} mark_t;

static void begin(mark_t *m)
{
    m->hwm = hwm_reset() == 0;
    m->w = jgb_now();
    m->c = now_cpu();
}

static void end(stages_t *r, int s, const mark_t *m)
{
    r->wall[s] = jgb_now() - m->w;
    r->cpu[s] = now_cpu() - m->c;
    r->peak_mb[s] = m->hwm ? status_mb("VmHWM:") : NAN;
    r->rss_mb[s] = status_mb("VmRSS:");
}

/* The CLI's path, stage by stage (in a child: a fresh heap per run). */
static void run_stages(const char *path, const char *fmt, const char *out, stages_t *r)
{
    jg_error_t err;
    jg_error_clear(&err);
    cli_heap_init();   /* the CLI's heap settings and page-populating thread */
    cli_blas_quiet();  /* and its BLAS */
    for (int s = 0; s < NSTAGE; s++) r->peak_mb[s] = r->rss_mb[s] = NAN;
    mark_t m;
    double w0 = jgb_now(), c0 = now_cpu();
    const char *buf = NULL;
    size_t len = 0;
    int mapped = 0;
    jg__jdoc_t *d = NULL;
    jg_model_t *md = NULL;
    jg_program_t *p = NULL;
    jg_lin_t *l = NULL;
    jg_lin_sys_t *sys = NULL;
    jg_lin_stats_t st;
    begin(&m);
    if (jg__view_file(path, 0, &buf, &len, &mapped, &err)) goto fail;
    end(r, S_READ, &m);
    begin(&m);
    if (jg__jdoc_parse(buf, len, &d)) {
        snprintf(err.msg, sizeof err.msg, "%.900s: the compact parser refused it", path);
        goto fail;
    }
    jg__view_free(buf, len, mapped);   /* the document has what it keeps */
    buf = NULL;
    end(r, S_PARSE, &m);
    begin(&m);
    if (jg__model_adopt(d, path, NULL, &md, &err)) goto fail;
    end(r, S_MODEL, &m);
    begin(&m);
    jg_status_t cst = jg_program_compile_free_model(md, &p, &err);
    md = NULL;   /* freed by the compiler, as soon as it had read it */
    if (cst) goto fail;
    end(r, S_COMPILE, &m);
    begin(&m);
    jg_model_free(md);
    end(r, S_FREEMODEL, &m);
    begin(&m);
    /* the CLI's --jobs default, and its graph built beside the evaluation's set-up */
    jg_lin_opts_t o = {.threads = jg_batch_ncores(), .prepare_graph = 1};
    if (jg_lin_create(p, &o, &l, &err)) goto fail;
    end(r, S_SETUP, &m);
    begin(&m);
    if (jg_lin_run(l, JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ, &sys, &st, &err)) goto fail;
    end(r, S_LINOTHER, &m);
    double lin_w = r->wall[S_LINOTHER], lin_c = r->cpu[S_LINOTHER], pk = r->peak_mb[S_LINOTHER];
    r->wall[S_EVAL] = st.t_eval;
    r->wall[S_BUILD] = st.t_build;
    r->wall[S_ELIM] = st.t_elim;
    r->wall[S_REPLAY] = st.t_replay;
    r->wall[S_LFT] = st.t_lft;
    /* the graph built beside the evaluation's set-up (in the setup stage's
     * time, not in this one's), or beside the evaluation (the wall holds the
     * longer of the two) */
    double eb = st.build_overlap == 2   ? st.t_eval
                : st.build_overlap == 1 ? (st.t_eval > st.t_build ? st.t_eval : st.t_build)
                                        : st.t_eval + st.t_build;
    double parts = eb + st.t_elim + st.t_replay + st.t_lft;
    r->wall[S_LINOTHER] = lin_w - parts > 0 ? lin_w - parts : 0;
    /* no CPU clock inside jg_lin_run: its parts share the run's CPU/wall ratio */
    double ratio = lin_w > 0 ? lin_c / lin_w : 1;
    for (int s = S_EVAL; s <= S_LINOTHER; s++) {
        r->cpu[s] = r->wall[s] * ratio;
        r->peak_mb[s] = pk;
        r->rss_mb[s] = r->rss_mb[S_LINOTHER];
    }
    r->nx = sys->nx;
    r->nu = sys->nu;
    r->ny = sys->ny;
    begin(&m);
    jg_io_export_opts_t xo = {.sparse = JG_IO_SPARSE_AUTO};
    if (!strcmp(fmt, "mat") ? jg_io_write_linsys_mat(out, sys, &xo, 0, &err)
                            : jg_io_write_linsys_mm(out, sys, &err))
        goto fail;
    end(r, S_WRITE, &m);
    begin(&m);
    r->nblocks = jg_program_nblocks(p);
    jg_lin_sys_free(sys);
    jg_lin_free(l);
    jg_program_free(p);
    end(r, S_FREE, &m);
    r->total_wall = jgb_now() - w0;
    r->total_cpu = now_cpu() - c0;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    r->peak_total_mb = (double)ru.ru_maxrss / 1024.0;
    r->ok = 1;
    return;
fail:
    snprintf(r->err, sizeof r->err, "%.250s", err.msg);
    jg__view_free(buf, len, mapped);
}

static int stages_child(const char *path, const char *fmt, const char *out, stages_t *r)
{
    int fd[2];
    if (pipe(fd)) return -1;
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        close(fd[0]);
        stages_t s;
        memset(&s, 0, sizeof s);
        run_stages(path, fmt, out, &s);
        ssize_t w = write(fd[1], &s, sizeof s);
        _exit(w == (ssize_t)sizeof s ? 0 : 1);
    }
    close(fd[1]);
    memset(r, 0, sizeof *r);
    size_t got = 0;
    while (got < sizeof *r) {
        ssize_t k = read(fd[0], (char *)r + got, sizeof *r - got);
        if (k <= 0) break;
        got += (size_t)k;
    }
    close(fd[0]);
    int status;
    waitpid(pid, &status, 0);
    if (got != sizeof *r) {
        r->ok = 0;
        snprintf(r->err, sizeof r->err, "the measuring child died");
    }
    return r->ok ? 0 : -1;
}

/* argv run as a child with stdout to /dev/null: wall, CPU, peak RSS. */
static int run_child(char *const *argv, e2e_t *e)
{
    double t0 = jgb_now();
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        int nul = open("/dev/null", O_WRONLY);
        if (nul >= 0) dup2(nul, 1);
        execv(argv[0], argv);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0) return -1;
    e->wall = jgb_now() - t0;
    e->cpu = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_sec +
             1e-6 * (double)ru.ru_stime.tv_usec;
    e->maxrss_mb = (double)ru.ru_maxrss / 1024.0;
    e->ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    return e->ok ? 0 : -1;
}

typedef struct {
    int64_t size, nblocks, nx, nu, ny;
    double mb;   /* JSON megabytes */
    stages_t med;     /* medians */
    e2e_t e2e;        /* medians */
    int ok;
} row_t;

static double med(double *v, int n) { return n ? jgb_median(v, n) : NAN; }

#ifndef JG_BUILDTYPE
#define JG_BUILDTYPE "unknown"
#endif

static void print_md(FILE *f, const row_t *rows, int n, const char *kind, const char *fmt, int runs,
                     const char *host, const char *notes)
{
    fprintf(f, "# A generated model end to end, stage by stage\n\n");
    fprintf(f, "`benchmarks/bench_scale` (`--kind %s --format %s --runs %d`), meson build type "
               "%s, host: %s, %ld processors online.  Medians of %d runs; the machine may be shared with other work, "
               "so CPU time is the steadier number.  `end to end` is the "
               "command `jacgraph linearize MODEL --format %s --out PREFIX` as a separate process "
               "(CPU: user + system of all its threads); "
               "the stage rows run the same path in one process with the CLI's heap settings, its "
               "page-populating thread and its default `--jobs` (CPU: the main thread's clock, so "
               "the LFT's second thread and the populating thread are not in it).  From 20,000 "
               "blocks on two or more cores the graph is built beside the evaluation's set-up, "
               "on a second thread (as the CLI's `--method graph` does): the `graph build` row "
               "is then time inside `setup`.  "
               "Peak MB: the peak RSS inside the stage (the linearization's stages share one); "
               "RSS MB: after it.\n\n",
            kind, fmt, runs, JG_BUILDTYPE, host, sysconf(_SC_NPROCESSORS_ONLN), runs, fmt);
    for (int k = 0; k < n; k++) {
        const row_t *r = &rows[k];
        if (!r->ok) {
            fprintf(f, "## %lld blocks: failed\n\n", (long long)r->size);
            continue;
        }
        fprintf(f, "## %lld blocks (%.1f MB of JSON; %lld states, %lld inputs, %lld outputs)\n\n",
                (long long)r->nblocks, r->mb, (long long)r->nx, (long long)r->nu, (long long)r->ny);
        fprintf(f, "| stage | wall ms | CPU ms | peak MB | RSS MB |\n|---|---:|---:|---:|---:|\n");
        for (int s = 0; s < NSTAGE; s++)
            fprintf(f, "| %s | %.1f | %.1f | %.0f | %.0f |\n", stage_name[s], 1e3 * r->med.wall[s],
                    1e3 * r->med.cpu[s], r->med.peak_mb[s], r->med.rss_mb[s]);
        fprintf(f, "| **all stages** | %.1f | %.1f | %.0f | |\n", 1e3 * r->med.total_wall,
                1e3 * r->med.total_cpu, r->med.peak_total_mb);
        fprintf(f, "| **end to end (CLI)** | **%.1f** | **%.1f** | **%.0f** | |\n\n", 1e3 * r->e2e.wall,
                1e3 * r->e2e.cpu, r->e2e.maxrss_mb);
    }
    FILE *nf = notes ? fopen(notes, "r") : NULL;
    if (nf) {
        char buf[4096];
        size_t k;
        while ((k = fread(buf, 1, sizeof buf, nf)) > 0) fwrite(buf, 1, k, f);
        fclose(nf);
    } else if (notes) {
        fprintf(stderr, "bench_scale: cannot read %s\n", notes);
    }
}

static void print_csv(FILE *f, const row_t *rows, int n)
{
    fprintf(f, "blocks,stage,wall_s,cpu_s,peak_mb,rss_mb\n");
    for (int k = 0; k < n; k++) {
        const row_t *r = &rows[k];
        if (!r->ok) continue;
        for (int s = 0; s < NSTAGE; s++)
            fprintf(f, "%lld,%s,%.6f,%.6f,%.1f,%.1f\n", (long long)r->nblocks, stage_name[s], r->med.wall[s],
                    r->med.cpu[s], r->med.peak_mb[s], r->med.rss_mb[s]);
        fprintf(f, "%lld,end to end,%.6f,%.6f,%.1f,\n", (long long)r->nblocks, r->e2e.wall, r->e2e.cpu,
                r->e2e.maxrss_mb);
    }
}

/* ------------------------------------------------------------------ plot */

static const char *const color[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                                    "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#000000"};

/* One log-log panel: curves[c][k] against x[k] (<= 0 or NaN: not drawn). */
static void panel(FILE *f, double ox, double oy, double w, double h, const char *title, const char *ylabel,
                  const char *const *names, int nc, const double *x, double (*v)[8], int n)
{
    double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
    for (int c = 0; c < nc; c++)
        for (int k = 0; k < n; k++)
            if (v[c][k] > 0 && x[k] > 0) {
                xmin = fmin(xmin, x[k]), xmax = fmax(xmax, x[k]);
                ymin = fmin(ymin, v[c][k]), ymax = fmax(ymax, v[c][k]);
            }
    if (!(xmin <= xmax)) xmin = 1, xmax = 10, ymin = 1, ymax = 10;
    /* 1,000,006 blocks is still the 10^6 decade */
    int dx0 = (int)floor(log10(xmin) + 0.01), dx1 = (int)ceil(log10(xmax) - 0.01);
    int dy0 = (int)floor(log10(ymin)), dy1 = (int)ceil(log10(ymax));
    if (dx1 <= dx0) dx1 = dx0 + 1;
    if (dy1 == dy0) dy1++;
    double L = ox + 70, R = ox + w - 190, T = oy + 30, B = oy + h - 50;
#define PX(q) (L + (log10(q) - dx0) / (dx1 - dx0) * (R - L))
#define PY(q) (B - (log10(q) - dy0) / (dy1 - dy0) * (B - T))
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"14\" font-weight=\"bold\">%s</text>\n",
            (L + R) / 2, oy + 18, title);
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#000\"/>\n", L, T,
            R - L, B - T);
    for (int d = dx0; d <= dx1; d++) {
        double xx = L + (double)(d - dx0) / (dx1 - dx0) * (R - L);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", xx, T, xx, B);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"12\">10<tspan dy=\"-5\" "
                   "font-size=\"9\">%d</tspan></text>\n", xx, B + 19, d);
    }
    for (int d = dy0; d <= dy1; d++) {
        double yy = B - (double)(d - dy0) / (dy1 - dy0) * (B - T);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", L, yy, R, yy);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"12\">10<tspan dy=\"-5\" "
                   "font-size=\"9\">%d</tspan></text>\n", L - 8, yy + 4, d);
    }
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"13\">number of blocks</text>\n",
            (L + R) / 2, B + 40);
    fprintf(f, "<text transform=\"translate(%.1f %.1f) rotate(-90)\" text-anchor=\"middle\" font-size=\"13\">%s</text>\n",
            ox + 18, (T + B) / 2, ylabel);
    for (int c = 0; c < nc; c++) {
        const char *col = color[c % 11];
        int bold = c == nc - 1;   /* the last curve is the total */
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%s\" points=\"", col, bold ? "2.5" : "1.5");
        int first = 1;
        for (int k = 0; k < n; k++)
            if (v[c][k] > 0 && x[k] > 0) {
                fprintf(f, "%s%.1f,%.1f", first ? "" : " ", PX(x[k]), PY(v[c][k]));
                first = 0;
            }
        fprintf(f, "\"/>\n");
        for (int k = 0; k < n; k++)
            if (v[c][k] > 0 && x[k] > 0)
                fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", PX(x[k]), PY(v[c][k]), col);
        double ly = T + 8 + 17 * c;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"%s\"/>\n",
                R + 12, ly, R + 36, ly, col, bold ? "2.5" : "1.5");
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">%s</text>\n", R + 42, ly + 4, names[c]);
    }
#undef PX
#undef PY
}

static int write_svg(const char *path, const row_t *rows, int n, const char *title)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    /* the stages that cost something, the linearization's parts as one */
    enum { NC = 10 };
    static const char *const tn[NC] = {"read", "parse", "model", "compile", "free model", "setup",
                                       "linearize", "write", "free", "end to end (CLI)"};
    double x[8] = {0}, t[NC][8], m[NC][8];
    int nn = n < 8 ? n : 8;
    for (int k = 0; k < nn; k++) {
        const row_t *r = &rows[k];
        const stages_t *s = &r->med;
        x[k] = r->ok ? (double)r->nblocks : NAN;
        static const int map[] = {S_READ, S_PARSE, S_MODEL, S_COMPILE, S_FREEMODEL, S_SETUP, -1, S_WRITE, S_FREE};
        for (int c = 0; c < 9; c++) {
            if (map[c] >= 0) {
                t[c][k] = s->cpu[map[c]];
                m[c][k] = s->peak_mb[map[c]];
            } else {
                double sum = 0;
                for (int q = S_EVAL; q <= S_LINOTHER; q++) sum += s->cpu[q];
                t[c][k] = sum;
                m[c][k] = s->peak_mb[S_EVAL];
            }
        }
        t[9][k] = r->e2e.cpu;
        m[9][k] = r->e2e.maxrss_mb;
    }
    const double W = 1300, H = 480;
    jgb_svg_begin(f, W, H, title);
    panel(f, 0, 20, W / 2, H - 20, "CPU time per stage (median)", "seconds", tn, NC, x, t, nn);
    panel(f, W / 2, 20, W / 2, H - 20, "Peak RSS per stage (median)", "MB", tn, NC, x, m, nn);
    fprintf(f, "</svg>\n");
    return fclose(f) ? -1 : 0;
}

/* ------------------------------------------------------------------ main */

int main(int argc, char **argv)
{
    const char *sizes = "10000 100000 1000000", *kind = "aerospace", *fmt = "mm", *jg = NULL, *dir = NULL,
               *md = NULL, *csv = NULL, *svg = NULL, *notes = NULL;
    long seed = 1;
    int runs = 5;
    for (int i = 1; i < argc; i++) {
#define OPT(s) (!strcmp(argv[i], s) && i + 1 < argc)
        if (!strcmp(argv[i], "--help")) {
            fputs(usage, stdout);
            return 0;
        } else if (OPT("--sizes")) sizes = argv[++i];
        else if (OPT("--kind")) kind = argv[++i];
        else if (OPT("--seed")) seed = atol(argv[++i]);
        else if (OPT("--runs")) runs = atoi(argv[++i]);
        else if (OPT("--format")) fmt = argv[++i];
        else if (OPT("--jacgraph")) jg = argv[++i];
        else if (OPT("--dir")) dir = argv[++i];
        else if (OPT("--md")) md = argv[++i];
        else if (OPT("--csv")) csv = argv[++i];
        else if (OPT("--svg")) svg = argv[++i];
        else if (OPT("--notes")) notes = argv[++i];
        else {
            fputs(usage, stderr);
            return 2;
        }
#undef OPT
    }
    if (runs < 1 || runs > 100 || (strcmp(fmt, "mm") && strcmp(fmt, "mat"))) {
        fputs(usage, stderr);
        return 2;
    }
    char jgpath[4096], tmp[4096];
    if (!jg) {   /* ../tools/jacgraph beside this program */
        ssize_t k = readlink("/proc/self/exe", jgpath, sizeof jgpath - 32);
        if (k <= 0) return 2;
        jgpath[k] = '\0';
        char *sl = strrchr(jgpath, '/');
        *sl = '\0';
        sl = strrchr(jgpath, '/');
        if (sl) strcpy(sl, "/tools/jacgraph");
        jg = jgpath;
    }
    int own_dir = !dir;
    if (own_dir) {
        const char *t = getenv("TMPDIR");
        snprintf(tmp, sizeof tmp, "%s/bench_scale.XXXXXX", t && *t ? t : "/tmp");
        if (!mkdtemp(tmp)) {
            perror("mkdtemp");
            return 1;
        }
        dir = tmp;
    }
    row_t rows[8];
    int n = 0, rc = 0;
    for (const char *s = sizes; *s && n < 8;) {
        char *e;
        long long size = strtoll(s, &e, 10);
        if (e == s) break;
        s = e;
        while (*s == ' ') s++;
        row_t *r = &rows[n++];
        memset(r, 0, sizeof *r);
        r->size = size;
        char model[4200], out[4200], sz[32], sd[32], outarg[4200];
        snprintf(model, sizeof model, "%s/%s_%lld.json", dir, kind, size);
        snprintf(out, sizeof out, "%s/out_%lld%s", dir, size, strcmp(fmt, "mat") ? "" : ".mat");
        snprintf(outarg, sizeof outarg, "%s", out);
        snprintf(sz, sizeof sz, "%lld", size);
        snprintf(sd, sizeof sd, "%ld", seed);
        e2e_t g;
        char *gen[] = {(char *)jg, "generate", (char *)kind, "--blocks", sz, "--seed", sd, "--out", model, NULL};
        if (run_child(gen, &g)) {
            fprintf(stderr, "bench_scale: %s generate %s --blocks %s failed\n", jg, kind, sz);
            rc = 1;
            continue;
        }
        struct stat sb;
        r->mb = stat(model, &sb) ? NAN : (double)sb.st_size / 1e6;
        stages_t st[100];
        e2e_t ee[100];
        int ok = 1;
        for (int k = 0; k < runs && ok; k++) {
            char *lin[] = {(char *)jg, "linearize", model, "--format", (char *)fmt, "--out", outarg, NULL};
            if (run_child(lin, &ee[k])) {
                fprintf(stderr, "bench_scale: jacgraph linearize %s failed\n", model);
                ok = 0;
            }
            if (ok && stages_child(model, fmt, out, &st[k])) {
                fprintf(stderr, "bench_scale: %s: %s\n", model, st[k].err);
                ok = 0;
            }
            fprintf(stderr, "bench_scale: %lld blocks, run %d: end to end %.2f s wall, %.2f s CPU, %.0f MB; "
                            "stages %.2f s wall\n",
                    size, k + 1, ee[k].wall, ee[k].cpu, ee[k].maxrss_mb, st[k].total_wall);
        }
        if (!ok) {
            rc = 1;
            continue;
        }
        double v[100];
        for (int s2 = 0; s2 < NSTAGE; s2++) {
            for (int k = 0; k < runs; k++) v[k] = st[k].wall[s2];
            r->med.wall[s2] = med(v, runs);
            for (int k = 0; k < runs; k++) v[k] = st[k].cpu[s2];
            r->med.cpu[s2] = med(v, runs);
            for (int k = 0; k < runs; k++) v[k] = st[k].peak_mb[s2];
            r->med.peak_mb[s2] = med(v, runs);
            for (int k = 0; k < runs; k++) v[k] = st[k].rss_mb[s2];
            r->med.rss_mb[s2] = med(v, runs);
        }
        for (int k = 0; k < runs; k++) v[k] = st[k].total_wall;
        r->med.total_wall = med(v, runs);
        for (int k = 0; k < runs; k++) v[k] = st[k].total_cpu;
        r->med.total_cpu = med(v, runs);
        for (int k = 0; k < runs; k++) v[k] = st[k].peak_total_mb;
        r->med.peak_total_mb = med(v, runs);
        for (int k = 0; k < runs; k++) v[k] = ee[k].wall;
        r->e2e.wall = med(v, runs);
        for (int k = 0; k < runs; k++) v[k] = ee[k].cpu;
        r->e2e.cpu = med(v, runs);
        for (int k = 0; k < runs; k++) v[k] = ee[k].maxrss_mb;
        r->e2e.maxrss_mb = med(v, runs);
        r->nblocks = st[0].nblocks;
        r->nx = st[0].nx;
        r->nu = st[0].nu;
        r->ny = st[0].ny;
        r->ok = 1;
        if (own_dir) {   /* the 1M-block model is 100 MB: do not keep it */
            unlink(model);
            static const char *const suf[] = {"_A.mtx", "_B.mtx", "_C.mtx", "_D.mtx", "_names.txt", ""};
            for (int q = 0; q < 6; q++) {
                char f2[4300];
                snprintf(f2, sizeof f2, "%s%s", out, suf[q]);
                unlink(f2);
            }
        }
    }
    char host[256];
    jgb_host(host, sizeof host);
    print_md(stdout, rows, n, kind, fmt, runs, host, notes);
    if (md) {
        FILE *f = fopen(md, "w");
        if (f) {
            print_md(f, rows, n, kind, fmt, runs, host, notes);
            rc |= fclose(f) != 0;
        } else
            rc = 1;
    }
    if (csv) {
        FILE *f = fopen(csv, "w");
        if (f) {
            print_csv(f, rows, n);
            rc |= fclose(f) != 0;
        } else
            rc = 1;
    }
    if (svg) {
        char title[256];
        snprintf(title, sizeof title, "jacgraph linearize (%s, --format %s): stages against model size, log-log",
                 kind, fmt);
        if (write_svg(svg, rows, n, title)) rc = 1;
    }
    if (own_dir) rmdir(dir);
    return rc;
}
