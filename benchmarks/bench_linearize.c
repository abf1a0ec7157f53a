/* bench_linearize: the graph algorithm against the matrix-based block-by-block
 * algorithm on the same models, in the same run (Han, Mosterman & Zhang,
 * Section 5).
 *
 *   bench_linearize [options] MODEL.json... gen:SEED:NBLOCKS...
 *
 * Per model (benchmarks/measure.h): blocks, Jacobian graph size before and
 * after elimination, exact bytes of the intermediate results of both
 * algorithms, medians of every stage time, peak RSS of each algorithm in its
 * own child process, ratios graph/matrix.  A disagreement of the two results
 * beyond 1e-10 fails the run (exit 1).  Output: the paper's Table 1 and
 * Table 2 layouts and a detail table as markdown (stdout and --md), every
 * column as CSV (--csv), a log-log SVG plot of time and memory against model
 * size (--svg).  --trajectory MODEL linearizes one model at many operating
 * points: numeric replay on one jg_lin_t against rebuilding per point.
 * See benchmarks/README.md; benchmarks/run.sh regenerates everything. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/jacgraph.h"
#include "measure.h"
#include "blas.h"

static const char usage[] =
    "usage: bench_linearize [options] MODEL.json... gen:SEED:NBLOCKS...\n"
    "\n"
    "  --repeat N               timing runs per algorithm and model (default 5)...\n"
    "  --min-time S             ...and more, up to 1000, until they took S seconds (default 0.5)\n"
    "  --max-time S             stop repeating an algorithm once its runs took S seconds\n"
    "                           on a model (default 60; at least one run)\n"
    "  --reduce none|markowitz|full   graph elimination (default markowitz)\n"
    "  --matrix-max-blocks N    skip the matrix algorithm on models above N blocks\n"
    "  --no-matrix              skip the matrix algorithm everywhere\n"
    "  --no-fork                measure in this process (no peak RSS; for debuggers)\n"
    "  --tol T                  agreement tolerance of jg_lin_sys_diff (default 1e-10)\n"
    "  --md FILE                the markdown tables (also printed on stdout)\n"
    "  --csv FILE               every measured column\n"
    "  --svg FILE               time and memory against model size, log-log\n"
    "  --title TEXT             heading line of the markdown output\n"
    "  --gen                    every following positional argument is SEED:NBLOCKS\n"
    "  --trajectory MODEL       linearize MODEL (file or gen:SEED:N) at --points points\n"
    "  --points N               trajectory operating points (default 1000)\n"
    "  --traj-matrix-points N   of those, run the matrix algorithm on the first N (default 20)\n"
    "  --spread F               state perturbation: x0 + F*(1+|x0|)*uniform(-1,1) (default 0.1)\n"
    "  --seed S                 trajectory random seed (default 1)\n"
    "  --traj-csv FILE          the trajectory numbers as CSV (seconds)\n"
    "\n"
    "Generated models (gen:SEED:N) come from jg_gen_random (lib/gen) with depth 2; benchmarks/run.sh\n"
    "writes the corpus with `jacgraph generate` and passes the files.\n"
    "Exit status: 0, 1 when a model fails or the algorithms disagree, 2 usage.\n";

/* ------------------------------------------------------------- sources */

typedef struct {
    unsigned long long seed;
    int n;
} gen_ctx_t;

static char *gen_load(const void *ctx, char *err, size_t errlen)
{
    const gen_ctx_t *g = ctx;
    jg_gen_random_opts_t o;
    jg_gen_random_defaults(&o, g->seed, g->n);
    o.max_depth = 2;
    char *s = NULL;
    jg_error_t e;
    if (jg_gen_random(&o, &s, NULL, &e)) snprintf(err, errlen, "%s", e.msg);
    return s;
}

typedef struct {
    jgb_source_t src;
    gen_ctx_t gen;
    char label[256];
} model_t;

/* "gen:SEED:N" (or "SEED:N" when gen_mode) or a file path. */
static int parse_model(const char *arg, int gen_mode, model_t *m)
{
    memset(m, 0, sizeof *m);
    const char *spec = NULL;
    if (!strncmp(arg, "gen:", 4)) spec = arg + 4;
    else if (gen_mode) spec = arg;
    if (spec) {
        long n = 0;
        char tail;
        if (sscanf(spec, "%llu:%ld%c", &m->gen.seed, &n, &tail) != 2 || n < 1 || n > 100000000) {
            fprintf(stderr, "bench_linearize: expected SEED:NBLOCKS, got '%s'\n", spec);
            return -1;
        }
        m->gen.n = (int)n;
        snprintf(m->label, sizeof m->label, "gen %llu:%ld", m->gen.seed, n);
        m->src.load = gen_load;
        m->src.ctx = &m->gen;
    } else {
        const char *b = strrchr(arg, '/');
        b = b ? b + 1 : arg;
        snprintf(m->label, sizeof m->label, "%s", b);
        size_t k = strlen(m->label);
        if (k > 5 && !strcmp(m->label + k - 5, ".json")) m->label[k - 5] = '\0';
        m->src.path = arg;
    }
    m->src.label = m->label;
    return 0;
}

/* ----------------------------------------------------------- trajectory */

typedef struct {
    int points, matrix_points, failed;
    int lft_fallbacks;   /* replay points whose LFT was factorized afresh (a recorded pivot moved) */
    double spread;
    unsigned long long seed;
    int32_t nblocks;
    int64_t nx;
    /* medians per point, seconds */
    double rp_total, rp_eval, rp_replay, rp_lft;   /* replay on one jg_lin_t */
    double rb_total, rb_create, rb_eval, rb_build, rb_elim, rb_replay, rb_lft;   /* rebuild */
    double mx_total;                               /* matrix algorithm */
    double rp_sum, rb_sum;                         /* all points, wall */
    double max_diff;
    char label[256];
} traj_t;

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double unif(uint64_t *s) { return (double)(splitmix(s) >> 11) * 0x1.0p-53 * 2.0 - 1.0; }

static int trajectory(const model_t *md, jg_graph_reduce_t red, traj_t *t)
{
    jgb_steady_heap();
    jg_error_t err;
    jg_error_clear(&err);
    jg_program_t *p = NULL;
    jg_lin_t *l = NULL;
    jg_lin_sys_t *s0 = NULL;
    int rc = 1, n = t->points;
    double *v[13];
    for (int k = 0; k < 13; k++) v[k] = calloc((size_t)n + 1, sizeof(double));
    double *x0 = NULL;
    snprintf(t->label, sizeof t->label, "%s", md->label);
    char emsg[1024] = "";
    if (jgb_compile(&md->src, &p, NULL, emsg, sizeof emsg, &err)) goto fail;   /* as the children */
    if (jg_lin_create(p, NULL, &l, &err)) goto fail;
    t->nblocks = jg_program_nblocks(p);
    t->nx = jg_program_nstates(p);
    x0 = malloc(sizeof(double) * (size_t)(t->nx + 1));
    memcpy(x0, jg_lin_states(l), sizeof(double) * (size_t)t->nx);
    /* symbolic work once, at the initial point (not counted) */
    if (jg_lin_run(l, JG_LIN_GRAPH, red, &s0, NULL, &err)) goto fail;
    jg_lin_sys_free(s0);
    s0 = NULL;
    uint64_t rng = t->seed;
    int nm = 0, np = 0;
    for (int k = 0; k < n; k++) {
        double *x = jg_lin_states(l);
        for (int64_t i = 0; i < t->nx; i++) x[i] = x0[i] + t->spread * (1 + fabs(x0[i])) * unif(&rng);
        jg_lin_stats_t st;
        jg_lin_sys_t *a = NULL, *b = NULL, *c = NULL;
        double w0 = jgb_now();
        if (jg_lin_run(l, JG_LIN_GRAPH, red, &a, &st, &err)) {   /* e.g. a domain error */
            t->failed++;
            continue;
        }
        double w1 = jgb_now();
        v[0][np] = w1 - w0;
        v[1][np] = st.t_eval;
        v[2][np] = st.t_replay;
        v[3][np] = st.t_lft;
        t->lft_fallbacks += st.lft_fallback != 0;
        t->rp_sum += w1 - w0;
        /* rebuild: a new jg_lin_t at the same point */
        jg_lin_t *l2 = NULL;
        double w2 = jgb_now();
        if (jg_lin_create(p, NULL, &l2, &err)) {
            jg_lin_sys_free(a);
            goto fail;
        }
        memcpy(jg_lin_states(l2), x, sizeof(double) * (size_t)t->nx);
        double w3 = jgb_now();
        if (jg_lin_run(l2, JG_LIN_GRAPH, red, &b, &st, &err)) {
            jg_lin_free(l2);
            jg_lin_sys_free(a);
            goto fail;
        }
        double w4 = jgb_now();
        jg_lin_free(l2);
        v[4][np] = w4 - w2;
        v[5][np] = w3 - w2;
        v[6][np] = st.t_eval;
        v[7][np] = st.t_build;
        v[8][np] = st.t_elim;
        v[9][np] = st.t_replay;
        v[10][np] = st.t_lft;
        t->rb_sum += w4 - w2;
        double d = jg_lin_sys_diff(a, b, NULL);
        if (!isnan(t->max_diff) && !(d <= t->max_diff)) t->max_diff = d;
        if (nm < t->matrix_points) {
            double w5 = jgb_now();
            if (jg_lin_run(l, JG_LIN_MATRIX, JG_GRAPH_REDUCE_NONE, &c, NULL, &err)) {
                jg_lin_sys_free(a);
                jg_lin_sys_free(b);
                goto fail;
            }
            v[11][nm++] = jgb_now() - w5;
            d = jg_lin_sys_diff(a, c, NULL);
            if (!isnan(t->max_diff) && !(d <= t->max_diff)) t->max_diff = d;
        }
        jg_lin_sys_free(a);
        jg_lin_sys_free(b);
        jg_lin_sys_free(c);
        np++;
    }
    t->matrix_points = nm;
    /* the medians of v[k]: over the points, the matrix time over its points */
    double *const med[12] = {&t->rp_total,  &t->rp_eval,  &t->rp_replay, &t->rp_lft,
                             &t->rb_total,  &t->rb_create, &t->rb_eval,  &t->rb_build,
                             &t->rb_elim,   &t->rb_replay, &t->rb_lft,   &t->mx_total};
    for (int k = 0; k < 12; k++) *med[k] = jgb_median(v[k], k == 11 ? nm : np);
    rc = np > 0 && t->max_diff <= 1e-10 ? 0 : 1;
    if (rc) fprintf(stderr, "bench_linearize: trajectory %s: %s\n", md->label,
                    np ? "replay, rebuild and matrix disagree" : "no point could be linearized");
    goto done;
fail:
    fprintf(stderr, "bench_linearize: trajectory %s: %s\n", md->label,
            emsg[0] ? emsg : err.msg[0] ? err.msg : "failed");
done:
    for (int k = 0; k < 13; k++) free(v[k]);
    free(x0);
    jg_lin_free(l);
    jg_program_free(p);
    return rc;
}

static void print_traj(FILE *f, const traj_t *t)
{
    fprintf(f, "### Trajectory: %s (%d blocks, %lld states), %d operating points\n\n", t->label,
            t->nblocks, (long long)t->nx, t->points - t->failed);
    fprintf(f, "States x0 + %.3g*(1+|x0|)*U(-1,1), seed %llu%s.  Medians per point, ms.\n\n",
            t->spread, t->seed, t->failed ? " (some points failed to evaluate)" : "");
    fprintf(f, "| Per operating point | total | jg_lin_create | block Jacobians (t_eval) | graph build | "
               "elimination | replay | LFT |\n|---|--:|--:|--:|--:|--:|--:|--:|\n");
    fprintf(f, "| numeric replay (same jg_lin_t) | %.4f | - | %.4f | - | - | %.4f | %.4f |\n",
            1e3 * t->rp_total, 1e3 * t->rp_eval, 1e3 * t->rp_replay, 1e3 * t->rp_lft);
    fprintf(f, "| rebuild (new jg_lin_t per point) | %.4f | %.4f | %.4f | %.4f | %.4f | %.4f | %.4f |\n",
            1e3 * t->rb_total, 1e3 * t->rb_create, 1e3 * t->rb_eval, 1e3 * t->rb_build,
            1e3 * t->rb_elim, 1e3 * t->rb_replay, 1e3 * t->rb_lft);
    if (t->matrix_points)
        fprintf(f, "| matrix algorithm (first %d points) | %.4f | - | - | - | - | - | - |\n",
                t->matrix_points, 1e3 * t->mx_total);
    fprintf(f, "\nAll %d points: replay %.3f s, rebuild %.3f s (rebuild / replay = %.2f).  "
               "Replay per point / block-Jacobian evaluation (t_eval) = %.2f; numeric replay "
               "alone / t_eval = %.2f; LFT alone / t_eval = %.2f (refactorized numerically on the "
               "first run's pivots; factorized afresh at %d point%s where a pivot moved).  Largest "
               "difference between replay, rebuild and matrix results: %.1e.\n\n",
            t->points - t->failed, t->rp_sum, t->rb_sum, t->rp_sum > 0 ? t->rb_sum / t->rp_sum : NAN,
            t->rp_eval > 0 ? t->rp_total / t->rp_eval : NAN,
            t->rp_eval > 0 ? t->rp_replay / t->rp_eval : NAN,
            t->rp_eval > 0 ? t->rp_lft / t->rp_eval : NAN, t->lft_fallbacks,
            t->lft_fallbacks == 1 ? "" : "s", t->max_diff);
}

static void traj_csv(FILE *f, const traj_t *t)
{
    fprintf(f, "model,blocks,states,points,failed,spread,seed,"
               "replay_total,replay_eval,replay_replay,replay_lft,"
               "rebuild_total,rebuild_create,rebuild_eval,rebuild_build,rebuild_elim,rebuild_replay,"
               "rebuild_lft,matrix_points,matrix_total,replay_sum,rebuild_sum,replay_over_eval,max_diff,"
               "lft_over_eval,lft_fallbacks\n");
    fprintf(f, "\"%s\",%d,%lld,%d,%d,%g,%llu,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%d,%.9g,"
               "%.9g,%.9g,%.9g,%.3g,%.9g,%d\n",
            t->label, t->nblocks, (long long)t->nx, t->points - t->failed, t->failed, t->spread, t->seed,
            t->rp_total, t->rp_eval, t->rp_replay, t->rp_lft, t->rb_total, t->rb_create, t->rb_eval,
            t->rb_build, t->rb_elim, t->rb_replay, t->rb_lft, t->matrix_points, t->mx_total, t->rp_sum,
            t->rb_sum, t->rp_eval > 0 ? t->rp_total / t->rp_eval : NAN, t->max_diff,
            t->rp_eval > 0 ? t->rp_lft / t->rp_eval : NAN, t->lft_fallbacks);
}

/* ---------------------------------------------------------------- SVG */

typedef struct {
    const char *name, *color, *dash;
    int marker;   /* 0 circle, 1 square, 2 triangle, 3 diamond */
} series_t;

static void marker(FILE *f, int kind, double x, double y, const char *color)
{
    switch (kind) {
    case 0: fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/>\n", x, y, color); break;
    case 1:
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"7\" height=\"7\" fill=\"%s\"/>\n", x - 3.5, y - 3.5,
                color);
        break;
    case 2:
        fprintf(f, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"/>\n",
                x, y - 4.5, x + 4, y + 3, x - 4, y + 3, color);
        break;
    default:
        fprintf(f, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"/>\n",
                x, y - 4.5, x + 4.5, y, x, y + 4.5, x - 4.5, y, color);
    }
}

static int cmp_x(const void *a, const void *b)
{
    const double *p = a, *q = b;
    return (p[0] > q[0]) - (p[0] < q[0]);
}

/* Models of one family are joined by lines: "aerospace-10k" -> "aerospace",
 * "gen 1:1000" -> "gen"; others (the shipped models) are markers only. */
static int family(const char *label, char *fam, size_t n)
{
    const char *d = strrchr(label, '-');
    if (d && d[1] >= '0' && d[1] <= '9') {
        const char *c = d + 1;
        while (*c >= '0' && *c <= '9') c++;
        if (*c == 'k' || *c == 'M') c++;
        if (!*c) {
            snprintf(fam, n, "%.*s", (int)(d - label), label);
            return 1;
        }
    }
    if (!strncmp(label, "gen ", 4)) {
        snprintf(fam, n, "gen");
        return 1;
    }
    return 0;
}

/* One log-log panel at (ox, oy) of size w x h; val[s][k] for row k (NaN or <= 0: none). */
static void panel(FILE *f, double ox, double oy, double w, double h, const char *title, const char *ylabel,
                  const series_t *ser, int ns, double *const *xv, double *const *val, int n,
                  char (*fam)[128], const int *hasfam)
{
    double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
    for (int s = 0; s < ns; s++)
        for (int k = 0; k < n; k++)
            if (val[s][k] > 0 && xv[s][k] > 0) {
                xmin = fmin(xmin, xv[s][k]);
                xmax = fmax(xmax, xv[s][k]);
                ymin = fmin(ymin, val[s][k]);
                ymax = fmax(ymax, val[s][k]);
            }
    if (!(xmin <= xmax)) xmin = 1, xmax = 10, ymin = 1, ymax = 10;
    int dx0 = (int)floor(log10(xmin)), dx1 = (int)ceil(log10(xmax));
    int dy0 = (int)floor(log10(ymin)), dy1 = (int)ceil(log10(ymax));
    if (dx1 == dx0) dx1++;
    if (dy1 == dy0) dy1++;
    double L = ox + 70, R = ox + w - 10, T = oy + 30, B = oy + h - 50;
#define PX(v) (L + (log10(v) - dx0) / (dx1 - dx0) * (R - L))
#define PY(v) (B - (log10(v) - dy0) / (dy1 - dy0) * (B - T))
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"14\" font-weight=\"bold\">%s</text>\n",
            (L + R) / 2, oy + 18, title);
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#000\"/>\n", L,
            T, R - L, B - T);
    for (int d = dx0; d <= dx1; d++) {
        double x = L + (double)(d - dx0) / (dx1 - dx0) * (R - L);
        if (d > dx0 && d < dx1)
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", x, T, x, B);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\"/>\n", x, B, x, B + 5);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"12\">10<tspan dy=\"-5\" "
                   "font-size=\"9\">%d</tspan></text>\n", x, B + 19, d);
        for (int m = 2; m <= 9 && d < dx1; m++) {
            double xm = x + log10(m) / (dx1 - dx0) * (R - L);
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\"/>\n", xm, B, xm, B + 3);
        }
    }
    for (int d = dy0; d <= dy1; d++) {
        double y = B - (double)(d - dy0) / (dy1 - dy0) * (B - T);
        if (d > dy0 && d < dy1)
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", L, y, R, y);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\"/>\n", L - 5, y, L, y);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"12\">10<tspan dy=\"-5\" "
                   "font-size=\"9\">%d</tspan></text>\n", L - 8, y + 4, d);
        for (int m = 2; m <= 9 && d < dy1; m++) {
            double ym = y - log10(m) / (dy1 - dy0) * (B - T);
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\"/>\n", L - 3, ym, L, ym);
        }
    }
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"13\">number of blocks</text>\n",
            (L + R) / 2, B + 40);
    fprintf(f, "<text transform=\"translate(%.1f %.1f) rotate(-90)\" text-anchor=\"middle\" font-size=\"13\">%s</text>\n",
            ox + 18, (T + B) / 2, ylabel);
    double *pts = malloc(sizeof(double) * 2 * (size_t)(n + 1));
    for (int s = 0; s < ns; s++) {
        /* lines: one per family, through its points in size order */
        for (int k0 = 0; k0 < n; k0++) {
            if (!hasfam[k0]) continue;
            int first = 1;
            for (int j = 0; j < k0; j++) first &= !(hasfam[j] && !strcmp(fam[j], fam[k0]));
            if (!first) continue;
            int m = 0;
            for (int k = k0; k < n; k++)
                if (hasfam[k] && !strcmp(fam[k], fam[k0]) && val[s][k] > 0 && xv[s][k] > 0) {
                    pts[2 * m] = xv[s][k];
                    pts[2 * m + 1] = val[s][k];
                    m++;
                }
            qsort(pts, (size_t)m, 2 * sizeof(double), cmp_x);
            if (m < 2) continue;
            fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"%s%s%s points=\"", ser[s].color,
                    ser[s].dash ? " stroke-dasharray=\"" : "", ser[s].dash ? ser[s].dash : "",
                    ser[s].dash ? "\"" : "");
            for (int k = 0; k < m; k++) fprintf(f, "%s%.1f,%.1f", k ? " " : "", PX(pts[2 * k]), PY(pts[2 * k + 1]));
            fprintf(f, "\"/>\n");
        }
        for (int k = 0; k < n; k++)
            if (val[s][k] > 0 && xv[s][k] > 0) marker(f, ser[s].marker, PX(xv[s][k]), PY(val[s][k]), ser[s].color);
    }
    free(pts);
    /* legend, top left inside the plot */
    double lx = L + 10, ly = T + 10;
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"215\" height=\"%d\" fill=\"#fff\" fill-opacity=\"0.9\" stroke=\"#888\"/>\n",
            lx, ly, 8 + 18 * ns);
    for (int s = 0; s < ns; s++) {
        double y = ly + 16 + 18 * s;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1.5\"%s%s%s/>\n",
                lx + 6, y - 4, lx + 36, y - 4, ser[s].color, ser[s].dash ? " stroke-dasharray=\"" : "",
                ser[s].dash ? ser[s].dash : "", ser[s].dash ? "\"" : "");
        marker(f, ser[s].marker, lx + 21, y - 4, ser[s].color);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">%s</text>\n", lx + 44, y, ser[s].name);
    }
#undef PX
#undef PY
}

static int write_svg(const char *path, const jgb_row_t *rows, int n, const char *title)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return 1;
    }
    double *x = calloc((size_t)n + 1, sizeof(double)), *v[5];
    char (*fam)[128] = calloc((size_t)n + 1, sizeof *fam);
    int *hasfam = calloc((size_t)n + 1, sizeof(int));
    for (int k = 0; k < n; k++) hasfam[k] = family(rows[k].label, fam[k], sizeof fam[k]);
    for (int s = 0; s < 5; s++) v[s] = calloc((size_t)n + 1, sizeof(double));
    for (int k = 0; k < n; k++) {
        const jgb_row_t *r = &rows[k];
        x[k] = r->ok || r->mismatch ? r->nblocks : NAN;
        v[0][k] = r->graph.total;
        v[1][k] = r->matrix_skipped ? NAN : r->matrix.total;
        v[2][k] = r->replay.total;
    }
    const double W = 1000, H = 450;
    jgb_svg_begin(f, W, H, title);
    static const series_t ts[] = {{"graph algorithm (first run)", "#1f5fbf", NULL, 0},
                                  {"matrix algorithm", "#c0392b", NULL, 1},
                                  {"graph, again (replay)", "#1f5fbf", "5,3", 2}};
    double *xs[5] = {x, x, x, x, x};
    panel(f, 0, 20, W / 2, H - 40, "Linearization time (median)", "time (s)", ts, 3, xs, v, n, fam, hasfam);
    for (int k = 0; k < n; k++) {
        const jgb_row_t *r = &rows[k];
        v[0][k] = (double)r->bytes_graph;
        v[1][k] = r->matrix_skipped ? NAN : (double)r->bytes_matrix;
        /* peak RSS increments below 1,000 blocks are page-granularity noise */
        int big = r->nblocks >= 1000;
        v[2][k] = big && r->rss_graph_kib ? 1024.0 * (double)(r->rss_graph_kib - r->rss_base_kib) : NAN;
        v[3][k] = big && r->rss_matrix_kib && !r->matrix_skipped
                      ? 1024.0 * (double)(r->rss_matrix_kib - r->rss_base_kib)
                      : NAN;
    }
    static const series_t ms[] = {{"graph: A_r..D_r bytes", "#1f5fbf", NULL, 0},
                                  {"matrix: Ao..Do, M bytes", "#c0392b", NULL, 1},
                                  {"graph: peak RSS increase*", "#1f5fbf", "5,3", 2},
                                  {"matrix: peak RSS increase*", "#c0392b", "5,3", 3}};
    panel(f, W / 2, 20, W / 2, H - 40, "Memory", "memory (bytes)", ms, 4, xs, v, n, fam, hasfam);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"11\" fill=\"#444\">Lines join the "
               "generated models of one kind; shipped models are markers only.  * Peak RSS above the "
               "base child (model loaded and compiled), models of 1,000 blocks or more.</text>\n",
            W / 2, H - 8);
    fprintf(f, "</svg>\n");
    free(x);
    free(fam);
    free(hasfam);
    for (int s = 0; s < 5; s++) free(v[s]);
    return fclose(f) ? 1 : 0;
}

/* ---------------------------------------------------------------- main */

static void write_md(FILE *f, const char *title, const jgb_opts_t *o, const jgb_row_t *rows, int n,
                     const traj_t *traj)
{
    if (title) fprintf(f, "%s\n\n", title);
    fprintf(f, "Without vertex elimination = the matrix-based block-by-block algorithm (Ao, Bo, Co, "
               "Do, M); with vertex elimination = the Jacobian graph, %s elimination (A_r, B_r, C_r, "
               "D_r).  Times are medians of at least %d runs, more (up to %d) until the runs took %.2g s, "
               "fewer once they took %.0f s (column runs g/m).\n\n",
            jg_graph_reduce_name(o->reduce), o->repeat, o->max_runs, o->min_time, o->max_time);
    fprintf(f, "#### Table 1 layout\n\n");
    jgb_table1_header(f);
    for (int k = 0; k < n; k++)
        if (rows[k].ok) jgb_table1_row(f, &rows[k]);
    fprintf(f, "\n#### Table 2 layout\n\n");
    jgb_table2_header(f);
    for (int k = 0; k < n; k++)
        if (rows[k].ok) jgb_table2_row(f, &rows[k]);
    fprintf(f, "\n#### Details (times in ms, RSS in MiB)\n\n");
    jgb_detail_header(f);
    for (int k = 0; k < n; k++)
        if (rows[k].ok) jgb_detail_row(f, &rows[k]);
    int bad = 0;
    for (int k = 0; k < n; k++)
        if (!rows[k].ok) {
            if (!bad++) fprintf(f, "\nFailed:\n\n");
            fprintf(f, "- %s: %s\n", rows[k].label, rows[k].err);
        }
    int skipped = 0;
    for (int k = 0; k < n; k++) skipped += rows[k].ok && rows[k].matrix_skipped;
    if (skipped)
        fprintf(f, "\nThe matrix algorithm was skipped on %d model%s (%s).\n", skipped, skipped > 1 ? "s" : "",
                o->matrix ? "above --matrix-max-blocks" : "--no-matrix");
    if (traj) {
        fprintf(f, "\n");
        print_traj(f, traj);
    }
}

int main(int argc, char **argv)
{
    jgb_opts_t o;
    jgb_opts_default(&o);
    cli_blas_quiet();   /* the CLI's BLAS: one thread, no idle pool */
    const char *md_path = NULL, *csv_path = NULL, *svg_path = NULL, *traj_arg = NULL, *title = NULL,
               *traj_csv_path = NULL;
    int gen_mode = 0, nm = 0;
    traj_t traj = {.points = 1000, .matrix_points = 20, .spread = 0.1, .seed = 1};
    model_t *models = calloc((size_t)argc + 1, sizeof *models);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
#define OPT(name) (!strcmp(a, name) && more)
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage, stdout);
            return 0;
        } else if (OPT("--repeat")) {
            o.repeat = atoi(argv[++i]);
        } else if (OPT("--min-time")) {
            o.min_time = atof(argv[++i]);
        } else if (OPT("--max-time")) {
            o.max_time = atof(argv[++i]);
        } else if (OPT("--reduce")) {
            int r = jg_graph_reduce_parse(argv[++i]);
            if (r < 0) {
                fprintf(stderr, "bench_linearize: unknown reduction '%s'\n", argv[i]);
                return 2;
            }
            o.reduce = (jg_graph_reduce_t)r;
        } else if (OPT("--matrix-max-blocks")) {
            o.matrix_max_blocks = atoll(argv[++i]);
        } else if (!strcmp(a, "--no-matrix")) {
            o.matrix = 0;
        } else if (OPT("--tol")) {
            o.tol = atof(argv[++i]);
        } else if (!strcmp(a, "--no-fork")) {
            o.fork = 0;
        } else if (OPT("--md")) {
            md_path = argv[++i];
        } else if (OPT("--csv")) {
            csv_path = argv[++i];
        } else if (OPT("--svg")) {
            svg_path = argv[++i];
        } else if (OPT("--title")) {
            title = argv[++i];
        } else if (!strcmp(a, "--gen")) {
            gen_mode = 1;
        } else if (OPT("--trajectory")) {
            traj_arg = argv[++i];
        } else if (OPT("--points")) {
            traj.points = atoi(argv[++i]);
        } else if (OPT("--traj-matrix-points")) {
            traj.matrix_points = atoi(argv[++i]);
        } else if (OPT("--spread")) {
            traj.spread = atof(argv[++i]);
        } else if (OPT("--traj-csv")) {
            traj_csv_path = argv[++i];
        } else if (OPT("--seed")) {
            traj.seed = strtoull(argv[++i], NULL, 10);
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "bench_linearize: unknown option or missing value '%s'\n\n%s", a, usage);
            return 2;
        } else {
            if (parse_model(a, gen_mode, &models[nm])) return 2;
            nm++;
        }
#undef OPT
    }
    if (o.repeat < 1 || traj.points < 1 || (!nm && !traj_arg)) {
        fputs(usage, stderr);
        return 2;
    }
    jgb_row_t *rows = calloc((size_t)nm + 1, sizeof *rows);
    int rc = 0;
    for (int k = 0; k < nm; k++) {
        double t0 = jgb_now();
        fprintf(stderr, "bench_linearize: %s ...", models[k].label);
        fflush(stderr);
        if (jgb_measure(&models[k].src, &o, &rows[k])) rc = 1;
        fprintf(stderr, " %s (%.1f s)\n", rows[k].ok ? "ok" : rows[k].err, jgb_now() - t0);
    }
    int have_traj = 0;
    if (traj_arg) {
        model_t tm;
        if (parse_model(traj_arg, 0, &tm)) return 2;
        fprintf(stderr, "bench_linearize: trajectory %s, %d points ...\n", tm.label, traj.points);
        if (trajectory(&tm, o.reduce, &traj)) rc = 1;
        else have_traj = 1;
    }
    write_md(stdout, title, &o, rows, nm, have_traj ? &traj : NULL);
    if (md_path) {
        FILE *f = fopen(md_path, "w");
        if (!f) {
            perror(md_path);
            rc = 1;
        } else {
            write_md(f, title, &o, rows, nm, have_traj ? &traj : NULL);
            if (fclose(f)) rc = 1;
        }
    }
    if (csv_path) {
        FILE *f = fopen(csv_path, "w");
        if (!f) {
            perror(csv_path);
            rc = 1;
        } else {
            jgb_csv_header(f);
            for (int k = 0; k < nm; k++) jgb_csv_row(f, &rows[k]);
            if (fclose(f)) rc = 1;
        }
    }
    if (traj_csv_path && have_traj) {
        FILE *f = fopen(traj_csv_path, "w");
        if (!f) {
            perror(traj_csv_path);
            rc = 1;
        } else {
            traj_csv(f, &traj);
            if (fclose(f)) rc = 1;
        }
    }
    if (svg_path && nm) {
        char t[512];
        snprintf(t, sizeof t, "jacgraph: Jacobian graph (%s) vs matrix algorithm", jg_graph_reduce_name(o.reduce));
        if (write_svg(svg_path, rows, nm, t)) rc = 1;
    }
    free(rows);
    free(models);
    return rc;
}
