/* Constant and Ground: sources whose output does not depend on states or inputs. */
#include "block_impl.h"

/* -------------------------------------------------------------- Constant */

typedef struct {
    jg_value_t v;    /* Value, flattened row-major into the output vector */
} const_t;

static int constant_setup(jg_block_t *b, jg_setup_t *s)
{
    const_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    if (jg_setup_num_def(b, s, "Value", &d->v, 1.0) < 0) return JG_BLOCK_FAIL;
    if (jg_value_numel(&d->v) == 0)
        return jg_setup_error(b, s, JG_PARAM, "Value", "expected a non-empty value");
    return jg_setup_ports(b, s, 0, 1);
}

static int constant_widths(jg_block_t *b, jg_setup_t *s)
{
    (void)s;
    b->out_w[0] = jg_value_numel(&((const_t *)b->data)->v);
    return JG_BLOCK_DONE;
}

static int constant_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const const_t *d = b->data;
    for (int64_t i = 0; i < b->out_w[0]; i++) e->y[0][i] = d->v.x[i];
    return 0;
}

const jg_block_type_t jg_block_constant = {
    .name = "Constant", .flags = JG_BT_SOURCE | JG_BT_LINEAR | JG_BT_CONSTANT,
    .setup = constant_setup, .widths = constant_widths, .outputs = constant_outputs,
};

/* ---------------------------------------------------------------- Ground */

static int ground_setup(jg_block_t *b, jg_setup_t *s)
{
    return jg_setup_ports(b, s, 0, 1);
}

static int ground_widths(jg_block_t *b, jg_setup_t *s)
{
    /* Ground takes whatever width its reader asks for; only when nothing asks
     * (a dangling Ground) does it become a scalar. */
    if (b->out_w[0] < 0) {
        if (!s->force) return JG_BLOCK_AGAIN;
        b->out_w[0] = 1;
    }
    return JG_BLOCK_DONE;
}

static int ground_outputs(const jg_block_t *b, jg_eval_t *e)
{
    for (int64_t i = 0; i < b->out_w[0]; i++) e->y[0][i] = 0.0;
    return 0;
}

const jg_block_type_t jg_block_ground = {
    .name = "Ground", .flags = JG_BT_SOURCE | JG_BT_LINEAR | JG_BT_CONSTANT,
    .setup = ground_setup, .widths = ground_widths, .outputs = ground_outputs,
};
