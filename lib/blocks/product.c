/* Product (element-wise multiply and divide, Simulink scalar expansion) and Abs. */
#include <math.h>
#include <string.h>
#include "block_impl.h"

/* --------------------------------------------------------------- Product */

typedef struct {
    int n;           /* number of input ports */
    char *op;        /* '*' or '/' per port */
} prod_t;

static int product_setup(jg_block_t *b, jg_setup_t *s)
{
    prod_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    if (jg__param_literal(b, s, "Multiplication", "Element-wise(.*)",
                          "matrix products are not supported"))
        return JG_BLOCK_FAIL;
    const char *str = NULL;
    jg_value_t num;
    int r = jg_setup_str_or_num(b, s, "Inputs", &str, &num);
    if (r < 0) return JG_BLOCK_FAIL;
    if (r == 0) str = "**";
    if (r == 2) {
        if (jg_value_numel(&num) != 1 || !jg_is_int(num.x[0], 1, 1024))
            return jg_setup_error(b, s, JG_PARAM, "Inputs",
                                  "expected an operator string like \"**/\" or a count from 1 "
                                  "to 1024");
        d->n = (int)num.x[0];
        d->op = jg_setup_alloc(s, (size_t)d->n);
        if (!d->op) return jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
        memset(d->op, '*', (size_t)d->n);
    } else {
        size_t len = strlen(str);
        d->op = jg_setup_alloc(s, len + 1);
        if (!d->op) return jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
        for (size_t i = 0; i < len; i++) {
            if (str[i] != '*' && str[i] != '/')
                return jg_setup_error(b, s, JG_PARAM, "Inputs",
                                      "unexpected character '%c' in \"%s\": expected '*' or '/'",
                                      str[i], str);
            d->op[d->n++] = str[i];
        }
        if (d->n == 0)
            return jg_setup_error(b, s, JG_PARAM, "Inputs", "\"%s\" declares no input", str);
    }
    return jg_setup_ports(b, s, d->n, 1);
}

static int product_div0(const jg_block_t *b, jg_eval_t *e, int p, int64_t i)
{
    return jg_eval_error(b, e, "division by zero: element %lld of input %d is 0",
                         (long long)i + 1, p + 1);
}

/* Product of the elements of a one-input Product; a zero divisor is an error. */
static int product_collapse(const jg_block_t *b, jg_eval_t *e, double *prod)
{
    const prod_t *d = b->data;
    const double *u = e->u[0];
    double acc = 1;
    for (int64_t i = 0; i < b->in_w[0]; i++) {
        if (d->op[0] == '/' && u[i] == 0) return product_div0(b, e, 0, i);
        acc *= u[i];
    }
    if (d->op[0] == '/' && acc == 0)   /* nonzero factors whose product underflows */
        return jg_eval_error(b, e, "division by zero: the product of the elements of input 1 "
                             "underflows to 0");
    *prod = acc;
    return 0;
}

/* Non-finite output from finite inputs is an overflow of this block, reported
 * rather than passed on; non-finite inputs are the driver's business. */
static int product_check(const jg_block_t *b, jg_eval_t *e, const char *what, int64_t i,
                         double y)
{
    const prod_t *d = b->data;
    if (isfinite(y)) return 0;
    for (int p = 0; p < d->n; p++) {
        int64_t n = d->n == 1 ? b->in_w[0] : 1;
        int64_t j0 = d->n == 1 || b->in_w[p] == 1 ? 0 : i;
        for (int64_t j = j0; j < j0 + n; j++)
            if (!isfinite(e->u[p][j])) return 0;
    }
    return jg_eval_error(b, e, "%s element %lld overflows to %g from finite inputs", what,
                         (long long)i + 1, y);
}

static int product_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const prod_t *d = b->data;
    double *y = e->y[0];
    if (d->n == 1) {
        double acc;
        if (product_collapse(b, e, &acc)) return -1;
        y[0] = d->op[0] == '/' ? 1 / acc : acc;
        return product_check(b, e, "output", 0, y[0]);
    }
    int64_t n = b->out_w[0];
    for (int64_t i = 0; i < n; i++) {
        double acc = 1;
        for (int p = 0; p < d->n; p++) {
            int64_t j = b->in_w[p] == 1 ? 0 : i;
            double v = e->u[p][j];
            if (d->op[p] == '*') {
                acc *= v;
            } else {
                if (v == 0) return product_div0(b, e, p, j);
                acc /= v;
            }
        }
        if (product_check(b, e, "output", i, acc)) return -1;
        y[i] = acc;
    }
    return 0;
}

static int product_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    const prod_t *d = b->data;
    if (d->n == 1) {
        /* dense 1 x w row: one entry per column j */
        const double *u = e->u[0];
        double *x = e->jac[0]->x;
        int64_t w = b->in_w[0];
        if (d->op[0] == '/') {
            /* y = 1/P, dy/du_j = -1/(P u_j) = -y/u_j; P != 0 means no u_j is 0 */
            double acc;
            if (product_collapse(b, e, &acc)) return -1;
            double y = 1 / acc;
            for (int64_t j = 0; j < w; j++) {
                x[j] = -y / u[j];
                if (product_check(b, e, "derivative", j, x[j])) return -1;
            }
            return 0;
        }
        /* dy/du_j = product of the other elements: prefix times suffix products,
         * exact when some u_j are zero (no division) */
        double acc = 1;
        for (int64_t j = 0; j < w; j++) {
            x[j] = acc;
            acc *= u[j];
        }
        acc = 1;
        for (int64_t j = w - 1; j >= 0; j--) {
            x[j] *= acc;
            acc *= u[j];
            if (product_check(b, e, "derivative", j, x[j])) return -1;
        }
        return 0;
    }
    /* dy_i/du_p = (product of the other factors) * (1 for '*', -1/v_p^2 for '/').
     * Products of the other factors are formed directly (no y/v_p) so a zero
     * factor gives exact zeros; the cost n*nin^2 is fine for a few inputs. */
    int64_t n = b->out_w[0];
    for (int64_t i = 0; i < n; i++) {
        for (int p = 0; p < d->n; p++) {
            int64_t jp = b->in_w[p] == 1 ? 0 : i;
            double vp = e->u[p][jp], acc = 1;
            if (d->op[p] == '/') {
                if (vp == 0) return product_div0(b, e, p, jp);
                acc = -1 / (vp * vp);
            }
            for (int q = 0; q < d->n; q++) {
                if (q == p) continue;
                int64_t jq = b->in_w[q] == 1 ? 0 : i;
                double v = e->u[q][jq];
                if (d->op[q] == '*') {
                    acc *= v;
                } else {
                    if (v == 0) return product_div0(b, e, q, jq);
                    acc /= v;
                }
            }
            if (product_check(b, e, "derivative", i, acc)) return -1;
            /* diagonal (n x n) or column (n x 1): entry i either way */
            e->jac[p]->x[i] = acc;
        }
    }
    return 0;
}

const jg_block_type_t jg_block_product = {
    .name = "Product", .flags = 0,
    .setup = product_setup, .widths = jg_widths_elementwise, .pattern = jg_pattern_elementwise,
    .outputs = product_outputs, .jacobian = product_jacobian,
};

/* ------------------------------------------------------------------- Abs */

static int abs_setup(jg_block_t *b, jg_setup_t *s)
{
    return jg_setup_ports(b, s, 1, 1);
}

static int abs_widths(jg_block_t *b, jg_setup_t *s)
{
    if (b->in_w[0] < 0) {
        if (!s->force) return JG_BLOCK_AGAIN;
        b->in_w[0] = 1;
    }
    b->out_w[0] = b->in_w[0];
    /* zero crossing (as in Simulink): u per element, either direction (the kink) */
    return jg_setup_zc(b, s, b->out_w[0], NULL) < 0 ? JG_BLOCK_FAIL : JG_BLOCK_DONE;
}

static int abs_pattern(jg_block_t *b, jg_setup_t *s)
{
    return jg_jac_diag(b, s, JG_JAC_D, 0, 0) < 0 ? -1 : 0;
}

static int abs_outputs(const jg_block_t *b, jg_eval_t *e)
{
    for (int64_t i = 0; i < b->out_w[0]; i++) e->y[0][i] = fabs(e->u[0][i]);
    return 0;
}

static int abs_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    /* sign(u); at the kink u = 0 the one-sided slopes are -1 and +1 and we take
     * their mean 0, as sign(0) = 0 does */
    for (int64_t i = 0; i < b->out_w[0]; i++) {
        double u = e->u[0][i];
        e->jac[0]->x[i] = u > 0 ? 1.0 : u < 0 ? -1.0 : 0.0;
    }
    return 0;
}

static int abs_zc(const jg_block_t *b, jg_eval_t *e)
{
    for (int64_t i = 0; i < b->out_w[0]; i++) e->zcv[i] = e->u[0][i];
    return 0;
}

const jg_block_type_t jg_block_abs = {
    .name = "Abs", .flags = 0,
    .setup = abs_setup, .widths = abs_widths, .pattern = abs_pattern,
    .outputs = abs_outputs, .jacobian = abs_jacobian, .zc = abs_zc,
};
