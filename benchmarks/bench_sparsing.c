/* bench_sparsing: time per linearly implicit Euler step with and without a
 * sparsing of the solver Jacobian ("Sparsing of Jacobians for real-time
 * simulation of stiff models"), and what the sparsing costs in accuracy.
 *
 *   bench_sparsing [options]
 *
 * Models and sparsings:
 *   - the paper's pipe model (graphs/pipe.json, 25 states), step 1e-3 over
 *     [0, 10]: no sparsing, the paper's candidate graphs/masks/pipe_mask.json
 *     (bidiagonal, the canning block dropped), and the automatic choice at t0
 *     (jg_sparsing_auto, entries; --sparsing auto);
 *   - the 2-D Brusselator of `jacgraph generate brusselator --states N`
 *     (default 1,000 states, lib/gen), step --bruss-step (1e-3) over [0, 1]: no sparsing and
 *     a structured mask that drops the reaction coupling of every grid point
 *     (du_k/dv_k and dv_k/du_k), so that I - hA splits into the two diffusion
 *     systems of u and v.  jg_sparsing_auto is dense, O(n^3) per candidate
 *     entry (thousands of candidates at 1,000 states), so it is not run here.
 * Each (model, solver Jacobian method) runs every sparsing interleaved: round
 * after round one whole simulation per sparsing (jg_sim_create untimed, then
 * jg_sim_run timed, jg_sim_free), until each has --repeat runs and
 * --min-time seconds (at most --max-runs).  Reported: the medians of CPU and
 * wall time per step, their ratio to the unsparsed run of the same method
 * (measured in the same rounds), the entries of J computed, colors and f
 * evaluations per Jacobian (measured: fevals_jac / jevals of the run), the
 * LU fill of I - hJ / I - hA at t0 (jg_sparsing_saving's sparse LU), and the
 * accuracy: the largest difference over the output points and states of the
 * trajectory, each state scaled by its largest magnitude in the reference,
 * against the unsparsed lie run and against ode15s (rtol 1e-10, atol 1e-12).
 *
 * Output: markdown on stdout (and --md FILE).  Exit status: 0; 1 when a run
 * failed; 2 usage.  Benchmarks measure: no target changes the status. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "jacgraph/jacgraph.h"
#include "jacgraph/io.h"
#include "jacgraph/gen.h"
#include "measure.h"

static const char usage[] =
    "usage: bench_sparsing [options]\n"
    "\n"
    "  --graphs DIR    where pipe.json and masks/pipe_mask.json are (default: graphs)\n"
    "  --states N      Brusselator states (default 1000; 2 nx ny, see jacgraph generate)\n"
    "  --bruss-step H  the Brusselator's step (default 1e-3)\n"
    "  --repeat N      timed runs per sparsing, at least (default 5)...\n"
    "  --min-time S    ...and more until each took S seconds (default 1)\n"
    "  --max-runs N    at most N runs per sparsing (default 100)\n"
    "  --md FILE       also write the markdown to FILE\n";

typedef struct {
    const char *graphs, *md;
    int64_t states;
    int repeat, max_runs;
    double min_time, bstep;
} opts_t;

static double now_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---------------------------------------------------------- trajectories */

typedef struct {
    int64_t nx;
    int npts, cap;
    double *x;   /* npts x nx */
} traj_t;

static int record(double t, const double *x, const double *sig, void *user)
{
    (void)t, (void)sig;
    traj_t *r = user;
    if (!r) return 0;
    if (r->npts == r->cap) {
        int cap = r->cap ? 2 * r->cap : 256;
        double *nx = realloc(r->x, sizeof(double) * (size_t)cap * (size_t)r->nx);
        if (!nx) return 1;
        r->x = nx;
        r->cap = cap;
    }
    memcpy(r->x + (size_t)r->npts * (size_t)r->nx, x, sizeof(double) * (size_t)r->nx);
    r->npts++;
    return 0;
}

/* max over points and states of |a - ref| / max_t |ref_i| */
static double traj_diff(const traj_t *a, const traj_t *ref)
{
    if (a->npts != ref->npts || a->nx != ref->nx) return INFINITY;
    double d = 0;
    for (int64_t i = 0; i < ref->nx; i++) {
        double s = 0, e = 0;
        for (int k = 0; k < ref->npts; k++) {
            s = fmax(s, fabs(ref->x[(size_t)k * ref->nx + i]));
            e = fmax(e, fabs(a->x[(size_t)k * a->nx + i] - ref->x[(size_t)k * ref->nx + i]));
        }
        d = fmax(d, s > 0 ? e / s : e);
    }
    return d;
}

/* ---------------------------------------------------------- one variant */

typedef struct {
    const char *name;          /* "none", "paper's mask", "auto", ... */
    const int64_t *drop;       /* list, or NULL */
    int64_t ndrop;
    int autof;                 /* jg_sparsing_auto flags, 0 */
    /* results */
    int ok, runs;
    char err[1024];
    double cpu[1000], wall[1000], total;
    long steps;
    jg_sim_stats_t ss;
    traj_t traj;
} var_t;

typedef struct {
    const char *label;
    const jg_program_t *p;
    double h, tstop, out_step;
} model_t;

static jg_sim_opts_t lie_opts(const model_t *m, const var_t *v, jg_solverjac_method_t jm)
{
    jg_sim_opts_t o = {.solver = JG_SOLVER_LIE, .t0 = 0, .tstop = m->tstop, .out_step = m->out_step,
                       .jacobian = jm};
    o.so.fixed_step = m->h;
    o.sparsing_drop = v->drop;
    o.sparsing_ndrop = v->ndrop;
    o.sparsing_auto = v->autof;
    return o;
}

/* One whole run of variant v (timed: jg_sim_run only); the trajectory on the
 * first run.  0, or -1 with v->err. */
static int run_once(const model_t *m, var_t *v, jg_solverjac_method_t jm)
{
    jg_sim_opts_t o = lie_opts(m, v, jm);
    jg_sim_t *s = NULL;
    jg_error_t err;
    jg_error_clear(&err);
    if (jg_sim_create(m->p, &o, &s, &err)) goto fail;
    traj_t *tr = v->runs == 0 ? &v->traj : NULL;
    if (tr) tr->nx = jg_program_nstates(m->p);
    double c0 = now_cpu(), w0 = jgb_now();
    jg_status_t st = jg_sim_run(s, m->tstop, record, tr, &err);
    double c1 = now_cpu(), w1 = jgb_now();
    if (st) goto fail;
    jg_sim_stats(s, &v->ss);
    v->steps = v->ss.solver.steps;
    v->cpu[v->runs] = (c1 - c0) / (double)v->steps;
    v->wall[v->runs] = (w1 - w0) / (double)v->steps;
    v->total += w1 - w0;
    v->runs++;
    jg_sim_free(s);
    return 0;
fail:
    snprintf(v->err, sizeof v->err, "%s", err.msg);
    jg_sim_free(s);
    return -1;
}

/* ode15s at tight tolerances on the output grid of m */
static int reference(const model_t *m, traj_t *ref, char *msg, size_t len)
{
    jg_sim_opts_t o = {.solver = JG_SOLVER_ODE15S, .t0 = 0, .tstop = m->tstop, .out_step = m->out_step};
    o.so.rtol = 1e-10;
    o.so.atol = 1e-12;
    jg_sim_t *s = NULL;
    jg_error_t err;
    jg_error_clear(&err);
    ref->nx = jg_program_nstates(m->p);
    if (jg_sim_create(m->p, &o, &s, &err) || jg_sim_run(s, m->tstop, record, ref, &err)) {
        snprintf(msg, len, "ode15s: %s", err.msg);
        jg_sim_free(s);
        return -1;
    }
    jg_sim_free(s);
    return 0;
}

static void lu_cell(char *buf, size_t n, int64_t v)
{
    if (v < 0) snprintf(buf, n, "singular");
    else snprintf(buf, n, "%lld", (long long)v);
}

/* Measure the variants of m with Jacobian method jm, interleaved, and print
 * their rows. */
static int measure(FILE *out, const opts_t *o, const model_t *m, jg_solverjac_method_t jm, var_t *v, int nv,
                   const traj_t *ref)
{
    int bad = 0;
    for (int k = 0; k < nv; k++) {
        v[k].ok = 1;
        v[k].runs = 0;
        v[k].total = 0;
        v[k].traj.npts = 0;
    }
    for (;;) {
        int more = 0;
        for (int k = 0; k < nv; k++)
            more |= v[k].ok && v[k].runs < o->max_runs && (v[k].runs < o->repeat || v[k].total < o->min_time);
        if (!more) break;
        for (int k = 0; k < nv; k++)
            if (v[k].ok && v[k].runs < o->max_runs && run_once(m, &v[k], jm)) {
                v[k].ok = 0;
                bad = 1;
            }
    }
    /* the unsparsed run's full counts stand for "none" */
    const jg_sim_sparsing_t *full = NULL;
    for (int k = 0; k < nv; k++)
        if (v[k].ok && v[k].ss.sparsing.active) full = &v[k].ss.sparsing;
    double base = NAN;
    for (int k = 0; k < nv; k++) {
        var_t *x = &v[k];
        if (!x->ok) {
            fprintf(out, "| %s | %s | %s | failed: %s | | | | | | | | |\n", m->label, jg_solverjac_method_name(jm),
                    x->name, x->err);
            continue;
        }
        double cpu = jgb_median(x->cpu, x->runs), wall = jgb_median(x->wall, x->runs);
        if (k == 0) base = cpu;
        const jg_sim_sparsing_t *sp = x->ss.sparsing.active ? &x->ss.sparsing : NULL;
        char lu[32], ent[64], col[64], chk[96] = "";
        if (sp) {
            lu_cell(lu, sizeof lu, sp->lu);
            snprintf(ent, sizeof ent, "%lld of %lld", (long long)sp->nkept, (long long)sp->nnz);
            snprintf(col, sizeof col, "%lld", (long long)sp->colors);
            if (sp->measured)
                snprintf(chk, sizeof chk, "d1 %.2g < C1 %.2g, d2 %.2g < C2 %.2g", sp->measure.d1, sp->measure.C1,
                         sp->measure.d2, sp->measure.C2);
        } else if (full) {
            lu_cell(lu, sizeof lu, full->lu_full);
            snprintf(ent, sizeof ent, "%lld of %lld", (long long)full->nnz, (long long)full->nnz);
            snprintf(col, sizeof col, "%lld", (long long)full->colors_full);
        } else {
            snprintf(lu, sizeof lu, "-");
            snprintf(ent, sizeof ent, "all");
            snprintf(col, sizeof col, "-");
        }
        double fpj = x->ss.solver.jevals ? (double)x->ss.solver.fevals_jac / (double)x->ss.solver.jevals : 0;
        fprintf(out, "| %s | %s | %s | %s | %.3g | %s | %s | %d | %.2f (%.2f) | %.2f | %.1e | %.1e | %s |\n",
                m->label, jg_solverjac_method_name(jm), x->name, ent, fpj, col, lu, x->runs, 1e6 * cpu, 1e6 * wall,
                cpu / base, k == 0 ? 0.0 : traj_diff(&x->traj, &v[0].traj), traj_diff(&x->traj, ref), chk);
    }
    return bad;
}

/* ---------------------------------------------------------------- main */

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *b = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    if (b) b[n] = 0;
    fclose(f);
    return b;
}

static int load(const char *json, const char *name, jg_model_t **m, jg_program_t **p, char *msg, size_t len)
{
    jg_error_t err;
    jg_error_clear(&err);
    if (jg_model_parse(json, name, m, &err) || jg_program_compile(*m, p, &err)) {
        snprintf(msg, len, "%s: %s", name, err.msg);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    opts_t o = {.graphs = "graphs", .states = 1000, .repeat = 5, .max_runs = 100, .min_time = 1, .bstep = 1e-3};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage, stdout);
            return 0;
        }
        if (!v) {
            fprintf(stderr, "bench_sparsing: unknown option or missing value '%s'\n%s", a, usage);
            return 2;
        }
        i++;
        if (!strcmp(a, "--graphs")) o.graphs = v;
        else if (!strcmp(a, "--md")) o.md = v;
        else if (!strcmp(a, "--states")) o.states = atoll(v);
        else if (!strcmp(a, "--repeat")) o.repeat = atoi(v);
        else if (!strcmp(a, "--max-runs")) o.max_runs = atoi(v);
        else if (!strcmp(a, "--min-time")) o.min_time = atof(v);
        else if (!strcmp(a, "--bruss-step")) o.bstep = atof(v);
        else {
            fprintf(stderr, "bench_sparsing: unknown option '%s'\n%s", a, usage);
            return 2;
        }
    }
    if (o.repeat < 1 || o.max_runs < o.repeat || o.max_runs > 1000 || !(o.min_time >= 0) || !(o.bstep > 0)) {
        fprintf(stderr, "bench_sparsing: need 1 <= --repeat <= --max-runs <= 1000, --min-time >= 0, --bruss-step > 0\n");
        return 2;
    }
    char *buf = NULL, msg[1200] = "";
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    if (!out) return 1;
    int rc = 0;

    char host[256];
    jgb_host(host, sizeof host);
    double load1 = 0;
    FILE *la = fopen("/proc/loadavg", "r");
    if (la) {
        if (fscanf(la, "%lf", &load1) != 1) load1 = 0;
        fclose(la);
    }
    fprintf(out,
            "### Sparsing: the linearly implicit Euler step with and without it (`bench_sparsing`, %ld cores, "
            "%s, load %.2f at start)\n\n",
            sysconf(_SC_NPROCESSORS_ONLN), host, load1);
    fprintf(out,
            "Per step: the medians over the runs of the CPU time (wall in parentheses) of jg_sim_run divided by "
            "its steps; the sparsings of one model and method run interleaved, one whole run each per round. "
            "*entries*: entries of J_x computed per Jacobian (of the structural pattern); *f/J*: evaluations of "
            "f per Jacobian, measured (fevals_jac / jevals; 0 for the analytical methods); *colors*: column "
            "groups of the sparse perturbation (with a sparsing, for its kept entries: "
            "jg_solverjac_color_columns_kept); *LU*: nnz(L) + nnz(U) of I - hJ / I - hA at t0 (sparse LU, "
            "jg_sparsing_saving). Accuracy: the largest difference over output points and states, each state "
            "scaled by its largest magnitude, against the unsparsed lie run and against ode15s (rtol 1e-10, "
            "atol 1e-12).\n\n");
    fprintf(out, "| model | Jacobian | sparsing | entries | f/J | colors | LU | runs | us per step CPU (wall) | "
                 "/ none | vs lie | vs ode15s | checks at t0 |\n");
    fprintf(out, "|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|\n");

    /* ---- the pipe */
    char path[1024], mpath[1100];
    snprintf(path, sizeof path, "%s/pipe.json", o.graphs);
    snprintf(mpath, sizeof mpath, "%s/masks/pipe_mask.json", o.graphs);
    jg_model_t *pm = NULL;
    jg_program_t *pp = NULL;
    int64_t *pdrop = NULL, npdrop = 0;
    char *ptext = slurp(path);
    traj_t pref = {0};
    if (!ptext) {
        fprintf(out, "| pipe | | | cannot read %s | | | | | | | | | |\n", path);
        rc = 1;
    } else if (load(ptext, path, &pm, &pp, msg, sizeof msg)) {
        fprintf(out, "| pipe | | | %s | | | | | | | | | |\n", msg);
        rc = 1;
    } else {
        jg_error_t err;
        jg_error_clear(&err);
        if (jg_io_read_mask(mpath, pp, &pdrop, &npdrop, &err)) {
            fprintf(out, "| pipe | | | %s | | | | | | | | | |\n", err.msg);
            rc = 1;
        } else if (reference(&(model_t){"pipe", pp, 1e-3, 10, 0.1}, &pref, msg, sizeof msg)) {
            fprintf(out, "| pipe | | | %s | | | | | | | | | |\n", msg);
            rc = 1;
        } else {
            model_t m = {"pipe (25 states, h = 1e-3, [0, 10])", pp, 1e-3, 10, 0.1};
            static var_t v[3];
            v[0] = (var_t){.name = "none"};
            v[1] = (var_t){.name = "paper's mask", .drop = pdrop, .ndrop = npdrop};
            v[2] = (var_t){.name = "auto", .autof = JG_SPARSING_ENTRIES};
            const jg_solverjac_method_t jms[3] = {JG_SOLVERJAC_SPARSE_ANALYTICAL, JG_SOLVERJAC_SPARSE_PERTURBATION,
                                                  JG_SOLVERJAC_FULL_PERTURBATION};
            for (int k = 0; k < 3; k++) {
                fprintf(stderr, "bench_sparsing: pipe, %s\n", jg_solverjac_method_name(jms[k]));
                rc |= measure(out, &o, &m, jms[k], v, 3, &pref);
            }
            for (int k = 0; k < 3; k++) free(v[k].traj.x);
        }
    }

    /* ---- the Brusselator */
    jg_gen_opts_t go;
    jg_gen_opts_default(&go, JG_GEN_BRUSSELATOR, o.states, 1);
    char *btext = NULL;
    jg_gen_info_t gi;
    jg_error_t gerr;
    jg_model_t *bm = NULL;
    jg_program_t *bp = NULL;
    int64_t *bdrop = NULL;
    traj_t bref = {0};
    char blabel[128];
    if (jg_gen_model(&go, &btext, NULL, &gi, &gerr)) {
        fprintf(out, "| brusselator | | | %s | | | | | | | | | |\n", gerr.msg);
        rc = 1;
    } else if (load(btext, "brusselator", &bm, &bp, msg, sizeof msg)) {
        fprintf(out, "| brusselator | | | %s | | | | | | | | | |\n", msg);
        rc = 1;
    } else {
        /* U(1..M) then V(1..M): drop (k, M + k) and (M + k, k) */
        const int64_t n = jg_program_nstates(bp), M = n / 2;
        bdrop = malloc(sizeof(int64_t) * 4 * (size_t)M);
        for (int64_t k = 0; bdrop && k < M; k++) {
            bdrop[4 * k] = k;
            bdrop[4 * k + 1] = M + k;
            bdrop[4 * k + 2] = M + k;
            bdrop[4 * k + 3] = k;
        }
        snprintf(blabel, sizeof blabel, "Brusselator (%lld states, %lldx%lld, h = %g, [0, 1])", (long long)n,
                 (long long)gi.nx, (long long)gi.ny, o.bstep);
        model_t m = {blabel, bp, o.bstep, 1, 0.05};
        if (!bdrop || reference(&m, &bref, msg, sizeof msg)) {
            fprintf(out, "| brusselator | | | %s | | | | | | | | | |\n", bdrop ? msg : "out of memory");
            rc = 1;
        } else {
            static var_t v[2];
            v[0] = (var_t){.name = "none"};
            v[1] = (var_t){.name = "u-v coupling dropped", .drop = bdrop, .ndrop = 2 * M};
            const jg_solverjac_method_t jms[2] = {JG_SOLVERJAC_SPARSE_ANALYTICAL, JG_SOLVERJAC_SPARSE_PERTURBATION};
            for (int k = 0; k < 2; k++) {
                fprintf(stderr, "bench_sparsing: brusselator, %s\n", jg_solverjac_method_name(jms[k]));
                rc |= measure(out, &o, &m, jms[k], v, 2, &bref);
            }
            for (int k = 0; k < 2; k++) free(v[k].traj.x);
        }
    }
    fprintf(out, "\n");
    fclose(out);
    fputs(buf, stdout);
    if (o.md) {
        FILE *f = fopen(o.md, "w");
        if (!f || fputs(buf, f) < 0 || fclose(f)) {
            fprintf(stderr, "bench_sparsing: cannot write %s\n", o.md);
            rc = 1;
        }
    }
    free(buf);
    free(ptext);
    free(pdrop);
    free(pref.x);
    free(btext);
    free(bdrop);
    free(bref.x);
    jg_program_free(pp);
    jg_model_free(pm);
    jg_program_free(bp);
    jg_model_free(bm);
    return rc;
}
