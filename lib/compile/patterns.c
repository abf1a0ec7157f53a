/* Declare the blocks' Jacobian patterns and derive each input port's direct feedthrough. */
#include <string.h>
#include "compile_impl.h"

jg_status_t jg__patterns(jg__cctx_t *c, jg_setup_t *s)
{
    jg_program_t *p = c->p;
    p->feedthrough = jg_arena_alloc(&p->arena, (size_t)p->nin_ports + 1);
    if (!p->feedthrough) return jg_error_set(c->err, JG_NOMEM, "out of memory");
    for (int32_t b = 0; b < p->nblocks; b++) {
        jg_block_t *B = &p->blocks[b];
        if (B->virt) continue;
        B->npart = 0;
        B->part = NULL;
        if (B->type->pattern && B->type->pattern(B, s) < 0) return c->err->status;
        if (B->npart) {   /* from the scratch array to the arena, at the final count */
            jg_jac_part_t *pt = jg_arena_alloc(&p->arena, sizeof *pt * (size_t)B->npart);
            if (!pt) return jg_error_set(c->err, JG_NOMEM, "out of memory");
            memcpy(pt, B->part, sizeof *pt * (size_t)B->npart);
            B->part = pt;
        }
        for (int k = 0; k < B->npart; k++)
            if (B->part[k].kind == JG_JAC_D && B->part[k].m->p[B->part[k].m->n] > 0)
                p->feedthrough[jg__inport(p, b, B->part[k].col_port)] = 1;
    }
    return JG_OK;
}
