/* Delay (Simulink's Delay / Integer Delay): y(k) = u(k - N) at the block's
 * sample hits, N = DelayLength.
 *
 * Parameters: DelayLength N (2; an integer >= 0), InitialCondition (0; a
 * scalar or one value per element: the output of the first N hits),
 * SampleTime.  Only the dialog forms are supported: DelayLengthSource and
 * InitialConditionSource "Dialog", ExternalReset "None", ShowEnablePort
 * "off"; anything else is an error naming the parameter.
 *
 * The N past inputs are discrete states, a shift register of N slots of the
 * signal's width w, oldest first: xd[j w + i] = u_i(k - N + j).  outputs()
 * reads slot 0; update() shifts and appends u(k) at the sample hits.  With
 * N = 0 there are no states and y = u (direct feedthrough, a diagonal d part
 * of ones); with N >= 1 the block declares no Jacobian part, so it breaks
 * algebraic loops and continuous linearization holds its states (as
 * UnitDelay); discrete linearization takes the shift register (djacobian).
 * Cost: O(N w) per hit (the shift), which is small for the delay lengths
 * Simulink models use (its DelayLengthUpperLimit default is 100). */
#include <math.h>
#include <string.h>
#include "block_impl.h"

typedef struct {
    int64_t n;         /* DelayLength */
    jg_value_t ic;     /* InitialCondition */
} idelay_t;

static int idelay_setup(jg_block_t *b, jg_setup_t *s)
{
    idelay_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    if (jg__param_literal(b, s, "DelayLengthSource", "Dialog",
                          "a delay length from an input port is not supported") ||
        jg__param_literal(b, s, "InitialConditionSource", "Dialog",
                          "an initial condition from an input port is not supported") ||
        jg__param_literal(b, s, "ExternalReset", "None", "an external reset is not supported") ||
        jg__param_literal(b, s, "ShowEnablePort", "off", "an enable port is not supported"))
        return JG_BLOCK_FAIL;
    jg_value_t n;
    if (jg_setup_num_def(b, s, "DelayLength", &n, 2) < 0) return JG_BLOCK_FAIL;
    if (jg_value_numel(&n) != 1 || !jg_is_int(n.x[0], 0, 1e9))
        return jg_setup_error(b, s, JG_PARAM, "DelayLength", "expected an integer >= 0");
    d->n = (int64_t)n.x[0];
    if (jg_setup_num_def(b, s, "InitialCondition", &d->ic, 0) < 0) return JG_BLOCK_FAIL;
    if (jg_value_numel(&d->ic) == 0)
        return jg_setup_error(b, s, JG_PARAM, "InitialCondition", "expected a non-empty value");
    return jg_setup_ports(b, s, 1, 1);
}

/* Width: a non-scalar InitialCondition's, else the input's (1 inside a loop
 * with nothing else to go by), as UnitDelay. */
static int idelay_widths(jg_block_t *b, jg_setup_t *s)
{
    static const char *const names[1] = {"InitialCondition"};
    const idelay_t *d = b->data;
    const int64_t nic = jg_value_numel(&d->ic);
    int r = jg__widths_delay(b, s, names, &nic, 1, "output", "InitialCondition");
    if (r != JG_BLOCK_DONE) return r;
    int64_t w = b->out_w[0];
    if (d->n > INT64_MAX / (w > 0 ? w : 1) / 8)
        return jg_setup_error(b, s, JG_PARAM, "DelayLength", "too long for width %lld", (long long)w);
    if (jg_setup_check_size(b, s, "DelayLength", d->n * w, "discrete states (DelayLength x width)") !=
        JG_BLOCK_DONE)
        return JG_BLOCK_FAIL;   /* the same check as jg_setup_dstates, naming the parameter */
    return jg_setup_dstates(b, s, d->n * w) < 0 ? JG_BLOCK_FAIL : JG_BLOCK_DONE;
}

static int idelay_pattern(jg_block_t *b, jg_setup_t *s)
{
    const idelay_t *d = b->data;
    if (d->n > 0) return 0;   /* no feedthrough */
    return jg_jac_diag(b, s, JG_JAC_D, 0, 0) < 0 ? -1 : 0;
}

static int idelay_init_discrete(const jg_block_t *b, double *xd0)
{
    const idelay_t *d = b->data;
    int64_t nic = jg_value_numel(&d->ic), w = b->out_w[0];
    for (int64_t k = 0; k < jg_block_nd(b); k++) xd0[k] = d->ic.x[nic == 1 ? 0 : k % w];
    return 0;
}

static int idelay_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const idelay_t *d = b->data;
    const double *src = d->n > 0 ? e->xd : e->u[0];
    memcpy(e->y[0], src, sizeof(double) * (size_t)b->out_w[0]);
    return 0;
}

static int idelay_update(const jg_block_t *b, jg_eval_t *e)
{
    const idelay_t *d = b->data;
    if (e->init || d->n == 0) return 0;
    size_t w = (size_t)b->out_w[0];
    memmove(e->xdw, e->xdw + w, sizeof(double) * w * (size_t)(d->n - 1));
    memcpy(e->xdw + w * (size_t)(d->n - 1), e->u[0], sizeof(double) * w);
    return 0;
}

static int idelay_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    for (int k = 0; k < b->npart; k++) {   /* N = 0: y = u */
        cs_dl *m = e->jac[k];
        for (int64_t q = 0; q < m->p[m->n]; q++) m->x[q] = 1.0;
    }
    return 0;
}

/* Discrete linearization of the shift register: slot j+1 moves to slot j,
 * u enters the last slot, y reads slot 0. */
static int idelay_djacobian(const jg_block_t *b, jg_eval_t *e, double *ad, double *const *bd,
                            double *const *cd)
{
    (void)e;
    int64_t w = b->out_w[0], nd = jg_block_nd(b);
    for (int64_t k = 0; k + w < nd; k++) ad[k * nd + k + w] = 1;
    for (int64_t i = 0; i < w && nd; i++) {
        bd[0][(nd - w + i) * w + i] = 1;
        cd[0][i * nd + i] = 1;
    }
    return 0;
}

const jg_block_type_t jg_block_delay = {
    .name = "Delay", .flags = JG_BT_LINEAR | JG_BT_DISCRETE,
    .setup = idelay_setup, .widths = idelay_widths, .pattern = idelay_pattern,
    .init_discrete = idelay_init_discrete, .outputs = idelay_outputs, .update = idelay_update,
    .jacobian = idelay_jacobian, .djacobian = idelay_djacobian,
};
