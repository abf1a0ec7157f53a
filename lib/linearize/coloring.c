/* Curtis-Powell-Reid column grouping: a greedy coloring of the column
 * intersection graph in smallest-last order (jacgraph/solverjac.h).
 *
 * Hand-written rather than igraph_vertex_coloring_greedy: igraph wants the
 * intersection graph as an igraph_t, i.e. every pair of columns sharing a
 * row stored as an edge (a row with r entries is r(r-1)/2 edges, memory the
 * walk below never needs), and its heuristics (colored neighbors, DSATUR)
 * are not the smallest-last order of Coleman & More that the sparse
 * perturbation literature analyses.  The walk through the rows is the
 * whole algorithm; there is nothing else to reuse.
 */
#include <stdlib.h>
#include <string.h>
#include "jacgraph/solverjac.h"

typedef struct {
    int64_t m, n;
    const int64_t *Ap, *Ai;
    int64_t *rp, *rc;      /* the pattern by rows: columns of row i in rc[rp[i]..rp[i+1]) */
    int64_t *mark, stamp;  /* per column: stamp of the last walk that met it */
} walk_t;

/* Call visit(ctx, k) once for every column k != j sharing a row with j. */
#define FOR_NEIGHBORS(W, j, k, BODY)                                           \
    do {                                                                       \
        (W)->stamp++;                                                          \
        (W)->mark[j] = (W)->stamp;                                             \
        for (int64_t q_ = (W)->Ap[j]; q_ < (W)->Ap[(j) + 1]; q_++) {           \
            int64_t r_ = (W)->Ai[q_];                                          \
            for (int64_t s_ = (W)->rp[r_]; s_ < (W)->rp[r_ + 1]; s_++) {       \
                int64_t k = (W)->rc[s_];                                       \
                if ((W)->mark[k] == (W)->stamp) continue;                      \
                (W)->mark[k] = (W)->stamp;                                     \
                BODY                                                           \
            }                                                                  \
        }                                                                      \
    } while (0)

jg_status_t jg_solverjac_color_columns(const cs_dl *A, int64_t *color, int64_t *ncolors, jg_error_t *err)
{
    *ncolors = 0;
    if (!A || A->nz != -1 || A->m < 0 || A->n < 0)
        return jg_error_set(err, JG_ARG, "column coloring: expected a compressed-column matrix");
    const int64_t m = A->m, n = A->n, nnz = A->p[n];
    walk_t W = {.m = m, .n = n, .Ap = A->p, .Ai = A->i};
    W.rp = calloc((size_t)m + 1, sizeof(int64_t));
    W.rc = malloc(sizeof(int64_t) * (size_t)(nnz + 1));
    W.mark = calloc((size_t)n + 1, sizeof(int64_t));
    /* smallest-last: current degrees, buckets by degree (doubly linked) */
    int64_t *deg = malloc(sizeof(int64_t) * (size_t)(n + 1));
    int64_t *head = malloc(sizeof(int64_t) * (size_t)(n + 1));
    int64_t *next = malloc(sizeof(int64_t) * (size_t)(n + 1));
    int64_t *prev = malloc(sizeof(int64_t) * (size_t)(n + 1));
    int64_t *order = malloc(sizeof(int64_t) * (size_t)(n + 1));
    unsigned char *gone = calloc((size_t)n + 1, 1);
    jg_status_t st = JG_OK;
    if (!W.rp || !W.rc || !W.mark || !deg || !head || !next || !prev || !order || !gone) {
        st = jg_error_set(err, JG_NOMEM, "column coloring: out of memory (%lld columns)",
                          (long long)n);
        goto done;
    }
    for (int64_t q = 0; q < nnz; q++) {
        if (A->i[q] < 0 || A->i[q] >= m) {
            st = jg_error_set(err, JG_ARG, "column coloring: row index %lld outside 0..%lld",
                              (long long)A->i[q], (long long)m - 1);
            goto done;
        }
        W.rp[A->i[q] + 1]++;
    }
    for (int64_t i = 0; i < m; i++) W.rp[i + 1] += W.rp[i];
    {
        int64_t *fill = head;   /* borrowed: per row, next free slot (m may exceed n) */
        if (m > n) {
            fill = malloc(sizeof(int64_t) * (size_t)(m + 1));
            if (!fill) {
                st = jg_error_set(err, JG_NOMEM, "column coloring: out of memory");
                goto done;
            }
        }
        memcpy(fill, W.rp, sizeof(int64_t) * (size_t)m);
        for (int64_t j = 0; j < n; j++)
            for (int64_t q = A->p[j]; q < A->p[j + 1]; q++) W.rc[fill[A->i[q]]++] = j;
        if (fill != head) free(fill);
    }
    /* degrees in the intersection graph; empty columns take no part */
    int64_t maxdeg = 0, nlive = 0;
    for (int64_t j = 0; j < n; j++) {
        color[j] = -1;
        deg[j] = 0;
        if (A->p[j + 1] == A->p[j]) {
            gone[j] = 1;
            continue;
        }
        nlive++;
        FOR_NEIGHBORS(&W, j, k, { (void)k; deg[j]++; });
        if (deg[j] > maxdeg) maxdeg = deg[j];
    }
    for (int64_t d = 0; d <= maxdeg; d++) head[d] = -1;
    for (int64_t j = n - 1; j >= 0; j--) {   /* buckets in column order: deterministic */
        if (gone[j]) continue;
        prev[j] = -1;
        next[j] = head[deg[j]];
        if (next[j] >= 0) prev[next[j]] = j;
        head[deg[j]] = j;
    }
    /* remove a vertex of least degree, last-removed colored first */
    int64_t mindeg = 0;
    for (int64_t k = nlive - 1; k >= 0; k--) {
        while (head[mindeg] < 0) mindeg++;
        int64_t v = head[mindeg];
        head[mindeg] = next[v];
        if (next[v] >= 0) prev[next[v]] = -1;
        gone[v] = 1;
        order[k] = v;
        FOR_NEIGHBORS(&W, v, u, {
            if (gone[u]) continue;
            /* unlink u from bucket deg[u], push it onto deg[u] - 1 */
            if (prev[u] >= 0) next[prev[u]] = next[u];
            else head[deg[u]] = next[u];
            if (next[u] >= 0) prev[next[u]] = prev[u];
            deg[u]--;
            prev[u] = -1;
            next[u] = head[deg[u]];
            if (next[u] >= 0) prev[next[u]] = u;
            head[deg[u]] = u;
        });
        mindeg = mindeg > 0 ? mindeg - 1 : 0;
    }
    /* greedy: the smallest color none of the colored neighbors has; the
     * forbidden marks reuse deg (per color: the column that last forbade it) */
    int64_t nc = 0;
    for (int64_t c = 0; c <= n; c++) deg[c] = -1;
    for (int64_t k = 0; k < nlive; k++) {
        int64_t v = order[k];
        FOR_NEIGHBORS(&W, v, u, {
            if (color[u] >= 0) deg[color[u]] = v;
        });
        int64_t c = 0;
        while (deg[c] == v) c++;
        color[v] = c;
        if (c + 1 > nc) nc = c + 1;
    }
    *ncolors = nc;
done:
    free(W.rp);
    free(W.rc);
    free(W.mark);
    free(deg);
    free(head);
    free(next);
    free(prev);
    free(order);
    free(gone);
    return st;
}

int jg_solverjac_coloring_valid(const cs_dl *A, const int64_t *color)
{
    if (!A || A->nz != -1) return 0;
    const int64_t m = A->m, n = A->n;
    int64_t nc = 0;
    for (int64_t j = 0; j < n; j++) {
        int empty = A->p[j + 1] == A->p[j];
        if (!empty && color[j] < 0) return 0;
        if (color[j] >= nc) nc = color[j] + 1;
    }
    /* per row: the column of each color seen in it */
    int64_t *seen = malloc(sizeof(int64_t) * (size_t)(nc + 1));
    int64_t *rowstamp = malloc(sizeof(int64_t) * (size_t)(nc + 1));
    int64_t *rp = calloc((size_t)m + 1, sizeof(int64_t));
    int64_t *rc = malloc(sizeof(int64_t) * (size_t)(A->p[n] + 1));
    int ok = seen && rowstamp && rp && rc;
    if (ok) {
        for (int64_t q = 0; q < A->p[n]; q++) rp[A->i[q] + 1]++;
        for (int64_t i = 0; i < m; i++) rp[i + 1] += rp[i];
        int64_t *fill = calloc((size_t)m + 1, sizeof(int64_t));
        ok = fill != NULL;
        if (ok) {
            memcpy(fill, rp, sizeof(int64_t) * (size_t)m);
            for (int64_t j = 0; j < n; j++)
                for (int64_t q = A->p[j]; q < A->p[j + 1]; q++) rc[fill[A->i[q]]++] = j;
            free(fill);
        }
        for (int64_t c = 0; c < nc; c++) rowstamp[c] = -1;
        for (int64_t i = 0; ok && i < m; i++)
            for (int64_t s = rp[i]; ok && s < rp[i + 1]; s++) {
                int64_t c = color[rc[s]];
                if (rowstamp[c] == i && seen[c] != rc[s]) ok = 0;
                rowstamp[c] = i;
                seen[c] = rc[s];
            }
    }
    free(seen);
    free(rowstamp);
    free(rp);
    free(rc);
    return ok;
}
