/* Integrator: x' = u, y = x, x(0) = InitialCondition (scalar-expanded). */
#include "block_impl.h"

typedef struct {
    jg_value_t ic;
} integ_t;

static int integ_setup(jg_block_t *b, jg_setup_t *s)
{
    integ_t *d = jg_setup_alloc(s, sizeof *d);
    if (!d) return jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
    b->data = d;
    if (jg_setup_num_def(b, s, "InitialCondition", &d->ic, 0.0) < 0) return JG_BLOCK_FAIL;
    if (jg_value_numel(&d->ic) == 0)
        return jg_setup_error(b, s, JG_PARAM, "InitialCondition", "expected a non-empty value");
    return jg_setup_ports(b, s, 1, 1);
}

static int integ_widths(jg_block_t *b, jg_setup_t *s)
{
    integ_t *d = b->data;
    int64_t nic = jg_value_numel(&d->ic);
    if (b->out_w[0] < 0) {
        if (nic > 1)
            b->out_w[0] = nic;
        else if (b->in_w[0] > 0)
            b->out_w[0] = b->in_w[0];
        else if (s->force)
            b->out_w[0] = 1;   /* a loop through the integrator: follow the scalar IC */
        else
            return JG_BLOCK_AGAIN;
    }
    if (b->in_w[0] < 0) {
        if (!s->force) return JG_BLOCK_AGAIN;
        b->in_w[0] = b->out_w[0];
    }
    if (b->in_w[0] != b->out_w[0])
        return jg_setup_error(b, s, JG_WIDTH, NULL,
                              "input has width %lld but the state has width %lld "
                              "(from InitialCondition or the input)",
                              (long long)b->in_w[0], (long long)b->out_w[0]);
    if (nic != 1 && nic != b->out_w[0])
        return jg_setup_error(b, s, JG_PARAM, "InitialCondition",
                              "expected a scalar or %lld elements, got %lld",
                              (long long)b->out_w[0], (long long)nic);
    return jg_setup_states(b, s, b->out_w[0]) < 0 ? JG_BLOCK_FAIL : JG_BLOCK_DONE;
}

static int integ_pattern(jg_block_t *b, jg_setup_t *s)
{
    if (jg_jac_diag(b, s, JG_JAC_B, -1, 0) < 0) return -1;
    if (jg_jac_diag(b, s, JG_JAC_C, 0, -1) < 0) return -1;
    return 0;
}

static int integ_init(const jg_block_t *b, double *x0)
{
    const integ_t *d = b->data;
    int scalar = jg_value_numel(&d->ic) == 1;
    for (int64_t i = 0; i < b->nx; i++) x0[i] = d->ic.x[scalar ? 0 : i];
    return 0;
}

static int integ_outputs(const jg_block_t *b, jg_eval_t *e)
{
    for (int64_t i = 0; i < b->nx; i++) e->y[0][i] = e->x[i];
    return 0;
}

static int integ_derivatives(const jg_block_t *b, jg_eval_t *e)
{
    for (int64_t i = 0; i < b->nx; i++) e->dx[i] = e->u[0][i];
    return 0;
}

static int integ_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    for (int64_t i = 0; i < b->nx; i++) {
        e->jac[0]->x[i] = 1;
        e->jac[1]->x[i] = 1;
    }
    return 0;
}

const jg_block_type_t jg_block_integrator = {
    .name = "Integrator", .flags = JG_BT_LINEAR,
    .setup = integ_setup, .widths = integ_widths, .pattern = integ_pattern,
    .init = integ_init, .outputs = integ_outputs, .derivatives = integ_derivatives,
    .jacobian = integ_jacobian,
};
