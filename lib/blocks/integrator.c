/* Integrator: x' = u, y = x, x(0) = InitialCondition (scalar-expanded), with
 * Simulink's options (Simulink, "How Simulink Works": "Blocks that Register
 * Zero Crossings"):
 *
 *   ExternalReset "none" | "rising" | "falling" | "either" | "level": a reset
 *     input after u.  One zero-crossing signal per reset element (the input
 *     itself, in that direction; "level": either).  update() sets the state to
 *     the initial condition where the signal crossed, or for "level" while it
 *     is nonzero.
 *   InitialConditionSource "internal" | "external": an IC input after the
 *     reset port, loaded at t0 (the update call with e->init) and at resets.
 *   UpperSaturationLimit / LowerSaturationLimit (inf / -inf): y = clamp(x);
 *     the integration stops at a limit while u pushes outwards; update()
 *     clamps the state.  Zero crossings x - upper (rising) and x - lower
 *     (falling) place a major step where a limit is reached.
 *   ShowSaturationPort: an output +1 at the upper limit, -1 at the lower, 0
 *     between.  ShowStatePort: the last output, the state x itself, computed
 *     before update() runs, so at a reset step it is the value before the
 *     reset; it has no path from the reset or IC inputs, which is what lets
 *     a state port -> Gain -> IC port loop (the bouncing ball) be no
 *     algebraic loop.
 * Ports in Simulink's order: inputs u, reset, IC; outputs y, saturation,
 * state.  The reset and IC ports declare no Jacobian parts: no feedthrough,
 * no signal path in the linearization (the compiler re-gathers them after the
 * outputs, so update() sees their current values).
 *
 * Limits and the solver.  In simulation the stop is decided by a mode per
 * element (a discrete state: -1 at the lower limit, +1 at the upper, 0
 * free) that only update() changes, at major steps.  The derivative is thus
 * smooth within an integration step: x runs on past a limit inside the step,
 * the zero crossing x - limit is located, the major step is placed there and
 * update() clamps x and sets the mode.  Deciding the stop from x in every
 * minor step instead would put a kink into the step and make the error
 * control shrink the step to nothing at each contact.  Linearization
 * (e->sim == 0) has no modes: the stop is read off x and u, and the Jacobian
 * is b = dx'/du = 0, c = dy/dx = 0 where a limit is active, 1 otherwise.
 */
#include <float.h>
#include <math.h>
#include <string.h>
#include "block_impl.h"

enum { RESET_NONE, RESET_RISING, RESET_FALLING, RESET_EITHER, RESET_LEVEL };

typedef struct {
    jg_value_t ic;
    jg_value_t hi, lo;   /* saturation limits, scalar or one per element */
    int has_hi, has_lo;  /* some element has a finite limit: zero crossings and modes */
    int reset;           /* RESET_* */
    int ext_ic;
    int p_reset, p_ic;   /* input ports, -1 when absent */
    int q_sat, q_state;  /* output ports, -1 when absent */
    int limited;         /* has_hi || has_lo: one mode per element */
    int64_t nzr;         /* zero crossings of the reset (its width) */
} integ_t;

static int integ_setup(jg_block_t *b, jg_setup_t *s)
{
    integ_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    if (jg_setup_num_def(b, s, "InitialCondition", &d->ic, 0.0) < 0) return JG_BLOCK_FAIL;
    if (jg_value_numel(&d->ic) == 0)
        return jg_setup_error(b, s, JG_PARAM, "InitialCondition", "expected a non-empty value");

    static const char *const resets[] = {"none", "rising", "falling", "either", "level"};
    const char *str = NULL;
    int r = jg_setup_str(b, s, "ExternalReset", &str);
    if (r < 0) return JG_BLOCK_FAIL;
    if (r > 0) {
        d->reset = -1;
        for (int k = 0; k < 5; k++)
            if (!strcmp(str, resets[k])) d->reset = k;
        if (d->reset < 0)
            return jg_setup_error(b, s, JG_PARAM, "ExternalReset",
                                  "expected \"none\", \"rising\", \"falling\", \"either\" or "
                                  "\"level\", got \"%s\"",
                                  str);
    }
    r = jg_setup_str(b, s, "InitialConditionSource", &str);
    if (r < 0) return JG_BLOCK_FAIL;
    if (r > 0) {
        if (!strcmp(str, "external"))
            d->ext_ic = 1;
        else if (strcmp(str, "internal"))
            return jg_setup_error(b, s, JG_PARAM, "InitialConditionSource",
                                  "expected \"internal\" or \"external\", got \"%s\"", str);
    }

    if (jg__param_limit(b, s, "UpperSaturationLimit", INFINITY, &d->hi) < 0) return JG_BLOCK_FAIL;
    if (jg__param_limit(b, s, "LowerSaturationLimit", -INFINITY, &d->lo) < 0) return JG_BLOCK_FAIL;
    int64_t nh = jg_value_numel(&d->hi), nl = jg_value_numel(&d->lo);
    if (nh != 1 && nl != 1 && nh != nl)
        return jg_setup_error(b, s, JG_PARAM, "LowerSaturationLimit",
                              "has %lld elements but UpperSaturationLimit has %lld (only "
                              "scalars expand)",
                              (long long)nl, (long long)nh);
    for (int64_t i = 0; i < (nh > nl ? nh : nl); i++) {
        double lo = jg__param_at(&d->lo, i), hi = jg__param_at(&d->hi, i);
        if (!(lo < hi))
            return jg_setup_error(b, s, JG_PARAM, "LowerSaturationLimit",
                                  "element %lld is %g, not below UpperSaturationLimit %g: "
                                  "expected LowerSaturationLimit < UpperSaturationLimit",
                                  (long long)i + 1, lo, hi);
        d->has_hi |= isfinite(hi);
        d->has_lo |= isfinite(lo);
    }

    int sat = 0, state = 0;
    if (jg__param_onoff(b, s, "ShowSaturationPort", 0, &sat) < 0) return JG_BLOCK_FAIL;
    if (jg__param_onoff(b, s, "ShowStatePort", 0, &state) < 0) return JG_BLOCK_FAIL;
    int nin = 1, nout = 1;
    d->p_reset = d->reset != RESET_NONE ? nin++ : -1;
    d->p_ic = d->ext_ic ? nin++ : -1;
    d->q_sat = sat ? nout++ : -1;
    d->q_state = state ? nout++ : -1;
    return jg_setup_ports(b, s, nin, nout);
}

static int integ_widths(jg_block_t *b, jg_setup_t *s)
{
    integ_t *d = b->data;
    /* the width: a vector InitialCondition (internal) or limit, else the input
     * or the IC port, else 1 inside a loop with nothing else to go by */
    int64_t nic = d->ext_ic ? 1 : jg_value_numel(&d->ic);
    int64_t nlim = jg_value_numel(&d->hi) > jg_value_numel(&d->lo) ? jg_value_numel(&d->hi)
                                                                    : jg_value_numel(&d->lo);
    if (b->out_w[0] < 0) {
        if (nic > 1)
            b->out_w[0] = nic;
        else if (nlim > 1)
            b->out_w[0] = nlim;
        else if (b->in_w[0] > 0)
            b->out_w[0] = b->in_w[0];
        else if (d->p_ic >= 0 && b->in_w[d->p_ic] > 1)
            b->out_w[0] = b->in_w[d->p_ic];
        else if (s->force)
            b->out_w[0] = 1;   /* a loop through the integrator: follow the scalar IC */
        else
            return JG_BLOCK_AGAIN;
    }
    int64_t n = b->out_w[0];
    if (nic != 1 && nic != n)
        return jg_setup_error(b, s, JG_PARAM, "InitialCondition",
                              "expected a scalar or %lld elements, got %lld", (long long)n,
                              (long long)nic);
    if (nlim != 1 && nlim != n)
        return jg_setup_error(b, s, JG_PARAM,
                              jg_value_numel(&d->hi) == nlim ? "UpperSaturationLimit"
                                                             : "LowerSaturationLimit",
                              "expected a scalar or %lld elements, got %lld", (long long)n,
                              (long long)nlim);
    /* the other outputs first, so that loops through them can resolve */
    if (d->q_sat >= 0) b->out_w[d->q_sat] = n;
    if (d->q_state >= 0) b->out_w[d->q_state] = n;
    for (int p = 0; p < b->nin; p++)
        if (b->in_w[p] < 0) {
            if (!s->force) return JG_BLOCK_AGAIN;
            b->in_w[p] = p == d->p_reset ? 1 : n;
        }
    if (b->in_w[0] != n)
        return jg_setup_error(b, s, JG_WIDTH, NULL,
                              "input has width %lld but the state has width %lld "
                              "(from InitialCondition, the saturation limits or the input)",
                              (long long)b->in_w[0], (long long)n);
    if (d->p_reset >= 0 && b->in_w[d->p_reset] != 1 && b->in_w[d->p_reset] != n)
        return jg_setup_error(b, s, JG_WIDTH, "ExternalReset",
                              "the reset input (port %d) has width %lld: expected 1 or %lld",
                              d->p_reset + 1, (long long)b->in_w[d->p_reset], (long long)n);
    if (d->p_ic >= 0 && b->in_w[d->p_ic] != 1 && b->in_w[d->p_ic] != n)
        return jg_setup_error(b, s, JG_WIDTH, "InitialConditionSource",
                              "the initial-condition input (port %d) has width %lld: expected 1 "
                              "or %lld",
                              d->p_ic + 1, (long long)b->in_w[d->p_ic], (long long)n);
    if (jg_setup_states(b, s, n) < 0) return JG_BLOCK_FAIL;

    /* zero crossings: the reset elements, then x - upper, then x - lower */
    d->nzr = d->p_reset >= 0 ? b->in_w[d->p_reset] : 0;
    int64_t nz = d->nzr + (d->has_hi ? n : 0) + (d->has_lo ? n : 0);
    signed char *dir = jg_setup_alloc(s, (size_t)nz + 1);
    if (!dir) return jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
    signed char rdir = d->reset == RESET_RISING    ? JG_ZC_RISING
                       : d->reset == RESET_FALLING ? JG_ZC_FALLING
                                                   : JG_ZC_EITHER;
    int64_t k = 0;
    for (int64_t i = 0; i < d->nzr; i++) dir[k++] = rdir;
    /* a limit is reached from inside; leaving it needs no event (the
     * derivative turns continuously from 0 to u as u changes sign) */
    for (int64_t i = 0; d->has_hi && i < n; i++) dir[k++] = JG_ZC_RISING;
    for (int64_t i = 0; d->has_lo && i < n; i++) dir[k++] = JG_ZC_FALLING;
    if (jg_setup_zc(b, s, nz, dir) < 0) return JG_BLOCK_FAIL;
    /* discrete states: the modes (limits), then the reset input at the last
     * major step */
    d->limited = d->has_hi || d->has_lo;
    if (jg_setup_dstates(b, s, (d->limited ? n : 0) + d->nzr) < 0) return JG_BLOCK_FAIL;
    return JG_BLOCK_DONE;
}

static int integ_pattern(jg_block_t *b, jg_setup_t *s)
{
    const integ_t *d = b->data;
    /* b and c first: the layout of the plain Integrator */
    if (jg_jac_diag(b, s, JG_JAC_B, -1, 0) < 0) return -1;
    if (jg_jac_diag(b, s, JG_JAC_C, 0, -1) < 0) return -1;
    if (d->q_state >= 0 && jg_jac_diag(b, s, JG_JAC_C, d->q_state, -1) < 0) return -1;
    return 0;
}

static double clamp(const integ_t *d, int64_t i, double x)
{
    double lo = jg__param_at(&d->lo, i), hi = jg__param_at(&d->hi, i);
    return x < lo ? lo : x > hi ? hi : x;
}

/* Mode of a state value: +1 at or above the upper limit, -1 at or below the
 * lower, 0 between. */
static double mode_of(const integ_t *d, int64_t i, double x)
{
    return x >= jg__param_at(&d->hi, i) ? 1.0 : x <= jg__param_at(&d->lo, i) ? -1.0 : 0.0;
}

static int integ_init(const jg_block_t *b, double *x0)
{
    const integ_t *d = b->data;
    for (int64_t i = 0; i < b->nx; i++) x0[i] = clamp(d, i, jg__param_at(&d->ic, i));
    return 0;
}

static int integ_init_discrete(const jg_block_t *b, double *xd0)
{
    const integ_t *d = b->data;
    for (int64_t i = 0; d->limited && i < b->nx; i++) xd0[i] = mode_of(d, i, clamp(d, i, jg__param_at(&d->ic, i)));
    return 0;
}

static int integ_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const integ_t *d = b->data;
    if (!d->limited && d->q_sat < 0 && d->q_state < 0) {   /* the plain integrator: y = x */
        memcpy(e->y[0], e->x, sizeof(double) * (size_t)b->nx);
        return 0;
    }
    for (int64_t i = 0; i < b->nx; i++) {
        double x = e->x[i];
        e->y[0][i] = clamp(d, i, x);
        if (d->q_sat >= 0) e->y[d->q_sat][i] = mode_of(d, i, x);
        if (d->q_state >= 0) e->y[d->q_state][i] = x;
    }
    return 0;
}

/* Is the integration of element i stopped at a limit? */
static int stopped(const jg_block_t *b, const jg_eval_t *e, int64_t i)
{
    const integ_t *d = b->data;
    if (!d->limited) return 0;
    double x = e->x[i], u = e->u[0][i];
    if (e->sim) {   /* the mode of the last major step, and x still on the limit */
        double m = e->xd[i];
        return (m > 0 && u > 0 && x >= jg__param_at(&d->hi, i)) || (m < 0 && u < 0 && x <= jg__param_at(&d->lo, i));
    }
    return (x >= jg__param_at(&d->hi, i) && u > 0) || (x <= jg__param_at(&d->lo, i) && u < 0);
}

static int integ_derivatives(const jg_block_t *b, jg_eval_t *e)
{
    if (!((const integ_t *)b->data)->limited) {   /* dx = u */
        memcpy(e->dx, e->u[0], sizeof(double) * (size_t)b->nx);
        return 0;
    }
    for (int64_t i = 0; i < b->nx; i++) e->dx[i] = stopped(b, e, i) ? 0.0 : e->u[0][i];
    return 0;
}

static int integ_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    const integ_t *d = b->data;
    for (int64_t i = 0; i < b->nx; i++) {
        double x = e->x[i];
        e->jac[0]->x[i] = stopped(b, e, i) ? 0.0 : 1.0;
        /* y = clamp(x): slope 1 on the closed range (as Saturation) */
        e->jac[1]->x[i] = x < jg__param_at(&d->lo, i) || x > jg__param_at(&d->hi, i) ? 0.0 : 1.0;
        if (d->q_state >= 0) e->jac[2]->x[i] = 1.0;
    }
    return 0;
}

/* Initial condition of element i: the parameter or the IC input. */
static double ic_of(const integ_t *d, const jg_eval_t *e, int64_t i, int64_t icw)
{
    if (d->p_ic >= 0) return e->u[d->p_ic][icw == 1 ? 0 : i];
    return jg__param_at(&d->ic, i);
}

/* Did the reset signal cross from a to b in the block's direction?  Rising:
 * to or through zero from below, or up from zero (as in Simulink), and so on. */
static int reset_crossed(int reset, double a, double b)
{
    int up = (a < 0 && b >= 0) || (a == 0 && b > 0);
    int down = (a > 0 && b <= 0) || (a == 0 && b < 0);
    return reset == RESET_RISING ? up : reset == RESET_FALLING ? down : up || down;
}

/* Resets.  The simulator's e->zc_fired only sees crossings of the reset
 * signal between major steps, on its minor-step values; a signal that jumps
 * at a major step (a Step, a Relay, anything held over minor steps) crosses
 * inside the major step itself.  So the block also compares the reset input
 * with its value at the last major step (a discrete state), as Simulink's
 * Integrator does, and resets on either.  After a reset the stored value is
 * taken as past zero in the crossing's direction, so that a crossing the
 * simulator located just before zero (adaptive location) does not fire a
 * second time when the signal then passes zero.  "level" resets while the
 * input is nonzero, and once more at the step where it returns to zero. */
static int integ_update(const jg_block_t *b, jg_eval_t *e)
{
    const integ_t *d = b->data;
    if (d->p_reset < 0 && d->p_ic < 0 && !d->limited) return 0;   /* the plain integrator */
    int64_t icw = d->p_ic >= 0 ? b->in_w[d->p_ic] : 1;
    double *prev = e->xdw + (d->limited ? b->nx : 0);
    unsigned char fire1 = 0;   /* scalar reset: decided once for all elements */
    for (int64_t j = 0; j < d->nzr; j++) {
        double now = e->u[d->p_reset][j], was = prev[j];
        int f = e->zc_fired ? e->zc_fired[j] : 0, fire = 0;
        if (!e->init && !e->first) {
            if (d->reset == RESET_LEVEL)
                fire = now != 0 || was != 0;
            else
                fire = reset_crossed(d->reset, was, now) ||
                       (f > 0 && d->reset != RESET_FALLING) || (f < 0 && d->reset != RESET_RISING);
        } else if (d->reset == RESET_LEVEL && !e->init) {
            fire = now != 0;   /* t0: a level reset applies at once */
        }
        if (fire && d->reset != RESET_LEVEL) {
            /* the crossing's direction: rising unless it went down */
            int down = was > now || f < 0;
            double mag = fmax(fabs(now), DBL_MIN);
            now = down ? -mag : mag;
        }
        prev[j] = now;
        if (d->nzr == 1) fire1 = (unsigned char)fire;
        else if (fire) e->xw[j] = ic_of(d, e, j, icw);
    }
    for (int64_t i = 0; i < b->nx; i++) {
        double x = e->xw[i];
        if (e->init && d->p_ic >= 0) x = ic_of(d, e, i, icw);
        if (fire1) x = ic_of(d, e, i, icw);
        e->xw[i] = clamp(d, i, x);
        if (d->limited) e->xdw[i] = mode_of(d, i, e->xw[i]);
    }
    return 0;
}

static int integ_zc(const jg_block_t *b, jg_eval_t *e)
{
    const integ_t *d = b->data;
    int64_t k = 0;
    for (int64_t j = 0; j < d->nzr; j++) e->zcv[k++] = e->u[d->p_reset][j];
    /* an element without a finite limit gets a constant of the sign that
     * never fires */
    for (int64_t i = 0; d->has_hi && i < b->nx; i++) {
        double hi = jg__param_at(&d->hi, i);
        e->zcv[k++] = isfinite(hi) ? e->x[i] - hi : -1.0;
    }
    for (int64_t i = 0; d->has_lo && i < b->nx; i++) {
        double lo = jg__param_at(&d->lo, i);
        e->zcv[k++] = isfinite(lo) ? e->x[i] - lo : 1.0;
    }
    return 0;
}

/* The plain integrator's y = x and, without limits, dx = u as kernels of
 * the evaluation plan (block_impl.h); without limits, reset or IC port its
 * update() returns at once. */
static void integ_kernel(const jg_block_t *b, jg_kernel_t *k)
{
    const integ_t *d = b->data;
    if (!d->limited && d->q_sat < 0 && d->q_state < 0) k->outputs = JG_KERNEL_STATE;
    if (!d->limited) k->derivatives = JG_KERNEL_INPUT;
    k->no_update = d->p_reset < 0 && d->p_ic < 0 && !d->limited;
}

const jg_block_type_t jg_block_integrator = {
    .name = "Integrator", .flags = JG_BT_LINEAR,
    .setup = integ_setup, .widths = integ_widths, .pattern = integ_pattern,
    .init = integ_init, .outputs = integ_outputs, .derivatives = integ_derivatives,
    .jacobian = integ_jacobian, .init_discrete = integ_init_discrete, .update = integ_update,
    .zc = integ_zc, .kernel = integ_kernel,
};
