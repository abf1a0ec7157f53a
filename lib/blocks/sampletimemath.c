/* SampleTimeMath (Weighted Sample Time Math, Weighted Sample Time): the input
 * combined with its weighted sample time w Ts.
 *
 * TsampMathOp (literal): "+" y = u + w Ts, "-" y = u - w Ts, "*" y = u w Ts,
 * "/" y = (u / Ts) / w, "Ts Only" y = w Ts, "1/Ts Only" y = 1 / (w Ts)
 * (Simulink's formulas, MATLAB precedence); weightValue w (1, a nonzero real
 * scalar for "/" and "1/Ts Only"); TsampMathImp "Online Calculations" or
 * "Offline Scaling Adjustment" (they differ in fixed-point types only; signals
 * are double here).  The output has the input's width; "Ts Only" and
 * "1/Ts Only" still read the input, for its rate.
 *
 * Ts is the block's own resolved sample time, b->ts.period, which the
 * compiler sets (from the input's rate: the block has no SampleTime of its
 * own) before run time.  The block is JG_BT_DISCRETE: Simulink takes the
 * model's fixed step size for a continuous input, which a variable-step run
 * does not have, so an input that is not discrete is a compile error.
 * Linear: D = w Ts ("*"), 1/(w Ts) ("/"), 1 ("+", "-"), none for the Ts-only
 * forms (their output does not depend on u's value). */
#include <math.h>
#include <string.h>
#include "block_impl.h"

enum { OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_TS, OP_RATE };

typedef struct {
    int op;
    double w;
} stm_t;

static int stm_setup(jg_block_t *b, jg_setup_t *s)
{
    static const char *const ops[6] = {"+", "-", "*", "/", "Ts Only", "1/Ts Only"};
    stm_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    const char *op = "+";
    if (jg_setup_str(b, s, "TsampMathOp", &op) < 0) return JG_BLOCK_FAIL;
    d->op = -1;
    for (int k = 0; k < 6; k++)
        if (!strcmp(op, ops[k])) d->op = k;
    if (d->op < 0)
        return jg_setup_error(b, s, JG_PARAM, "TsampMathOp",
                              "expected \"+\", \"-\", \"*\", \"/\", \"Ts Only\" or \"1/Ts Only\", "
                              "got \"%s\"",
                              op);
    const char *imp = "Online Calculations";
    if (jg_setup_str(b, s, "TsampMathImp", &imp) < 0) return JG_BLOCK_FAIL;
    if (strcmp(imp, "Online Calculations") && strcmp(imp, "Offline Scaling Adjustment"))
        return jg_setup_error(b, s, JG_PARAM, "TsampMathImp",
                              "expected \"Online Calculations\" or \"Offline Scaling Adjustment\", "
                              "got \"%s\"",
                              imp);
    jg_value_t w;
    if (jg_setup_num_def(b, s, "weightValue", &w, 1.0) < 0) return JG_BLOCK_FAIL;
    if (jg_value_numel(&w) != 1 || !isfinite(w.x[0]))
        return jg_setup_error(b, s, JG_PARAM, "weightValue", "expected a finite real scalar");
    if ((d->op == OP_DIV || d->op == OP_RATE) && w.x[0] == 0)
        return jg_setup_error(b, s, JG_PARAM, "weightValue",
                              "is 0: the operation \"%s\" divides by it", op);
    d->w = w.x[0];
    return jg_setup_ports(b, s, 1, 1);
}

static int stm_widths(jg_block_t *b, jg_setup_t *s)
{
    if (b->in_w[0] < 0) {
        if (!s->force) return JG_BLOCK_AGAIN;
        b->in_w[0] = 1;
    }
    b->out_w[0] = b->in_w[0];
    return JG_BLOCK_DONE;
}

static int stm_pattern(jg_block_t *b, jg_setup_t *s)
{
    const stm_t *d = b->data;
    if (d->op == OP_TS || d->op == OP_RATE) return 0;
    return jg_jac_diag(b, s, JG_JAC_D, 0, 0) < 0 ? -1 : 0;
}

static int stm_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const stm_t *d = b->data;
    double wts = d->w * b->ts.period, ts = b->ts.period;
    for (int64_t i = 0; i < b->out_w[0]; i++) {
        double u = e->u[0][i], y;
        switch (d->op) {
        case OP_ADD: y = u + wts; break;
        case OP_SUB: y = u - wts; break;
        case OP_MUL: y = u * wts; break;
        case OP_DIV: y = (u / ts) / d->w; break;
        case OP_TS: y = wts; break;
        default: y = 1 / wts; break;
        }
        e->y[0][i] = y;
    }
    return 0;
}

static int stm_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    const stm_t *d = b->data;
    double g = d->op == OP_MUL ? d->w * b->ts.period : d->op == OP_DIV ? 1 / (b->ts.period * d->w) : 1.0;
    for (int k = 0; k < b->npart; k++) {
        cs_dl *m = e->jac[k];
        for (int64_t q = 0; q < m->p[m->n]; q++) m->x[q] = g;
    }
    return 0;
}

const jg_block_type_t jg_block_sampletimemath = {
    .name = "SampleTimeMath", .flags = JG_BT_LINEAR | JG_BT_DISCRETE,
    .setup = stm_setup, .widths = stm_widths, .pattern = stm_pattern,
    .outputs = stm_outputs, .jacobian = stm_jacobian,
};
