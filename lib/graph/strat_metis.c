/* Strategy "metis": a nested dissection order of the symmetrized vertex
 * graph from METIS (Karypis & Kumar, "A fast and high quality multilevel
 * scheme for partitioning irregular graphs") through CHOLMOD's interface
 * (cholmod_l_metis, METIS_NodeND underneath: Debian's CHOLMOD is built with
 * METIS), restricted to the eliminable vertices in that order.  Nested
 * dissection has no constraint sets: the fixed vertices are ordered with the
 * others and then dropped, so each separator's eliminable vertices still
 * come after the parts it separates.  Every eliminable vertex is ordered. */
#include <stdlib.h>
#include <cholmod.h>
#include "strat_pattern.h"

static jg_status_t metis_order(jg_strat_run_t *r, int64_t **order, int64_t *nout, jg_error_t *err)
{
    int64_t n, *vid, *p, *i, *P = NULL, *ord = NULL, k = 0;
    jg_status_t st = jg__strat_symgraph(r->g, &n, &vid, &p, &i, err);
    cholmod_common cm;
    int started = 0;
    if (st) return st;
    P = malloc(sizeof(int64_t) * (size_t)(n + 1));
    ord = malloc(sizeof(int64_t) * (size_t)(n + 1));
    if (!P || !ord) goto nomem;
    if (n > 0) {
        cholmod_l_start(&cm);
        started = 1;
        cm.print = 0;   /* the library never prints: failures come back as statuses */
        /* A + A' as given, read through its upper triangle (stype 1) */
        cholmod_sparse A = {.nrow = (size_t)n, .ncol = (size_t)n, .nzmax = (size_t)(p[n] ? p[n] : 1),
                            .p = p, .i = i, .stype = 1, .itype = CHOLMOD_LONG,
                            .xtype = CHOLMOD_PATTERN, .dtype = CHOLMOD_DOUBLE, .sorted = 1,
                            .packed = 1};
        if (!cholmod_l_metis(&A, NULL, 0, 0, (SuiteSparse_long *)P, &cm)) {
            if (cm.status == CHOLMOD_OUT_OF_MEMORY) goto nomem;
            st = jg_error_set(err, JG_INTERNAL, "metis: CHOLMOD's METIS ordering failed (status %d)",
                              cm.status);
            goto done;
        }
    }
    for (int64_t q = 0; q < n; q++)
        if (jg__strat_eliminable(r->g, vid[P[q]])) ord[k++] = vid[P[q]];
    *order = ord;
    *nout = k;
    ord = NULL;
    goto done;
nomem:
    st = jg_error_set(err, JG_NOMEM, "metis: out of memory (%lld vertices)", (long long)n);
done:
    if (started) cholmod_l_finish(&cm);
    free(vid);
    free(p);
    free(i);
    free(P);
    free(ord);
    return st;
}

const jg_strategy_def_t jg__strat_metis = {
    .name = "metis",
    .help = "METIS nested dissection (through CHOLMOD) of the symmetrized vertex graph, eliminable vertices",
    .order = metis_order,
};
