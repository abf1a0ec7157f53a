/* jacgraph/graph.h -- the Jacobian graph (Han, Mosterman & Zhang, "A Graph
 * Algorithm for Linearizing Simulink Models", Def. 1-3, Fig. 4-5).
 *
 * Vertices are ports with widths: state vectors, block input ports, block
 * output ports, and linearization I/O points.  Edges carry matrices: block
 * Jacobian parts (x->x: a, u->x: b, x->y: c, u->y: d) and 0/1 connection
 * matrices (y->u through the signal routing, w->u for input points, y->z for
 * output points).  Parallel contributions are summed (Def. 2).
 *
 * Symbolic / numeric split: jg_graph_build creates the structure from the
 * block Jacobian patterns; jg_graph_eliminate decides the elimination on the
 * patterns and records it as a tape of small matrix operations; jg_graph_replay
 * fills values from the current block Jacobians and replays the tape without
 * allocating.  Linearizing at another operating point costs one replay.
 */
#ifndef JACGRAPH_GRAPH_H
#define JACGRAPH_GRAPH_H
#include "jacgraph/export.h"
#include <stdint.h>
#include <stddef.h>
#include "jacgraph/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct jg_graph jg_graph_t;

typedef enum {
    JG_V_STATE = 0,   /* a block's continuous state vector x */
    JG_V_INPUT,       /* a block input port u */
    JG_V_OUTPUT,      /* a block output port y */
    JG_V_LIN_IN,      /* linearization input point w */
    JG_V_LIN_OUT      /* linearization output point z */
} jg_vkind_t;

/* Elimination strategies (orderings of the algebraic vertices). */
typedef enum {
    JG_GRAPH_REDUCE_NONE = 0,       /* keep every vertex: Fig. 4 without reduction */
    JG_GRAPH_REDUCE_MARKOWITZ,      /* the paper: eliminate while indeg*outdeg < indeg+outdeg */
    JG_GRAPH_REDUCE_FULL            /* every algebraic vertex, cheapest Markowitz degree first */
} jg_graph_reduce_t;

JG_API const char *jg_graph_reduce_name(jg_graph_reduce_t r);
/* "markowitz" -> JG_GRAPH_REDUCE_MARKOWITZ; -1 when unknown. */
JG_API int jg_graph_reduce_parse(const char *s);

/* ---------------------------------------------------------------------
 * STRATEGY INTERFACE READY
 *
 * Elimination strategies.  A strategy decides which eliminable vertices
 * (the algebraic ones: block inputs and outputs, the outputs of Algebraic
 * Constraint blocks excepted) are eliminated and in which order.  It is
 * named by a spec string:
 *
 *   NAME            a registered strategy: "markowitz", "lm", "minfill", ...
 *                   (jg_graph_strategy_count / _name / _help list them)
 *   NAME:ARGS       a strategy with arguments: "exact:nnz", "order:FILE",
 *                   "anneal:seed=1,budget=10000"
 *   A>B>C           a tie-break chain of criteria: the eliminable vertex
 *                   lowest by A, ties broken by B, then C, then vertex id;
 *                   only criteria chain ("lm>markowitz" is refused)
 *
 * Whatever the strategy chooses, the numeric pivot guard of the elimination
 * stays: a vertex whose pivot block I - Dv is ill-conditioned at the
 * operating point (or not diagonal and wider than 64) is not eliminated and
 * left to the LFT's pivoted LU.  The three reductions above are strategies
 * "none", "markowitz" and "full" (full is "lm": lowest Markowitz degree
 * first, ties by vertex id).
 *
 * Criteria (every eliminable vertex, greedily: the lowest key first, keys
 * kept current as the graph changes; definitions after ANGEL, Naumann &
 * Gottschling; degrees count edges, not self-loops):
 *   lm, full        lowest Markowitz degree indeg * outdeg
 *   lrm             lowest relative Markowitz degree indeg * outdeg -
 *                   indep * dep (indep: the kept vertices -- states, I/O
 *                   points -- that reach v through eliminable vertices; dep:
 *                   those v reaches)
 *   minfill         fewest new edges
 *   mincost         fewest FMA of the cost model below
 *   lmmd            lowest Markowitz degree plus damage (how much the
 *                   elimination raises the other eliminable vertices'
 *                   Markowitz degrees)
 *   momr            largest overall Markowitz degree reduction (degree minus
 *                   damage)
 *   forward         a topological order of the condensation of the
 *                   eliminable vertices' strongly connected components (the
 *                   algebraic loops), from the inputs; ties by vertex id
 *   reverse         the same from the outputs
 * Rules (a vertex is eliminated while its rule holds, visited first in first
 * out and again when a neighbor's elimination changes its edges):
 *   markowitz       the paper's: indeg * outdeg < indeg + outdeg
 *   markowitz-nnz   the elimination lowers the stored nonzeros
 * And:
 *   none            nothing eliminated
 *   order:FILE      the vertices FILE names, in its order: vertex ids
 *                   (jg_graph_vertex's, as `jacgraph graph --json` writes
 *                   them), one a line, '#' comments; a line naming an unknown
 *                   vertex, a non-eliminable one or one named before is
 *                   refused (JG_ARG) naming FILE:LINE
 * A new strategy is one file lib/graph/strat_NAME.c giving one callback
 * (a criterion's key, "choose the next vertex", or "return a whole order";
 * lib/graph/strategy_impl.h) and a line in lib/graph/strategy.c's registry.
 *
 * The searching and sparse-solver strategies (each returns a whole order;
 * their FMA and nonzeros are those of the cost model below):
 *   exact           every eliminable vertex in the order of fewest FMA: a
 *                   dynamic program over the subsets of the eliminable
 *                   vertices, optimal, for at most 20 of them (2^20 subsets,
 *                   9 bytes each, about 3 s at 20); more are refused with
 *                   JG_ARG naming the count.  jg_graph_cost's bound is the
 *                   optimum and optimal is 1.
 *   exact:nnz       the subset whose elimination leaves the fewest stored
 *                   nonzeros, ties by fewest FMA (the scarcity problem); same
 *                   dynamic program and limit.
 *   exact:bb        branch and bound for exact's objective at any size, under
 *                   the strategy's time limit (default 10 s): the best order
 *                   found (never worse than the greedy lowest-Markowitz order
 *                   nor a default annealing), bound = a proven lower bound of
 *                   the optimum, optimal = 1 when the search finished; the
 *                   gap is (fma - bound) / fma.  Refused (JG_ARG) above 10^9
 *                   eliminable vertices x edges.
 *                   Both branch and bounds first make the moves some optimum
 *                   makes (a dead vertex, the input end of a one-to-one signal
 *                   line) and, when at most 20 eliminable vertices are left,
 *                   solve the rest by the dynamic program (optimal = 1).
 *   exact:nnz:bb    branch and bound for exact:nnz's objective at any size,
 *                   under the same time limit: the set found (never more
 *                   nonzeros than markowitz-nnz), bound = a proven lower bound
 *                   of the fewest nonzeros, optimal = 1 when the search
 *                   finished; the gap is nnz_after - bound.  Ties between
 *                   sets go to the first found; the set's order is its
 *                   fewest-FMA order when it has at most 20 vertices.
 *                   Refused (JG_ARG) above 10^7 eliminable vertices x edges.
 *   anneal[:seed=S,budget=B]  simulated annealing over orders from the
 *                   mincost order (defaults 1 and 1000 moves), never worse
 *                   than mincost, deterministic for a seed unless the time
 *                   limit (default 10 s) ends it first.
 *   camd            SuiteSparse's CAMD on the symmetrized vertex graph, the
 *                   eliminable vertices constrained first.
 *   metis           METIS nested dissection (through CHOLMOD) of the
 *                   symmetrized vertex graph, restricted to the eliminable
 *                   vertices.
 */
typedef struct jg_graph_strategy jg_graph_strategy_t;

/* Parse a spec (grammar above) into a new strategy.  Errors: JG_ARG for an
 * unknown name (the message lists the known ones), a chain holding a
 * strategy that is not a criterion, bad arguments; the arguments of an
 * "order:FILE" are read when it runs.  Cost: O(length of spec). */
JG_API jg_status_t jg_graph_strategy_parse(const char *spec, jg_graph_strategy_t **out,
                                           jg_error_t *err);
/* The strategy of a classic reduction (a new object, NULL when out of memory). */
JG_API jg_graph_strategy_t *jg_graph_strategy_from_reduce(jg_graph_reduce_t r);
/* The spec it was parsed from (valid while s lives). */
JG_API const char *jg_graph_strategy_spec(const jg_graph_strategy_t *s);
/* Limit a strategy's own search (exact's branch and bound, annealing) to
 * seconds of wall clock (<= 0: its default).  Strategies without a search
 * ignore it. */
JG_API void jg_graph_strategy_set_time_limit(jg_graph_strategy_t *s, double seconds);
JG_API void jg_graph_strategy_free(jg_graph_strategy_t *s);
/* The registry: number of registered strategies, the k-th's name, its one-line
 * description, and whether it is a criterion (may appear in a chain). */
JG_API int jg_graph_strategy_count(void);
JG_API const char *jg_graph_strategy_name(int k);
JG_API const char *jg_graph_strategy_help(int k);
JG_API int jg_graph_strategy_is_criterion(int k);

/* The cost of an elimination, counted while it is recorded (symbolically).
 * Vertex v has width w; edge e carries K_e (rows: its target's width, cols:
 * its source's) with structural pattern P_e; D_v is v's self-loop.
 * Eliminating v costs
 *   inv(v)   = w^3 when D_v exists and is not diagonal (S = (I - D_v)^-1
 *              dense); w for a diagonal D_v of width > 1 (S diagonal); else 0
 *   scale(v) = w * sum over in-edges of nnz(K_e) for a dense S (S K_e is
 *              dense in every column where K_e has an entry); sum of nnz(K_e)
 *              for a diagonal S (S K_e keeps K_e's pattern); else 0
 *   prod(v)  = sum over in-edges e, out-edges f of phi(K_f, K^_e), with
 *              phi(X, Y) = sum_j sum_{k in P_Y(:,j)} |P_X(:,k)|, and
 *              phi = 0 when a factor is a connection identity (an original
 *              signal connection edge whose matrix is I; the product of two
 *              identities is one, when it makes a new edge)
 *   FMA(v)   = inv + scale + prod;  adds(v) = sum of nnz of the products
 *              scattered into edges that already existed.
 * Patterns are structural.  nnz counts stored entries of live edges,
 * self-loops included. */
typedef struct jg_graph_cost {
    int64_t eliminated;                 /* vertices eliminated */
    int64_t v_after, e_after;           /* live vertices and edges after */
    int64_t nnz_before, nnz_after;      /* stored nonzeros of the live edges */
    int64_t peak_nnz;                   /* largest live nnz during the elimination: the
                                           edges alive while a vertex is eliminated (its
                                           old edges, the new products, S and S K_e) */
    size_t bytes;                       /* the graph's bytes (jg_graph_stats' bytes_graph) */
    int64_t fma, fma_inv, fma_scale, fma_prod;
    int64_t adds;
    double t_elim;                      /* seconds: the whole elimination (strategy included) */
    double t_strategy;                  /* seconds: the strategy's own decisions (t_elim
                                           minus the eliminations' time, which beyond
                                           4096 eliminations is estimated from one in 16) */
    /* set by strategies that search for an optimum (exact, branch and bound):
     * a lower bound on the optimum of their objective (-1: none), and 1 when
     * the result is proven optimal */
    double bound;
    int optimal;
} jg_graph_cost_t;

/* The cost of g's elimination (before one: the graph as built, nothing
 * eliminated).  t_elim includes the strategy's own decisions (t_strategy)
 * and the numeric execution of the tape during the elimination.  Cost: O(1)
 * after an elimination, O(E) before. */
JG_API void jg_graph_cost(const jg_graph_t *g, jg_graph_cost_t *c);
/* The eliminated vertices of g in elimination order: returns their number,
 * *order points into g (valid while g lives; NULL when none). */
JG_API int64_t jg_graph_order(const jg_graph_t *g, const int64_t **order);

typedef struct jg_vertex_info {
    jg_vkind_t kind;
    int32_t block;        /* owning block id (-1 for I/O points) */
    int port;             /* 0-based port (or I/O point index) */
    int64_t width;
    int alive;            /* 0 once eliminated */
    int64_t self_loop;    /* edge id of its self-loop, -1 */
    int eliminable;       /* 1: a strategy may eliminate it now (alive, a block input or
                             output, not an Algebraic Constraint's output) */
} jg_vertex_info_t;

typedef struct jg_edge_info {
    int64_t src, dst;     /* vertex ids */
    int64_t rows, cols, nnz;
    int alive;            /* 0 once removed by an elimination */
    const double *x;      /* values (last replay), CSC order; NULL before replay */
    const int64_t *p, *i; /* CSC pattern */
    int identity;         /* 1: a connection identity (the cost model's phi = 0) */
} jg_edge_info_t;

typedef struct jg_graph_stats {
    int64_t v_before, e_before;    /* the paper's "V:12 E:15" */
    int64_t v_after, e_after;      /* after elimination: "V:2 E:4" */
    int64_t eliminated;            /* vertices eliminated */
    int64_t ops;                   /* tape length */
    int64_t refused;               /* algebraic vertices kept (left to the LFT) because their
                                      pivot block I - Dv was ill-conditioned at the operating
                                      point of the elimination, or is not diagonal and wider
                                      than 64 (its dense inverse would cost w^2) */
    size_t bytes_graph;            /* graph structure + values + tape */
} jg_graph_stats_t;

JG_API int64_t jg_graph_nvertices(const jg_graph_t *g);   /* ids 0..n-1, eliminated included */
JG_API int64_t jg_graph_nedges(const jg_graph_t *g);      /* ids 0..n-1, removed included */
JG_API void jg_graph_vertex(const jg_graph_t *g, int64_t v, jg_vertex_info_t *info);
JG_API void jg_graph_edge(const jg_graph_t *g, int64_t e, jg_edge_info_t *info);
/* Label for pictures and messages, e.g. "x Plant/x1", "u Sum1:2", "y Gain:1",
 * "in In1", "out Out1".  Valid while g lives. */
JG_API const char *jg_graph_vertex_label(const jg_graph_t *g, int64_t v);
JG_API void jg_graph_stats(const jg_graph_t *g, jg_graph_stats_t *st);
/* Live vertex and edge counts now. */
JG_API void jg_graph_count(const jg_graph_t *g, int64_t *nv, int64_t *ne);
JG_API void jg_graph_free(jg_graph_t *g);

#ifdef __cplusplus
}
#endif
#endif
