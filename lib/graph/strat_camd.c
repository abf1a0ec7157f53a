/* Strategy "camd": the constrained approximate minimum degree ordering of
 * SuiteSparse's CAMD (Amestoy, Davis & Duff, "An approximate minimum degree
 * ordering algorithm"; Davis, "Direct Methods for Sparse Linear Systems")
 * on the symmetrized vertex graph of the Jacobian graph, the eliminable
 * vertices in constraint set 0 (ordered first) and the others in set 1, so
 * that CAMD's degrees see the fixed neighbors that elimination fills into.
 * The order is CAMD's permutation restricted to the eliminable vertices:
 * every one of them, as a sparse direct solver would pivot on a vertex at a
 * time.  A vertex is one node whatever its width (the vertex graph, not the
 * scalar one). */
#include <stdlib.h>
#include <camd.h>
#include "strat_pattern.h"

static jg_status_t camd_strat_order(jg_strat_run_t *r, int64_t **order, int64_t *nout, jg_error_t *err)
{
    int64_t n, *vid, *p, *i, *C = NULL, *P = NULL, *ord = NULL, k = 0;
    jg_status_t st = jg__strat_symgraph(r->g, &n, &vid, &p, &i, err);
    if (st) return st;
    C = malloc(sizeof(int64_t) * (size_t)(n + 1));
    P = malloc(sizeof(int64_t) * (size_t)(n + 1));
    ord = malloc(sizeof(int64_t) * (size_t)(n + 1));
    if (!C || !P || !ord) goto nomem;
    for (int64_t v = 0; v < n; v++) C[v] = jg__strat_eliminable(r->g, vid[v]) ? 0 : 1;
    double control[CAMD_CONTROL], info[CAMD_INFO];
    camd_l_defaults(control);
    SuiteSparse_long rc = camd_l_order((SuiteSparse_long)n, (const SuiteSparse_long *)p,
                                       (const SuiteSparse_long *)i, (SuiteSparse_long *)P, control,
                                       info, (const SuiteSparse_long *)C);
    if (rc == CAMD_OUT_OF_MEMORY) goto nomem;
    if (rc != CAMD_OK && rc != CAMD_OK_BUT_JUMBLED) {
        st = jg_error_set(err, JG_INTERNAL, "camd: CAMD refused the vertex graph (status %ld)", (long)rc);
        goto done;
    }
    for (int64_t q = 0; q < n; q++)
        if (C[P[q]] == 0) ord[k++] = vid[P[q]];
    *order = ord;
    *nout = k;
    ord = NULL;
    goto done;
nomem:
    st = jg_error_set(err, JG_NOMEM, "camd: out of memory (%lld vertices)", (long long)n);
done:
    free(vid);
    free(p);
    free(i);
    free(C);
    free(P);
    free(ord);
    return st;
}

const jg_strategy_def_t jg__strat_camd = {
    .name = "camd",
    .help = "SuiteSparse CAMD minimum degree on the symmetrized vertex graph, eliminable vertices first",
    .order = camd_strat_order,
};
