/* IC and AlgebraicConstraint: blocks that exist for the algebraic-loop
 * solver.
 *
 * IC holds its output at Value at the first major step of a simulation and
 * passes its input through otherwise; its guess() is also the starting point
 * of a loop through it.  AlgebraicConstraint solves f(z) = 0: the compiler
 * wires its last input to its own output (JG_BT_SELFLOOP), y = y + s u1, so
 * a fixed point of the loop solver is u1 = f(z) = 0 with z = y.
 */
#include "block_impl.h"

/* Width of a block whose output equals its (first) input, with a
 * scalar-or-width parameter: the driver's width, else numel(param) when it
 * is a vector (or under force), else wait. */
static int same_width(jg_block_t *b, jg_setup_t *s, const jg_value_t *v, const char *pname)
{
    int64_t nv = jg_value_numel(v);
    if (b->out_w[0] < 0) {
        if (b->in_w[0] >= 0)
            b->out_w[0] = b->in_w[0];
        else if (nv > 1 || s->force)
            b->out_w[0] = nv;
        else
            return JG_BLOCK_AGAIN;
    }
    if (b->in_w[0] < 0) {
        if (!s->force) return JG_BLOCK_AGAIN;
        b->in_w[0] = b->out_w[0];   /* unconnected: follow the parameter */
    }
    if (b->in_w[0] != b->out_w[0])
        return jg_setup_error(b, s, JG_WIDTH, NULL,
                              "input 1 has width %lld but the output has width %lld (from %s)",
                              (long long)b->in_w[0], (long long)b->out_w[0], pname);
    if (nv != 1 && nv != b->out_w[0])
        return jg_setup_error(b, s, JG_PARAM, pname,
                              "expected a scalar or %lld elements (the signal width), got %lld",
                              (long long)b->out_w[0], (long long)nv);
    return JG_BLOCK_DONE;
}

/* -------------------------------------------------------------------- IC */

/* IC: y = Value at the first major step of a simulation, y = u otherwise
 * (every linearization: d = I).  Value (default 0) is a scalar or one value
 * per element. */
typedef struct {
    jg_value_t value;
} ic_t;

static int ic_setup(jg_block_t *b, jg_setup_t *s)
{
    ic_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    if (jg_setup_num_def(b, s, "Value", &d->value, 0.0) < 0) return JG_BLOCK_FAIL;
    if (jg_value_numel(&d->value) == 0)
        return jg_setup_error(b, s, JG_PARAM, "Value", "expected a non-empty value");
    return jg_setup_ports(b, s, 1, 1);
}

static int ic_widths(jg_block_t *b, jg_setup_t *s)
{
    return same_width(b, s, &((ic_t *)b->data)->value, "Value");
}

static int ic_pattern(jg_block_t *b, jg_setup_t *s)
{
    return jg_jac_diag(b, s, JG_JAC_D, 0, 0) < 0 ? -1 : 0;
}

static int ic_holding(const jg_eval_t *e)
{
    return e->sim && e->major && e->first;
}

static int ic_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const ic_t *d = b->data;
    int hold = ic_holding(e);
    for (int64_t i = 0; i < b->out_w[0]; i++) e->y[0][i] = hold ? jg__param_at(&d->value, i) : e->u[0][i];
    return 0;
}

/* The slope of what outputs() computes: 0 while the output is held (a loop
 * through the IC is then solved in one step). */
static int ic_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    double slope = ic_holding(e) ? 0.0 : 1.0;
    for (int64_t i = 0; i < b->out_w[0]; i++) e->jac[0]->x[i] = slope;
    return 0;
}

static int ic_guess(const jg_block_t *b, double *const *y)
{
    const ic_t *d = b->data;
    for (int64_t i = 0; i < b->out_w[0]; i++) y[0][i] = jg__param_at(&d->value, i);
    return 0;
}

const jg_block_type_t jg_block_ic = {
    .name = "IC", .flags = JG_BT_LINEAR,
    .setup = ic_setup, .widths = ic_widths, .pattern = ic_pattern,
    .outputs = ic_outputs, .jacobian = ic_jacobian, .guess = ic_guess,
};

/* --------------------------------------------------- AlgebraicConstraint */

/* AlgebraicConstraint: input 1 is f(z), output z.  Input 2 (not in the
 * model's lines) is wired by the compiler to the block's own output, and
 * y = u2 + AC_SCALE u1: the loop solver's fixed point y = y + AC_SCALE f(z) is
 * f(z) = 0.  InitialGuess (default 0, scalar or one per element) starts the
 * solver.
 *
 * Why the scale: every linearization sums the loop's gain into the self-loop,
 * 1 + s df/dz, and then takes 1 - (1 + s df/dz).  With s = 1 a small df/dz
 * (f in small units: 1e-10 z) loses eps/|df/dz| of its digits in that sum
 * (8e-8 relative at 1e-10, all of them at 1e-16).  With s = 2^60 the sum is
 * formed exactly enough (relative eps / |s df/dz|, below 1e-15 for |df/dz| >=
 * 1e-3 / s) and the difference 1 - (1 + s df/dz) = -s df/dz is then exact up
 * to that; s is a power of two, so the scaling itself rounds nothing and
 * cancels from every result (dz/du = -(s df/dz)^-1 s df/du).  The loop solver's
 * tests do not depend on the residual's units, and it leaves y = z, not
 * z + s f(z), so the scale is invisible outside the block's own Jacobian
 * (which shows s: docs/model-format.md).  The price: |f| above 2^1023 / s
 * (1.5e290) overflows. */
#define AC_SCALE 0x1p60
typedef struct {
    jg_value_t guess;
} ac_t;

static int ac_setup(jg_block_t *b, jg_setup_t *s)
{
    ac_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    if (jg_setup_num_def(b, s, "InitialGuess", &d->guess, 0.0) < 0) return JG_BLOCK_FAIL;
    if (jg_value_numel(&d->guess) == 0)
        return jg_setup_error(b, s, JG_PARAM, "InitialGuess", "expected a non-empty value");
    return jg_setup_ports(b, s, 2, 1);
}

static int ac_widths(jg_block_t *b, jg_setup_t *s)
{
    int r = same_width(b, s, &((ac_t *)b->data)->guess, "InitialGuess");
    if (r != JG_BLOCK_DONE) return r;
    if (b->in_w[1] < 0) b->in_w[1] = b->out_w[0];   /* the self-loop (or not yet wired) */
    if (b->in_w[1] != b->out_w[0])
        return jg_setup_error(b, s, JG_INTERNAL, NULL,
                              "the internal input has width %lld, the output %lld",
                              (long long)b->in_w[1], (long long)b->out_w[0]);
    return JG_BLOCK_DONE;
}

static int ac_pattern(jg_block_t *b, jg_setup_t *s)
{
    if (jg_jac_diag(b, s, JG_JAC_D, 0, 0) < 0) return -1;
    return jg_jac_diag(b, s, JG_JAC_D, 0, 1) < 0 ? -1 : 0;
}

static int ac_outputs(const jg_block_t *b, jg_eval_t *e)
{
    for (int64_t i = 0; i < b->out_w[0]; i++) e->y[0][i] = e->u[1][i] + AC_SCALE * e->u[0][i];
    return 0;
}

static int ac_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    for (int64_t i = 0; i < b->out_w[0]; i++) {
        e->jac[0]->x[i] = AC_SCALE;
        e->jac[1]->x[i] = 1.0;
    }
    return 0;
}

static int ac_guess(const jg_block_t *b, double *const *y)
{
    const ac_t *d = b->data;
    for (int64_t i = 0; i < b->out_w[0]; i++) y[0][i] = jg__param_at(&d->guess, i);
    return 0;
}

const jg_block_type_t jg_block_algebraicconstraint = {
    .name = "AlgebraicConstraint", .flags = JG_BT_SELFLOOP | JG_BT_LINEAR,
    .setup = ac_setup, .widths = ac_widths, .pattern = ac_pattern,
    .outputs = ac_outputs, .jacobian = ac_jacobian, .guess = ac_guess,
};
