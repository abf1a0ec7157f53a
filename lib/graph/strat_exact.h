/* strat_exact.h -- the pieces of the exact strategies (strat_exact.c) that
 * live in their own files: the lower bound of the fewest-FMA branch and bound
 * (strat_exact_bound.c) and the branch and bound of the scarcity problem
 * (strat_exact_nnz.c).  Private to lib/graph. */
#ifndef JG_STRAT_EXACT_H
#define JG_STRAT_EXACT_H
#include "strat_pattern.h"

/* The most eliminable vertices the dynamic programs take (2^20 subsets). */
#define JG__EXACT_MAX 20
/* Eliminable vertices x edges above which the searches refuse a graph:
 * exact:bb eliminates a set again per expansion, exact:nnz:bb keeps one
 * graph per level of its path. */
#define JG__EXACT_BB_WORK_MAX 1e9
#define JG__EXACT_NNZ_WORK_MAX 1e7

/* The workspace of jg__fbound, made for the graphs of one search: every
 * graph it is given must be root with some of its eliminable vertices
 * eliminated (their scalar nodes are numbered once, from root).  NULL when
 * out of memory.  Cost: O(V + E of root). */
typedef struct jg_fbound jg_fbound_t;
jg_fbound_t *jg__fbound_new(const jg_pshape_t *sh, const jg_pg_t *root);
void jg__fbound_free(jg_fbound_t *b);
/* *h = a lower bound of the FMA of eliminating, in any order, every
 * eliminable vertex of pg that the model does not refuse now (fma[k] >= 0;
 * fma and lb as jg__pg_costs gives them for pg).  strat_exact_bound.c states
 * the argument.  -1 when out of memory.  Cost: O(nnz of pg) for the
 * per-vertex terms, times the branches of the path packing (at most
 * JG__FBOUND_PASSES passes). */
int jg__fbound(jg_fbound_t *b, const jg_pshape_t *sh, const jg_pg_t *pg, const int64_t *fma,
               const int64_t *lb, int64_t *h);

/* The result of a search: an order of graph vertex ids (malloc'd), the
 * value of its objective, a proven lower bound of the optimum and whether
 * it is proven optimal. */
typedef struct jg_exact_result {
    int64_t *order, n;
    int64_t value, lower;
    int optimal;
} jg_exact_result_t;

/* The best-first branch and bound for the fewest FMA (exact:bb's search;
 * strat_exact.c says how): every eliminable vertex of g (sh, pg0 made from
 * it) in an order of fewest FMA found in at most seconds, res->value its FMA
 * on the pattern graph, res->lower a lower bound of the optimum.  exact:bb
 * first tries the forced moves and the dynamic program (the search runs only
 * when more than JG__EXACT_MAX vertices are left in one group).  Errors:
 * JG_NOMEM, JG_ARG (more than 10^9 eliminable vertices x edges). */
jg_status_t jg__exact_fma_bb(const jg_graph_t *g, const jg_pshape_t *sh, const jg_pg_t *pg0, double seconds,
                             jg_exact_result_t *res, jg_error_t *err);
/* Branch and bound for the scarcity problem (exact:nnz:bb's search; it
 * first tries the forced moves and the dynamic program over what is left): the set of
 * eliminable vertices of g (sh, pg0 made from it) whose elimination leaves
 * the fewest stored nonzeros, searched for at most seconds; res->value the
 * nonzeros, res->lower a lower bound of the optimum.  The order is that of
 * the search (its FMA is the dynamic program's least when the set has at most
 * JG__EXACT_MAX vertices).  Errors: JG_NOMEM, JG_ARG (too large: more than
 * 10^7 eliminable vertices x edges).  strat_exact_nnz.c says how. */
jg_status_t jg__exact_nnz_bb(const jg_graph_t *g, const jg_pshape_t *sh, const jg_pg_t *pg0,
                             double seconds, jg_exact_result_t *res, jg_error_t *err);
/* The fewest FMA that eliminates exactly the vertices sel[0..nsel-1]
 * (indices into sh->elim, nsel <= JG__EXACT_MAX) from pg0: a dynamic program
 * over the subsets of sel; the order (graph ids) into order[0..nsel-1], the
 * FMA returned; -1 out of memory, -2 when no order of sel is accepted by the
 * model (a refused pivot).  Cost: 2^nsel eliminations (strat_exact.c). */
int64_t jg__exact_dp_subset(const jg_pshape_t *sh, const jg_pg_t *pg0, const int64_t *sel, int nsel,
                            int64_t *order);

/* A vertex that some best order of the rest of pg (fewest FMA or fewest
 * nonzeros) eliminates first, for free: its index into sh->elim (skip[k] 0
 * when skip is not NULL), -1 when none.  Either
 *   dead: edges left but no in-edges or no out-edges, and no self-loop.  It
 *     never costs anything and no path runs through it, so the graph after
 *     any later set is the same less its edges, and every other elimination
 *     costs no more for its going first; or
 *   absorbed: u whose only in-edge y -> u is a connection identity that is
 *     also the only out-edge of eliminable y, neither with a self-loop (a
 *     signal line from one block output to one block input).  Until y or u
 *     goes, no path enters u but through y or leaves y but through u, so
 *     nothing ever sums into y -> u, neither gets a self-loop, and every
 *     other elimination costs the same whether u is there or already merged
 *     into y; whichever of the two goes first costs nothing and leaves the
 *     same graph up to the name of the merged vertex.  So eliminating u first
 *     changes no order's cost (and leaves w_u fewer nonzeros than keeping
 *     both).
 * deg: 4 sh->nelim entries of scratch.  Cost: O(E). */
int64_t jg__exact_forced(const jg_pshape_t *sh, const jg_pg_t *pg, const unsigned char *skip, int64_t *deg);

#endif
