/* Gain and Sum: linear algebraic blocks with scalar expansion as Simulink does it. */
#include <string.h>
#include "block_impl.h"

/* ------------------------------------------------------------------ Gain */

typedef struct {
    jg_value_t k;
    int matrix;      /* Multiplication "Matrix(K*u)" */
} gain_t;

static int gain_setup(jg_block_t *b, jg_setup_t *s)
{
    gain_t *g = jg__setup_data(b, s, sizeof *g);
    if (!g) return JG_BLOCK_FAIL;
    if (jg_setup_num_def(b, s, "Gain", &g->k, 1.0) < 0) return JG_BLOCK_FAIL;
    const char *mul = NULL;
    int r = jg_setup_str(b, s, "Multiplication", &mul);
    if (r < 0) return JG_BLOCK_FAIL;
    if (r > 0) {
        if (!strcmp(mul, "Matrix(K*u)"))
            g->matrix = 1;
        else if (strcmp(mul, "Element-wise(K.*u)"))
            return jg_setup_error(b, s, JG_PARAM, "Multiplication",
                                  "expected \"Element-wise(K.*u)\" or \"Matrix(K*u)\", got \"%s\"",
                                  mul);
    }
    if (jg_value_numel(&g->k) == 0)
        return jg_setup_error(b, s, JG_PARAM, "Gain", "expected a non-empty value");
    return jg_setup_ports(b, s, 1, 1);
}

static int gain_widths(jg_block_t *b, jg_setup_t *s)
{
    gain_t *g = b->data;
    int64_t nk = jg_value_numel(&g->k);
    if (g->matrix) {
        if (b->in_w[0] < 0) b->in_w[0] = g->k.cols;
        if (b->in_w[0] != g->k.cols)
            return jg_setup_error(b, s, JG_WIDTH, "Gain",
                                  "Matrix(K*u) with K of size %lldx%lld needs an input of width "
                                  "%lld, got %lld",
                                  (long long)g->k.rows, (long long)g->k.cols,
                                  (long long)g->k.cols, (long long)b->in_w[0]);
        b->out_w[0] = g->k.rows;
        return JG_BLOCK_DONE;
    }
    if (b->in_w[0] < 0) {
        if (nk > 1) b->out_w[0] = nk;   /* known already: u is 1 or nk wide */
        if (!s->force) return JG_BLOCK_AGAIN;
        b->in_w[0] = nk;   /* nothing drives the width: follow the gain */
    }
    int64_t w = b->in_w[0];
    if (nk != 1 && w != 1 && nk != w)
        return jg_setup_error(b, s, JG_WIDTH, "Gain",
                              "element-wise gain has %lld elements but the input has width %lld",
                              (long long)nk, (long long)w);
    b->out_w[0] = nk > w ? nk : w;
    return JG_BLOCK_DONE;
}

static int gain_pattern(jg_block_t *b, jg_setup_t *s)
{
    gain_t *g = b->data;
    if (g->matrix) return jg_jac_from_value(b, s, JG_JAC_D, 0, 0, &g->k) < 0 ? -1 : 0;
    if (b->in_w[0] == b->out_w[0]) return jg_jac_diag(b, s, JG_JAC_D, 0, 0) < 0 ? -1 : 0;
    return jg_jac_dense(b, s, JG_JAC_D, 0, 0) < 0 ? -1 : 0; /* scalar u, vector K */
}

static double gain_k(const gain_t *g, int64_t i)
{
    return jg_value_numel(&g->k) == 1 ? g->k.x[0] : g->k.x[i];
}

static int gain_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const gain_t *g = b->data;
    const double *u = e->u[0];
    double *y = e->y[0];
    if (g->matrix) {
        for (int64_t i = 0; i < g->k.rows; i++) {
            double acc = 0;
            for (int64_t j = 0; j < g->k.cols; j++) acc += g->k.x[i * g->k.cols + j] * u[j];
            y[i] = acc;
        }
        return 0;
    }
    int64_t n = b->out_w[0], scalar_u = b->in_w[0] == 1;
    for (int64_t i = 0; i < n; i++) y[i] = gain_k(g, i) * u[scalar_u ? 0 : i];
    return 0;
}

static int gain_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    const gain_t *g = b->data;
    if (g->matrix) {
        jg_jac_fill_from_value(e->jac[0], &g->k);
        return 0;
    }
    /* diag (n x n) or column (n x 1): either way one entry per output element */
    for (int64_t i = 0; i < b->out_w[0]; i++) e->jac[0]->x[i] = gain_k(g, i);
    return 0;
}

const jg_block_type_t jg_block_gain = {
    .name = "Gain", .flags = JG_BT_LINEAR | JG_BT_PURE_LINEAR,
    .setup = gain_setup, .widths = gain_widths, .pattern = gain_pattern,
    .outputs = gain_outputs, .jacobian = gain_jacobian,
};

/* ------------------------------------------------------------------- Sum */

typedef struct {
    int n;           /* number of input ports */
    double *sign;    /* +1 / -1 per port */
} sum_t;

static int sum_setup(jg_block_t *b, jg_setup_t *s)
{
    sum_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    const char *str = NULL;
    jg_value_t num;
    int r = jg_setup_str_or_num(b, s, "Inputs", &str, &num);
    if (r < 0) return JG_BLOCK_FAIL;
    if (r == 0) str = "++";
    if (r == 2) {
        if (jg_value_numel(&num) != 1 || !jg_is_int(num.x[0], 1, 1024))
            return jg_setup_error(b, s, JG_PARAM, "Inputs",
                                  "expected a sign string like \"+-\" or a count from 1 to 1024");
        d->n = (int)num.x[0];
        d->sign = jg_setup_alloc(s, sizeof(double) * (size_t)d->n);
        for (int i = 0; i < d->n; i++) d->sign[i] = 1;
    } else {
        size_t len = strlen(str);
        d->sign = jg_setup_alloc(s, sizeof(double) * (len + 1));
        for (size_t i = 0; i < len; i++) {
            if (str[i] == '+' || str[i] == '-')
                d->sign[d->n++] = str[i] == '+' ? 1 : -1;
            else if (str[i] != '|')
                return jg_setup_error(b, s, JG_PARAM, "Inputs",
                                      "unexpected character '%c' in \"%s\": expected '+', '-' "
                                      "or '|'", str[i], str);
        }
        if (d->n == 0)
            return jg_setup_error(b, s, JG_PARAM, "Inputs", "\"%s\" declares no input", str);
    }
    return jg_setup_ports(b, s, d->n, 1);
}

int jg_widths_elementwise(jg_block_t *b, jg_setup_t *s)
{
    if (b->nin == 1) {   /* one input: the block reduces over its elements */
        if (b->in_w[0] < 0) {
            if (!s->force) return JG_BLOCK_AGAIN;
            b->in_w[0] = 1;
        }
        b->out_w[0] = 1;
        return JG_BLOCK_DONE;
    }
    int64_t w = -1;
    int unknown = 0;
    for (int p = 0; p < b->nin; p++) {
        if (b->in_w[p] < 0) {
            unknown++;
            continue;
        }
        if (b->in_w[p] != 1) {
            if (w > 1 && b->in_w[p] != w)
                return jg_setup_error(b, s, JG_WIDTH, NULL,
                                      "input %d has width %lld but another input has width "
                                      "%lld (only scalars expand)",
                                      p + 1, (long long)b->in_w[p], (long long)w);
            w = b->in_w[p];
        }
    }
    if (w > 1) b->out_w[0] = w;   /* known before the other inputs: lets loops resolve */
    if (unknown) {
        if (!s->force) return JG_BLOCK_AGAIN;
        for (int p = 0; p < b->nin; p++)   /* unconnected, or a loop nothing fixes */
            if (b->in_w[p] < 0) b->in_w[p] = w > 1 ? w : 1;
    }
    b->out_w[0] = w > 1 ? w : 1;
    return JG_BLOCK_DONE;
}

int jg_pattern_elementwise(jg_block_t *b, jg_setup_t *s)
{
    /* diagonal for a full-width input, a column for a scalar-expanded one, a
     * row for the one-input reduction */
    for (int p = 0; p < b->nin; p++) {
        int k = b->in_w[p] == b->out_w[0] && b->nin > 1 ? jg_jac_diag(b, s, JG_JAC_D, 0, p)
                                                         : jg_jac_dense(b, s, JG_JAC_D, 0, p);
        if (k < 0) return -1;
    }
    return 0;
}

static int sum_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const sum_t *d = b->data;
    double *y = e->y[0];
    if (d->n == 1) {
        double acc = 0;
        for (int64_t i = 0; i < b->in_w[0]; i++) acc += e->u[0][i];
        y[0] = d->sign[0] * acc;
        return 0;
    }
    int64_t n = b->out_w[0];
    for (int64_t i = 0; i < n; i++) y[i] = 0;
    for (int p = 0; p < d->n; p++) {
        const double *u = e->u[p];
        int scalar = b->in_w[p] == 1;
        for (int64_t i = 0; i < n; i++) y[i] += d->sign[p] * u[scalar ? 0 : i];
    }
    return 0;
}

static int sum_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    const sum_t *d = b->data;
    for (int p = 0; p < d->n; p++) {
        cs_dl *m = e->jac[p];
        int64_t nz = m->p[m->n];
        for (int64_t k = 0; k < nz; k++) m->x[k] = d->sign[p];
    }
    return 0;
}

const jg_block_type_t jg_block_sum = {
    .name = "Sum", .flags = JG_BT_LINEAR | JG_BT_PURE_LINEAR,
    .setup = sum_setup, .widths = jg_widths_elementwise, .pattern = jg_pattern_elementwise,
    .outputs = sum_outputs, .jacobian = sum_jacobian,
};

int jg_pattern_zero_slope(jg_block_t *b, jg_setup_t *s)
{
    for (int p = 0; p < b->nin; p++) {
        int k = b->in_w[p] == b->out_w[0] ? jg_jac_diag(b, s, JG_JAC_D, 0, p)
                                           : jg_jac_dense(b, s, JG_JAC_D, 0, p);
        if (k < 0) return -1;
    }
    return 0;
}

int jg_jac_zero(const jg_block_t *b, jg_eval_t *e)
{
    for (int k = 0; k < b->npart; k++)
        memset(e->jac[k]->x, 0, sizeof(double) * (size_t)e->jac[k]->p[e->jac[k]->n]);
    return 0;
}
