/* Discrete blocks: UnitDelay, Memory, DiscreteIntegrator, DiscreteStateSpace,
 * DiscreteTransferFcn and ZeroOrderHold.
 *
 * Their states are discrete states (jg_setup_dstates, e->xd), never
 * continuous ones: outputs() reads e->xd, update() writes e->xdw at the
 * block's sample hits (Memory: at every major step), and init_discrete()
 * loads the initial conditions.  update() does nothing in the
 * initialisation call at t0 (e->init): that call only loads external initial
 * conditions into continuous states, and the regular first update follows.
 *
 * Continuous linearization holds discrete states at their values
 * (block_impl.h), so these blocks declare Jacobian parts only for their direct
 * feedthrough u -> y (a d part), which is exactly d(outputs)/du: linearization
 * calls the same outputs().  Discrete linearization also asks djacobian() for
 * the update's Jacobians (analytic: the realizations are linear).  A block without feedthrough (UnitDelay, Memory, Forward Euler)
 * declares no part at all and so also breaks algebraic loops.
 *
 * The sample period T (DiscreteIntegrator) is b->ts.period, resolved by the
 * compiler before run time; the compiler reads "SampleTime" itself, after
 * setup().  Types whose Simulink default is a sample time of 1 rather than
 * inherited (DiscreteIntegrator, DiscreteStateSpace, DiscreteTransferFcn) set
 * it in widths(), which runs after that: the compiler marks an absent
 * SampleTime with a NaN period and applies its own defaults only to those.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "block_impl.h"

/* The Simulink default sample time 1 of DiscreteIntegrator,
 * DiscreteStateSpace and DiscreteTransferFcn, for an absent "SampleTime"
 * (NaN period from the compiler, lib/compile/sampletime.c).  Called from
 * widths(), after the compiler has read the parameter. */
static void default_ts_one(jg_block_t *b)
{
    if (isnan(b->ts.period)) {
        b->ts.period = 1;
        b->ts.offset = 0;
    }
}

/* ------------------------------------------- element-wise state blocks */

/* UnitDelay, Memory and DiscreteIntegrator: one state per element, widths as
 * for Integrator.  The width is the number of elements of a non-scalar
 * parameter (InitialCondition, gainval), else the input width, else 1 inside a
 * loop with nothing else to go by; the input must have that width. */
typedef struct {
    jg_value_t ic;     /* InitialCondition, scalar-expanded */
    jg_value_t k;      /* DiscreteIntegrator gainval; empty for the others */
    int method;        /* DiscreteIntegrator: DI_* */
    int accumulate;    /* DiscreteIntegrator "Accumulation: ...": T = 1 */
} elem_t;

enum { DI_FORWARD = 0, DI_BACKWARD, DI_TRAPEZOIDAL };

static int elem_ic(jg_block_t *b, jg_setup_t *s, elem_t *d)
{
    if (jg_setup_num_def(b, s, "InitialCondition", &d->ic, 0.0) < 0) return JG_BLOCK_FAIL;
    if (jg_value_numel(&d->ic) == 0)
        return jg_setup_error(b, s, JG_PARAM, "InitialCondition", "expected a non-empty value");
    return JG_BLOCK_DONE;
}

static int delay_setup(jg_block_t *b, jg_setup_t *s)
{
    elem_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    if (elem_ic(b, s, d) != JG_BLOCK_DONE) return JG_BLOCK_FAIL;
    return jg_setup_ports(b, s, 1, 1);
}

static int elem_widths(jg_block_t *b, jg_setup_t *s)
{
    static const char *const names[2] = {"InitialCondition", "gainval"};
    const elem_t *d = b->data;
    const int64_t n[2] = {jg_value_numel(&d->ic), jg_value_numel(&d->k)};
    int r = jg__widths_delay(b, s, names, n, 2, "state",
                             n[1] ? "InitialCondition, gainval" : "InitialCondition");
    if (r != JG_BLOCK_DONE) return r;
    return jg_setup_dstates(b, s, b->out_w[0]) < 0 ? JG_BLOCK_FAIL : JG_BLOCK_DONE;
}

static int elem_init_discrete(const jg_block_t *b, double *xd0)
{
    const elem_t *d = b->data;
    for (int64_t i = 0; i < jg_block_nd(b); i++) xd0[i] = jg__param_at(&d->ic, i);
    return 0;
}

/* UnitDelay and Memory: y = xd, then xd = u.  No feedthrough. */
static int delay_outputs(const jg_block_t *b, jg_eval_t *e)
{
    for (int64_t i = 0; i < jg_block_nd(b); i++) e->y[0][i] = e->xd[i];
    return 0;
}

static int delay_update(const jg_block_t *b, jg_eval_t *e)
{
    if (e->init) return 0;
    for (int64_t i = 0; i < jg_block_nd(b); i++) e->xdw[i] = e->u[0][i];
    return 0;
}

/* Discrete linearization: x+ = u, y = x (dF/dx = 0, dF/du = I, dg/dx = I). */
static int delay_djacobian(const jg_block_t *b, jg_eval_t *e, double *ad, double *const *bd,
                           double *const *cd)
{
    (void)e, (void)ad;
    const int64_t nd = jg_block_nd(b);
    for (int64_t i = 0; i < nd; i++) bd[0][i * nd + i] = cd[0][i * nd + i] = 1;
    return 0;
}

/* UnitDelay: y(k) = u(k-1), at its (discrete) sample hits. */
const jg_block_type_t jg_block_unitdelay = {
    .name = "UnitDelay", .flags = JG_BT_LINEAR | JG_BT_DISCRETE,
    .setup = delay_setup, .widths = elem_widths,
    .outputs = delay_outputs, .init_discrete = elem_init_discrete, .update = delay_update,
    .djacobian = delay_djacobian,
};

/* Memory: the input at the previous major step.  Not JG_BT_DISCRETE: with a
 * continuous (or inherited continuous) sample time its update() runs at every
 * major step, so its output between steps is the value the input had at the
 * last one. */
const jg_block_type_t jg_block_memory = {
    .name = "Memory", .flags = JG_BT_LINEAR,
    .setup = delay_setup, .widths = elem_widths,
    .outputs = delay_outputs, .init_discrete = elem_init_discrete, .update = delay_update,
    .djacobian = delay_djacobian,
};

/* ------------------------------------------------- DiscreteIntegrator */

/* Simulink's documented realizations ("Initial condition setting" State, the
 * default: x(0) = InitialCondition), with T the sample period (1 in
 * accumulation mode) and K = gainval:
 *   Forward Euler   (1/s ~ T/(z-1))        y(n) = x(n)
 *                                          x(n+1) = x(n) + K T u(n)
 *   Backward Euler  (1/s ~ T z/(z-1))      y(n) = x(n) + K T u(n)
 *                                          x(n+1) = y(n)
 *   Trapezoidal     (1/s ~ T/2 (z+1)/(z-1)) y(n) = x(n) + K T/2 u(n)
 *                                          x(n+1) = y(n) + K T/2 u(n)
 * so that y(n) = y(n-1) + K T u(n-1), + K T u(n), + K T (u(n) + u(n-1))/2.
 * The direct feedthrough is D = 0, K T and K T/2: Forward Euler declares no d
 * part, the others a diagonal one (structural, like Gain: a zero element of
 * K still has its entry). */
static const struct {
    const char *name;
    int method, accumulate;
} di_methods[] = {
    {"Integration: Forward Euler", DI_FORWARD, 0},
    {"Integration: Backward Euler", DI_BACKWARD, 0},
    {"Integration: Trapezoidal", DI_TRAPEZOIDAL, 0},
    {"ForwardEuler", DI_FORWARD, 0},
    {"BackwardEuler", DI_BACKWARD, 0},
    {"Trapezoidal", DI_TRAPEZOIDAL, 0},
    {"Accumulation: Forward Euler", DI_FORWARD, 1},
    {"Accumulation: Backward Euler", DI_BACKWARD, 1},
    {"Accumulation: Trapezoidal", DI_TRAPEZOIDAL, 1},
};

static int dint_setup(jg_block_t *b, jg_setup_t *s)
{
    elem_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    if (elem_ic(b, s, d) != JG_BLOCK_DONE) return JG_BLOCK_FAIL;
    if (jg_setup_num_def(b, s, "gainval", &d->k, 1.0) < 0) return JG_BLOCK_FAIL;
    if (jg_value_numel(&d->k) == 0)
        return jg_setup_error(b, s, JG_PARAM, "gainval", "expected a non-empty value");
    const char *m = "Integration: Forward Euler";
    if (jg_setup_str(b, s, "IntegratorMethod", &m) < 0) return JG_BLOCK_FAIL;
    size_t k = 0, nm = sizeof di_methods / sizeof *di_methods;
    while (k < nm && strcmp(m, di_methods[k].name)) k++;
    if (k == nm)
        return jg_setup_error(b, s, JG_PARAM, "IntegratorMethod",
                              "expected \"Integration: Forward Euler\", \"Integration: Backward "
                              "Euler\", \"Integration: Trapezoidal\" (or ForwardEuler, "
                              "BackwardEuler, Trapezoidal, or \"Accumulation: ...\"), got \"%s\"",
                              m);
    d->method = di_methods[k].method;
    d->accumulate = di_methods[k].accumulate;
    /* Only the State setting (x(0) = IC) is implemented: with Output
     * (y(0) = IC) the first step would differ from every later one, and the
     * feedthrough with it. */
    static const char *const ics[2] = {"State (most efficient)", "State"};
    if (jg__param_choice(b, s, "InitialConditionSetting", ics, 2,
                         "\"State (most efficient)\" (x(0) = InitialCondition; \"Output\" and "
                         "\"Compatibility\" are not supported)") < 0)
        return JG_BLOCK_FAIL;
    return jg_setup_ports(b, s, 1, 1);
}

static int dint_widths(jg_block_t *b, jg_setup_t *s)
{
    default_ts_one(b);
    return elem_widths(b, s);
}

static int dint_pattern(jg_block_t *b, jg_setup_t *s)
{
    const elem_t *d = b->data;
    if (d->method == DI_FORWARD) return 0;
    return jg_jac_diag(b, s, JG_JAC_D, 0, 0) < 0 ? -1 : 0;
}

/* The factor of u in y: 0, K T or K T/2 (element i). */
static double dint_feed(const jg_block_t *b, const elem_t *d, int64_t i)
{
    double T = d->accumulate ? 1.0 : b->ts.period;
    switch (d->method) {
    case DI_BACKWARD: return jg__param_at(&d->k, i) * T;
    case DI_TRAPEZOIDAL: return jg__param_at(&d->k, i) * T / 2;
    default: return 0;
    }
}

static int dint_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const elem_t *d = b->data;
    for (int64_t i = 0; i < jg_block_nd(b); i++) e->y[0][i] = e->xd[i] + dint_feed(b, d, i) * e->u[0][i];
    return 0;
}

static int dint_update(const jg_block_t *b, jg_eval_t *e)
{
    if (e->init) return 0;
    const elem_t *d = b->data;
    double T = d->accumulate ? 1.0 : b->ts.period;
    /* all three: x(n+1) = x(n) + K T u(n) (Backward: y(n); Trapezoidal:
     * y(n) + K T/2 u(n)), element-wise, so in place is safe */
    for (int64_t i = 0; i < jg_block_nd(b); i++)
        e->xdw[i] = e->xd[i] + jg__param_at(&d->k, i) * T * e->u[0][i];
    return 0;
}

static int dint_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    const elem_t *d = b->data;
    if (d->method == DI_FORWARD) return 0;
    for (int64_t i = 0; i < jg_block_nd(b); i++) e->jac[0]->x[i] = dint_feed(b, d, i);
    return 0;
}

/* Discrete linearization: x+ = x + K T u, y = x + feed u. */
static int dint_djacobian(const jg_block_t *b, jg_eval_t *e, double *ad, double *const *bd,
                          double *const *cd)
{
    (void)e;
    const elem_t *d = b->data;
    double T = d->accumulate ? 1.0 : b->ts.period;
    for (int64_t i = 0; i < jg_block_nd(b); i++) {
        ad[i * jg_block_nd(b) + i] = cd[0][i * jg_block_nd(b) + i] = 1;
        bd[0][i * jg_block_nd(b) + i] = jg__param_at(&d->k, i) * T;
    }
    return 0;
}

const jg_block_type_t jg_block_discreteintegrator = {
    .name = "DiscreteIntegrator", .flags = JG_BT_LINEAR | JG_BT_DISCRETE,
    .setup = dint_setup, .widths = dint_widths, .pattern = dint_pattern,
    .outputs = dint_outputs, .jacobian = dint_jacobian,
    .init_discrete = elem_init_discrete, .update = dint_update, .djacobian = dint_djacobian,
};

/* ---------------------------------------- DiscreteStateSpace and -TransferFcn */

/* x(k+1) = A x(k) + B u(k), y(k) = C x(k) + D u(k). */
typedef struct {
    int64_t n, m, p;          /* states, input width, output width */
    jg_value_t a, b, c, d;    /* row-major n x n, n x m, p x n, p x m */
    jg_value_t ic;            /* scalar or n initial states */
    int siso;                 /* DiscreteTransferFcn: for width messages */
    int kd;                   /* part index of D, -1 when D is all zero */
} dss_t;

/* The matrices and their checks are those of the continuous StateSpace
 * (jg_setup_ss_matrices, lib/blocks/lti.c): n from A, m from B, p from C, D
 * must agree; an empty A means no states and y = D u. */
static int dss_setup(jg_block_t *b, jg_setup_t *s)
{
    dss_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    d->kd = -1;
    jg_ss_matrices_t mx;
    if (jg_setup_ss_matrices(b, s, &mx) != JG_BLOCK_DONE) return JG_BLOCK_FAIL;
    d->a = mx.a, d->b = mx.b, d->c = mx.c, d->d = mx.d, d->ic = mx.ic;
    d->n = mx.n, d->m = mx.m, d->p = mx.p;
    return jg_setup_ports(b, s, 1, 1);
}

/* The matrices fix both widths: the input is set, not waited for. */
static int dss_widths(jg_block_t *b, jg_setup_t *s)
{
    dss_t *d = b->data;
    default_ts_one(b);
    if (jg_setup_ss_input(b, s, d->m, d->n, d->siso) != JG_BLOCK_DONE) return JG_BLOCK_FAIL;
    b->out_w[0] = d->p;
    return jg_setup_dstates(b, s, d->n) < 0 ? JG_BLOCK_FAIL : JG_BLOCK_DONE;
}

/* Only D: the nonzeros of D, so a zero D means no feedthrough. */
static int dss_pattern(jg_block_t *b, jg_setup_t *s)
{
    dss_t *d = b->data;
    if (jg_value_nnz(&d->d) && (d->kd = jg_jac_from_value(b, s, JG_JAC_D, 0, 0, &d->d)) < 0)
        return -1;
    return 0;
}

static int dss_init_discrete(const jg_block_t *b, double *xd0)
{
    const dss_t *d = b->data;
    for (int64_t i = 0; i < d->n; i++) xd0[i] = jg__param_at(&d->ic, i);
    return 0;
}

static int dss_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const dss_t *d = b->data;
    jg_affine(e->y[0], d->p, d->c.x, e->xd, d->n, d->d.x, e->u[0], d->m);
    return 0;
}

/* x(k+1) = A x(k) + B u(k).  e->xdw may be the very array e->xd points to, so
 * the product goes through a copy of x(k). */
static int dss_update(const jg_block_t *b, jg_eval_t *e)
{
    if (e->init) return 0;
    const dss_t *d = b->data;
    if (d->n == 0) return 0;
    double small[16], *x = small;
    if (d->n > 16 && !(x = malloc(sizeof(double) * (size_t)d->n)))
        return jg_eval_error(b, e, "out of memory");
    memcpy(x, e->xd, sizeof(double) * (size_t)d->n);
    jg_affine(e->xdw, d->n, d->a.x, x, d->n, d->b.x, e->u[0], d->m);
    if (x != small) free(x);
    return 0;
}

static int dss_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    const dss_t *d = b->data;
    if (d->kd >= 0) jg_jac_fill_from_value(e->jac[d->kd], &d->d);
    return 0;
}

/* Discrete linearization: A, B, C themselves (all row-major already). */
static int dss_djacobian(const jg_block_t *b, jg_eval_t *e, double *ad, double *const *bd,
                         double *const *cd)
{
    (void)e;
    const dss_t *d = b->data;
    if (d->n == 0) return 0;
    memcpy(ad, d->a.x, sizeof(double) * (size_t)(d->n * d->n));
    memcpy(bd[0], d->b.x, sizeof(double) * (size_t)(d->n * d->m));
    memcpy(cd[0], d->c.x, sizeof(double) * (size_t)(d->p * d->n));
    return 0;
}

const jg_block_type_t jg_block_discretestatespace =
    JG_DISCRETE_LTI_TYPE("DiscreteStateSpace", dss_setup, dss);


static const double dtf_num_def[] = {1}, dtf_den_def[] = {1, 0.5};   /* Simulink: 1/(z+0.5) */

/* num(z)/den(z), descending powers of z, realized as the continuous
 * TransferFcn is (jg_setup_tf_realize: MATLAB's tf2ss controllable canonical
 * form; proper, a D part iff the degrees are equal).  InitialStates: the
 * states of this realization, a scalar (expanded) or n values, default 0. */
static int dtf_setup(jg_block_t *b, jg_setup_t *s)
{
    dss_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    d->kd = -1;
    jg_value_t numv, denv, ic;
    if (jg_setup_poly_param(b, s, "Numerator", &numv, dtf_num_def, 1) != JG_BLOCK_DONE ||
        jg_setup_poly_param(b, s, "Denominator", &denv, dtf_den_def, 2) != JG_BLOCK_DONE)
        return JG_BLOCK_FAIL;
    if (jg_setup_num_def(b, s, "InitialStates", &ic, 0.0) < 0) return JG_BLOCK_FAIL;
    jg_ss_matrices_t mx;
    if (jg_setup_tf_realize(b, s, &mx, numv.x, jg_value_numel(&numv), denv.x, jg_value_numel(&denv),
                            "Numerator", "Denominator") != JG_BLOCK_DONE)
        return JG_BLOCK_FAIL;
    int64_t n = mx.n, nic = jg_value_numel(&ic);
    if (nic != 1 && nic != n)
        return jg_setup_error(b, s, JG_PARAM, "InitialStates",
                              "expected a scalar or %lld elements (the denominator degree), got "
                              "%lld",
                              (long long)n, (long long)nic);
    d->a = mx.a, d->b = mx.b, d->c = mx.c, d->d = mx.d, d->ic = ic;
    d->n = n;
    d->m = d->p = 1;
    d->siso = 1;
    return jg_setup_ports(b, s, 1, 1);
}

const jg_block_type_t jg_block_discretetransferfcn =
    JG_DISCRETE_LTI_TYPE("DiscreteTransferFcn", dtf_setup, dss);

/* ------------------------------------------------------- ZeroOrderHold */

/* y = u, executed only at the block's sample hits: the simulator holds a
 * discrete block's outputs between hits, which is the hold.  No state.  The d
 * part I makes it feedthrough for the sorted order and the linearization
 * (which sees the sampler as the identity). */
static int zoh_setup(jg_block_t *b, jg_setup_t *s)
{
    return jg_setup_ports(b, s, 1, 1);
}

static int zoh_widths(jg_block_t *b, jg_setup_t *s)
{
    if (b->in_w[0] < 0) {
        if (!s->force) return JG_BLOCK_AGAIN;
        b->in_w[0] = 1;   /* nothing drives the width */
    }
    b->out_w[0] = b->in_w[0];
    return JG_BLOCK_DONE;
}

static int zoh_pattern(jg_block_t *b, jg_setup_t *s)
{
    return jg_jac_diag(b, s, JG_JAC_D, 0, 0) < 0 ? -1 : 0;
}

static int zoh_outputs(const jg_block_t *b, jg_eval_t *e)
{
    memcpy(e->y[0], e->u[0], sizeof(double) * (size_t)b->out_w[0]);
    return 0;
}

static int zoh_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    for (int64_t i = 0; i < b->out_w[0]; i++) e->jac[0]->x[i] = 1;
    return 0;
}

const jg_block_type_t jg_block_zeroorderhold = {
    .name = "ZeroOrderHold", .flags = JG_BT_LINEAR | JG_BT_DISCRETE,
    .setup = zoh_setup, .widths = zoh_widths, .pattern = zoh_pattern,
    .outputs = zoh_outputs, .jacobian = zoh_jacobian,
};
