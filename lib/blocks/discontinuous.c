/* Discontinuous blocks: DeadZone, Sign, MinMax, Relay and Switch.
 *
 * Their Jacobians are piecewise constant (slopes 0 or 1, or 1/k at a tie of k
 * inputs of MinMax) and evaluated analytically at the operating point.  Blocks
 * whose slope is 0 everywhere (Sign, Relay, the Switch control input) still
 * declare their d part with its full pattern: it records the direct
 * feedthrough that the sorted order needs (the output is computed from the
 * input), and its values are simply 0.  Zero-crossing detection for these
 * blocks comes with the rest of issue 4.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "block_impl.h"

/* Element i of a scalar-or-vector parameter. */
static double vp(const jg_value_t *v, int64_t i)
{
    return jg_value_numel(v) == 1 ? v->x[0] : v->x[i];
}

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

/* One input, one output: width max(input, numel(parameters)); a scalar input
 * expands against vector parameters (as Saturation does). */
static int param_widths(jg_block_t *b, jg_setup_t *s, int64_t np, const char *pname)
{
    if (b->in_w[0] < 0) {
        if (!s->force) return JG_BLOCK_AGAIN;
        b->in_w[0] = np;   /* nothing drives the width: follow the parameters */
    }
    int64_t w = b->in_w[0];
    if (np != 1 && w != 1 && np != w)
        return jg_setup_error(b, s, JG_WIDTH, pname, "has %lld elements but the input has width %lld",
                              (long long)np, (long long)w);
    b->out_w[0] = np > w ? np : w;
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
    dz_t *d = jg_setup_alloc(s, sizeof *d);
    if (!d) return jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
    b->data = d;
    if (vparams(b, s, names, defs, 2, d->lim, &d->n, &d->which) < 0) return JG_BLOCK_FAIL;
    for (int64_t i = 0; i < d->n; i++) {
        double lo = vp(&d->lim[0], i), hi = vp(&d->lim[1], i);
        if (!(lo <= hi))
            return jg_setup_error(b, s, JG_PARAM, "LowerValue",
                                  "element %lld is %g, above UpperValue %g: expected LowerValue "
                                  "<= UpperValue",
                                  (long long)i + 1, lo, hi);
    }
    return jg_setup_ports(b, s, 1, 1);
}

static int deadzone_widths(jg_block_t *b, jg_setup_t *s)
{
    const dz_t *d = b->data;
    return param_widths(b, s, d->n, d->which ? "UpperValue" : "LowerValue");
}

static int deadzone_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const dz_t *d = b->data;
    int scalar_u = b->in_w[0] == 1;
    for (int64_t i = 0; i < b->out_w[0]; i++) {
        double u = e->u[0][scalar_u ? 0 : i], lo = vp(&d->lim[0], i), hi = vp(&d->lim[1], i);
        e->y[0][i] = u > hi ? u - hi : u < lo ? u - lo : 0.0;
    }
    return 0;
}

static int deadzone_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    const dz_t *d = b->data;
    int scalar_u = b->in_w[0] == 1;
    for (int64_t i = 0; i < b->out_w[0]; i++) {
        double u = e->u[0][scalar_u ? 0 : i], lo = vp(&d->lim[0], i), hi = vp(&d->lim[1], i);
        e->jac[0]->x[i] = lo < hi && lo <= u && u <= hi ? 0.0 : 1.0;
    }
    return 0;
}

const jg_block_type_t jg_block_deadzone = {
    .name = "DeadZone", .flags = 0,
    .setup = deadzone_setup, .widths = deadzone_widths, .pattern = diag_or_column,
    .outputs = deadzone_outputs, .jacobian = deadzone_jacobian,
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
    return param_widths(b, s, 1, NULL);
}

static int sign_outputs(const jg_block_t *b, jg_eval_t *e)
{
    for (int64_t i = 0; i < b->out_w[0]; i++) {
        double u = e->u[0][i];
        e->y[0][i] = u > 0 ? 1.0 : u < 0 ? -1.0 : u == 0 ? 0.0 : u;
    }
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
    .outputs = sign_outputs, .jacobian = zero_jacobian,
};

/* ---------------------------------------------------------------- MinMax */

/* MinMax: Function (literal, "min" default, or "max"); Inputs: the number of
 * input ports (1 default, up to 1024; a number, a numeric string, or a
 * workspace name).  One input: the min/max over its elements, a scalar.
 * Several: element-wise min/max with scalar expansion (Sum's width rule).
 * Slope 1 on the selected input element, 0 on the others; when k inputs tie
 * for the extremum each gets 1/k (the mean of the one-sided slopes, as Fcn's
 * min/max do). */
typedef struct {
    int max;
} minmax_t;

static int minmax_setup(jg_block_t *b, jg_setup_t *s)
{
    minmax_t *d = jg_setup_alloc(s, sizeof *d);
    if (!d) return jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
    b->data = d;
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
    const char *str = NULL;
    jg_value_t num;
    double n = 1;
    r = jg_setup_str_or_num(b, s, "Inputs", &str, &num);
    if (r < 0) return JG_BLOCK_FAIL;
    if (r == 1) {
        char *end = NULL;
        n = strtod(str, &end);
        if (end == str || *end) n = -1;
    } else if (r == 2) {
        n = jg_value_numel(&num) == 1 ? num.x[0] : -1;
    }
    if (!jg_is_int(n, 1, 1024)) {
        if (r == 1)
            return jg_setup_error(b, s, JG_PARAM, "Inputs",
                                  "expected a count of input ports from 1 to 1024, got \"%s\"", str);
        return jg_setup_error(b, s, JG_PARAM, "Inputs",
                              "expected a count of input ports from 1 to 1024");
    }
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
    .setup = minmax_setup, .widths = jg_widths_elementwise, .pattern = jg_pattern_elementwise,
    .outputs = minmax_outputs, .jacobian = minmax_jacobian,
};

/* ----------------------------------------------------------------- Relay */

/* Relay, WITHOUT hysteresis for now.  A real relay has memory: it turns on
 * when u reaches OnSwitchValue, off when u falls to OffSwitchValue, and keeps
 * its state in between.  Block functions have no discrete (run-time) state
 * yet, so this relay is memoryless: on for u >= OnSwitchValue, off for
 * u <= OffSwitchValue, and in between on iff u is above the midpoint
 * (OnSwitchValue + OffSwitchValue)/2.  Output OnOutputValue when on,
 * OffOutputValue when off.  Parameters OnSwitchValue (eps), OffSwitchValue
 * (eps), OnOutputValue (1), OffOutputValue (0): each a scalar or one value per
 * element, OnSwitchValue >= OffSwitchValue.  Slope 0 everywhere (diag part
 * with zero values: the relay has direct feedthrough). */
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
    relay_t *d = jg_setup_alloc(s, sizeof *d);
    if (!d) return jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
    b->data = d;
    if (vparams(b, s, relay_names, defs, 4, d->p, &d->n, &d->which) < 0) return JG_BLOCK_FAIL;
    for (int64_t i = 0; i < d->n; i++) {
        double on = vp(&d->p[0], i), off = vp(&d->p[1], i);
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
    return param_widths(b, s, d->n, relay_names[d->which]);
}

static int relay_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const relay_t *d = b->data;
    int scalar_u = b->in_w[0] == 1;
    for (int64_t i = 0; i < b->out_w[0]; i++) {
        double u = e->u[0][scalar_u ? 0 : i], on_at = vp(&d->p[0], i), off_at = vp(&d->p[1], i);
        int on = u >= on_at ? 1 : u <= off_at ? 0 : u > off_at + (on_at - off_at) / 2;
        e->y[0][i] = on ? vp(&d->p[2], i) : vp(&d->p[3], i);
    }
    return 0;
}

const jg_block_type_t jg_block_relay = {
    .name = "Relay", .flags = 0,
    .setup = relay_setup, .widths = relay_widths, .pattern = diag_or_column,
    .outputs = relay_outputs, .jacobian = zero_jacobian,
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
    switch_t *d = jg_setup_alloc(s, sizeof *d);
    if (!d) return jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
    b->data = d;
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
    return JG_BLOCK_DONE;
}

/* Does output element i take u1? */
static int switch_pass1(const jg_block_t *b, jg_eval_t *e, int64_t i)
{
    const switch_t *d = b->data;
    double u2 = e->u[1][b->in_w[1] == 1 ? 0 : i];
    switch (d->crit) {
    case CRIT_GT: return u2 > vp(&d->thr, i);
    case CRIT_NE0: return u2 != 0;
    default: return u2 >= vp(&d->thr, i);
    }
}

static int switch_outputs(const jg_block_t *b, jg_eval_t *e)
{
    for (int64_t i = 0; i < b->out_w[0]; i++) {
        int p = switch_pass1(b, e, i) ? 0 : 2;
        e->y[0][i] = e->u[p][b->in_w[p] == 1 ? 0 : i];
    }
    return 0;
}

static int switch_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    /* parts: u1, u2, u3, each diagonal or an expanded column: entry i */
    for (int64_t i = 0; i < b->out_w[0]; i++) {
        int one = switch_pass1(b, e, i);
        e->jac[0]->x[i] = one ? 1.0 : 0.0;
        e->jac[1]->x[i] = 0.0;
        e->jac[2]->x[i] = one ? 0.0 : 1.0;
    }
    return 0;
}

const jg_block_type_t jg_block_switch = {
    .name = "Switch", .flags = 0,
    .setup = switch_setup, .widths = switch_widths, .pattern = jg_pattern_elementwise,
    .outputs = switch_outputs, .jacobian = switch_jacobian,
};
