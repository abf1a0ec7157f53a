/* Simulation kernel (continuous): exact solutions, output points, snapshot
 * linearization of Van der Pol against its analytic Jacobian, bad options. */
#include <stdlib.h>
#include <string.h>
#include "jacgraph/jacgraph.h"
#include "tap.h"

static const double PI = 3.14159265358979323846;

/* x'' = -x: two integrators and a gain, x(0) = 1, x'(0) = 0, so x = cos t. */
static const char osc[] =
    "{\"name\":\"osc\",\"blocks\":["
    "{\"name\":\"v\",\"type\":\"Integrator\",\"InitialCondition\":0},"
    "{\"name\":\"x\",\"type\":\"Integrator\",\"InitialCondition\":1},"
    "{\"name\":\"K\",\"type\":\"Gain\",\"Gain\":-1},"
    "{\"name\":\"Out1\",\"type\":\"Outport\",\"Port\":1}],"
    "\"lines\":[{\"src\":\"v:1\",\"dst\":\"x:1\"},{\"src\":\"x:1\",\"dst\":[\"K:1\",\"Out1:1\"]},"
    "{\"src\":\"K:1\",\"dst\":\"v:1\"}]}";

static const char vdp[] =
    "{\"name\":\"vdp\",\"parameters\":{\"mu\":1},\"blocks\":["
    "{\"name\":\"x1\",\"type\":\"Integrator\",\"InitialCondition\":2},"
    "{\"name\":\"x2\",\"type\":\"Integrator\",\"InitialCondition\":0},"
    "{\"name\":\"F\",\"type\":\"Fcn\",\"Expr\":\"mu*(1-u(1)^2)*u(2)-u(1)\"},"
    "{\"name\":\"M\",\"type\":\"Mux\",\"Inputs\":2}],"
    "\"lines\":[{\"src\":\"x2:1\",\"dst\":[\"x1:1\",\"M:2\"]},{\"src\":\"x1:1\",\"dst\":\"M:1\"},"
    "{\"src\":\"M:1\",\"dst\":\"F:1\"},{\"src\":\"F:1\",\"dst\":\"x2:1\"}]}";

typedef struct {
    int n;
    double worst, tlast, spacing_err;
} logchk_t;

static int check_cos(double t, const double *x, const double *sig, void *user)
{
    logchk_t *c = user;
    c->worst = fmax(c->worst, fabs(x[1] - cos(t)));
    c->worst = fmax(c->worst, fabs(sig[0] - cos(t)));
    if (c->n) c->spacing_err = fmax(c->spacing_err, fabs((t - c->tlast) - 0.1));
    c->tlast = t;
    c->n++;
    return 0;
}

static jg_program_t *compile(const char *json, jg_model_t **m)
{
    jg_program_t *p = NULL;
    jg_error_t err;
    if (jg_model_parse(json, "<test>", m, &err) || jg_program_compile(*m, &p, &err)) {
        printf("# %s\n", err.msg);
        return NULL;
    }
    return p;
}

static void test_oscillator(void)
{
    jg_model_t *m;
    jg_program_t *p = compile(osc, &m);
    const char *solvers[] = {"ode45", "ode23", "ode4", "ode5"};
    for (int k = 0; k < 4; k++) {
        jg_sim_opts_t o = {.solver = (jg_solver_method_t)jg_solver_method_parse(solvers[k]), .t0 = 0, .tstop = 2 * PI, .out_step = 0.1};
        o.so.rtol = 1e-8;
        o.so.atol = 1e-10;
        o.so.fixed_step = 0.01;
        jg_sim_t *s = NULL;
        jg_error_t err;
        logchk_t c = {0};
        jg_status_t st = jg_sim_create(p, &o, &s, &err);
        if (!st) st = jg_sim_run(s, o.tstop, check_cos, &c, &err);
        double tol = !strcmp(solvers[k], "ode23") ? 1e-6 : 1e-7;
        tap_ok(!st && c.worst < tol && c.n == 63 && c.spacing_err < 1e-12 &&
                   fabs(jg_sim_time(s) - 2 * PI) < 1e-12,
               "%s: x'' = -x follows cos t (max error %.1e over %d output points)", solvers[k],
               c.worst, c.n);
        jg_sim_free(s);
    }
    jg_program_free(p);
    jg_model_free(m);
}

/* Van der Pol simulated to snapshots and linearized there: the graph's A must
 * be the analytic Jacobian at the simulated state. */
static void test_snapshots(void)
{
    jg_model_t *m;
    jg_program_t *p = compile(vdp, &m);
    jg_sim_opts_t o = {.solver = JG_SOLVER_ODE45, .t0 = 0, .tstop = 10};
    o.so.rtol = 1e-9;
    o.so.atol = 1e-12;
    jg_sim_t *s = NULL;
    jg_lin_t *l = NULL;
    jg_error_t err;
    jg_status_t st = jg_sim_create(p, &o, &s, &err);
    if (!st) st = jg_lin_create(p, NULL, &l, &err);
    const double at[] = {0.5, 2, 3.7, 10};
    for (int k = 0; !st && k < 4; k++) {
        st = jg_sim_run(s, at[k], NULL, NULL, &err);
        const double *x = jg_sim_states(s);
        memcpy(jg_lin_states(l), x, 2 * sizeof(double));
        jg_lin_set_time(l, jg_sim_time(s));
        jg_lin_sys_t *sys = NULL;
        if (!st) st = jg_lin_run(l, JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ, &sys, NULL, &err);
        double a[4] = {0};
        for (int64_t j = 0; !st && j < 2; j++)
            for (int64_t q = sys->A->p[j]; q < sys->A->p[j + 1]; q++) a[sys->A->i[q] + 2 * j] = sys->A->x[q];
        double want[4] = {0, -2 * x[0] * x[1] - 1, 1, 1 - x[0] * x[0]};   /* column-major */
        double d = 0;
        for (int i = 0; i < 4; i++) d = fmax(d, fabs(a[i] - want[i]));
        tap_ok(!st && d < 1e-12 && sys->t == at[k],
               "vdp snapshot t = %g: A equals the analytic Jacobian at (%.4f, %.4f)", at[k], x[0],
               x[1]);
        jg_lin_sys_free(sys);
    }
    /* two independent integrators agree at t = 10: adaptive ode45 at tight
     * tolerance and fixed-step ode5 with h = 1e-3 (error ~1e-13) */
    double x45[2] = {0};
    if (!st) memcpy(x45, jg_sim_states(s), sizeof x45);
    jg_sim_free(s);
    s = NULL;
    jg_sim_opts_t o5 = {.solver = JG_SOLVER_ODE5, .t0 = 0, .tstop = 10};
    o5.so.fixed_step = 1e-3;
    if (!st) st = jg_sim_create(p, &o5, &s, &err);
    if (!st) st = jg_sim_run(s, o5.tstop, NULL, NULL, &err);
    double d = st ? INFINITY : fmax(fabs(jg_sim_states(s)[0] - x45[0]), fabs(jg_sim_states(s)[1] - x45[1]));
    tap_ok(!st && d < 1e-7, "vdp at t = 10: ode45 (rtol 1e-9) and ode5 (h = 1e-3) agree to %.1e", d);
    jg_sim_free(s);
    jg_lin_free(l);
    jg_program_free(p);
    jg_model_free(m);
}

static void test_bad_options(void)
{
    jg_model_t *m;
    jg_program_t *p = compile(osc, &m);
    jg_sim_t *s = NULL;
    jg_error_t err;
    jg_sim_opts_t o = {.solver = (jg_solver_method_t)99, .t0 = 0, .tstop = 1};
    jg_status_t st = jg_sim_create(p, &o, &s, &err);
    tap_ok(st == JG_ARG, "unknown solver is JG_ARG");
    tap_streq(err.msg, "unknown solver method 99 (valid: auto ode1 ode2 ode3 ode4 ode5 ode23 ode45 discrete ode23s lie ode15s)",
              "unknown solver message lists the valid ones");
    o = (jg_sim_opts_t){.solver = JG_SOLVER_ODE4, .t0 = 0, .tstop = 1};
    o.so.fixed_step = -0.1;
    st = jg_sim_create(p, &o, &s, &err);
    tap_ok(st == JG_ARG && strstr(err.msg, "non-positive step") != NULL, "non-positive step: %s", err.msg);
    o = (jg_sim_opts_t){.solver = JG_SOLVER_ODE45, .t0 = 2, .tstop = 1};
    st = jg_sim_create(p, &o, &s, &err);
    tap_ok(st == JG_ARG, "stop before start is JG_ARG");
    tap_streq(err.msg, "stop time 1 before start time 2", "stop before start message");
    jg_program_free(p);
    jg_model_free(m);
}

int main(void)
{
    test_oscillator();
    test_snapshots();
    test_bad_options();
    return tap_done();
}
