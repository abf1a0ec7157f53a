/* Assignment (1-D): y = Y0 with y(Indices) = U, a virtual routing block.
 *
 * Inputs Y0 (port 1, its width is the output's) and U (port 2: one element
 * per index, or a scalar assigned to every index).  Parameters: Indices (the
 * index vector), IndexMode "One-based" (default) or "Zero-based",
 * NumberOfDimensions 1, IndexOptions "Index vector (dialog)",
 * OutputInitialize "Initialize using input port <Y0>"; other settings (more
 * dimensions, indices from a port, an output without Y0) are errors naming
 * the parameter.  A repeated index takes the last of its U elements, as
 * MATLAB's y(idx) = u does.
 *
 * Each output element is one input element, so the block only routes
 * (route(): output element -> input element); the compiler follows it and
 * the block never runs. */
#include <string.h>
#include "block_impl.h"

typedef struct {
    int64_t n;         /* number of indices */
    int64_t *idx;      /* 0-based */
    int64_t maxidx;
    int64_t *from;     /* per output element: the U element assigned, -1: Y0 */
} asg_t;

static int asg_setup(jg_block_t *b, jg_setup_t *s)
{
    asg_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    if (jg__param_literal(b, s, "IndexOptions", "Index vector (dialog)",
                          "only a dialog index vector is supported") ||
        jg__param_literal(b, s, "OutputInitialize", "Initialize using input port <Y0>",
                "only an output initialized from the Y0 input is supported"))
        return JG_BLOCK_FAIL;
    jg_value_t v;
    int r = jg_setup_num_def(b, s, "NumberOfDimensions", &v, 1);
    if (r < 0) return JG_BLOCK_FAIL;
    if (jg_value_numel(&v) != 1 || v.x[0] != 1)
        return jg_setup_error(b, s, JG_PARAM, "NumberOfDimensions",
                              "expected 1 (only 1-D assignment is supported)");
    const char *mode = "One-based";
    if (jg_setup_str(b, s, "IndexMode", &mode) < 0) return JG_BLOCK_FAIL;
    if (strcmp(mode, "One-based") && strcmp(mode, "Zero-based"))
        return jg_setup_error(b, s, JG_PARAM, "IndexMode",
                              "expected \"One-based\" or \"Zero-based\", got \"%s\"", mode);
    int base = !strcmp(mode, "One-based");
    r = jg_setup_num(b, s, "Indices", &v);
    if (r < 0) return JG_BLOCK_FAIL;
    if (r > 0 && jg_setup_check_size(b, s, "Indices", jg_value_numel(&v), "indices") != JG_BLOCK_DONE)
        return JG_BLOCK_FAIL;   /* from an expression (ones(1, n)): sized by the element limit */
    if (r == 0 || jg_value_numel(&v) == 0)
        return jg_setup_error(b, s, JG_PARAM, "Indices", "missing: expected a vector of indices");
    d->n = jg_value_numel(&v);
    d->idx = jg_setup_alloc(s, (size_t)d->n * sizeof *d->idx);
    if (!d->idx) return jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
    for (int64_t i = 0; i < d->n; i++) {
        if (!jg_is_int(v.x[i], base, 1e12))
            return jg_setup_error(b, s, JG_PARAM, "Indices",
                                  "element %lld is %g: expected a %s integer index", (long long)i + 1,
                                  v.x[i], base ? "1-based" : "0-based");
        d->idx[i] = (int64_t)v.x[i] - base;
        if (d->idx[i] > d->maxidx) d->maxidx = d->idx[i];
    }
    return jg_setup_ports(b, s, 2, 1);
}

static int asg_widths(jg_block_t *b, jg_setup_t *s)
{
    asg_t *d = b->data;
    if (b->in_w[0] < 0 || b->in_w[1] < 0) {
        if (!s->force) return JG_BLOCK_AGAIN;
        if (b->in_w[0] < 0) b->in_w[0] = d->maxidx + 1;
        if (b->in_w[1] < 0) b->in_w[1] = d->n;
    }
    if (d->maxidx >= b->in_w[0])
        return jg_setup_error(b, s, JG_PARAM, "Indices",
                              "index %lld is out of range for Y0 of width %lld",
                              (long long)d->maxidx + 1, (long long)b->in_w[0]);
    if (b->in_w[1] != d->n && b->in_w[1] != 1)
        return jg_setup_error(b, s, JG_WIDTH, NULL,
                              "input U has width %lld: expected %lld (one per index) or 1",
                              (long long)b->in_w[1], (long long)d->n);
    b->out_w[0] = b->in_w[0];
    if (!d->from) d->from = jg_setup_alloc(s, (size_t)b->out_w[0] * sizeof *d->from);
    if (!d->from) return jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
    for (int64_t e = 0; e < b->out_w[0]; e++) d->from[e] = -1;
    for (int64_t i = 0; i < d->n; i++) d->from[d->idx[i]] = b->in_w[1] == 1 ? 0 : i;
    return JG_BLOCK_DONE;
}

static int asg_route(const jg_block_t *b, int outport, int64_t elem, int *inport, int64_t *inelem)
{
    const asg_t *d = b->data;
    (void)outport;
    int64_t j = d->from[elem];
    *inport = j < 0 ? 0 : 1;
    *inelem = j < 0 ? elem : j;
    return 0;
}

const jg_block_type_t jg_block_assignment = {
    .name = "Assignment", .flags = JG_BT_VIRTUAL | JG_BT_LINEAR,
    .setup = asg_setup, .widths = asg_widths, .route = asg_route,
};
