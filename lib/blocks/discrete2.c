/* More discrete blocks: DiscreteFilter and DiscreteZeroPole (realized like
 * DiscreteTransferFcn) and DiscretePulseGenerator (sample or time based).
 *
 * DiscreteFilter and DiscreteZeroPole turn their parameters into num(z) /
 * den(z) in descending powers of z and realize that with jg_setup_tf_realize
 * (MATLAB's tf2ss controllable canonical form, as TransferFcn and
 * DiscreteTransferFcn), x(k+1) = A x(k) + B u(k), y(k) = C x(k) + D u(k), in
 * discrete states.  As for every discrete block (discrete.c) continuous
 * linearization holds those states: the only Jacobian part is the direct
 * feedthrough D (a diagonal d part, declared only when D != 0, so a strictly
 * proper filter breaks algebraic loops); discrete linearization takes the
 * realization from djacobian().
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "block_impl.h"

/* --------------------------------------------- SISO filters per channel */

/* One SISO realization applied to each of `w` channels (input elements);
 * channel c owns discrete states c n .. c n + n - 1. */
typedef struct {
    jg_ss_matrices_t mx;   /* n x n, n x 1, 1 x n, 1 x 1; ic: the initial states */
    int64_t n;
    int scalar_only;       /* DiscreteZeroPole: one input element */
    int one_default;       /* Simulink's default SampleTime 1 (else inherited) */
    int kd;                /* d part, -1 when D = 0 */
    const char *ic_param;
} flt_t;

static flt_t *flt_alloc(jg_block_t *b, jg_setup_t *s)
{
    flt_t *d = jg__setup_data(b, s, sizeof *d);
    if (d) d->kd = -1;
    return d;
}

/* After jg_setup_tf_realize: the initial states (scalar or n) and the ports. */
static int flt_finish(jg_block_t *b, jg_setup_t *s, flt_t *d, const char *ic_param)
{
    d->n = d->mx.n;
    d->ic_param = ic_param;
    if (ic_param) {
        jg_value_t ic;
        if (jg_setup_num_def(b, s, ic_param, &ic, 0.0) < 0) return JG_BLOCK_FAIL;
        int64_t nic = jg_value_numel(&ic);
        if (nic != 1 && nic != d->n)
            return jg_setup_error(b, s, JG_PARAM, ic_param,
                                  "expected a scalar or %lld elements (the filter order), got %lld",
                                  (long long)d->n, (long long)nic);
        d->mx.ic = ic;
    }
    return jg_setup_ports(b, s, 1, 1);
}

static int flt_widths(jg_block_t *b, jg_setup_t *s)
{
    const flt_t *d = b->data;
    if (d->one_default && isnan(b->ts.period)) b->ts = (jg_ts_t){1, 0};
    if (b->in_w[0] < 0) {
        if (d->scalar_only) b->in_w[0] = 1;
        else if (!s->force) return JG_BLOCK_AGAIN;
        else b->in_w[0] = 1;   /* nothing drives the width */
    }
    if (d->scalar_only && b->in_w[0] != 1)
        return jg_setup_error(b, s, JG_WIDTH, NULL,
                              "input has width %lld but a zero-pole system takes a scalar",
                              (long long)b->in_w[0]);
    b->out_w[0] = b->in_w[0];
    return jg_setup_dstates(b, s, d->n * b->in_w[0]) < 0 ? JG_BLOCK_FAIL : JG_BLOCK_DONE;
}

static int flt_pattern(jg_block_t *b, jg_setup_t *s)
{
    flt_t *d = b->data;
    if (d->mx.d.x[0] != 0 && (d->kd = jg_jac_diag(b, s, JG_JAC_D, 0, 0)) < 0) return -1;
    return 0;
}

static int flt_init_discrete(const jg_block_t *b, double *xd0)
{
    const flt_t *d = b->data;
    for (int64_t c = 0; c < b->in_w[0]; c++)
        for (int64_t i = 0; i < d->n; i++) xd0[c * d->n + i] = jg__param_at(&d->mx.ic, i);
    return 0;
}

static int flt_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const flt_t *d = b->data;
    for (int64_t c = 0; c < b->in_w[0]; c++)
        jg_affine(&e->y[0][c], 1, d->mx.c.x, e->xd + c * d->n, d->n, d->mx.d.x, &e->u[0][c], 1);
    return 0;
}

/* x(k+1) = A x(k) + B u(k) per channel, through a copy of x(k) (e->xdw may
 * be e->xd). */
static int flt_update(const jg_block_t *b, jg_eval_t *e)
{
    if (e->init) return 0;
    const flt_t *d = b->data;
    int64_t n = d->n;
    if (n == 0) return 0;
    double small[16], *x = small;
    if (n > 16 && !(x = malloc(sizeof(double) * (size_t)n))) return jg_eval_error(b, e, "out of memory");
    for (int64_t c = 0; c < b->in_w[0]; c++) {
        memcpy(x, e->xd + c * n, sizeof(double) * (size_t)n);
        jg_affine(e->xdw + c * n, n, d->mx.a.x, x, n, d->mx.b.x, &e->u[0][c], 1);
    }
    if (x != small) free(x);
    return 0;
}

static int flt_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    const flt_t *d = b->data;
    if (d->kd < 0) return 0;
    for (int64_t c = 0; c < b->in_w[0]; c++) e->jac[d->kd]->x[c] = d->mx.d.x[0];
    return 0;
}

/* Discrete linearization: the realization per channel (block diagonal). */
static int flt_djacobian(const jg_block_t *b, jg_eval_t *e, double *ad, double *const *bd,
                         double *const *cd)
{
    (void)e;
    const flt_t *d = b->data;
    int64_t n = d->n, nd = jg_block_nd(b);
    for (int64_t c = 0; c < b->in_w[0]; c++)
        for (int64_t i = 0; i < n; i++) {
            for (int64_t j = 0; j < n; j++) ad[(c * n + i) * nd + c * n + j] = d->mx.a.x[i * n + j];
            bd[0][(c * n + i) * b->in_w[0] + c] = d->mx.b.x[i];
            cd[0][c * nd + c * n + i] = d->mx.c.x[i];
        }
    return 0;
}

/* --------------------------------------------------------- DiscreteFilter */

/* DiscreteFilter: Numerator ([1]) and Denominator ([1 0.5]) in ascending
 * powers of z^-1 (Simulink's Discrete Filter convention; DiscreteTransferFcn
 * uses descending powers of z):
 *     H = (b0 + b1 z^-1 + ... + bm z^-m) / (a0 + a1 z^-1 + ... + an z^-n),
 * a0 != 0.  Multiplied by z^N, N = max(m, n), both become polynomials in z
 * with the same coefficients padded with zeros at the end, and that is
 * realized.  InitialStates (0): a scalar or N values, the states of that
 * realization (equal for every channel).  Each input element is filtered
 * separately ("Elements as channels"); SampleTime default -1 (inherited,
 * Simulink's), which must resolve to a discrete one.  Only the Dialog sources
 * of the coefficients and no external reset are supported. */
static const double df_num_def[] = {1}, df_den_def[] = {1, 0.5};

static int literal_is(jg_block_t *b, jg_setup_t *s, const char *param, const char *want,
                      const char *why)
{
    const char *v = NULL;
    int r = jg_setup_str(b, s, param, &v);
    if (r < 0) return JG_BLOCK_FAIL;
    if (r > 0 && strcmp(v, want))
        return jg_setup_error(b, s, JG_PARAM, param, "expected \"%s\" (%s), got \"%s\"", want, why, v);
    return JG_BLOCK_DONE;
}

static int df_setup(jg_block_t *b, jg_setup_t *s)
{
    flt_t *d = flt_alloc(b, s);
    if (!d) return JG_BLOCK_FAIL;
    if (literal_is(b, s, "NumeratorSource", "Dialog", "coefficient inputs are not supported") ||
        literal_is(b, s, "DenominatorSource", "Dialog", "coefficient inputs are not supported") ||
        literal_is(b, s, "InitialStatesSource", "Dialog", "an initial-state input is not supported") ||
        literal_is(b, s, "ExternalReset", "None", "a reset input is not supported"))
        return JG_BLOCK_FAIL;
    jg_value_t num, den;
    if (jg_setup_poly_param(b, s, "Numerator", &num, df_num_def, 1) != JG_BLOCK_DONE ||
        jg_setup_poly_param(b, s, "Denominator", &den, df_den_def, 2) != JG_BLOCK_DONE)
        return JG_BLOCK_FAIL;
    if (den.x[0] == 0)
        return jg_setup_error(b, s, JG_PARAM, "Denominator",
                              "expected a nonzero first coefficient a0 (ascending powers of z^-1)");
    int64_t nb = jg_value_numel(&num), na = jg_value_numel(&den), N = nb > na ? nb : na;
    double *nz = jg_setup_alloc(s, sizeof(double) * (size_t)N);
    double *dz = jg_setup_alloc(s, sizeof(double) * (size_t)N);
    if (!nz || !dz) return jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
    memcpy(nz, num.x, sizeof(double) * (size_t)nb);
    memcpy(dz, den.x, sizeof(double) * (size_t)na);
    if (jg_setup_tf_realize(b, s, &d->mx, nz, N, dz, N, "Numerator", "Denominator") != JG_BLOCK_DONE)
        return JG_BLOCK_FAIL;
    return flt_finish(b, s, d, "InitialStates");
}

const jg_block_type_t jg_block_discretefilter = JG_DISCRETE_LTI_TYPE("DiscreteFilter", df_setup, flt);

/* ------------------------------------------------------ DiscreteZeroPole */

/* DiscreteZeroPole: H(z) = Gain prod(z - Zeros) / prod(z - Poles), real
 * roots only, Gain a scalar, #Zeros <= #Poles.  Defaults as Simulink saves
 * them: Zeros [1], Poles [0 1], Gain 1, SampleTime 1.  SISO; the states start
 * at 0. */
static int dzp_setup(jg_block_t *b, jg_setup_t *s)
{
    static const double zdef[] = {1}, pdef[] = {0, 1}, kdef[] = {1};
    flt_t *d = flt_alloc(b, s);
    if (!d) return JG_BLOCK_FAIL;
    d->scalar_only = d->one_default = 1;
    jg_value_t z, p, k;
    if (jg_setup_num_vec_def(b, s, "Zeros", &z, zdef, 1) ||
        jg_setup_num_vec_def(b, s, "Poles", &p, pdef, 2) ||
        jg_setup_num_vec_def(b, s, "Gain", &k, kdef, 1))
        return JG_BLOCK_FAIL;
    if (jg_value_numel(&k) != 1 || !isfinite(k.x[0]))
        return jg_setup_error(b, s, JG_PARAM, "Gain", "expected a finite scalar (one output only)");
    double *num, *den;
    int64_t nz, np;
    if (jg_setup_zpk_poly(b, s, &z, &p, k.x[0], 0, &num, &nz, &den, &np))
        return JG_BLOCK_FAIL;
    if (jg_setup_tf_realize(b, s, &d->mx, num, nz + 1, den, np + 1, "Zeros", "Poles") != JG_BLOCK_DONE)
        return JG_BLOCK_FAIL;
    return flt_finish(b, s, d, NULL);
}

const jg_block_type_t jg_block_discretezeropole =
    JG_DISCRETE_LTI_TYPE("DiscreteZeroPole", dzp_setup, flt);

/* ------------------------------------------------- DiscretePulseGenerator */

/* DiscretePulseGenerator, the BlockType Simulink saves for its Pulse
 * Generator block.  Amplitude (1), Period (2), PulseWidth (1) and PhaseDelay
 * (0) are each a scalar or a vector (scalars expand; the output has the
 * common width); the defaults are Simulink's saved block defaults, which
 * apply whatever PulseType an instance has.
 *   PulseType "Sample based" (default): Period, PulseWidth and PhaseDelay
 *     count samples of SampleTime (1): at hit k = round((t - offset) / T) the
 *     output is Amplitude when k >= PhaseDelay and (k - PhaseDelay) mod Period
 *     < PulseWidth, else 0.  Period an integer >= 1, PulseWidth an integer
 *     from 0 to Period, PhaseDelay an integer.  A discrete block.
 *   PulseType "Time based": exactly the PulseGenerator of time_sources.c:
 *     Period in seconds (> 0), PulseWidth in percent of the period (0 to
 *     100), PhaseDelay in seconds; 0 before PhaseDelay, then Amplitude while
 *     (t - PhaseDelay) mod Period < PulseWidth/100 Period.  SampleTime is
 *     ignored (the block is continuous, as Simulink hides the parameter).
 * TimeSource "Use simulation time" only. */
typedef struct {
    int64_t w;
    jg_value_t p[4];   /* Amplitude, Period, PulseWidth, PhaseDelay */
    int sample_based;
} dpg_t;

static int dpg_setup(jg_block_t *b, jg_setup_t *s)
{
    static const char *const names[4] = {"Amplitude", "Period", "PulseWidth", "PhaseDelay"};
    static const double defs[4] = {1, 2, 1, 0};
    dpg_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    const char *type = "Sample based";
    if (jg_setup_str(b, s, "PulseType", &type) < 0) return JG_BLOCK_FAIL;
    if (strcmp(type, "Sample based") && strcmp(type, "Time based"))
        return jg_setup_error(b, s, JG_PARAM, "PulseType",
                              "expected \"Sample based\" or \"Time based\", got \"%s\"", type);
    d->sample_based = !strcmp(type, "Sample based");
    if (literal_is(b, s, "TimeSource", "Use simulation time", "an external time input is not supported"))
        return JG_BLOCK_FAIL;
    d->w = 1;
    int wk = -1;
    for (int k = 0; k < 4; k++) {
        if (jg_setup_num_def(b, s, names[k], &d->p[k], defs[k]) < 0) return JG_BLOCK_FAIL;
        int64_t n = jg_value_numel(&d->p[k]);
        if (n == 0) return jg_setup_error(b, s, JG_PARAM, names[k], "expected a non-empty value");
        for (int64_t i = 0; i < n; i++) {
            double v = d->p[k].x[i];
            const char *bad = NULL;
            if (!isfinite(v)) bad = "a finite number";
            else if (k == 1 && d->sample_based && !jg_is_int(v, 1, 1e15)) bad = "an integer number of samples >= 1";
            else if (k == 1 && !d->sample_based && !(v > 0)) bad = "a positive period";
            else if (k == 2 && d->sample_based && !jg_is_int(v, 0, 1e15)) bad = "an integer number of samples >= 0";
            else if (k == 2 && !d->sample_based && !(v >= 0 && v <= 100))
                bad = "a percentage of the period from 0 to 100";
            else if (k == 3 && d->sample_based && !jg_is_int(v, -1e15, 1e15)) bad = "an integer number of samples";
            if (bad)
                return jg_setup_error(b, s, JG_PARAM, names[k], "element %lld is %g: expected %s",
                                      (long long)i + 1, v, bad);
        }
        if (n == 1) continue;
        if (wk >= 0 && n != d->w)
            return jg_setup_error(b, s, JG_PARAM, names[k],
                                  "has %lld elements but %s has %lld (only scalars expand)",
                                  (long long)n, names[wk], (long long)d->w);
        d->w = n;
        wk = k;
    }
    for (int64_t i = 0; d->sample_based && i < d->w; i++)
        if (jg__param_at(&d->p[2], i) > jg__param_at(&d->p[1], i))
            return jg_setup_error(b, s, JG_PARAM, "PulseWidth",
                                  "element %lld is %g samples, more than the Period %g",
                                  (long long)i + 1, jg__param_at(&d->p[2], i), jg__param_at(&d->p[1], i));
    return jg_setup_ports(b, s, 0, 1);
}

static int dpg_widths(jg_block_t *b, jg_setup_t *s)
{
    const dpg_t *d = b->data;
    if (!d->sample_based) {
        b->ts = (jg_ts_t){0, 0};
    } else {
        if (isnan(b->ts.period)) b->ts = (jg_ts_t){1, 0};
        if (!(b->ts.period > 0) || !isfinite(b->ts.period))
            return jg_setup_error(b, s, JG_PARAM, "SampleTime",
                                  "a sample-based pulse needs a discrete sample time T > 0, got %g",
                                  b->ts.period);
    }
    b->out_w[0] = d->w;
    return JG_BLOCK_DONE;
}

static int dpg_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const dpg_t *d = b->data;
    for (int64_t i = 0; i < d->w; i++) {
        double per = jg__param_at(&d->p[1], i), delay = jg__param_at(&d->p[3], i), on = 0;
        if (d->sample_based) {
            double k = nearbyint((e->t - b->ts.offset) / b->ts.period) - delay;
            on = k >= 0 && fmod(k, per) < jg__param_at(&d->p[2], i);
        } else if (e->t >= delay) {
            on = fmod(e->t - delay, per) < jg__param_at(&d->p[2], i) / 100 * per;
        }
        e->y[0][i] = on ? jg__param_at(&d->p[0], i) : 0.0;
    }
    return 0;
}

const jg_block_type_t jg_block_discretepulsegenerator = {
    .name = "DiscretePulseGenerator", .flags = JG_BT_SOURCE | JG_BT_LINEAR,
    .setup = dpg_setup, .widths = dpg_widths, .outputs = dpg_outputs,
};
