/* Discontinuous blocks: DeadZone, Sign, MinMax, Relay and Switch.
 *
 * Their Jacobians are piecewise constant (slopes 0 or 1, or 1/k at a tie of k
 * inputs of MinMax) and evaluated analytically at the operating point.  Blocks
 * whose slope is 0 everywhere (Sign, Relay, the Switch control input) still
 * declare their d part with its full pattern: it records the direct
 * feedthrough that the sorted order needs (the output is computed from the
 * input), and its values are simply 0.
 *
 * Zero crossings (Simulink, "How Simulink Works": "Blocks that Register Zero
 * Crossings"): each block registers continuous signals that cross zero where
 * its output switches or kinks, so that the simulator places a major step
 * there: DeadZone u - lower and u - upper, Sign u, MinMax the gap between the
 * selected input and its nearest competitor, Relay the distance to the switch
 * point of its current state, Switch the control input minus the threshold.
 *
 * The blocks whose output jumps (Sign, Relay, Switch) keep their switch
 * position in a discrete state, set by update() at each major step.  In minor
 * steps the output follows that held position, at major steps (and in
 * linearization) the current input, so the output changes at major steps
 * only, at the step the simulator places on the crossing, and no integration
 * step straddles a jump (Simulink's behaviour).  Relay's state is also its
 * memory: it has hysteresis.  Blocks with a kink but a continuous output
 * (DeadZone, MinMax, Saturation, Abs) keep computing it from the input: a
 * held branch would extrapolate past a limit, out of the range the block
 * promises to its readers.
 *
 * The simulator counts a zero-crossing signal that reaches exactly 0 as
 * crossed, and the signal then leaving 0 on the same side as no second
 * crossing.  So when a held position is decided at a step where the signal
 * sits exactly on 0 (u2 on Switch's threshold, u on Relay's switch point
 * when OnSwitchValue = OffSwitchValue, a tie of MinMax), update()
 * takes the position of the side the signal was heading for (e->zc_fired),
 * not the one the criterion gives at the boundary itself: otherwise the
 * switch would wait, unlocated, for the next major step (as MultiPortSwitch
 * and RelationalOperator do).
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "block_impl.h"

/* Read np scalar-or-vector parameters; the non-scalar ones must agree.  The
 * common count (1 if all are scalars) goes to *n. */
static int vparams(jg_block_t *b, jg_setup_t *s, const char *const *names, const double *defs,
                   int np, jg_value_t *out, int64_t *n, int *which)
{
    *n = 1;
    *which = 0;
    for (int k = 0; k < np; k++) {
        if (jg_setup_num_def(b, s, names[k], &out[k], defs[k]) < 0) return JG_BLOCK_FAIL;
        int64_t m = jg_value_numel(&out[k]);
        if (m == 0) return jg_setup_error(b, s, JG_PARAM, names[k], "expected a non-empty value");
        if (m == 1) continue;
        if (*n > 1 && m != *n)
            return jg_setup_error(b, s, JG_PARAM, names[k],
                                  "has %lld elements but %s has %lld (only scalars expand)",
                                  (long long)m, names[*which], (long long)*n);
        *n = m;
        *which = k;
    }
    return JG_BLOCK_DONE;
}

/* Diagonal d part, or a column for a scalar input expanded. */
static int diag_or_column(jg_block_t *b, jg_setup_t *s)
{
    if (b->in_w[0] == b->out_w[0]) return jg_jac_diag(b, s, JG_JAC_D, 0, 0) < 0 ? -1 : 0;
    return jg_jac_dense(b, s, JG_JAC_D, 0, 0) < 0 ? -1 : 0;
}

/* -------------------------------------------------------------- DeadZone */

/* DeadZone: y = 0 for LowerValue <= u <= UpperValue, u - UpperValue above,
 * u - LowerValue below (y = u - Saturation(u) with the same limits).
 * LowerValue (-0.5) and UpperValue (0.5): each a scalar or one value per
 * element, LowerValue <= UpperValue.  Slope 0 on the closed zone (its edges
 * included, mirroring Saturation's slope 1 on its closed range), 1 outside;
 * with LowerValue = UpperValue, y = u - LowerValue and the slope is 1. */
typedef struct {
    jg_value_t lim[2];   /* LowerValue, UpperValue */
    int64_t n;
    int which;
} dz_t;

static int deadzone_setup(jg_block_t *b, jg_setup_t *s)
{
    static const char *const names[2] = {"LowerValue", "UpperValue"};
    static const double defs[2] = {-0.5, 0.5};
    dz_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    if (vparams(b, s, names, defs, 2, d->lim, &d->n, &d->which) < 0) return JG_BLOCK_FAIL;
    if (jg__param_ordered(b, s, &d->lim[0], &d->lim[1], d->n, names[0], names[1]))
        return JG_BLOCK_FAIL;
    return jg_setup_ports(b, s, 1, 1);
}

static int deadzone_widths(jg_block_t *b, jg_setup_t *s)
{
    const dz_t *d = b->data;
    int r = jg__widths_param(b, s, d->n, d->which ? "UpperValue" : "LowerValue", 0);
    if (r != JG_BLOCK_DONE) return r;
    /* u - LowerValue per element, then u - UpperValue: the zone entered or left */
    return jg_setup_zc(b, s, 2 * b->out_w[0], NULL) < 0 ? JG_BLOCK_FAIL : JG_BLOCK_DONE;
}

static int deadzone_zc(const jg_block_t *b, jg_eval_t *e)
{
    const dz_t *d = b->data;
    int scalar_u = b->in_w[0] == 1;
    int64_t n = b->out_w[0];
    for (int64_t i = 0; i < n; i++) {
        double u = e->u[0][scalar_u ? 0 : i];
        e->zcv[i] = u - jg__param_at(&d->lim[0], i);
        e->zcv[n + i] = u - jg__param_at(&d->lim[1], i);
    }
    return 0;
}

static int deadzone_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const dz_t *d = b->data;
    int scalar_u = b->in_w[0] == 1;
    for (int64_t i = 0; i < b->out_w[0]; i++) {
        double u = e->u[0][scalar_u ? 0 : i], lo = jg__param_at(&d->lim[0], i), hi = jg__param_at(&d->lim[1], i);
        e->y[0][i] = u > hi ? u - hi : u < lo ? u - lo : 0.0;
    }
    return 0;
}

static int deadzone_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    const dz_t *d = b->data;
    int scalar_u = b->in_w[0] == 1;
    for (int64_t i = 0; i < b->out_w[0]; i++) {
        double u = e->u[0][scalar_u ? 0 : i], lo = jg__param_at(&d->lim[0], i), hi = jg__param_at(&d->lim[1], i);
        e->jac[0]->x[i] = lo < hi && lo <= u && u <= hi ? 0.0 : 1.0;
    }
    return 0;
}

const jg_block_type_t jg_block_deadzone = {
    .name = "DeadZone", .flags = 0,
    .setup = deadzone_setup, .widths = deadzone_widths, .pattern = diag_or_column,
    .outputs = deadzone_outputs, .jacobian = deadzone_jacobian, .zc = deadzone_zc,
};

/* ------------------------------------------------------------------ Sign */

/* Sign: y = 1 for u > 0, -1 for u < 0, 0 for u = 0 (NaN for NaN),
 * element-wise.  No parameters.  Slope 0 everywhere (the jump at 0 has no
 * derivative; we take 0, as Abs takes the mean of its one-sided slopes). */
static int sign_setup(jg_block_t *b, jg_setup_t *s)
{
    return jg_setup_ports(b, s, 1, 1);
}

static int sign_widths(jg_block_t *b, jg_setup_t *s)
{
    int r = jg__widths_param(b, s, 1, NULL, 0);
    if (r != JG_BLOCK_DONE) return r;
    /* zero crossing u; discrete state: the output at the last major step */
    if (jg_setup_zc(b, s, b->out_w[0], NULL) < 0 || jg_setup_dstates(b, s, b->out_w[0]) < 0)
        return JG_BLOCK_FAIL;
    return JG_BLOCK_DONE;
}

static int sign_zc(const jg_block_t *b, jg_eval_t *e)
{
    for (int64_t i = 0; i < b->out_w[0]; i++) e->zcv[i] = e->u[0][i];
    return 0;
}

static double sign_of(double u)
{
    return u > 0 ? 1.0 : u < 0 ? -1.0 : u == 0 ? 0.0 : u;
}

static int sign_outputs(const jg_block_t *b, jg_eval_t *e)
{
    int held = e->sim && !e->major;
    for (int64_t i = 0; i < b->out_w[0]; i++) e->y[0][i] = held ? e->xd[i] : sign_of(e->u[0][i]);
    return 0;
}

static int sign_update(const jg_block_t *b, jg_eval_t *e)
{
    /* sign(0) = 0, also at an event that lands on 0: unlike a switch, 0 is one
     * of Sign's outputs, and x' = -sign(x) stays at rest there */
    for (int64_t i = 0; i < b->out_w[0]; i++) e->xdw[i] = sign_of(e->u[0][i]);
    return 0;
}

static int zero_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    for (int k = 0; k < b->npart; k++) {
        cs_dl *m = e->jac[k];
        int64_t nz = m->p[m->n];
        for (int64_t q = 0; q < nz; q++) m->x[q] = 0.0;
    }
    return 0;
}

const jg_block_type_t jg_block_sign = {
    .name = "Sign", .flags = 0,
    .setup = sign_setup, .widths = sign_widths, .pattern = diag_or_column,
    .outputs = sign_outputs, .jacobian = zero_jacobian, .update = sign_update, .zc = sign_zc,
};

/* ---------------------------------------------------------------- MinMax */

/* MinMax: Function (literal, "min" default, or "max"); Inputs: the number of
 * input ports (1 default, up to 1024; a number, a numeric string, or a
 * workspace name).  One input: the min/max over its elements, a scalar.
 * Several: element-wise min/max with scalar expansion (Sum's width rule).
 * Slope 1 on the selected input element, 0 on the others; when k inputs tie
 * for the extremum each gets 1/k (the mean of the one-sided slopes, as Fcn's
 * min/max do).
 * Zero crossings: per output element, the gap between the candidate selected
 * at the last major step (a discrete state, set by update()) and the nearest
 * other candidate, positive while the selection holds.  It must be the held
 * selection: the gap to the current extremum never goes negative, it only
 * touches zero, which no sign test sees. */
typedef struct {
    int max;
} minmax_t;

static int minmax_setup(jg_block_t *b, jg_setup_t *s)
{
    minmax_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    const char *fn = NULL;
    int r = jg_setup_str(b, s, "Function", &fn);
    if (r < 0) return JG_BLOCK_FAIL;
    if (r > 0) {
        if (!strcmp(fn, "max"))
            d->max = 1;
        else if (strcmp(fn, "min"))
            return jg_setup_error(b, s, JG_PARAM, "Function", "expected \"min\" or \"max\", got \"%s\"",
                                  fn);
    }
    const char *str;
    double n;
    r = jg__param_port_count(b, s, 1, &n, &str);
    if (r < 0) return JG_BLOCK_FAIL;
    if (!jg_is_int(n, 1, 1024)) return jg__param_port_count_error(b, s, r, str);
    return jg_setup_ports(b, s, (int)n, 1);
}

/* Extremum for output element i (over the elements of u for one input). */
static double minmax_value(const jg_block_t *b, jg_eval_t *e, int64_t i)
{
    const minmax_t *d = b->data;
    double y;
    if (b->nin == 1) {
        y = e->u[0][0];
        for (int64_t k = 1; k < b->in_w[0]; k++) {
            double u = e->u[0][k];
            if (d->max ? u > y : u < y) y = u;
        }
        return y;
    }
    y = e->u[0][b->in_w[0] == 1 ? 0 : i];
    for (int p = 1; p < b->nin; p++) {
        double u = e->u[p][b->in_w[p] == 1 ? 0 : i];
        if (d->max ? u > y : u < y) y = u;
    }
    return y;
}

/* Candidates for one output element: input elements (one input) or ports. */
static int64_t minmax_ncand(const jg_block_t *b)
{
    return b->nin == 1 ? b->in_w[0] : b->nin;
}

static double minmax_cand(const jg_block_t *b, const jg_eval_t *e, int64_t i, int64_t k)
{
    if (b->nin == 1) return e->u[0][k];
    return e->u[k][b->in_w[k] == 1 ? 0 : i];
}

static int minmax_widths(jg_block_t *b, jg_setup_t *s)
{
    int r = jg_widths_elementwise(b, s);
    if (r != JG_BLOCK_DONE) return r;
    int64_t n = minmax_ncand(b) > 1 ? b->out_w[0] : 0;
    if (jg_setup_zc(b, s, n, NULL) < 0 || jg_setup_dstates(b, s, n) < 0) return JG_BLOCK_FAIL;
    return JG_BLOCK_DONE;
}

static int minmax_update(const jg_block_t *b, jg_eval_t *e)
{
    const minmax_t *d = b->data;
    for (int64_t i = 0; i < jg_block_nd(b); i++) {
        int64_t sel = 0;
        double y = minmax_cand(b, e, i, 0);
        for (int64_t k = 1; k < minmax_ncand(b); k++) {
            double u = minmax_cand(b, e, i, k);
            if (d->max ? u > y : u < y) {
                y = u;
                sel = k;
            }
        }
        /* an event at a tie with the held candidate: the gap fell to 0 (a
         * competitor takes over) or rose to 0 (the held one comes back) */
        int64_t held = (int64_t)e->xd[i];
        if (e->zc_fired && e->zc_fired[i] && minmax_cand(b, e, i, held) == y) {
            sel = held;
            for (int64_t k = 0; e->zc_fired[i] < 0 && k < minmax_ncand(b); k++)
                if (k != held && minmax_cand(b, e, i, k) == y) {
                    sel = k;
                    break;
                }
        }
        e->xdw[i] = (double)sel;
    }
    return 0;
}

static int minmax_zc(const jg_block_t *b, jg_eval_t *e)
{
    const minmax_t *d = b->data;
    for (int64_t i = 0; i < jg_block_nd(b); i++) {
        int64_t sel = (int64_t)e->xd[i];
        double us = minmax_cand(b, e, i, sel), best = NAN;
        for (int64_t k = 0; k < minmax_ncand(b); k++) {
            if (k == sel) continue;
            double u = minmax_cand(b, e, i, k);
            if (isnan(best) || (d->max ? u > best : u < best)) best = u;
        }
        e->zcv[i] = d->max ? us - best : best - us;
    }
    return 0;
}

static int minmax_outputs(const jg_block_t *b, jg_eval_t *e)
{
    for (int64_t i = 0; i < b->out_w[0]; i++) e->y[0][i] = minmax_value(b, e, i);
    return 0;
}

static int minmax_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    if (b->nin == 1) {   /* one 1 x w row: entry k is column k */
        double y = minmax_value(b, e, 0), ties = 0;
        for (int64_t k = 0; k < b->in_w[0]; k++) ties += e->u[0][k] == y;
        for (int64_t k = 0; k < b->in_w[0]; k++)
            e->jac[0]->x[k] = e->u[0][k] == y ? 1 / ties : 0.0;
        return 0;
    }
    /* one part per input, diagonal or an expanded column: entry i either way */
    for (int64_t i = 0; i < b->out_w[0]; i++) {
        double y = minmax_value(b, e, i), ties = 0;
        for (int p = 0; p < b->nin; p++) ties += e->u[p][b->in_w[p] == 1 ? 0 : i] == y;
        for (int p = 0; p < b->nin; p++)
            e->jac[p]->x[i] = e->u[p][b->in_w[p] == 1 ? 0 : i] == y ? 1 / ties : 0.0;
    }
    return 0;
}

const jg_block_type_t jg_block_minmax = {
    .name = "MinMax", .flags = 0,
    .setup = minmax_setup, .widths = minmax_widths, .pattern = jg_pattern_elementwise,
    .outputs = minmax_outputs, .jacobian = minmax_jacobian, .update = minmax_update,
    .zc = minmax_zc,
};

/* ----------------------------------------------------------------- Relay */

/* Relay, with hysteresis as Simulink's: it turns on when u reaches
 * OnSwitchValue, off when u falls to OffSwitchValue, and keeps its state in
 * between.  The state is a discrete state per element (1 on, 0 off), initially
 * off unless u >= OnSwitchValue at t0.  Output OnOutputValue when on,
 * OffOutputValue when off.  Parameters OnSwitchValue (eps), OffSwitchValue
 * (eps), OnOutputValue (1), OffOutputValue (0): each a scalar or one value per
 * element, OnSwitchValue >= OffSwitchValue.  Slope 0 everywhere (diag part
 * with zero values: the relay has direct feedthrough).
 *
 * At a major step (and in linearization) the output applies the switching
 * rule to the held state and the current u, so the step the simulator places
 * at a switch point already shows the new value; update() then stores it.  In
 * minor steps the output follows the held state.  The zero crossing is
 * u - OnSwitchValue while off, u - OffSwitchValue while on; it keeps its sign
 * across a switch (u is past both points), so the change of formula makes no
 * spurious crossing.  Linearization sees the held state (initially off): an
 * operating point between the switch points gives the off output. */
typedef struct {
    jg_value_t p[4];   /* OnSwitchValue, OffSwitchValue, OnOutputValue, OffOutputValue */
    int64_t n;
    int which;
} relay_t;

static const char *const relay_names[4] = {"OnSwitchValue", "OffSwitchValue", "OnOutputValue",
                                           "OffOutputValue"};

static int relay_setup(jg_block_t *b, jg_setup_t *s)
{
    static const double defs[4] = {DBL_EPSILON, DBL_EPSILON, 1, 0};
    relay_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    if (vparams(b, s, relay_names, defs, 4, d->p, &d->n, &d->which) < 0) return JG_BLOCK_FAIL;
    for (int64_t i = 0; i < d->n; i++) {
        double on = jg__param_at(&d->p[0], i), off = jg__param_at(&d->p[1], i);
        if (!(on >= off))
            return jg_setup_error(b, s, JG_PARAM, "OnSwitchValue",
                                  "element %lld is %g, below OffSwitchValue %g: expected "
                                  "OnSwitchValue >= OffSwitchValue",
                                  (long long)i + 1, on, off);
    }
    return jg_setup_ports(b, s, 1, 1);
}

static int relay_widths(jg_block_t *b, jg_setup_t *s)
{
    const relay_t *d = b->data;
    int r = jg__widths_param(b, s, d->n, relay_names[d->which], 0);
    if (r != JG_BLOCK_DONE) return r;
    if (jg_setup_zc(b, s, b->out_w[0], NULL) < 0 || jg_setup_dstates(b, s, b->out_w[0]) < 0)
        return JG_BLOCK_FAIL;
    return JG_BLOCK_DONE;
}

/* The switching rule: on at or above OnSwitchValue, off at or below
 * OffSwitchValue, the held state in between. */
static int relay_on(const jg_block_t *b, const jg_eval_t *e, int64_t i)
{
    const relay_t *d = b->data;
    double u = e->u[0][b->in_w[0] == 1 ? 0 : i];
    return u >= jg__param_at(&d->p[0], i) ? 1 : u <= jg__param_at(&d->p[1], i) ? 0 : e->xd[i] != 0;
}

static int relay_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const relay_t *d = b->data;
    int held = e->sim && !e->major;
    for (int64_t i = 0; i < b->out_w[0]; i++) {
        int on = held ? e->xd[i] != 0 : relay_on(b, e, i);
        e->y[0][i] = on ? jg__param_at(&d->p[2], i) : jg__param_at(&d->p[3], i);
    }
    return 0;
}

static int relay_update(const jg_block_t *b, jg_eval_t *e)
{
    const relay_t *d = b->data;
    for (int64_t i = 0; i < b->out_w[0]; i++) {
        int on = relay_on(b, e, i), was = e->xd[i] != 0;
        /* u exactly on the switch point of the held state at an event (with
         * OnSwitchValue = OffSwitchValue, on wins there): go where u heads */
        double u = e->u[0][b->in_w[0] == 1 ? 0 : i];
        if (e->zc_fired && e->zc_fired[i] && u == jg__param_at(&d->p[was ? 1 : 0], i))
            on = e->zc_fired[i] > 0;
        e->xdw[i] = on;
    }
    return 0;
}

static int relay_zc(const jg_block_t *b, jg_eval_t *e)
{
    const relay_t *d = b->data;
    int scalar_u = b->in_w[0] == 1;
    for (int64_t i = 0; i < b->out_w[0]; i++)
        e->zcv[i] = e->u[0][scalar_u ? 0 : i] - jg__param_at(&d->p[e->xd[i] != 0 ? 1 : 0], i);
    return 0;
}

const jg_block_type_t jg_block_relay = {
    .name = "Relay", .flags = 0,
    .setup = relay_setup, .widths = relay_widths, .pattern = diag_or_column,
    .outputs = relay_outputs, .jacobian = zero_jacobian, .update = relay_update,
    .zc = relay_zc,
};

/* ---------------------------------------------------------------- Switch */

/* Switch: inputs u1 (data), u2 (control), u3 (data); y = u1 where the
 * criterion on u2 holds, u3 elsewhere, element-wise with scalar expansion
 * (Sum's width rule over the three inputs).  Criteria (literal):
 * "u2 >= Threshold" (default), "u2 > Threshold" or "u2 ~= 0"; Threshold (0) is
 * a scalar or one value per output element (ignored by "u2 ~= 0").
 * Jacobian: 1 on the selected data input element, 0 on the other, 0 on the
 * control (its d part is declared, with zeros, for the feedthrough). */
enum { CRIT_GE, CRIT_GT, CRIT_NE0 };

typedef struct {
    int crit;
    jg_value_t thr;
} switch_t;

static int switch_setup(jg_block_t *b, jg_setup_t *s)
{
    switch_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    const char *c = NULL;
    int r = jg_setup_str(b, s, "Criteria", &c);
    if (r < 0) return JG_BLOCK_FAIL;
    if (r > 0) {
        if (!strcmp(c, "u2 > Threshold"))
            d->crit = CRIT_GT;
        else if (!strcmp(c, "u2 ~= 0"))
            d->crit = CRIT_NE0;
        else if (strcmp(c, "u2 >= Threshold"))
            return jg_setup_error(b, s, JG_PARAM, "Criteria",
                                  "expected \"u2 >= Threshold\", \"u2 > Threshold\" or "
                                  "\"u2 ~= 0\", got \"%s\"",
                                  c);
    }
    if (jg_setup_num_def(b, s, "Threshold", &d->thr, 0.0) < 0) return JG_BLOCK_FAIL;
    if (jg_value_numel(&d->thr) == 0)
        return jg_setup_error(b, s, JG_PARAM, "Threshold", "expected a non-empty value");
    return jg_setup_ports(b, s, 3, 1);
}

static int switch_widths(jg_block_t *b, jg_setup_t *s)
{
    int r = jg_widths_elementwise(b, s);
    if (r != JG_BLOCK_DONE) return r;
    const switch_t *d = b->data;
    int64_t nt = jg_value_numel(&d->thr);
    if (nt != 1 && nt != b->out_w[0])
        return jg_setup_error(b, s, JG_WIDTH, "Threshold",
                              "has %lld elements but the output has width %lld", (long long)nt,
                              (long long)b->out_w[0]);
    /* one zero crossing per output element: u2 - Threshold (u2 for "u2 ~= 0");
     * discrete state: 1 where u1 passed at the last major step */
    if (jg_setup_zc(b, s, b->out_w[0], NULL) < 0 || jg_setup_dstates(b, s, b->out_w[0]) < 0)
        return JG_BLOCK_FAIL;
    return JG_BLOCK_DONE;
}

static int switch_zc(const jg_block_t *b, jg_eval_t *e)
{
    const switch_t *d = b->data;
    for (int64_t i = 0; i < b->out_w[0]; i++) {
        double u2 = e->u[1][b->in_w[1] == 1 ? 0 : i];
        e->zcv[i] = d->crit == CRIT_NE0 ? u2 : u2 - jg__param_at(&d->thr, i);
    }
    return 0;
}

/* Does output element i take u1? */
static int switch_pass1(const jg_block_t *b, jg_eval_t *e, int64_t i)
{
    const switch_t *d = b->data;
    double u2 = e->u[1][b->in_w[1] == 1 ? 0 : i];
    switch (d->crit) {
    case CRIT_GT: return u2 > jg__param_at(&d->thr, i);
    case CRIT_NE0: return u2 != 0;
    default: return u2 >= jg__param_at(&d->thr, i);
    }
}

static int switch_outputs(const jg_block_t *b, jg_eval_t *e)
{
    int held = e->sim && !e->major;
    for (int64_t i = 0; i < b->out_w[0]; i++) {
        int p = (held ? e->xd[i] != 0 : switch_pass1(b, e, i)) ? 0 : 2;
        e->y[0][i] = e->u[p][b->in_w[p] == 1 ? 0 : i];
    }
    return 0;
}

static int switch_update(const jg_block_t *b, jg_eval_t *e)
{
    const switch_t *d = b->data;
    for (int64_t i = 0; i < b->out_w[0]; i++) {
        int pass = switch_pass1(b, e, i);
        double u2 = e->u[1][b->in_w[1] == 1 ? 0 : i];
        double z = d->crit == CRIT_NE0 ? u2 : u2 - jg__param_at(&d->thr, i);
        /* u2 exactly on the threshold at an event: the side it heads for
         * (above: u1; below: u3, or u1 again for "u2 ~= 0") */
        if (e->zc_fired && e->zc_fired[i] && z == 0)
            pass = d->crit == CRIT_NE0 ? 1 : e->zc_fired[i] > 0;
        e->xdw[i] = pass;
    }
    return 0;
}

static int switch_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    /* parts: u1, u2, u3, each diagonal or an expanded column: entry i (the
     * held position in a simulation's minor steps, as the output) */
    int held = e->sim && !e->major;
    for (int64_t i = 0; i < b->out_w[0]; i++) {
        int one = held ? e->xd[i] != 0 : switch_pass1(b, e, i);
        e->jac[0]->x[i] = one ? 1.0 : 0.0;
        e->jac[1]->x[i] = 0.0;
        e->jac[2]->x[i] = one ? 0.0 : 1.0;
    }
    return 0;
}

const jg_block_type_t jg_block_switch = {
    .name = "Switch", .flags = 0,
    .setup = switch_setup, .widths = switch_widths, .pattern = jg_pattern_elementwise,
    .outputs = switch_outputs, .jacobian = switch_jacobian, .update = switch_update,
    .zc = switch_zc,
};
