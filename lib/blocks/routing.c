/* Ports and signal routing: Inport, Outport, SubSystem, Mux, Demux, Selector.
 *
 * Root Inport/Outport blocks are the model's inputs and outputs and take part
 * in evaluation (source / sink).  Inside a SubSystem they are virtual, like the
 * SubSystem itself: the compiler connects them to the SubSystem's ports.
 * Mux, Demux and Selector are virtual routing: they never run; the compiler
 * traces every input element of a real block back through them (route()) to
 * the element of a real block output that drives it, which is exactly the
 * 0/1 connection matrix M of the paper (Fig. 2, Eqn 3).
 */
#include <string.h>
#include "block_impl.h"

/* --------------------------------------------------------------- Inport */

typedef struct {
    int64_t width;     /* PortDimensions, -1 inherited */
} port_t;

static int port_parse(jg_block_t *b, jg_setup_t *s, port_t **out)
{
    port_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    jg_value_t v;
    int r = jg_setup_num(b, s, "Port", &v);
    if (r < 0) return JG_BLOCK_FAIL;
    if (r == 0)
        return jg_setup_error(b, s, JG_PARAM, "Port", "missing: expected a port number >= 1");
    if (jg_value_numel(&v) != 1 || !jg_is_int(v.x[0], 1, 1e6))
        return jg_setup_error(b, s, JG_PARAM, "Port", "expected a positive integer");
    b->port = (int)v.x[0];   /* the compiler's (JG_BT_PORT_IN / OUT) */
    d->width = -1;
    r = jg_setup_num(b, s, "PortDimensions", &v);
    if (r < 0) return JG_BLOCK_FAIL;
    if (r > 0) {
        if (jg_value_numel(&v) != 1 || !(jg_is_int(v.x[0], 1, 1e9) || v.x[0] == -1))
            return jg_setup_error(b, s, JG_PARAM, "PortDimensions",
                                  "expected a positive integer width or -1 (inherited)");
        d->width = (int64_t)v.x[0];
    }
    *out = d;
    return JG_BLOCK_DONE;
}

static int inport_setup(jg_block_t *b, jg_setup_t *s)
{
    port_t *d;
    if (port_parse(b, s, &d) != JG_BLOCK_DONE) return JG_BLOCK_FAIL;
    return b->virt ? JG_BLOCK_DONE : jg_setup_ports(b, s, 0, 1);
}

static int inport_widths(jg_block_t *b, jg_setup_t *s)
{
    port_t *d = b->data;
    if (b->out_w[0] < 0) {
        if (d->width > 0)
            b->out_w[0] = d->width;
        else if (s->force)
            b->out_w[0] = 1;    /* root inport without PortDimensions: scalar */
        else
            return JG_BLOCK_AGAIN;
    }
    if (d->width > 0 && b->out_w[0] != d->width)
        return jg_setup_error(b, s, JG_WIDTH, "PortDimensions",
                              "declared width %lld but the signal has width %lld",
                              (long long)d->width, (long long)b->out_w[0]);
    return JG_BLOCK_DONE;
}

static int inport_outputs(const jg_block_t *b, jg_eval_t *e)
{
    for (int64_t i = 0; i < b->out_w[0]; i++) e->y[0][i] = e->ext ? e->ext[i] : 0.0;
    return 0;
}

const jg_block_type_t jg_block_inport = {
    .name = "Inport", .flags = JG_BT_SOURCE | JG_BT_LINEAR | JG_BT_PORT_IN,
    .setup = inport_setup, .widths = inport_widths, .outputs = inport_outputs,
};

/* -------------------------------------------------------------- Outport */

static int outport_setup(jg_block_t *b, jg_setup_t *s)
{
    port_t *d;
    if (port_parse(b, s, &d) != JG_BLOCK_DONE) return JG_BLOCK_FAIL;
    return b->virt ? JG_BLOCK_DONE : jg_setup_ports(b, s, 1, 0);
}

static int outport_widths(jg_block_t *b, jg_setup_t *s)
{
    port_t *d = b->data;
    if (b->in_w[0] < 0) {
        if (d->width > 0)
            b->in_w[0] = d->width;
        else if (s->force)
            b->in_w[0] = 1;
        else
            return JG_BLOCK_AGAIN;
    }
    if (d->width > 0 && b->in_w[0] != d->width)
        return jg_setup_error(b, s, JG_WIDTH, "PortDimensions",
                              "declared width %lld but the signal has width %lld",
                              (long long)d->width, (long long)b->in_w[0]);
    return JG_BLOCK_DONE;
}

static int sink_outputs(const jg_block_t *b, jg_eval_t *e)
{
    (void)b;
    (void)e;
    return 0;
}

const jg_block_type_t jg_block_outport = {
    .name = "Outport", .flags = JG_BT_SINK | JG_BT_LINEAR | JG_BT_PORT_OUT,
    .setup = outport_setup, .widths = outport_widths, .outputs = sink_outputs,
};

/* ------------------------------------------------------------ SubSystem */
/* The compiler creates the ports of a SubSystem from its inner Inport and
 * Outport blocks and routes through them; the vtable only names the type. */

static int subsystem_setup(jg_block_t *b, jg_setup_t *s)
{
    (void)b;
    (void)s;
    return JG_BLOCK_DONE;
}

const jg_block_type_t jg_block_subsystem = {
    .name = "SubSystem", .flags = JG_BT_VIRTUAL | JG_BT_SUBSYSTEM, .setup = subsystem_setup,
};

/* ------------------------------------------------------- Mux and Demux */

typedef struct {
    int n;
    int64_t *w;        /* declared widths, -1 inherited */
    int64_t *off;      /* element offset of each port (after widths) */
} split_t;

/* Ports per Mux or Demux (docs/cli.md, "Limits"): a port costs its widths,
 * offsets and routing, far more than the element the count stands for. */
enum { SPLIT_MAX_PORTS = 100000 };

static int split_setup(jg_block_t *b, jg_setup_t *s, const char *param, int is_mux)
{
    split_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    jg_value_t v;
    int r = jg_setup_num(b, s, param, &v);
    if (r < 0) return JG_BLOCK_FAIL;
    if (r == 0) {
        d->n = 2;   /* Simulink's default: two ports of inherited width */
        if (!(d->w = jg_setup_alloc(s, 2 * sizeof *d->w))) goto nomem;
        d->w[0] = d->w[1] = -1;
    } else if (jg_value_numel(&v) == 1) {
        if (v.x[0] > SPLIT_MAX_PORTS)
            return jg_setup_error(b, s, JG_MODEL, param,
                                  "%g ports, beyond the limit of %d ports per block", v.x[0],
                                  SPLIT_MAX_PORTS);
        if (!jg_is_int(v.x[0], 1, SPLIT_MAX_PORTS))
            return jg_setup_error(b, s, JG_PARAM, param,
                                  "expected a port count >= 1 or a vector of widths");
        d->n = (int)v.x[0];
        if (!(d->w = jg_setup_alloc(s, (size_t)d->n * sizeof *d->w))) goto nomem;
        for (int i = 0; i < d->n; i++) d->w[i] = -1;
    } else {
        if (jg_value_numel(&v) > SPLIT_MAX_PORTS)
            return jg_setup_error(b, s, JG_MODEL, param,
                                  "a vector of %lld widths (ports), beyond the limit of %d ports "
                                  "per block",
                                  (long long)jg_value_numel(&v), SPLIT_MAX_PORTS);
        d->n = (int)jg_value_numel(&v);
        if (!(d->w = jg_setup_alloc(s, (size_t)d->n * sizeof *d->w))) goto nomem;
        for (int i = 0; i < d->n; i++) {
            double x = v.x[i];
            if (!(jg_is_int(x, 1, 1e9) || x == -1))
                return jg_setup_error(b, s, JG_PARAM, param,
                                      "element %d is %g: expected a width >= 1 or -1", i + 1, x);
            d->w[i] = (int64_t)x;
        }
    }
    if (!(d->off = jg_setup_alloc(s, (size_t)(d->n + 1) * sizeof *d->off))) goto nomem;
    return is_mux ? jg_setup_ports(b, s, d->n, 1) : jg_setup_ports(b, s, 1, d->n);
nomem:
    return jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
}

static int mux_setup(jg_block_t *b, jg_setup_t *s) { return split_setup(b, s, "Inputs", 1); }
static int demux_setup(jg_block_t *b, jg_setup_t *s) { return split_setup(b, s, "Outputs", 0); }

static int mux_widths(jg_block_t *b, jg_setup_t *s)
{
    split_t *d = b->data;
    for (int p = 0; p < d->n; p++) {
        if (b->in_w[p] < 0) {
            if (d->w[p] > 0)
                b->in_w[p] = d->w[p];
            else if (s->force)
                b->in_w[p] = 1;
            else
                return JG_BLOCK_AGAIN;
        }
        if (d->w[p] > 0 && b->in_w[p] != d->w[p])
            return jg_setup_error(b, s, JG_WIDTH, "Inputs",
                                  "input %d is declared with width %lld but has width %lld", p + 1,
                                  (long long)d->w[p], (long long)b->in_w[p]);
    }
    d->off[0] = 0;
    for (int p = 0; p < d->n; p++) d->off[p + 1] = d->off[p] + b->in_w[p];
    b->out_w[0] = d->off[d->n];
    return JG_BLOCK_DONE;
}

static int mux_route(const jg_block_t *b, int outport, int64_t elem, int *inport, int64_t *inelem)
{
    const split_t *d = b->data;
    (void)outport;
    int lo = 0, hi = d->n - 1;      /* last port whose offset <= elem */
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (d->off[mid] <= elem) lo = mid; else hi = mid - 1;
    }
    while (lo < d->n - 1 && d->off[lo + 1] <= elem) lo++;   /* skip empty ports */
    *inport = lo;
    *inelem = elem - d->off[lo];
    return 0;
}

const jg_block_type_t jg_block_mux = {
    .name = "Mux", .flags = JG_BT_VIRTUAL | JG_BT_LINEAR,
    .setup = mux_setup, .widths = mux_widths, .route = mux_route,
};

static int demux_widths(jg_block_t *b, jg_setup_t *s)
{
    split_t *d = b->data;
    int64_t win = b->in_w[0];
    int64_t known = 0, nunknown = 0;
    for (int q = 0; q < d->n; q++) {
        if (d->w[q] > 0) known += d->w[q]; else nunknown++;
    }
    if (win < 0) {
        if (nunknown == 0) {
            b->in_w[0] = win = known;
        } else if (s->force) {
            b->in_w[0] = win = known + nunknown;
        } else {
            return JG_BLOCK_AGAIN;
        }
    }
    if (nunknown == 0 && known != win)
        return jg_setup_error(b, s, JG_WIDTH, "Outputs",
                              "output widths add up to %lld but the input has width %lld",
                              (long long)known, (long long)win);
    int64_t rest = win - known;
    if (nunknown > 0 && (rest < nunknown || rest % nunknown != 0))
        return jg_setup_error(b, s, JG_WIDTH, "Outputs",
                              "cannot split an input of width %lld evenly into %lld outputs",
                              (long long)win, (long long)d->n);
    d->off[0] = 0;
    for (int q = 0; q < d->n; q++) {
        b->out_w[q] = d->w[q] > 0 ? d->w[q] : rest / nunknown;
        d->off[q + 1] = d->off[q] + b->out_w[q];
    }
    return JG_BLOCK_DONE;
}

static int demux_route(const jg_block_t *b, int outport, int64_t elem, int *inport,
                       int64_t *inelem)
{
    const split_t *d = b->data;
    *inport = 0;
    *inelem = d->off[outport] + elem;
    return 0;
}

const jg_block_type_t jg_block_demux = {
    .name = "Demux", .flags = JG_BT_VIRTUAL | JG_BT_LINEAR,
    .setup = demux_setup, .widths = demux_widths, .route = demux_route,
};

/* ------------------------------------------------------------ Selector */

typedef struct {
    int64_t n;
    int64_t *idx;      /* 0-based */
    int64_t maxidx;
    int64_t inw;       /* InputPortWidth, -1 inherited */
} sel_t;

static int selector_setup(jg_block_t *b, jg_setup_t *s)
{
    sel_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    jg_value_t v;
    int r = jg_setup_num(b, s, "Indices", &v);
    if (r < 0) return JG_BLOCK_FAIL;
    if (r > 0 &&
        jg_setup_check_size(b, s, "Indices", jg_value_numel(&v), "indices") != JG_BLOCK_DONE)
        return JG_BLOCK_FAIL;   /* from an expression (ones(1, n)): sized by the element limit */
    if (r == 0 || jg_value_numel(&v) == 0)
        return jg_setup_error(b, s, JG_PARAM, "Indices",
                              "missing: expected a vector of 1-based indices");
    d->n = jg_value_numel(&v);
    d->idx = jg_setup_alloc(s, (size_t)d->n * sizeof *d->idx);
    for (int64_t i = 0; i < d->n; i++) {
        double x = v.x[i];
        if (!jg_is_int(x, 1, 1e12))
            return jg_setup_error(b, s, JG_PARAM, "Indices",
                                  "element %lld is %g: expected a 1-based integer index",
                                  (long long)i + 1, x);
        d->idx[i] = (int64_t)x - 1;
        if (d->idx[i] > d->maxidx) d->maxidx = d->idx[i];
    }
    d->inw = -1;
    r = jg_setup_num(b, s, "InputPortWidth", &v);
    if (r < 0) return JG_BLOCK_FAIL;
    if (r > 0) {
        if (jg_value_numel(&v) != 1 || !(jg_is_int(v.x[0], 1, 1e9) || v.x[0] == -1))
            return jg_setup_error(b, s, JG_PARAM, "InputPortWidth",
                                  "expected a positive integer width or -1 (inherited)");
        d->inw = (int64_t)v.x[0];
    }
    return jg_setup_ports(b, s, 1, 1);
}

static int selector_widths(jg_block_t *b, jg_setup_t *s)
{
    sel_t *d = b->data;
    if (b->in_w[0] < 0) {
        if (d->inw > 0)
            b->in_w[0] = d->inw;
        else if (s->force)
            b->in_w[0] = d->maxidx + 1;
        else
            return JG_BLOCK_AGAIN;
    }
    if (d->inw > 0 && b->in_w[0] != d->inw)
        return jg_setup_error(b, s, JG_WIDTH, "InputPortWidth",
                              "declared width %lld but the input has width %lld",
                              (long long)d->inw, (long long)b->in_w[0]);
    if (d->maxidx >= b->in_w[0])
        return jg_setup_error(b, s, JG_PARAM, "Indices",
                              "index %lld is out of range for an input of width %lld",
                              (long long)d->maxidx + 1, (long long)b->in_w[0]);
    b->out_w[0] = d->n;
    return JG_BLOCK_DONE;
}

static int selector_route(const jg_block_t *b, int outport, int64_t elem, int *inport,
                          int64_t *inelem)
{
    const sel_t *d = b->data;
    (void)outport;
    *inport = 0;
    *inelem = d->idx[elem];
    return 0;
}

const jg_block_type_t jg_block_selector = {
    .name = "Selector", .flags = JG_BT_VIRTUAL | JG_BT_LINEAR,
    .setup = selector_setup, .widths = selector_widths, .route = selector_route,
};
