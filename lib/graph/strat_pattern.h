/* strat_pattern.h -- a compact structural copy of a Jacobian graph for the
 * searching strategies (exact, branch and bound, annealing): vertex
 * elimination on patterns with the cost model of jacgraph/graph.h, cheap
 * enough to copy and eliminate millions of times.  Private to lib/graph.
 *
 * It mirrors eliminate.c's symbolic side exactly (the same K^_e patterns for
 * dense and diagonal pivots, the same identity rule, the same adds), without
 * the tape, the values or the arena: the searches compare costs, the engine
 * (strategy.c) then eliminates the chosen order for real and counts again.
 * Only the part of the graph an elimination can touch is copied: the edges
 * with an eliminable end, and the edges between two fixed vertices that a
 * product may fill (their source feeds an eliminable vertex and their target
 * is fed by one); the other edges' nonzeros are a constant (nnz_fixed). */
#ifndef JG_STRAT_PATTERN_H
#define JG_STRAT_PATTERN_H
#include "strategy_impl.h"

/* An edge: src -> dst with an m x n CSC pattern at pool[off]: p[n + 1], then
 * i[nnz] (rows sorted). */
typedef struct jg_pedge {
    int32_t src, dst, m, n, nnz, ident;
    int64_t off;
} jg_pedge_t;

/* What every copy shares: the vertices. */
typedef struct jg_pshape {
    int64_t nv;              /* vertex ids are the graph's (0..nv-1) */
    int32_t *width;          /* per vertex */
    int32_t *loc;            /* per vertex: its index among the eliminable ones, -1 fixed */
    int64_t nelim;
    int64_t *elim;           /* the eliminable vertices (graph ids, increasing) */
    int64_t nnz_fixed;       /* nonzeros of the edges left out (they never change) */
    int32_t maxw;
} jg_pshape_t;

/* One structural graph (the live edges only). */
typedef struct jg_pg {
    int64_t ne, cape;
    jg_pedge_t *e;
    int32_t *pool;
    int64_t npool, cappool;
    int64_t nnz;             /* nonzeros of e[] (add nnz_fixed for the graph's) */
} jg_pg_t;

/* The cost of one elimination (jacgraph/graph.h's model). */
typedef struct jg_pcost {
    int64_t inv, scale, prod, fma, adds;
} jg_pcost_t;

/* Scratch of the eliminations (one per search; not shared between threads). */
typedef struct jg_pwork {
    int32_t *mark;           /* maxw entries, -1 between uses */
    int64_t *ein, *eout;     /* v's edges */
    int64_t capin, capout;
    int32_t *tmp;            /* product patterns of one elimination */
    int64_t ntmp, captmp;
    jg_pedge_t *prod;        /* the products of one elimination, patterns in tmp */
    int64_t nprod, capprod;
    int64_t *adj;            /* jg__pg_costs: edge lists of the eliminable vertices */
    int64_t capadj;
    int64_t *adjp;           /* 2 (nelim + 1): in-list starts, then out-list starts */
    int64_t *self;           /* nelim: self-loop edge or -1 */
} jg_pwork_t;

/* The shape and the starting pattern graph of g's live part: the vertices
 * jg__strat_eliminable calls eliminable.  Errors: JG_NOMEM, JG_ARG (more than
 * 2^31 vertices or a vertex wider than 2^31).  Cost: O(V + E + nnz). */
jg_status_t jg__pg_from_graph(const jg_graph_t *g, jg_pshape_t *sh, jg_pg_t *pg, jg_error_t *err);
void jg__pshape_free(jg_pshape_t *sh);
void jg__pg_free(jg_pg_t *pg);
/* dst = src, compacted (dst's buffers reused, grown as needed).  -1 when
 * out of memory.  Cost: O(edges + their nonzeros). */
int jg__pg_copy(jg_pg_t *dst, const jg_pg_t *src);
int jg__pwork_init(jg_pwork_t *w, const jg_pshape_t *sh);
void jg__pwork_free(jg_pwork_t *w);

/* Eliminate v (a vertex of sh, not eliminated yet) from pg, its cost into *c
 * (may be NULL).  Returns 0, 1 when v's pivot block is not diagonal and
 * wider than JG__GRAPH_DENSE_PIVOT_MAX (pg unchanged unless force, which
 * eliminates it anyway: the patterns after a set do not depend on whether
 * the search may take that vertex), -1 when out of memory. */
int jg__pg_eliminate(const jg_pshape_t *sh, jg_pg_t *pg, int64_t v, jg_pcost_t *c, int force,
                     jg_pwork_t *w);
/* For every eliminable vertex k (index into sh->elim) at once, in pg as it
 * is: fma[k] = FMA of eliminating it now (-1 when its pivot block is
 * refused), and lb[k] (may be NULL) = a lower bound of what it will cost
 * whenever it is eliminated after any other eliminations: the same sum
 * restricted to its self-loop and its edges to and from fixed vertices
 * (those edges stay until it goes, their patterns only grow, an identity
 * only stops being one, and every term of the model grows with them); 0 for
 * a vertex wider than JG__GRAPH_DENSE_PIVOT_MAX, which the model may refuse
 * for good later.  Eliminated vertices (no edges) get 0.  -1 when out of memory.
 * Cost: O(E + sum over vertices of in-edges x out-edges x nnz). */
int jg__pg_costs(const jg_pshape_t *sh, const jg_pg_t *pg, int64_t *fma, int64_t *lb, jg_pwork_t *w);
/* The symmetrized vertex graph of g's live vertices for the sparse-solver
 * orderings (strat_camd.c, strat_metis.c): local ids 0..*n-1 with graph ids
 * (*vid)[k], the pattern of A + A' without its diagonal in CSC (*p, *i; rows
 * sorted, no duplicates), A the live edges.  All three malloc'd (the caller
 * frees them).  Errors: JG_NOMEM.  Cost: O(V + E log E). */
jg_status_t jg__strat_symgraph(const jg_graph_t *g, int64_t *n, int64_t **vid, int64_t **p,
                               int64_t **i, jg_error_t *err);
/* Simulated annealing over orders of every eliminable vertex of g (sh and
 * pg made from it; strat_anneal.c says how): the best order found into best (n = sh->nelim indices into
 * sh->elim), its FMA returned; -1 out of memory.  Deterministic for a seed
 * when the budget of moves, not the seconds, ends it. */
int64_t jg__pg_anneal(const jg_graph_t *g, const jg_pshape_t *sh, const jg_pg_t *pg, uint64_t seed,
                      int64_t budget, double seconds, int64_t *best);
/* Make room for need elements of elem bytes in *a (capacity *cap elements):
 * the capacity doubles from 64 until it holds need, and *a is realloc'd.
 * Returns 0, -1 when out of memory (*a and *cap unchanged).  JG__PGROW(arr,
 * cap, need) is the call for an array arr with capacity cap. */
int jg__pgrow(void **a, int64_t *cap, int64_t need, size_t elem);
#define JG__PGROW(arr, cap, need) jg__pgrow((void **)&(arr), &(cap), (need), sizeof *(arr))
/* 1 when the n x n CSC pattern at p (p[n + 1], then the rows) holds no entry
 * off the diagonal (a diagonal pivot block), else 0.  Cost: O(n + nnz). */
int jg__pat_diagonal(const int32_t *p, int32_t n);
/* Stored nonzeros of the whole graph (pg's and the fixed ones). */
static inline int64_t jg__pg_nnz(const jg_pshape_t *sh, const jg_pg_t *pg)
{
    return pg->nnz + sh->nnz_fixed;
}

#endif
