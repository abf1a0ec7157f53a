/* The matrix-based block-by-block algorithm (Han, Mosterman & Zhang,
 * Fig. 1): aggregate the block Jacobians into Ao, Bo, Co, Do and the signal
 * connections into the 0/1 matrix M, block by block, without the Jacobian graph.
 *
 * Operand layout for the LFT over ext-in = [x; w], ext-out = [dx; z]:
 *   P11 = [Ao 0; 0 0]   P12 = [Bo 0; 0 I_z]   P21 = [Co 0; 0 I_w]
 *   P22 = [Do 0; 0 0]   M: rows u then z, columns y then w.
 * Output points are "inputs" of the connection (rows of M after u) and input
 * points are "outputs" (columns after y): Outport and Inport blocks of Fig. 1. */
#include "lin_impl.h"

int jg__entry(cs_dl *T, int64_t i, int64_t j, double x)
{
    if (T->nz >= T->nzmax && !cs_dl_sprealloc(T, 2 * T->nzmax + 16)) return -1;
    T->i[T->nz] = i;
    T->p[T->nz] = j;
    T->x[T->nz++] = x;
    return 0;
}

cs_dl *jg__compress(cs_dl *T)
{
    if (!T) return NULL;
    cs_dl *C = cs_dl_compress(T);
    cs_dl_spfree(T);
    if (C && !cs_dl_dupl(C)) C = cs_dl_spfree(C);
    return C;
}

void jg__lftops_free(jg_lftops_t *o)
{
    o->P11 = cs_dl_spfree(o->P11);
    o->P12 = cs_dl_spfree(o->P12);
    o->P21 = cs_dl_spfree(o->P21);
    o->P22 = cs_dl_spfree(o->P22);
    o->M = cs_dl_spfree(o->M);
}

size_t jg__lftops_bytes(const jg_lftops_t *o)
{
    return jg_lft_csc_bytes(o->P11) + jg_lft_csc_bytes(o->P12) + jg_lft_csc_bytes(o->P21) +
           jg_lft_csc_bytes(o->P22) + jg_lft_csc_bytes(o->M);
}

int jg__lin_place_parts(jg_lin_t *l, cs_dl *const T[4], int skip_zeros)
{
    const jg_program_t *p = l->p;
    for (int32_t b = 0; b < p->nblocks; b++) {
        const jg_block_t *B = &p->blocks[b];
        if (B->virt) continue;
        cs_dl *const *part = jg__eval_parts(l->w, b);
        for (int k = 0; k < B->npart; k++) {
            const cs_dl *m = part[k];
            const jg_jac_part_t *P = &B->part[k];
            const int t = (int)P->kind;   /* JG_JAC_A..D: 0..3 */
            /* rows: states (a, b) or the output port's signals; columns:
             * states (a, c) or the input port's signals */
            int64_t r0 = t == JG_JAC_A || t == JG_JAC_B ? B->x_off : p->y_off[jg__outport(p, b, P->row_port)];
            int64_t c0 = t == JG_JAC_A || t == JG_JAC_C ? B->x_off : p->u_off[jg__inport(p, b, P->col_port)];
            for (int64_t j = 0; j < m->n; j++)
                for (int64_t q = m->p[j]; q < m->p[j + 1]; q++)
                    if ((!skip_zeros || m->x[q] != 0) && jg__entry(T[t], r0 + m->i[q], c0 + j, m->x[q]))
                        return -1;
        }
    }
    return 0;
}

jg_status_t jg__lin_matrix_ops(jg_lin_t *l, jg_lftops_t *o, jg_error_t *err)
{
    const jg_program_t *p = l->p;
    const jg_iospec_t *io = l->io;
    int64_t nx = p->nx, nu = p->nu, ny = p->ny, nw = io->nw, nz = io->nz;
    cs_dl *T11 = cs_dl_spalloc(nx + nz, nx + nw, 16, 1, 1);
    cs_dl *T12 = cs_dl_spalloc(nx + nz, nu + nz, 16 + nz, 1, 1);
    cs_dl *T21 = cs_dl_spalloc(ny + nw, nx + nw, 16 + nw, 1, 1);
    cs_dl *T22 = cs_dl_spalloc(ny + nw, nu + nz, 16, 1, 1);
    cs_dl *TM = cs_dl_spalloc(nu + nz, ny + nw, nu + nz + 16, 1, 1);
    *o = (jg_lftops_t){0};
    if (!T11 || !T12 || !T21 || !T22 || !TM) goto nomem;
    /* FOREACH blk: add a, b, c, d into Ao, Bo, Co, Do */
    if (jg__lin_place_parts(l, (cs_dl *const[4]){T11, T12, T21, T22}, 0)) goto nomem;
    /* identity blocks for the I/O points */
    for (int64_t k = 0; k < nz; k++)
        if (jg__entry(T12, nx + k, nu + k, 1.0)) goto nomem;
    for (int64_t k = 0; k < nw; k++)
        if (jg__entry(T21, ny + k, nx + k, 1.0)) goto nomem;
    /* FOREACH blk, FOREACH blk_to: M(blk -> blk_to), element by element */
    for (int64_t e = 0; e < nu + nz; e++) {
        if (io->src[e] >= 0 && jg__entry(TM, e, io->src[e], 1.0)) goto nomem;
        for (int64_t j = io->inj_ptr[e]; j < io->inj_ptr[e + 1]; j++)
            if (jg__entry(TM, e, ny + io->inj_idx[j], 1.0)) goto nomem;
    }
    o->P11 = jg__compress(T11);
    o->P12 = jg__compress(T12);
    o->P21 = jg__compress(T21);
    o->P22 = jg__compress(T22);
    o->M = jg__compress(TM);
    T11 = T12 = T21 = T22 = TM = NULL;
    if (!o->P11 || !o->P12 || !o->P21 || !o->P22 || !o->M) {
        jg__lftops_free(o);
        return jg_error_set(err, JG_NOMEM, "out of memory assembling Ao, Bo, Co, Do, M");
    }
    return JG_OK;
nomem:
    cs_dl_spfree(T11);
    cs_dl_spfree(T12);
    cs_dl_spfree(T21);
    cs_dl_spfree(T22);
    cs_dl_spfree(TM);
    return jg_error_set(err, JG_NOMEM, "out of memory assembling Ao, Bo, Co, Do, M");
}
