/* Submatrices of the Jacobian graph (seed 001, Theorem 1). */
#include "graph_impl.h"

cs_dl *jg__graph_sub(const jg_graph_t *g, const int64_t *rowoff, int64_t m,
                     const int64_t *coloff, int64_t n)
{
    int64_t nz = 0;
    for (int64_t l = 0; l < g->nlive; l++) {
        const jg_gedge_t *e = &g->e[g->live[l]];
        if (e->alive && rowoff[e->dst] >= 0 && coloff[e->src] >= 0) nz += jg__nnz(&g->mat[e->mat]);
    }
    cs_dl *T = cs_dl_spalloc(m, n, nz + 1, 1, 1);
    if (!T) return NULL;
    for (int64_t l = 0; l < g->nlive; l++) {
        const jg_gedge_t *e = &g->e[g->live[l]];
        if (!e->alive || rowoff[e->dst] < 0 || coloff[e->src] < 0) continue;
        const jg_gmat_t *a = &g->mat[e->mat];
        const double *x = g->x + a->xoff;
        for (int64_t j = 0; j < a->n; j++)
            for (int64_t q = a->p[j]; q < a->p[j + 1]; q++) {
                T->i[T->nz] = rowoff[e->dst] + a->i[q];
                T->p[T->nz] = coloff[e->src] + j;
                T->x[T->nz++] = x[q];
            }
    }
    cs_dl *C = cs_dl_compress(T);
    cs_dl_spfree(T);
    if (C && !cs_dl_dupl(C)) C = cs_dl_spfree(C);
    return C;
}
