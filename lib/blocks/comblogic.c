/* CombinatorialLogic: a truth table looked up by the boolean input vector.
 *
 * TruthTable ([0 0;0 1;0 1;1 0;0 1;1 0;1 0;1 1], Simulink's default) has
 * 2^n rows for an input of n elements and one column per output element.
 * The input elements are booleans (nonzero is true) and, as in Simulink, the
 * first element is the most significant bit: the row (1-based) is
 * 1 + sum_k b_k 2^(n-k), k = 1..n.  The output is that row.  The input width
 * is log2(rows) when nothing else sets it.
 *
 * The output is piecewise constant in the input: the block declares a dense
 * d part (its direct feedthrough) whose values are 0. */
#include <math.h>
#include "block_impl.h"

typedef struct {
    jg_value_t table;
    int64_t nbits;     /* log2(rows) */
} comb_t;

static int comb_setup(jg_block_t *b, jg_setup_t *s)
{
    comb_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    /* Simulink's default: a two-output full adder of three bits */
    static const double def[16] = {0, 0, 0, 1, 0, 1, 1, 0, 0, 1, 1, 0, 1, 0, 1, 1};
    if (jg_setup_num_mat_def(b, s, "TruthTable", &d->table, def, 8, 2) != JG_BLOCK_DONE)
        return JG_BLOCK_FAIL;
    int64_t rows = d->table.rows;
    if (jg_value_numel(&d->table) == 0 || rows < 2 || (rows & (rows - 1)))
        return jg_setup_error(b, s, JG_PARAM, "TruthTable",
                              "has %lld rows: expected 2^n rows (n >= 1) for n input elements",
                              (long long)rows);
    for (d->nbits = 0; ((int64_t)1 << d->nbits) < rows; d->nbits++) {}
    return jg_setup_ports(b, s, 1, 1);
}

static int comb_widths(jg_block_t *b, jg_setup_t *s)
{
    const comb_t *d = b->data;
    if (b->in_w[0] < 0) {
        if (!s->force) return JG_BLOCK_AGAIN;
        b->in_w[0] = d->nbits;
    }
    if (b->in_w[0] != d->nbits)
        return jg_setup_error(b, s, JG_WIDTH, "TruthTable",
                              "has %lld rows, for %lld input elements, but the input has width %lld",
                              (long long)d->table.rows, (long long)d->nbits, (long long)b->in_w[0]);
    b->out_w[0] = d->table.cols;
    return JG_BLOCK_DONE;
}

static int comb_pattern(jg_block_t *b, jg_setup_t *s)
{
    return jg_jac_dense(b, s, JG_JAC_D, 0, 0) < 0 ? -1 : 0;
}

static int comb_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const comb_t *d = b->data;
    int64_t row = 0;
    for (int64_t k = 0; k < d->nbits; k++) row = 2 * row + (e->u[0][k] != 0);
    for (int64_t j = 0; j < d->table.cols; j++) e->y[0][j] = d->table.x[row * d->table.cols + j];
    return 0;
}

static int comb_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    cs_dl *m = e->jac[0];
    (void)b;
    for (int64_t q = 0; q < m->p[m->n]; q++) m->x[q] = 0.0;
    return 0;
}

const jg_block_type_t jg_block_combinatoriallogic = {
    .name = "CombinatorialLogic", .flags = 0,
    .setup = comb_setup, .widths = comb_widths, .pattern = comb_pattern,
    .outputs = comb_outputs, .jacobian = comb_jacobian,
};
