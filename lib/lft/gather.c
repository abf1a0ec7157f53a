/* A compressed-column matrix assembled from value indices by a fixed recipe: cs_compress then cs_dupl, replayed. */
#include <stdlib.h>
#include <string.h>
#include "lft_internal.h"

/* Why: the LFT's operands are submatrices of a Jacobian graph whose pattern
 * is fixed once it is eliminated; extracting them anew per operating point
 * (triplets, compress, sum duplicates) costs a third of evaluating the block
 * Jacobians.  The recipe keeps where each value goes and in which order it is
 * summed -- CSparse's -- so the values are the same bits. */

struct jg__lft_gather {
    int64_t m, n, nt, nnz;
    int64_t *p, *i;        /* the pattern */
    int64_t *dst, *src;    /* per triplet in column order: its entry, its value (-1: 1.0) */
    unsigned char *first;  /* it starts its entry (else it adds to it) */
};

void jg__lft_gather_free(jg__lft_gather_t *g)
{
    if (!g) return;
    free(g->p);
    free(g->i);
    free(g->dst);
    free(g->src);
    free(g->first);
    free(g);
}

jg__lft_gather_t *jg__lft_gather_new(int64_t m, int64_t n, int64_t nt, const int64_t *row,
                                     const int64_t *col, const int64_t *src)
{
    jg__lft_gather_t *g = calloc(1, sizeof *g);
    int64_t *w = malloc(sizeof(int64_t) * (size_t)(n > m ? n + 1 : m + 1)), *ord = NULL;
    if (!g || !w) goto fail;
    g->m = m;
    g->n = n;
    g->nt = nt;
    g->p = calloc((size_t)n + 1, sizeof(int64_t));
    g->i = malloc(sizeof(int64_t) * (size_t)(nt + 1));
    g->dst = malloc(sizeof(int64_t) * (size_t)(nt + 1));
    g->src = malloc(sizeof(int64_t) * (size_t)(nt + 1));
    g->first = malloc((size_t)nt + 1);
    ord = malloc(sizeof(int64_t) * (size_t)(nt + 1));
    if (!g->p || !g->i || !g->dst || !g->src || !g->first || !ord) goto fail;
    /* cs_compress: a stable counting sort by column */
    for (int64_t k = 0; k < nt; k++) g->p[col[k] + 1]++;
    for (int64_t j = 0; j < n; j++) g->p[j + 1] += g->p[j];
    memcpy(w, g->p, sizeof(int64_t) * (size_t)n);
    for (int64_t k = 0; k < nt; k++) ord[w[col[k]]++] = k;
    /* cs_dupl: the first of a row in a column keeps its place, the next add to it */
    for (int64_t i = 0; i < m; i++) w[i] = -1;
    int64_t nz = 0;
    for (int64_t j = 0; j < n; j++) {
        int64_t q = nz;
        for (int64_t t = g->p[j]; t < g->p[j + 1]; t++) {
            int64_t k = ord[t], r = row[k];
            g->src[t] = src[k];
            g->first[t] = w[r] < q;
            if (w[r] < q) {
                w[r] = nz;
                g->i[nz++] = r;
            }
            g->dst[t] = w[r];
        }
        g->p[j] = q;
    }
    g->p[n] = nz;
    g->nnz = nz;
    free(w);
    free(ord);
    return g;
fail:
    free(w);
    free(ord);
    jg__lft_gather_free(g);
    return NULL;
}

cs_dl *jg__lft_gather_alloc(const jg__lft_gather_t *g)
{
    cs_dl *A = cs_dl_spalloc(g->m, g->n, g->nnz + 1, 1, 0);
    if (!A) return NULL;
    memcpy(A->p, g->p, sizeof(int64_t) * (size_t)(g->n + 1));
    memcpy(A->i, g->i, sizeof(int64_t) * (size_t)g->nnz);
    memset(A->x, 0, sizeof(double) * (size_t)(g->nnz + 1));
    return A;
}

void jg__lft_gather_run(const jg__lft_gather_t *g, const double *vals, cs_dl *A)
{
    double *x = A->x;
    for (int64_t t = 0; t < g->nt; t++) {
        double v = g->src[t] < 0 ? 1.0 : vals[g->src[t]];
        if (g->first[t]) x[g->dst[t]] = v;
        else x[g->dst[t]] += v;
    }
}
