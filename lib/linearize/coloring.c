/* Curtis-Powell-Reid column grouping: a greedy coloring of the column
 * intersection graph in smallest-last order (jacgraph/solverjac.h), and its
 * restriction to the entries a sparsing keeps.
 *
 * Hand-written rather than igraph_vertex_coloring_greedy: igraph wants the
 * intersection graph as an igraph_t, i.e. every pair of columns sharing a
 * row stored as an edge (a row with r entries is r(r-1)/2 edges, memory the
 * walk below never needs), and its heuristics (colored neighbors, DSATUR)
 * are not the smallest-last order of Coleman & More that the sparse
 * perturbation literature analyses.  The walk through the rows is the
 * whole algorithm; there is nothing else to reuse.
 *
 * With a sparsing only some entries are wanted (keep): one forward
 * difference over a group of columns gives, in row r, the sum of the
 * changes of every column of the group with an entry in r -- wanted or not,
 * since f itself does not know about the sparsing.  A wanted entry (r, j1)
 * is therefore exact only when no other column of its group has any entry of
 * the full pattern in row r: columns j1, j2 conflict iff a row holds a
 * wanted entry of one and any entry of the other.  Coloring the pattern of
 * the kept entries alone would miss the second half and return sums.  This
 * is Gebremedhin, Manne & Pothen's partial (one-sided) coloring for a
 * subset of the entries ("What color is your Jacobian?", SIAM Review 2005).
 */
#include <stdlib.h>
#include <string.h>
#include "jacgraph/solverjac.h"

typedef struct {
    int64_t m, n;
    const int64_t *Ap, *Ai;
    const unsigned char *keep;  /* per entry of A: wanted; NULL: all */
    int64_t *rp, *rc;      /* the pattern by rows: columns of row i in rc[rp[i]..rp[i+1]) */
    int64_t *kp, *kc;      /* the same for the wanted entries (keep only) */
    const unsigned char *gone0;  /* per column: not part of the coloring */
    int64_t *mark, stamp;  /* per column: stamp of the last walk that met it */
} walk_t;

/* Run BODY once for every column k != j in conflict with j: sharing a row
 * (no keep), or a row holding a wanted entry of one and an entry of the
 * other (keep).  Columns outside the coloring are skipped. */
#define FOR_NEIGHBORS(W, j, k, BODY)                                           \
    do {                                                                       \
        (W)->stamp++;                                                          \
        (W)->mark[j] = (W)->stamp;                                             \
        for (int64_t q_ = (W)->Ap[j]; q_ < (W)->Ap[(j) + 1]; q_++) {           \
            int64_t r_ = (W)->Ai[q_];                                          \
            int full_ = !(W)->keep || (W)->keep[q_];                           \
            const int64_t *p_ = full_ ? (W)->rp : (W)->kp;                     \
            const int64_t *c_ = full_ ? (W)->rc : (W)->kc;                     \
            for (int64_t s_ = p_[r_]; s_ < p_[r_ + 1]; s_++) {                 \
                int64_t k = c_[s_];                                            \
                if ((W)->mark[k] == (W)->stamp || (W)->gone0[k]) continue;     \
                (W)->mark[k] = (W)->stamp;                                     \
                BODY                                                           \
            }                                                                  \
        }                                                                      \
    } while (0)

/* Rows of A (all entries, or those with sel[q] when sel is given) into
 * rp (m + 1, zeroed) and rc.  Returns 0, -1 when out of memory. */
static int by_rows(const cs_dl *A, const unsigned char *sel, int64_t *rp, int64_t *rc)
{
    const int64_t m = A->m, n = A->n;
    for (int64_t q = 0; q < A->p[n]; q++)
        if (!sel || sel[q]) rp[A->i[q] + 1]++;
    for (int64_t i = 0; i < m; i++) rp[i + 1] += rp[i];
    int64_t *fill = malloc(sizeof(int64_t) * (size_t)(m + 1));
    if (!fill) return -1;
    memcpy(fill, rp, sizeof(int64_t) * (size_t)m);
    for (int64_t j = 0; j < n; j++)
        for (int64_t q = A->p[j]; q < A->p[j + 1]; q++)
            if (!sel || sel[q]) rc[fill[A->i[q]]++] = j;
    free(fill);
    return 0;
}

static jg_status_t color_kept(const cs_dl *A, const unsigned char *keep, int64_t *color,
                              int64_t *ncolors, jg_error_t *err);

jg_status_t jg_solverjac_color_columns(const cs_dl *A, int64_t *color, int64_t *ncolors, jg_error_t *err)
{
    return color_kept(A, NULL, color, ncolors, err);
}

jg_status_t jg_solverjac_color_columns_kept(const cs_dl *A, const unsigned char *keep, int64_t *color,
                                            int64_t *ncolors, jg_error_t *err)
{
    return color_kept(A, keep, color, ncolors, err);
}

static jg_status_t color_kept(const cs_dl *A, const unsigned char *keep, int64_t *color,
                              int64_t *ncolors, jg_error_t *err)
{
    *ncolors = 0;
    if (!A || A->nz != -1 || A->m < 0 || A->n < 0)
        return jg_error_set(err, JG_ARG, "column coloring: expected a compressed-column matrix");
    const int64_t m = A->m, n = A->n, nnz = A->p[n];
    walk_t W = {.m = m, .n = n, .Ap = A->p, .Ai = A->i, .keep = keep};
    W.rp = calloc((size_t)m + 1, sizeof(int64_t));
    W.rc = malloc(sizeof(int64_t) * (size_t)(nnz + 1));
    if (keep) {
        W.kp = calloc((size_t)m + 1, sizeof(int64_t));
        W.kc = malloc(sizeof(int64_t) * (size_t)(nnz + 1));
    }
    W.mark = calloc((size_t)n + 1, sizeof(int64_t));
    /* smallest-last: current degrees, buckets by degree (doubly linked) */
    int64_t *deg = malloc(sizeof(int64_t) * (size_t)(n + 1));
    int64_t *head = malloc(sizeof(int64_t) * (size_t)(n + 1));
    int64_t *next = malloc(sizeof(int64_t) * (size_t)(n + 1));
    int64_t *prev = malloc(sizeof(int64_t) * (size_t)(n + 1));
    int64_t *order = malloc(sizeof(int64_t) * (size_t)(n + 1));
    unsigned char *gone = calloc((size_t)n + 1, 1);
    unsigned char *out = calloc((size_t)n + 1, 1);   /* columns taking no part */
    W.gone0 = out;
    jg_status_t st = JG_OK;
    if (!W.rp || !W.rc || !W.mark || !deg || !head || !next || !prev || !order || !gone || !out ||
        (keep && (!W.kp || !W.kc))) {
        st = jg_error_set(err, JG_NOMEM, "column coloring: out of memory (%lld columns)",
                          (long long)n);
        goto done;
    }
    for (int64_t q = 0; q < nnz; q++)
        if (A->i[q] < 0 || A->i[q] >= m) {
            st = jg_error_set(err, JG_ARG, "column coloring: row index %lld outside 0..%lld",
                              (long long)A->i[q], (long long)m - 1);
            goto done;
        }
    if (by_rows(A, NULL, W.rp, W.rc) || (keep && by_rows(A, keep, W.kp, W.kc))) {
        st = jg_error_set(err, JG_NOMEM, "column coloring: out of memory");
        goto done;
    }
    /* empty columns, and with keep those without a wanted entry, take no
     * part: nothing of them is asked for, so they are never perturbed */
    int64_t maxdeg = 0, nlive = 0;
    for (int64_t j = 0; j < n; j++) {
        int64_t q = A->p[j];
        while (q < A->p[j + 1] && keep && !keep[q]) q++;
        out[j] = q == A->p[j + 1];
        gone[j] = out[j];
    }
    /* degrees in the conflict graph */
    for (int64_t j = 0; j < n; j++) {
        color[j] = -1;
        deg[j] = 0;
        if (out[j]) continue;
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
    free(W.kp);
    free(W.kc);
    free(W.mark);
    free(out);
    free(deg);
    free(head);
    free(next);
    free(prev);
    free(order);
    free(gone);
    return st;
}

/* keep NULL: every entry wanted (structurally orthogonal groups). */
static int valid_kept(const cs_dl *A, const unsigned char *keep, const int64_t *color)
{
    if (!A || A->nz != -1 || !color) return 0;
    const int64_t m = A->m, n = A->n, nnz = A->p[n];
    int64_t nc = 0;
    for (int64_t j = 0; j < n; j++) {
        for (int64_t q = A->p[j]; q < A->p[j + 1]; q++)
            if ((!keep || keep[q]) && color[j] < 0) return 0;   /* a wanted entry not computed */
        if (color[j] >= nc) nc = color[j] + 1;
    }
    /* per row, per color: how many columns of the color have an entry there */
    int64_t *cnt = calloc((size_t)nc + 1, sizeof(int64_t));
    int64_t *rowstamp = malloc(sizeof(int64_t) * (size_t)(nc + 1));
    int64_t *rp = calloc((size_t)m + 1, sizeof(int64_t));
    int64_t *rq = malloc(sizeof(int64_t) * (size_t)(nnz + 1));   /* entries by rows */
    int64_t *col = malloc(sizeof(int64_t) * (size_t)(nnz + 1));
    int64_t *fill = malloc(sizeof(int64_t) * (size_t)(m + 1));
    int ok = cnt && rowstamp && rp && rq && col && fill;
    if (ok) {
        for (int64_t q = 0; q < nnz; q++) rp[A->i[q] + 1]++;
        for (int64_t i = 0; i < m; i++) rp[i + 1] += rp[i];
        memcpy(fill, rp, sizeof(int64_t) * (size_t)m);
        for (int64_t j = 0; j < n; j++)
            for (int64_t q = A->p[j]; q < A->p[j + 1]; q++) {
                col[q] = j;
                rq[fill[A->i[q]]++] = q;
            }
        for (int64_t c = 0; c < nc; c++) rowstamp[c] = -1;
        for (int64_t i = 0; ok && i < m; i++) {
            for (int64_t s = rp[i]; s < rp[i + 1]; s++) {
                int64_t c = color[col[rq[s]]];
                if (c < 0) continue;   /* never perturbed */
                if (rowstamp[c] != i) {
                    rowstamp[c] = i;
                    cnt[c] = 0;
                }
                cnt[c]++;
            }
            for (int64_t s = rp[i]; ok && s < rp[i + 1]; s++) {
                int64_t q = rq[s];
                if ((!keep || keep[q]) && cnt[color[col[q]]] != 1) ok = 0;
            }
        }
    }
    free(cnt);
    free(rowstamp);
    free(rp);
    free(rq);
    free(col);
    free(fill);
    return ok;
}

int jg_solverjac_coloring_valid(const cs_dl *A, const int64_t *color) { return valid_kept(A, NULL, color); }

int jg_solverjac_coloring_valid_kept(const cs_dl *A, const unsigned char *keep, const int64_t *color)
{
    return valid_kept(A, keep, color);
}
