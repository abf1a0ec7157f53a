/* Lay out the signal vectors and trace every input element through virtual routing to its source. */
#include "compile_impl.h"
#include "goto.h"

int64_t jg__trace(const jg_program_t *p, int64_t gp, int64_t e,
                  int (*visit)(void *ctx, int64_t gport, int64_t elem), void *ctx)
{
    for (int32_t steps = 0; steps <= p->nblocks; steps++) {
        if (visit && visit(ctx, gp, e)) return -1;
        int32_t b = p->out_blk[gp];
        int q = p->out_port_of[gp];
        const jg_block_t *B = &p->blocks[b];
        int64_t gin;
        if (!B->virt) return p->y_off[gp] + e;
        if (B->type->flags & JG_BT_SUBSYSTEM) {   /* to its inner Outport's input */
            gin = jg__inport(p, ((const jg__subsys_t *)B->data)->out_blk[q], 0);
        } else if (B->type->flags & JG_BT_PORT_IN) {   /* inner Inport: to its SubSystem's input */
            gin = jg__inport(p, B->parent, B->port - 1);
        } else if (B->type->flags & JG_BT_TAG_READ) {   /* to its Goto's input (goto.c) */
            gin = jg__inport(p, jg__from_goto(B), 0);
        } else {
            int ip;
            int64_t ie;
            B->type->route(B, q, e, &ip, &ie);
            gin = jg__inport(p, b, ip);
            e = ie;
        }
        gp = p->in_drv[gin];
        if (gp < 0) return -1;
    }
    return -2;
}

jg_status_t jg__layout(jg__cctx_t *c)
{
    jg_program_t *p = c->p;
    p->u_off = jg_arena_alloc(&p->arena, sizeof(int64_t) * (size_t)(p->nin_ports + 1));
    p->y_off = jg_arena_alloc(&p->arena, sizeof(int64_t) * (size_t)(p->nout_ports + 1));
    if (!p->u_off || !p->y_off) return jg_error_set(c->err, JG_NOMEM, "out of memory");
    int64_t nu = 0, ny = 0, nx = 0;
    for (int32_t b = 0; b < p->nblocks; b++) {
        jg_block_t *B = &p->blocks[b];
        for (int k = 0; k < B->nin; k++) {
            p->u_off[p->in_base[b] + k] = B->virt ? -1 : nu;
            if (!B->virt) nu += B->in_w[k];
        }
        for (int k = 0; k < B->nout; k++) {
            p->y_off[p->out_base[b] + k] = B->virt ? -1 : ny;
            if (!B->virt) ny += B->out_w[k];
        }
        if (B->virt) continue;
        p->nreal++;
        B->x_off = (int32_t)nx;   /* jg__check_totals: nx stays within 32 bits */
        nx += B->nx;
        if (B->hyb) {   /* blocks without hybrid fields have offsets 0 and no elements */
            B->hyb->d_off = p->nd;
            p->nd += B->hyb->nd;
            B->hyb->zc_off = p->nzc;
            p->nzc += B->hyb->nzc;
        }
    }
    p->nu = nu;
    p->ny = ny;
    p->nx = nx;
    p->u_src = jg_arena_alloc(&p->arena, sizeof(int64_t) * (size_t)(nu + 1));
    p->x_blk = jg_arena_alloc(&p->arena, sizeof(int64_t) * (size_t)(nx + 1));
    p->x_name = jg_arena_alloc(&p->arena, sizeof(char *) * (size_t)(nx + 1));
    if (!p->u_src || !p->x_blk || !p->x_name) return jg_error_set(c->err, JG_NOMEM, "out of memory");
    for (int32_t b = 0; b < p->nblocks; b++) {
        const jg_block_t *B = &p->blocks[b];
        if (B->virt) continue;
        for (int64_t k = 0; k < B->nx; k++) p->x_blk[B->x_off + k] = b;
        for (int k = 0; k < B->nin; k++) {
            int64_t gi = jg__inport(p, b, k), d = p->in_drv[gi];
            int unconnected = 0;
            for (int64_t e = 0; e < B->in_w[k]; e++) {
                int64_t src = d >= 0 ? jg__trace(p, d, e, NULL, NULL) : -1;
                if (src == -2)
                    return jg_error_set(c->err, JG_MODEL,
                                        "input %d of block '%s' is routed through virtual blocks "
                                        "in a cycle (Mux/Demux/Selector/SubSystem ports)",
                                        k + 1, B->path);
                if (src < 0) unconnected++;
                p->u_src[p->u_off[gi] + e] = src;
            }
            if (unconnected == B->in_w[k] && unconnected)
                jg__warn(p, "input %d of block '%s' is unconnected; it reads zero", k + 1, B->path);
            else if (unconnected)
                jg__warn(p, "input %d of block '%s' has %lld unconnected element%s; they read zero",
                         k + 1, B->path, (long long)unconnected, unconnected == 1 ? "" : "s");
        }
    }
    return JG_OK;
}
