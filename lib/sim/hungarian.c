/* Minimum-cost assignment (the Hungarian method, Kuhn 1955 / Munkres 1957, in
 * the O(n^3) shortest-augmenting-path form with row and column potentials).
 *
 * Written by hand because no C library packaged in Debian offers it (igraph's
 * bipartite matching is unweighted or maximum-weight on graphs, GLPK would be
 * a whole LP solver for 40 lines); jacgraph needs it to pair the eigenvalues
 * of two evolution matrices (lib/sim/sparsing_measure.c). */
#include <math.h>
#include <stdlib.h>
#include "hungarian.h"

int jg__assignment_min(int64_t n, const double *cost, int64_t *match, double *total)
{
    int rc = 0;
    if (total) *total = 0;
    if (n <= 0) return 0;
    /* 1-based: row/column 0 is the virtual start of each augmenting path */
    double *u = calloc((size_t)n + 1, sizeof *u), *v = calloc((size_t)n + 1, sizeof *v);
    double *minv = malloc(sizeof *minv * ((size_t)n + 1));
    int64_t *p = calloc((size_t)n + 1, sizeof *p), *way = calloc((size_t)n + 1, sizeof *way);
    unsigned char *used = malloc((size_t)n + 1);
    if (!u || !v || !minv || !p || !way || !used) {
        rc = -1;
        goto done;
    }
    for (int64_t i = 1; i <= n; i++) {
        /* grow a shortest-path tree from row i until it reaches a free column */
        p[0] = i;
        int64_t j0 = 0;
        for (int64_t j = 0; j <= n; j++) {
            minv[j] = INFINITY;
            used[j] = 0;
        }
        do {
            used[j0] = 1;
            int64_t i0 = p[j0], j1 = 0;
            double delta = INFINITY;
            for (int64_t j = 1; j <= n; j++) {
                if (used[j]) continue;
                double cur = cost[(i0 - 1) * n + (j - 1)] - u[i0] - v[j];
                if (cur < minv[j]) {
                    minv[j] = cur;
                    way[j] = j0;
                }
                if (minv[j] < delta) {
                    delta = minv[j];
                    j1 = j;
                }
            }
            if (j1 == 0) {   /* only with non-finite costs: no column reachable */
                rc = -1;
                goto done;
            }
            for (int64_t j = 0; j <= n; j++) {
                if (used[j]) {
                    u[p[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            }
            j0 = j1;
        } while (p[j0] != 0);
        /* flip the path: every column on it takes the row before it */
        do {
            int64_t j1 = way[j0];
            p[j0] = p[j1];
            j0 = j1;
        } while (j0);
    }
    for (int64_t j = 1; j <= n; j++) match[p[j] - 1] = j - 1;
    if (total) {
        double s = 0;
        for (int64_t i = 0; i < n; i++) s += cost[i * n + match[i]];
        *total = s;
    }
done:
    free(u);
    free(v);
    free(minv);
    free(p);
    free(way);
    free(used);
    return rc;
}
