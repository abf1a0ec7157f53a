/* Propagate signal widths over the connections (worklist; defaults only when stalled). */
#include <stdlib.h>
#include <string.h>
#include "compile_impl.h"
#include "goto.h"

jg_status_t jg__build_consumers(jg_program_t *p, jg__consumers_t *cs, jg_error_t *err)
{
    cs->ptr = calloc((size_t)p->nout_ports + 1, sizeof(int64_t));
    cs->idx = malloc(sizeof(int64_t) * (size_t)(p->nin_ports + 1));
    if (!cs->ptr || !cs->idx) return jg_error_set(err, JG_NOMEM, "out of memory");
    for (int64_t i = 0; i < p->nin_ports; i++)
        if (p->in_drv[i] >= 0) cs->ptr[p->in_drv[i] + 1]++;
    for (int64_t k = 0; k < p->nout_ports; k++) cs->ptr[k + 1] += cs->ptr[k];
    int64_t *fill = malloc(sizeof(int64_t) * (size_t)(p->nout_ports + 1));
    if (!fill) return jg_error_set(err, JG_NOMEM, "out of memory");
    memcpy(fill, cs->ptr, sizeof(int64_t) * (size_t)(p->nout_ports + 1));
    for (int64_t i = 0; i < p->nin_ports; i++)
        if (p->in_drv[i] >= 0) cs->idx[fill[p->in_drv[i]]++] = i;
    free(fill);
    return JG_OK;
}

/* Try to complete the widths of block b; returns JG_BLOCK_DONE/AGAIN/FAIL. */
static int64_t driver_width(const jg_program_t *p, int64_t gin)
{
    int64_t d = p->in_drv[gin];
    return d >= 0 ? p->blocks[p->out_blk[d]].out_w[p->out_port_of[d]] : -1;
}

static int try_widths(jg__cctx_t *c, jg_setup_t *s, const jg__consumers_t *cs, int32_t id)
{
    jg_program_t *p = c->p;
    jg_block_t *b = &p->blocks[id];
    for (int k = 0; k < b->nin; k++)
        if (b->in_w[k] < 0) b->in_w[k] = driver_width(p, jg__inport(p, id, k));
    /* sources without a width of their own (Ground, a root Inport without
     * PortDimensions) take the width a reader has fixed for itself */
    if (b->type->flags & JG_BT_SOURCE)
        for (int q = 0; q < b->nout; q++) {
            int64_t g = jg__outport(p, id, q);
            for (int64_t k = cs->ptr[g]; b->out_w[q] < 0 && k < cs->ptr[g + 1]; k++) {
                int64_t gi = cs->idx[k];
                b->out_w[q] = p->blocks[p->in_blk[gi]].in_w[p->in_port_of[gi]];
            }
        }
    if (b->type->flags & JG_BT_SUBSYSTEM) {
        const jg__subsys_t *d = b->data;
        int done = 1;
        for (int k = 0; k < b->nin; k++)
            if (b->in_w[k] < 0) {
                if (s->force && p->in_drv[p->in_base[id] + k] < 0)
                    b->in_w[k] = 1;   /* unconnected subsystem input: scalar */
                else
                    done = 0;
            }
        for (int q = 0; q < b->nout; q++) {
            if (b->out_w[q] < 0) b->out_w[q] = p->blocks[d->out_blk[q]].in_w[0];
            if (b->out_w[q] < 0) done = 0;
        }
        return done ? JG_BLOCK_DONE : JG_BLOCK_AGAIN;
    }
    if (b->virt && (b->type->flags & JG_BT_PORT_IN)) {   /* its SubSystem's input n */
        const jg_block_t *S = &p->blocks[b->parent];
        int n = b->port - 1;
        int64_t gin = jg__inport(p, b->parent, n);
        if (b->out_w[0] < 0) b->out_w[0] = S->in_w[n] >= 0 ? S->in_w[n] : driver_width(p, gin);
        if (b->out_w[0] < 0 && s->force && p->in_drv[gin] < 0) b->out_w[0] = 1;   /* unconnected */
        return b->out_w[0] >= 0 ? b->type->widths(b, s) : JG_BLOCK_AGAIN;
    }
    if (b->virt && (b->type->flags & JG_BT_PORT_OUT)) {
        if (b->in_w[0] < 0 && s->force && p->in_drv[p->in_base[id]] < 0) b->in_w[0] = 1;
        if (b->in_w[0] < 0) return JG_BLOCK_AGAIN;
        return b->type->widths(b, s);
    }
    if (!b->type->widths) return JG_BLOCK_DONE;
    /* a width beyond the limit stops here, before the block sizes anything by it */
    if (jg__check_widths_known(c, s, b) != JG_BLOCK_DONE) return JG_BLOCK_FAIL;
    return b->type->widths(b, s);
}

/* Min-heap of block ids: the blocks woken behind the scan (below). */
static void heap_push(int32_t *h, int32_t *n, int32_t v)
{
    int32_t i = (*n)++;
    for (; i > 0 && h[(i - 1) / 2] > v; i = (i - 1) / 2) h[i] = h[(i - 1) / 2];
    h[i] = v;
}

static int32_t heap_pop(int32_t *h, int32_t *n)
{
    int32_t top = h[0], v = h[--(*n)], i = 0;
    for (;;) {
        int32_t l = 2 * i + 1, m = l;
        if (l >= *n) break;
        if (l + 1 < *n && h[l + 1] < h[l]) m = l + 1;
        if (h[m] >= v) break;
        h[i] = h[m];
        i = m;
    }
    if (*n) h[i] = v;
    return top;
}

/* The pending blocks are tried least id first: a scan in file order, and
 * the blocks woken behind it wait in a heap.  A SubSystem comes before its
 * contents, so its output widths are known only once its inner Outports
 * are done: tried next (rather than after every other block of the model,
 * as a FIFO queue did), it completes before the blocks after it in its
 * parent read its outputs, and they do not wait a round; the blocks are
 * visited nearly in memory order.  The widths do not depend on the order:
 * every block is retried until nothing changes, and defaults apply only
 * when nothing is pending, to the first open block (in a model with two
 * width errors, which one a block's widths() meets first may). */
jg_status_t jg__propagate_widths(jg__cctx_t *c, jg_setup_t *s, const jg__consumers_t *cs)
{
    jg_program_t *p = c->p;
    jg_status_t st = JG_OK;
    int32_t n = p->nblocks, scan = 0, nh = 0, cursor = 0, ndone = 0;
    int32_t *heap = malloc(sizeof(int32_t) * (size_t)(n + 1));
    unsigned char *state = malloc((size_t)n + 1);   /* 0 idle, 1 pending, 2 done */
    if (!heap || !state) {
        st = jg_error_set(c->err, JG_NOMEM, "out of memory");
        goto done;
    }
    /* every block starts pending; blocks below scan are pending only in the heap */
    memset(state, 1, (size_t)n + 1);
#define WAKE(t)                                          \
    do {                                                 \
        int32_t t_ = (t);                                \
        if (state[t_] == 0) {                            \
            state[t_] = 1;                               \
            if (t_ < scan) heap_push(heap, &nh, t_);     \
        }                                                \
    } while (0)
    while (ndone < n) {
        while (scan < n && state[scan] != 1) scan++;
        if (!nh && scan == n) {
            /* stalled: let the first open block that can apply a default (an
             * Integrator's IC width, a scalar for an unconnected port) do so */
            while (cursor < n && state[cursor] == 2) cursor++;
            int32_t k = cursor;
            int r = JG_BLOCK_AGAIN;
            s->force = 1;
            for (; k < n; k++) {
                if (state[k] == 2) continue;
                if ((r = try_widths(c, s, cs, k)) != JG_BLOCK_AGAIN) break;
            }
            s->force = 0;
            if (r == JG_BLOCK_FAIL) {
                st = c->err->status;
                goto done;
            }
            if (k == n) {
                st = jg_error_set(c->err, JG_WIDTH,
                                  "block '%s' (%s): the signal widths around it cannot be "
                                  "determined (set PortDimensions on an Inport or a width "
                                  "parameter)",
                                  p->blocks[cursor].path, p->blocks[cursor].type->name);
                goto done;
            }
            WAKE(k);   /* finish it through the normal path below */
            continue;
        }
        int32_t b = nh ? heap_pop(heap, &nh) : scan++;
        state[b] = 0;
        const jg_block_t *B = &p->blocks[b];
        int known = 0, known_after = 0;
        for (int q = 0; q < B->nout; q++) known += B->out_w[q] >= 0;
        int r = try_widths(c, s, cs, b);
        if (r == JG_BLOCK_FAIL) {
            st = c->err->status;
            goto done;
        }
        for (int q = 0; q < B->nout; q++) known_after += B->out_w[q] >= 0;
        if (r == JG_BLOCK_AGAIN && known_after == known) continue;
        if (r == JG_BLOCK_DONE) {
            state[b] = 2;
            ndone++;
        }
        /* wake the blocks that can use what b now knows (some output widths
         * may be known before b is complete: Sum in a vector loop) */
        for (int q = 0; q < B->nout; q++) {
            int64_t g = jg__outport(p, b, q);
            for (int64_t k = cs->ptr[g]; k < cs->ptr[g + 1]; k++) {
                int32_t t = p->in_blk[cs->idx[k]];
                WAKE(t);
                if (p->blocks[t].type->flags & JG_BT_SUBSYSTEM)   /* the Inport inside */
                    WAKE(((const jg__subsys_t *)p->blocks[t].data)->in_blk[p->in_port_of[cs->idx[k]]]);
            }
        }
        for (int k = 0; k < B->nin; k++) {   /* a source may take b's input width */
            int64_t d = p->in_drv[jg__inport(p, b, k)];
            if (d >= 0) WAKE(p->out_blk[d]);
        }
        if (B->type->flags & JG_BT_TAG_WRITE)   /* its Froms take its input width */
            for (int32_t f = jg__goto_first_from(B); f >= 0; f = jg__from_next(&p->blocks[f])) WAKE(f);
        if (B->virt && (B->type->flags & JG_BT_PORT_OUT)) WAKE(B->parent);
        if (B->type->flags & JG_BT_SUBSYSTEM) {   /* its inner Inports */
            const jg__subsys_t *d = B->data;
            for (int k = 0; k < B->nin; k++) WAKE(d->in_blk[k]);
        }
    }
#undef WAKE
    /* every connection must agree (a block may have fixed its own input width) */
    for (int64_t gi = 0; gi < p->nin_ports; gi++) {
        int64_t d = p->in_drv[gi];
        if (d < 0) continue;
        const jg_block_t *B = &p->blocks[p->in_blk[gi]], *S = &p->blocks[p->out_blk[d]];
        int64_t wi = B->in_w[p->in_port_of[gi]], wo = S->out_w[p->out_port_of[d]];
        if (wi != wo) {
            st = jg_error_set(c->err, JG_WIDTH,
                              "block '%s' (%s): input %d expects width %lld but '%s:%d' drives "
                              "width %lld",
                              B->path, B->type->name, p->in_port_of[gi] + 1, (long long)wi,
                              S->path, p->out_port_of[d] + 1, (long long)wo);
            goto done;
        }
    }
done:
    free(heap);
    free(state);
    return st;
}
