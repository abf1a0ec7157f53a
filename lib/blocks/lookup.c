/* Lookup1D and Lookup2D: linear (bilinear) interpolation in a table, the
 * simple cases of Simulink's n-D Lookup Table.
 *
 * Lookup1D: y = interpolation of Table over BreakpointsForDimension1 at u,
 * element-wise on a vector input (output width = input width).
 * Lookup2D: two inputs, u1 the row coordinate (BreakpointsForDimension1, the
 * rows of Table) and u2 the column coordinate (BreakpointsForDimension2, the
 * columns); bilinear interpolation in the cell that holds (u1, u2).  The inputs
 * may be vectors of one width (element-wise) or scalars, which expand.
 *
 * Breakpoints: a vector of at least 2 finite values increasing strictly.
 * ExtrapMethod (literal): "Clip" (default) holds the table's edge value outside
 * the breakpoint range; "Linear" extends the first/last segment (cell).
 *
 * Jacobian (analytic): the slope of the segment (cell) the input falls in.
 * A point exactly on an inner breakpoint uses the segment to its right; the
 * last breakpoint uses the last segment (there is none to its right), so the
 * slope on the whole closed range [first, last] is that of a table segment,
 * as Saturation keeps its slope 1 on its limits.  Outside the range the slope
 * is 0 under Clip and the edge segment's slope under Linear.  For Lookup2D
 * each partial derivative is the slope along its axis within the cell,
 * blended by the position along the other axis; a clipped axis has slope 0.
 */
#include <math.h>
#include <string.h>
#include "block_impl.h"

typedef struct {
    int64_t n;
    const double *bp;
} axis_t;

typedef struct {
    axis_t ax[2];
    jg_value_t table;
    int linear;    /* ExtrapMethod "Linear" */
} lookup_t;

/* (a - b) / (c - d) for finite a, b, c > d without overflow in the
 * differences: breakpoints or table values beyond +-8.9e307 make a - b
 * overflow although the quotient is representable (breakpoints -1e308 and
 * 1e308 with the same table give slope 1, not Inf/Inf).  Halving is exact
 * there, and the ordinary expression is kept whenever it is finite so that
 * results do not change in the common case. */
static double diff_ratio(double a, double b, double c, double d)
{
    double num = a - b, den = c - d;
    if (isfinite(num) && isfinite(den)) return num / den;
    return (0.5 * a - 0.5 * b) / (0.5 * c - 0.5 * d);
}

/* Segment k (0 <= k <= n-2) and fraction f of u along one axis; *in = 1 when
 * the output follows the segment's slope at u, 0 when clipped (f held at 0
 * or 1 outside the range under Clip, slope 0). */
static void axis_locate(const axis_t *a, int linear, double u, int64_t *k, double *f, int *in)
{
    const double *bp = a->bp;
    int64_t n = a->n, lo = 0, hi = n - 1;
    if (u >= bp[n - 2]) {
        lo = n - 2;
    } else if (u >= bp[1]) {   /* bp[lo] <= u < bp[hi]: bisect */
        lo = 1;
        hi = n - 2;
        while (hi - lo > 1) {
            int64_t mid = lo + (hi - lo) / 2;
            if (bp[mid] <= u) lo = mid;
            else hi = mid;
        }
    }   /* else (u < bp[1], or NaN): the first segment */
    *k = lo;
    if (!linear && u < bp[0]) {
        *f = 0;
        *in = 0;
    } else if (!linear && u > bp[n - 1]) {
        *f = 1;
        *in = 0;
    } else {
        *f = isfinite(u) ? diff_ratio(u, bp[lo], bp[lo + 1], bp[lo]) : (u - bp[lo]) / (bp[lo + 1] - bp[lo]);
        *in = 1;
    }
}

/* The slope of values y0 -> y1 over segment k of axis a (0 when clipped). */
static double axis_slope(const axis_t *a, int64_t k, int in, double y0, double y1)
{
    return in ? diff_ratio(y1, y0, a->bp[k + 1], a->bp[k]) : 0;
}

static int parse_axis(jg_block_t *b, jg_setup_t *s, const char *name, axis_t *a)
{
    jg_value_t v;
    int r = jg_setup_num(b, s, name, &v);
    if (r < 0) return JG_BLOCK_FAIL;
    if (r > 0 && jg_setup_check_size(b, s, name, jg_value_numel(&v), "breakpoints") != JG_BLOCK_DONE)
        return JG_BLOCK_FAIL;   /* from an expression (1:n): sized by the element limit */
    if (r == 0)
        return jg_setup_error(b, s, JG_PARAM, name,
                              "missing: expected a vector of at least 2 strictly increasing "
                              "breakpoints");
    if (v.rows != 1 && v.cols != 1)
        return jg_setup_error(b, s, JG_PARAM, name, "expected a vector, got %lldx%lld",
                              (long long)v.rows, (long long)v.cols);
    int64_t n = jg_value_numel(&v);
    if (n < 2)
        return jg_setup_error(b, s, JG_PARAM, name, "expected at least 2 breakpoints, got %lld",
                              (long long)n);
    for (int64_t i = 0; i < n; i++) {
        if (!isfinite(v.x[i]))
            return jg_setup_error(b, s, JG_PARAM, name, "element %lld is %g: expected a finite number",
                                  (long long)i + 1, v.x[i]);
        if (i > 0 && !(v.x[i] > v.x[i - 1]))
            return jg_setup_error(b, s, JG_PARAM, name,
                                  "element %lld (%g) is not greater than element %lld (%g): "
                                  "breakpoints must increase strictly",
                                  (long long)i + 1, v.x[i], (long long)i, v.x[i - 1]);
    }
    a->n = n;
    a->bp = v.x;
    return JG_BLOCK_DONE;
}

static int lookup_setup(jg_block_t *b, jg_setup_t *s, int dims)
{
    lookup_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    static const char *const bpname[2] = {"BreakpointsForDimension1", "BreakpointsForDimension2"};
    for (int k = 0; k < dims; k++)
        if (parse_axis(b, s, bpname[k], &d->ax[k]) < 0) return JG_BLOCK_FAIL;
    int r = jg_setup_num(b, s, "Table", &d->table);
    if (r < 0) return JG_BLOCK_FAIL;
    if (r > 0 &&
        jg_setup_check_size(b, s, "Table", jg_value_numel(&d->table), "table entries") != JG_BLOCK_DONE)
        return JG_BLOCK_FAIL;   /* from an expression (zeros(1, n)): sized by the element limit */
    if (r == 0)
        return jg_setup_error(b, s, JG_PARAM, "Table", "missing: expected %s",
                              dims == 1 ? "one output value per breakpoint"
                                        : "a matrix with one row per breakpoint of dimension 1 "
                                          "and one column per breakpoint of dimension 2");
    int64_t nt = jg_value_numel(&d->table);
    if (dims == 1 && nt != d->ax[0].n)
        return jg_setup_error(b, s, JG_PARAM, "Table",
                              "has %lld elements but BreakpointsForDimension1 has %lld: expected "
                              "one value per breakpoint",
                              (long long)nt, (long long)d->ax[0].n);
    if (dims == 2 && (d->table.rows != d->ax[0].n || d->table.cols != d->ax[1].n))
        return jg_setup_error(b, s, JG_PARAM, "Table",
                              "is %lldx%lld but the breakpoints need %lldx%lld "
                              "(BreakpointsForDimension1 x BreakpointsForDimension2)",
                              (long long)d->table.rows, (long long)d->table.cols,
                              (long long)d->ax[0].n, (long long)d->ax[1].n);
    for (int64_t i = 0; i < nt; i++)
        if (!isfinite(d->table.x[i]))
            return jg_setup_error(b, s, JG_PARAM, "Table", "element %lld is %g: expected a finite number",
                                  (long long)i + 1, d->table.x[i]);
    const char *ex = NULL;
    r = jg_setup_str(b, s, "ExtrapMethod", &ex);
    if (r < 0) return JG_BLOCK_FAIL;
    if (r > 0) {
        if (!strcmp(ex, "Linear"))
            d->linear = 1;
        else if (strcmp(ex, "Clip"))
            return jg_setup_error(b, s, JG_PARAM, "ExtrapMethod",
                                  "expected \"Clip\" or \"Linear\", got \"%s\"", ex);
    }
    return jg_setup_ports(b, s, dims, 1);
}

/* ------------------------------------------------------------- Lookup1D */

static int lookup1_setup(jg_block_t *b, jg_setup_t *s) { return lookup_setup(b, s, 1); }

static int lookup1_widths(jg_block_t *b, jg_setup_t *s)
{
    if (b->in_w[0] < 0) {
        if (!s->force) return JG_BLOCK_AGAIN;
        b->in_w[0] = 1;
    }
    b->out_w[0] = b->in_w[0];
    return JG_BLOCK_DONE;
}

static int lookup1_pattern(jg_block_t *b, jg_setup_t *s)
{
    return jg_jac_diag(b, s, JG_JAC_D, 0, 0) < 0 ? -1 : 0;
}

static void lookup1_eval(const lookup_t *d, double u, double *y, double *dy)
{
    int64_t k;
    double f;
    int in;
    axis_locate(&d->ax[0], d->linear, u, &k, &f, &in);
    const double *t = d->table.x;
    *y = (1 - f) * t[k] + f * t[k + 1];   /* exact at both ends of the segment */
    *dy = axis_slope(&d->ax[0], k, in, t[k], t[k + 1]);
}

static int lookup1_outputs(const jg_block_t *b, jg_eval_t *e)
{
    double dy;
    for (int64_t i = 0; i < b->out_w[0]; i++) lookup1_eval(b->data, e->u[0][i], &e->y[0][i], &dy);
    return 0;
}

static int lookup1_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    double y;
    for (int64_t i = 0; i < b->out_w[0]; i++)
        lookup1_eval(b->data, e->u[0][i], &y, &e->jac[0]->x[i]);
    return 0;
}

const jg_block_type_t jg_block_lookup1d = {
    .name = "Lookup1D", .flags = 0,
    .setup = lookup1_setup, .widths = lookup1_widths, .pattern = lookup1_pattern,
    .outputs = lookup1_outputs, .jacobian = lookup1_jacobian,
};

/* ------------------------------------------------------------- Lookup2D */

static int lookup2_setup(jg_block_t *b, jg_setup_t *s) { return lookup_setup(b, s, 2); }

/* Output element i and its partial derivatives d[0] = dy/du1, d[1] = dy/du2. */
static void lookup2_eval(const jg_block_t *b, jg_eval_t *e, int64_t i, double *y, double *d)
{
    const lookup_t *L = b->data;
    double u1 = e->u[0][b->in_w[0] == 1 ? 0 : i], u2 = e->u[1][b->in_w[1] == 1 ? 0 : i];
    int64_t r, c;
    double fr, fc;
    int inr, inc;
    axis_locate(&L->ax[0], L->linear, u1, &r, &fr, &inr);
    axis_locate(&L->ax[1], L->linear, u2, &c, &fc, &inc);
    int64_t nc = L->table.cols;
    const double *t0 = L->table.x + r * nc + c, *t1 = t0 + nc;   /* rows r and r+1 at column c */
    double a = (1 - fc) * t0[0] + fc * t0[1];   /* along row r */
    double z = (1 - fc) * t1[0] + fc * t1[1];   /* along row r+1 */
    *y = (1 - fr) * a + fr * z;
    d[0] = axis_slope(&L->ax[0], r, inr, a, z);
    d[1] = (1 - fr) * axis_slope(&L->ax[1], c, inc, t0[0], t0[1]) +
           fr * axis_slope(&L->ax[1], c, inc, t1[0], t1[1]);
}

static int lookup2_outputs(const jg_block_t *b, jg_eval_t *e)
{
    double d[2];
    for (int64_t i = 0; i < b->out_w[0]; i++) lookup2_eval(b, e, i, &e->y[0][i], d);
    return 0;
}

static int lookup2_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    /* each part is diagonal (full-width input) or a column (expanded scalar):
     * entry i either way */
    for (int64_t i = 0; i < b->out_w[0]; i++) {
        double y, d[2];
        lookup2_eval(b, e, i, &y, d);
        e->jac[0]->x[i] = d[0];
        e->jac[1]->x[i] = d[1];
    }
    return 0;
}

const jg_block_type_t jg_block_lookup2d = {
    .name = "Lookup2D", .flags = 0,
    .setup = lookup2_setup, .widths = jg_widths_elementwise, .pattern = jg_pattern_elementwise,
    .outputs = lookup2_outputs, .jacobian = lookup2_jacobian,
};
