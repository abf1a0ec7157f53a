/* bench_sim: the simulation kernel's block-diagram overhead.
 *
 *   bench_sim [options]
 *
 * One ODE of N states (default 1,000) on a ring,
 *
 *     x_i' = -a_i x_i + b_i x_{i-1} + c_i sin(x_{i+1}),   i = 1..N (indices mod N),
 *
 * is integrated three ways under the same solver code (jacgraph/solver.h):
 *   hand     a hand-written C right-hand side passed to jg_solver_create;
 *   diagram  the block diagram's right-hand side passed to jg_solver_create,
 *            exactly as lib/sim/simulate.c evaluates it (copy the states into
 *            the work, jg_eval_outputs, jg_eval_derivatives);
 *   kernel   jg_sim_create + jg_sim_run (the simulation kernel itself, no
 *            logger), for reference.
 * The block diagram is generated here as JSON (no external generator) in one of
 * two shapes:
 *   chain    scalar blocks, one section per state: Integrator, Trigonometry
 *            (sin), three Gains and a Sum "-++" -- 6 N real blocks;
 *   vector   the same ODE with width-N signals: one Integrator, two Selectors
 *            (virtual: the shifts i-1 and i+1), one Trigonometry, three
 *            element-wise Gains and a Sum -- 6 real blocks.
 * The Sum adds (0 - a x) + b x_{i-1} + c sin(x_{i+1}) in that order and the
 * hand-written function computes the same expression, so the trajectories
 * agree to the last bit (checked: max |x_diagram - x_hand| / max |x_hand| at
 * the end, and the step and evaluation counts).
 *
 * Per model and solver (ode45 at --rtol, ode4 at --step), the three runs are
 * alternated after one warm-up each, at least --repeat times and more until
 * they took --min-time seconds (at most --max-runs); reported are medians of the
 * time of the step loop, steps/s, right-hand-side evaluations/s and the
 * overhead ratios diagram/hand and kernel/hand as the medians of the ratios
 * within each round (the runs of one round see the same load).  The clock is
 * the process CPU time by default (--clock cpu: the machine is shared, and
 * the wall time counts other processes' turns), or CLOCK_MONOTONIC (--clock
 * wall).  A second table times the right-hand side alone (one evaluation at the
 * initial state, repeated), which isolates the evaluation from the solver's
 * own O(stages N) arithmetic: batches of hand-written and diagram evaluations
 * alternate (which goes first alternates too), the ratio is the median of the
 * rounds' ratios.
 *
 * --profile K evaluates the diagram's right-hand side K times and nothing else
 * timed, for
 *     valgrind --tool=callgrind --toggle-collect=bench_bd_rhs build/benchmarks/bench_sim --profile 200
 * (one evaluation before, outside bench_bd_rhs: the first jg_eval_outputs
 * compiles the evaluation plan; --profile-hand K: the hand-written one, toggle
 * bench_hand_rhs; --profile-kernel K: K fixed steps of the first --solvers in
 * jg_sim_run, toggle bench_kernel_run).
 * --write-model FILE writes the generated JSON (for `jacgraph simulate`).
 * Exit status: 0; 1 when the trajectories disagree beyond --tol; 2 usage or a
 * library error.  See benchmarks/README.md, "Simulation kernel overhead". */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "jacgraph/jacgraph.h"

static const char usage[] =
    "usage: bench_sim [options]\n"
    "\n"
    "  --states N          states of the ODE (default 1000, at least 3)\n"
    "  --models LIST       chain,vector (default both): scalar blocks, or width-N signals\n"
    "  --solvers LIST      ode45,ode4 (default both; any of jg_solver_names())\n"
    "  --tstop T           integrate over [0, T] (default 10)\n"
    "  --rtol R            variable-step relative tolerance (default 1e-6)\n"
    "  --atol A            variable-step absolute tolerance (default 1e-8)\n"
    "  --step H            fixed step (default 0.01)\n"
    "  --repeat N          timed runs per variant, medians reported (default 5)...\n"
    "  --min-time S        ...and more until the runs of a model and solver took S seconds\n"
    "                      (default 1)\n"
    "  --max-runs N        at most N runs per variant (default 1000)\n"
    "  --rhs-time S        seconds for the right-hand-side-only timing (default 0.4)\n"
    "  --clock cpu|wall    process CPU time (default) or wall time (CLOCK_MONOTONIC)\n"
    "  --tol T             agreement tolerance, relative to max |x| (default 1e-8)\n"
    "  --md FILE           also write the markdown tables to FILE\n"
    "  --write-model FILE  write the JSON of the first model of --models and exit\n"
    "  --profile K         evaluate the diagram's right-hand side K times and exit (callgrind)\n"
    "  --profile-hand K    the same with the hand-written right-hand side\n"
    "  --profile-kernel K  K steps of --step with the first of --solvers in jg_sim_run, no\n"
    "                      logger (callgrind: --toggle-collect=bench_kernel_run)\n"
    "\n"
    "Exit status: 0; 1 when hand-written and block-diagram trajectories disagree; 2 usage\n"
    "or library error.\n";

/* ----------------------------------------------------------- the ODE */

typedef struct {
    int64_t n;
    double *a, *b, *c;
} ode_t;

/* Parameters: deterministic, a in [0.01, 0.06), b in [-1.2, -0.8), c in
 * [0.8, 1.2): near x = 0 the ring is a lightly damped central-difference
 * advection (eigenvalues -a + (b + c) cos(th) + i (c - b) sin(th), up to about
 * 2.4 rad/s), so the states keep oscillating over the whole run and ode45's
 * steps are set by its error control, not by the maximum step. */
static double par_a(int64_t i) { return 0.01 + 0.05 * (double)((i * 7919) % 1000) / 1000.0; }
static double par_b(int64_t i) { return -1.2 + 0.4 * (double)((i * 104729) % 1000) / 1000.0; }
static double par_c(int64_t i) { return 0.8 + 0.4 * (double)((i * 1299709) % 1000) / 1000.0; }
static double par_x0(int64_t i) { return sin(0.37 * (double)i) + 0.5 * cos(0.11 * (double)i); }

static int ode_init(ode_t *o, int64_t n)
{
    o->n = n;
    o->a = malloc(sizeof(double) * (size_t)n);
    o->b = malloc(sizeof(double) * (size_t)n);
    o->c = malloc(sizeof(double) * (size_t)n);
    if (!o->a || !o->b || !o->c) return -1;
    for (int64_t i = 0; i < n; i++) {
        o->a[i] = par_a(i);
        o->b[i] = par_b(i);
        o->c[i] = par_c(i);
    }
    return 0;
}

static void ode_free(ode_t *o)
{
    free(o->a);
    free(o->b);
    free(o->c);
}

/* The hand-written right-hand side: the Sum block's order of operations,
 * ((0 - a x_i) + b x_{i-1}) + c sin(x_{i+1}), without the 0. */
__attribute__((noinline)) int bench_hand_rhs(double t, const double *x, double *dx, void *user)
{
    (void)t;
    const ode_t *o = user;
    const int64_t n = o->n;
    const double *a = o->a, *b = o->b, *c = o->c;
    dx[0] = (-(a[0] * x[0]) + b[0] * x[n - 1]) + c[0] * sin(x[1]);
    for (int64_t i = 1; i < n - 1; i++)
        dx[i] = (-(a[i] * x[i]) + b[i] * x[i - 1]) + c[i] * sin(x[i + 1]);
    dx[n - 1] = (-(a[n - 1] * x[n - 1]) + b[n - 1] * x[n - 2]) + c[n - 1] * sin(x[0]);
    return 0;
}

/* The block diagram's right-hand side, as lib/sim/simulate.c's rhs(). */
typedef struct {
    jg_eval_work_t *w;
    int64_t n;
    jg_error_t *err;
} bd_t;

__attribute__((noinline)) int bench_bd_rhs(double t, const double *x, double *dx, void *user)
{
    bd_t *d = user;
    memcpy(jg_eval_states(d->w), x, sizeof(double) * (size_t)d->n);
    if (jg_eval_outputs(d->w, t, d->err)) return -1;
    return jg_eval_derivatives(d->w, dx, d->err) ? -1 : 0;
}

/* ----------------------------------------------------- the JSON model */

typedef struct {
    char *s;
    size_t len, cap;
    int fail;
} buf_t;

__attribute__((format(printf, 2, 3))) static void bput(buf_t *b, const char *fmt, ...)
{
    if (b->fail) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            b->fail = 1;
            return;
        }
        if (b->s && b->len + (size_t)k < b->cap) {
            b->len += (size_t)k;
            return;
        }
        size_t cap = b->cap ? b->cap : 1 << 16;
        while (cap <= b->len + (size_t)k) cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->fail = 1;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
}

/* A list of the values f(0..n-1), %.17g: strtod gives back the same doubles. */
static void bput_vec(buf_t *b, int64_t n, double (*f)(int64_t), int64_t shift)
{
    bput(b, "[");
    for (int64_t i = 0; i < n; i++) bput(b, "%s%.17g", i ? ", " : "", f(i + shift));
    bput(b, "]");
}

/* Section i of the scalar chain: I<i> (the state), T<i> = sin(x_{i+1}),
 * A<i> = a x_i, B<i> = b x_{i-1}, C<i> = c T<i>, S<i> = -A + B + C -> I<i>. */
static char *model_chain(int64_t n)
{
    buf_t b = {0};
    bput(&b, "{\n  \"name\": \"chain%lld\",\n", (long long)n);
    bput(&b, "  \"description\": \"bench_sim: x_i' = -a_i x_i + b_i x_{i-1} + c_i sin(x_{i+1}) "
             "on a ring, scalar blocks\",\n  \"blocks\": [\n");
    for (int64_t i = 0; i < n; i++) {
        long long k = (long long)i + 1;
        bput(&b, "    {\"name\": \"I%lld\", \"type\": \"Integrator\", \"InitialCondition\": %.17g},\n", k,
             par_x0(i));
        bput(&b, "    {\"name\": \"T%lld\", \"type\": \"Trigonometry\", \"Operator\": \"sin\"},\n", k);
        bput(&b, "    {\"name\": \"A%lld\", \"type\": \"Gain\", \"Gain\": %.17g},\n", k, par_a(i));
        bput(&b, "    {\"name\": \"B%lld\", \"type\": \"Gain\", \"Gain\": %.17g},\n", k, par_b(i));
        bput(&b, "    {\"name\": \"C%lld\", \"type\": \"Gain\", \"Gain\": %.17g},\n", k, par_c(i));
        bput(&b, "    {\"name\": \"S%lld\", \"type\": \"Sum\", \"Inputs\": \"-++\"}%s\n", k,
             i + 1 < n ? "," : "");
    }
    bput(&b, "  ],\n  \"lines\": [\n");
    for (int64_t i = 0; i < n; i++) {
        long long k = (long long)i + 1, prev = (long long)((i + n - 1) % n) + 1,
                  next = (long long)((i + 1) % n) + 1;
        /* I<k> drives A<k>, B<next> (its x_{i-1}) and T<prev> (its x_{i+1}) */
        bput(&b, "    {\"src\": \"I%lld:1\", \"dst\": [\"A%lld:1\", \"B%lld:1\", \"T%lld:1\"]},\n", k, k,
             next, prev);
        bput(&b, "    {\"src\": \"T%lld:1\", \"dst\": \"C%lld:1\"},\n", k, k);
        bput(&b, "    {\"src\": \"A%lld:1\", \"dst\": \"S%lld:1\"},\n", k, k);
        bput(&b, "    {\"src\": \"B%lld:1\", \"dst\": \"S%lld:2\"},\n", k, k);
        bput(&b, "    {\"src\": \"C%lld:1\", \"dst\": \"S%lld:3\"},\n", k, k);
        bput(&b, "    {\"src\": \"S%lld:1\", \"dst\": \"I%lld:1\"}%s\n", k, k, i + 1 < n ? "," : "");
    }
    bput(&b, "  ]\n}\n");
    if (b.fail) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

static double idx_prev(int64_t i) { return (double)i; }       /* 1-based i-1, i = 1..n-1; 0 -> n */
static double idx_next(int64_t i) { return (double)(i + 2); } /* 1-based i+1 */

/* The vector shape: the same arithmetic element by element. */
static char *model_vector(int64_t n)
{
    buf_t b = {0};
    bput(&b, "{\n  \"name\": \"vector%lld\",\n", (long long)n);
    bput(&b, "  \"description\": \"bench_sim: x_i' = -a_i x_i + b_i x_{i-1} + c_i sin(x_{i+1}) "
             "on a ring, width-%lld signals\",\n  \"blocks\": [\n", (long long)n);
    bput(&b, "    {\"name\": \"I\", \"type\": \"Integrator\", \"InitialCondition\": ");
    bput_vec(&b, n, par_x0, 0);
    bput(&b, "},\n    {\"name\": \"Prev\", \"type\": \"Selector\", \"InputPortWidth\": %lld, \"Indices\": [%lld",
         (long long)n, (long long)n);
    for (int64_t i = 1; i < n; i++) bput(&b, ", %.0f", idx_prev(i));
    bput(&b, "]},\n    {\"name\": \"Next\", \"type\": \"Selector\", \"InputPortWidth\": %lld, \"Indices\": [",
         (long long)n);
    for (int64_t i = 0; i + 1 < n; i++) bput(&b, "%.0f, ", idx_next(i));
    bput(&b, "1]},\n");
    bput(&b, "    {\"name\": \"T\", \"type\": \"Trigonometry\", \"Operator\": \"sin\"},\n");
    bput(&b, "    {\"name\": \"A\", \"type\": \"Gain\", \"Gain\": ");
    bput_vec(&b, n, par_a, 0);
    bput(&b, "},\n    {\"name\": \"B\", \"type\": \"Gain\", \"Gain\": ");
    bput_vec(&b, n, par_b, 0);
    bput(&b, "},\n    {\"name\": \"C\", \"type\": \"Gain\", \"Gain\": ");
    bput_vec(&b, n, par_c, 0);
    bput(&b, "},\n    {\"name\": \"S\", \"type\": \"Sum\", \"Inputs\": \"-++\"}\n  ],\n");
    bput(&b, "  \"lines\": [\n"
             "    {\"src\": \"I:1\", \"dst\": [\"A:1\", \"Prev:1\", \"Next:1\"]},\n"
             "    {\"src\": \"Prev:1\", \"dst\": \"B:1\"},\n"
             "    {\"src\": \"Next:1\", \"dst\": \"T:1\"},\n"
             "    {\"src\": \"T:1\", \"dst\": \"C:1\"},\n"
             "    {\"src\": \"A:1\", \"dst\": \"S:1\"},\n"
             "    {\"src\": \"B:1\", \"dst\": \"S:2\"},\n"
             "    {\"src\": \"C:1\", \"dst\": \"S:3\"},\n"
             "    {\"src\": \"S:1\", \"dst\": \"I:1\"}\n  ]\n}\n");
    if (b.fail) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

/* ---------------------------------------------------------- measuring */

static clockid_t clock_id = CLOCK_PROCESS_CPUTIME_ID;   /* --clock */

static double now(void)
{
    struct timespec ts;
    clock_gettime(clock_id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef struct {
    double secs;
    jg_solver_stats_t st;
} run_t;

/* Integrate x' = f over [0, tstop] from x0 with solver `name`; the final
 * state goes to xend.  Times the step loop (init included: O(N), no f). */
static jg_status_t run_solver(const char *name, int64_t n, jg_rhs_fn f, void *user,
                              const jg_solver_opts_t *so, const double *x0, double tstop,
                              double *xend, run_t *r, jg_error_t *err)
{
    jg_solver_t *s = NULL;
    jg_status_t st = jg_solver_create((jg_solver_method_t)jg_solver_method_parse(name), n, f, user, so, &s, err);
    if (st) return st;
    double t = 0, t1 = now();
    st = jg_solver_init(s, 0, x0, tstop, err);
    while (!st && t < tstop) st = jg_solver_step(s, INFINITY, &t, xend, err);
    r->secs = now() - t1;
    jg_solver_get_stats(s, &r->st);
    jg_solver_free(s);
    return st;
}

/* The kernel: jg_sim_run without a logger (jg_sim_create is not timed). */
static jg_status_t run_kernel(const jg_program_t *p, const char *name, const jg_solver_opts_t *so,
                              double tstop, double *xend, run_t *r, jg_error_t *err)
{
    jg_sim_opts_t o;
    memset(&o, 0, sizeof o);
    o.solver = (jg_solver_method_t)jg_solver_method_parse(name);
    o.t0 = 0;
    o.tstop = tstop;
    o.so = *so;
    jg_sim_t *s = NULL;
    jg_status_t st = jg_sim_create(p, &o, &s, err);
    if (st) return st;
    double t1 = now();
    st = jg_sim_run(s, tstop, NULL, NULL, err);
    r->secs = now() - t1;
    jg_sim_stats_t ss;
    jg_sim_stats(s, &ss);
    r->st = ss.solver;
    memcpy(xend, jg_sim_states(s), sizeof(double) * (size_t)jg_program_nstates(p));
    jg_sim_free(s);
    return st;
}

/* max_i |x_i - y_i| / max_i |y_i| */
static double rel_diff(const double *x, const double *y, int64_t n)
{
    double d = 0, m = 0;
    for (int64_t i = 0; i < n; i++) {
        d = fmax(d, fabs(x[i] - y[i]));
        m = fmax(m, fabs(y[i]));
    }
    return m > 0 ? d / m : d;
}

/* Seconds per evaluation of f1 and of f2 at x0, and the ratio f2 / f1:
 * batches of k evaluations of each in turn (the first of a round alternates)
 * until `budget` seconds, at least 11 rounds; medians over the rounds, the
 * ratio the median of the rounds' ratios. */
static void time_rhs_pair(jg_rhs_fn f1, void *u1, jg_rhs_fn f2, void *u2, int64_t n,
                          const double *x0, double budget, double *t1, double *t2, double *ratio)
{
    double *dx = malloc(sizeof(double) * (size_t)n);
    *t1 = *t2 = *ratio = NAN;
    if (!dx) return;
    f1(0, x0, dx, u1);   /* warm */
    f2(0, x0, dx, u2);
    int k = 1;
    double s0 = now();
    while (now() - s0 < budget / 100 && k < (1 << 24)) {
        for (int j = 0; j < k; j++) f1(0, x0, dx, u1);
        k *= 2;
    }
    enum { MAXR = 201 };
    double p1[MAXR], p2[MAXR], pr[MAXR];
    int nr = 0;
    s0 = now();
    while (nr < MAXR && (nr < 11 || now() - s0 < budget)) {
        double a, b, c;
        if (nr % 2 == 0) {
            a = now();
            for (int j = 0; j < k; j++) f1(0, x0, dx, u1);
            b = now();
            for (int j = 0; j < k; j++) f2(0, x0, dx, u2);
            c = now();
            p1[nr] = (b - a) / k;
            p2[nr] = (c - b) / k;
        } else {
            a = now();
            for (int j = 0; j < k; j++) f2(0, x0, dx, u2);
            b = now();
            for (int j = 0; j < k; j++) f1(0, x0, dx, u1);
            c = now();
            p2[nr] = (b - a) / k;
            p1[nr] = (c - b) / k;
        }
        pr[nr] = p2[nr] / p1[nr];
        nr++;
    }
    free(dx);
    *t1 = median(p1, nr);
    *t2 = median(p2, nr);
    *ratio = median(pr, nr);
}

/* ------------------------------------------------------------ one model */

typedef struct {
    const char *model, *solver;
    int32_t nblocks, nreal;
    long steps, rejected, fevals;
    int runs;
    double hand, diagram, kernel;   /* median seconds */
    double r_diagram, r_kernel;     /* medians of the rounds' ratios to hand */
    double diff_diagram, diff_kernel;
    int counts_equal;
} row_t;

typedef struct {
    const char *model;
    int32_t nblocks, nreal;
    double hand, diagram;           /* seconds per evaluation */
    double ratio;                   /* median of the rounds' diagram / hand */
    double diff;                    /* max |dx_diagram - dx_hand| / max |dx_hand| */
} rhs_row_t;

typedef struct {
    int64_t n;
    double tstop, rtol, atol, step, tol, rhs_time, min_time;
    int repeat, max_runs;
} cfg_t;

static char *make_model(const char *kind, int64_t n)
{
    if (!strcmp(kind, "chain")) return model_chain(n);
    if (!strcmp(kind, "vector")) return model_vector(n);
    return NULL;
}

static jg_status_t load_program(const char *kind, int64_t n, jg_program_t **p, jg_error_t *err)
{
    char *json = make_model(kind, n);
    if (!json) return jg_error_set(err, JG_NOMEM, "cannot generate the %s model", kind);
    jg_model_t *m = NULL;
    jg_status_t st = jg_model_parse(json, kind, &m, err);
    free(json);
    if (!st) st = jg_program_compile(m, p, err);
    jg_model_free(m);
    if (!st && jg_program_nstates(*p) != n)
        st = jg_error_set(err, JG_INTERNAL, "%s model has %lld states, expected %lld", kind,
                          (long long)jg_program_nstates(*p), (long long)n);
    return st;
}

static jg_status_t measure_model(const char *kind, const cfg_t *c, char **solvers, int nsolvers,
                                 row_t *rows, rhs_row_t *rr, jg_error_t *err)
{
    const int64_t n = c->n;
    ode_t ode;
    jg_program_t *p = NULL;
    jg_eval_work_t *w = NULL;
    double *x0 = malloc(sizeof(double) * (size_t)n), *xh = malloc(sizeof(double) * (size_t)n),
           *xd = malloc(sizeof(double) * (size_t)n), *xk = malloc(sizeof(double) * (size_t)n);
    double *th = malloc(sizeof(double) * (size_t)c->max_runs),
           *td = malloc(sizeof(double) * (size_t)c->max_runs),
           *tk = malloc(sizeof(double) * (size_t)c->max_runs),
           *rd_ = malloc(sizeof(double) * (size_t)c->max_runs),
           *rk_ = malloc(sizeof(double) * (size_t)c->max_runs);
    jg_status_t st = JG_OK;
    if (ode_init(&ode, n) || !x0 || !xh || !xd || !xk || !th || !td || !tk || !rd_ || !rk_) {
        st = jg_error_set(err, JG_NOMEM, "out of memory");
        goto done;
    }
    if ((st = load_program(kind, n, &p, err))) goto done;
    if ((st = jg_eval_create(p, &w, err))) goto done;
    if ((st = jg_program_initial_states(p, x0, err))) goto done;
    for (int64_t i = 0; i < n; i++)
        if (x0[i] != par_x0(i)) {
            st = jg_error_set(err, JG_INTERNAL, "initial state %lld differs from the JSON", (long long)i);
            goto done;
        }
    bd_t bd = {w, n, err};

    /* the right-hand side alone, and whether the two agree at x0 */
    rr->model = kind;
    rr->nblocks = jg_program_nblocks(p);
    rr->nreal = jg_program_nreal(p);
    bench_hand_rhs(0, x0, xh, &ode);
    if (bench_bd_rhs(0, x0, xd, &bd)) {
        st = err->status ? err->status : JG_NUMERIC;
        goto done;
    }
    rr->diff = rel_diff(xd, xh, n);
    time_rhs_pair(bench_hand_rhs, &ode, bench_bd_rhs, &bd, n, x0, c->rhs_time, &rr->hand,
                  &rr->diagram, &rr->ratio);

    for (int s = 0; s < nsolvers; s++) {
        row_t *r = &rows[s];
        memset(r, 0, sizeof *r);
        r->model = kind;
        r->solver = solvers[s];
        r->nblocks = rr->nblocks;
        r->nreal = rr->nreal;
        jg_solver_opts_t so = {0};
        so.rtol = c->rtol;
        so.atol = c->atol;
        so.fixed_step = c->step;
        run_t rh, rd, rk;
        r->counts_equal = 1;
        /* rounds of hand, diagram, kernel: k = -1 warms up; then at least
         * --repeat rounds, and more (up to --max-runs) until they took --min-time */
        double spent = 0;
        int k;
        for (k = -1; k < c->max_runs && (k < c->repeat || spent < c->min_time); k++) {
            if ((st = run_solver(solvers[s], n, bench_hand_rhs, &ode, &so, x0, c->tstop, xh, &rh, err)))
                goto done;
            if ((st = run_solver(solvers[s], n, bench_bd_rhs, &bd, &so, x0, c->tstop, xd, &rd, err)))
                goto done;
            if ((st = run_kernel(p, solvers[s], &so, c->tstop, xk, &rk, err))) goto done;
            if (k < 0) continue;
            spent += rh.secs + rd.secs + rk.secs;
            th[k] = rh.secs;
            td[k] = rd.secs;
            tk[k] = rk.secs;
            rd_[k] = rd.secs / rh.secs;
            rk_[k] = rk.secs / rh.secs;
            r->diff_diagram = fmax(r->diff_diagram, rel_diff(xd, xh, n));
            r->diff_kernel = fmax(r->diff_kernel, rel_diff(xk, xh, n));
            if (rd.st.steps != rh.st.steps || rd.st.fevals != rh.st.fevals ||
                rk.st.steps != rh.st.steps || rk.st.fevals != rh.st.fevals)
                r->counts_equal = 0;
        }
        r->steps = rh.st.steps;
        r->rejected = rh.st.rejected;
        r->fevals = rh.st.fevals;
        r->runs = k;
        r->hand = median(th, k);
        r->diagram = median(td, k);
        r->kernel = median(tk, k);
        r->r_diagram = median(rd_, k);
        r->r_kernel = median(rk_, k);
    }
done:
    jg_eval_free(w);
    jg_program_free(p);
    ode_free(&ode);
    free(x0);
    free(xh);
    free(xd);
    free(xk);
    free(th);
    free(td);
    free(tk);
    free(rd_);
    free(rk_);
    return st;
}

/* --------------------------------------------------------------- report */

static void report(FILE *f, const cfg_t *c, const row_t *rows, int nrows, const rhs_row_t *rr,
                   int nrr)
{
    fprintf(f, "### Simulation kernel overhead: %lld states, t in [0, %g]\n\n", (long long)c->n,
            c->tstop);
    fprintf(f, "ode45: rtol %g, atol %g; fixed-step solvers: step %g.  hand = hand-written C "
               "right-hand side, diagram = the block diagram's (jg_eval_outputs + "
               "jg_eval_derivatives), both under jg_solver_step; kernel = jg_sim_run.  Medians of "
               "at least %d runs of each, alternated, more (up to %d) until they took %g s "
               "(column runs); %s time; the ratios are the medians of each round's ratios.\n\n",
            c->rtol, c->atol, c->step, c->repeat, c->max_runs, c->min_time,
            clock_id == CLOCK_MONOTONIC ? "wall (CLOCK_MONOTONIC)" : "process CPU");
    fprintf(f, "| model | blocks (real) | solver | runs | steps (rejected) | f evals | hand ms | diagram ms "
               "| kernel ms | hand steps/s, f/s | diagram steps/s, f/s | kernel steps/s, f/s "
               "| **diagram/hand** | kernel/hand | max rel diff diagram, kernel |\n");
    fprintf(f, "|---|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
    for (int i = 0; i < nrows; i++) {
        const row_t *r = &rows[i];
        fprintf(f,
                "| %s | %d (%d) | %s | %d | %ld (%ld) | %ld | %.2f | %.2f | %.2f | %.3g, %.3g | %.3g, %.3g "
                "| %.3g, %.3g | **%.2f** | %.2f | %.1e, %.1e%s |\n",
                r->model, r->nblocks, r->nreal, r->solver, r->runs, r->steps, r->rejected, r->fevals,
                1e3 * r->hand, 1e3 * r->diagram, 1e3 * r->kernel, r->steps / r->hand,
                r->fevals / r->hand, r->steps / r->diagram, r->fevals / r->diagram,
                r->steps / r->kernel, r->fevals / r->kernel, r->r_diagram, r->r_kernel,
                r->diff_diagram, r->diff_kernel,
                r->counts_equal ? "" : " (step counts differ)");
    }
    fprintf(f, "\nThe right-hand side alone (one evaluation at x0; batches of hand and diagram "
               "alternated, medians; the ratio is the median of the rounds' ratios):\n\n");
    fprintf(f, "| model | blocks (real) | hand us/eval | diagram us/eval | **diagram/hand** | "
               "diagram ns per real block | max rel diff of dx |\n");
    fprintf(f, "|---|--:|--:|--:|--:|--:|--:|\n");
    for (int i = 0; i < nrr; i++)
        fprintf(f, "| %s | %d (%d) | %.2f | %.2f | **%.2f** | %.1f | %.1e |\n", rr[i].model,
                rr[i].nblocks, rr[i].nreal, 1e6 * rr[i].hand, 1e6 * rr[i].diagram,
                rr[i].ratio, 1e9 * rr[i].diagram / rr[i].nreal, rr[i].diff);
    fprintf(f, "\n");
}

/* ----------------------------------------------------------------- main */

static int split(char *s, char **out, int max)
{
    int n = 0;
    for (char *t = strtok(s, ","); t && n < max; t = strtok(NULL, ",")) out[n++] = t;
    return n;
}

static int profile(const char *kind, int64_t n, long k, int hand)
{
    jg_error_t err = {0};
    jg_program_t *p = NULL;
    jg_eval_work_t *w = NULL;
    ode_t ode;
    double *x0 = malloc(sizeof(double) * (size_t)n), *dx = malloc(sizeof(double) * (size_t)n);
    if (!x0 || !dx || ode_init(&ode, n)) return 2;
    if (load_program(kind, n, &p, &err) || jg_eval_create(p, &w, &err) ||
        jg_program_initial_states(p, x0, &err)) {
        fprintf(stderr, "bench_sim: %s\n", err.msg);
        return 2;
    }
    bd_t bd = {w, n, &err};
    double sum = 0;
    /* the first evaluation builds the plan (lib/eval): not what is profiled */
    if (!hand && jg_eval_outputs(w, 0, &err)) {
        fprintf(stderr, "bench_sim: %s\n", err.msg);
        return 2;
    }
    for (long j = 0; j < k; j++) {
        x0[j % n] += 1e-9;   /* a different point each time, as in a run */
        if (hand ? bench_hand_rhs(0, x0, dx, &ode) : bench_bd_rhs(0, x0, dx, &bd)) {
            fprintf(stderr, "bench_sim: %s\n", err.msg);
            return 2;
        }
        sum += dx[j % n];
    }
    printf("%s right-hand side of the %s model evaluated %ld times (checksum %.6g)\n",
           hand ? "hand-written" : "block-diagram", kind, k, sum);
    jg_eval_free(w);
    jg_program_free(p);
    ode_free(&ode);
    free(x0);
    free(dx);
    return 0;
}

__attribute__((noinline)) jg_status_t bench_kernel_run(jg_sim_t *s, double tstop, jg_error_t *err)
{
    return jg_sim_run(s, tstop, NULL, NULL, err);
}

/* --profile-kernel: K fixed steps in jg_sim_run (jg_sim_create outside). */
static int profile_kernel(const char *kind, int64_t n, long k, const char *solver, double step)
{
    jg_error_t err = {0};
    jg_program_t *p = NULL;
    jg_sim_t *s = NULL;
    jg_sim_opts_t o;
    memset(&o, 0, sizeof o);
    o.solver = (jg_solver_method_t)jg_solver_method_parse(solver);
    o.tstop = (double)k * step;
    o.so.fixed_step = step;
    if (load_program(kind, n, &p, &err) || jg_sim_create(p, &o, &s, &err) ||
        bench_kernel_run(s, o.tstop, &err)) {
        fprintf(stderr, "bench_sim: %s\n", err.msg);
        return 2;
    }
    jg_sim_stats_t ss;
    jg_sim_stats(s, &ss);
    printf("jg_sim_run of the %s model with %s: %lld steps, %lld evaluations\n", kind, solver,
           (long long)ss.solver.steps, (long long)ss.solver.fevals);
    jg_sim_free(s);
    jg_program_free(p);
    return 0;
}

int main(int argc, char **argv)
{
    cfg_t c = {.n = 1000, .tstop = 10, .rtol = 1e-6, .atol = 1e-8, .step = 0.01, .tol = 1e-8,
               .rhs_time = 0.4, .min_time = 1, .repeat = 5, .max_runs = 1000};
    char models_arg[256] = "chain,vector", solvers_arg[256] = "ode45,ode4";
    const char *md = NULL, *write_model = NULL;
    long prof = 0, prof_kernel = 0;
    int prof_hand = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = 1;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage, stdout);
            return 0;
        }
        if (!v) takes = 0;
        else if (!strcmp(a, "--states")) c.n = atoll(v);
        else if (!strcmp(a, "--models")) snprintf(models_arg, sizeof models_arg, "%s", v);
        else if (!strcmp(a, "--solvers")) snprintf(solvers_arg, sizeof solvers_arg, "%s", v);
        else if (!strcmp(a, "--tstop")) c.tstop = atof(v);
        else if (!strcmp(a, "--rtol")) c.rtol = atof(v);
        else if (!strcmp(a, "--atol")) c.atol = atof(v);
        else if (!strcmp(a, "--step")) c.step = atof(v);
        else if (!strcmp(a, "--repeat")) c.repeat = atoi(v);
        else if (!strcmp(a, "--min-time")) c.min_time = atof(v);
        else if (!strcmp(a, "--max-runs")) c.max_runs = atoi(v);
        else if (!strcmp(a, "--rhs-time")) c.rhs_time = atof(v);
        else if (!strcmp(a, "--tol")) c.tol = atof(v);
        else if (!strcmp(a, "--md")) md = v;
        else if (!strcmp(a, "--clock") && (!strcmp(v, "cpu") || !strcmp(v, "wall")))
            clock_id = !strcmp(v, "wall") ? CLOCK_MONOTONIC : CLOCK_PROCESS_CPUTIME_ID;
        else if (!strcmp(a, "--write-model")) write_model = v;
        else if (!strcmp(a, "--profile")) prof = atol(v);
        else if (!strcmp(a, "--profile-hand")) prof = atol(v), prof_hand = 1;
        else if (!strcmp(a, "--profile-kernel")) prof_kernel = atol(v);
        else takes = 0;
        if (!takes) {
            fprintf(stderr, "bench_sim: unknown option or missing value: %s\n%s", a, usage);
            return 2;
        }
        i++;
    }
    if (c.max_runs < c.repeat) c.max_runs = c.repeat;
    if (c.n < 3 || c.repeat < 1 || !(c.tstop > 0) || !(c.step > 0) || !(c.rhs_time > 0)) {
        fprintf(stderr, "bench_sim: need --states >= 3, --repeat >= 1, positive --tstop, --step, --rhs-time\n");
        return 2;
    }
    char *models[8], *solvers[16];
    int nm = split(models_arg, models, 8), ns = split(solvers_arg, solvers, 16);
    for (int i = 0; i < nm; i++)
        if (strcmp(models[i], "chain") && strcmp(models[i], "vector")) {
            fprintf(stderr, "bench_sim: unknown model '%s' (chain, vector)\n", models[i]);
            return 2;
        }
    if (!nm || !ns) {
        fprintf(stderr, "bench_sim: empty --models or --solvers\n");
        return 2;
    }
    if (prof > 0) return profile(models[0], c.n, prof, prof_hand);
    if (prof_kernel > 0) return profile_kernel(models[0], c.n, prof_kernel, solvers[0], c.step);
    if (write_model) {
        char *json = make_model(models[0], c.n);
        FILE *f = json ? fopen(write_model, "w") : NULL;
        if (!f || fputs(json, f) < 0 || fclose(f)) {
            fprintf(stderr, "bench_sim: cannot write %s\n", write_model);
            return 2;
        }
        free(json);
        return 0;
    }

    row_t *rows = calloc((size_t)(nm * ns), sizeof *rows);
    rhs_row_t *rr = calloc((size_t)nm, sizeof *rr);
    if (!rows || !rr) return 2;
    jg_error_t err = {0};
    for (int i = 0; i < nm; i++) {
        jg_status_t st = measure_model(models[i], &c, solvers, ns, rows + i * ns, rr + i, &err);
        if (st) {
            fprintf(stderr, "bench_sim: %s model: %s\n", models[i], err.msg[0] ? err.msg : jg_strerror(st));
            return 2;
        }
    }
    report(stdout, &c, rows, nm * ns, rr, nm);
    if (md) {
        FILE *f = fopen(md, "w");
        if (!f) {
            fprintf(stderr, "bench_sim: cannot write %s\n", md);
            return 2;
        }
        report(f, &c, rows, nm * ns, rr, nm);
        fclose(f);
    }
    int bad = 0;
    for (int i = 0; i < nm * ns; i++)
        if (!(rows[i].diff_diagram <= c.tol) || !(rows[i].diff_kernel <= c.tol) ||
            !rows[i].counts_equal) {
            fprintf(stderr, "bench_sim: %s/%s: hand-written and block-diagram runs disagree "
                            "(%.3g, %.3g relative, tolerance %.3g%s)\n",
                    rows[i].model, rows[i].solver, rows[i].diff_diagram, rows[i].diff_kernel, c.tol,
                    rows[i].counts_equal ? "" : "; step counts differ");
            bad = 1;
        }
    for (int i = 0; i < nm; i++)
        if (!(rr[i].diff <= c.tol)) {
            fprintf(stderr, "bench_sim: %s: right-hand sides differ at x0 (%.3g relative)\n",
                    rr[i].model, rr[i].diff);
            bad = 1;
        }
    free(rows);
    free(rr);
    return bad;
}
