/* Submatrices of the Jacobian graph (Han, Mosterman & Zhang, Theorem 1): the
 * vertex offset maps that select them, and the extraction over the live
 * edges, numeric or as a list of entries. */
#include "graph_impl.h"

void jg__graph_offset_map(const jg_graph_t *g, const int64_t base[5], int live_only,
                          int64_t *map)
{
    for (int64_t v = 0; v < g->nv; v++) {
        const jg_gvert_t *V = &g->v[v];
        int64_t b = base[V->kind];
        map[v] = b >= 0 && (V->alive || !live_only) ? b + V->off : -1;
    }
}

int64_t jg__graph_survivor_map(const jg_graph_t *g, int64_t *map)
{
    int64_t n = 0;
    for (int64_t v = 0; v < g->nv; v++) {
        const jg_gvert_t *V = &g->v[v];
        map[v] = -1;
        if (V->alive && (V->kind == JG_V_INPUT || V->kind == JG_V_OUTPUT)) {
            map[v] = n;
            n += V->width;
        }
    }
    return n;
}

const double *jg__graph_values(const jg_graph_t *g) { return g->x; }

int64_t jg__graph_sub_entries(const jg_graph_t *g, const int64_t *rowoff,
                              const int64_t *coloff, int64_t *row, int64_t *col, int64_t *val)
{
    int64_t nz = 0;
    for (int64_t l = 0; l < g->nlive; l++) {
        const jg_gedge_t *e = &g->e[g->live[l]];
        if (!e->alive || rowoff[e->dst] < 0 || coloff[e->src] < 0) continue;
        const jg_gmat_t *a = &g->mat[e->mat];
        if (!row) {
            nz += jg__nnz(a);
            continue;
        }
        for (int64_t j = 0; j < a->n; j++)
            for (int64_t q = a->p[j]; q < a->p[j + 1]; q++, nz++) {
                row[nz] = rowoff[e->dst] + jg__gmat_i(a)[q];
                col[nz] = coloff[e->src] + j;
                val[nz] = a->xoff + q;
            }
    }
    return nz;
}

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
                T->i[T->nz] = rowoff[e->dst] + jg__gmat_i(a)[q];
                T->p[T->nz] = coloff[e->src] + j;
                T->x[T->nz++] = x[q];
            }
    }
    cs_dl *C = cs_dl_compress(T);
    cs_dl_spfree(T);
    if (C && !cs_dl_dupl(C)) C = cs_dl_spfree(C);
    return C;
}
