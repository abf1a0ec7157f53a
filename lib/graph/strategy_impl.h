/* STRATEGY INTERFACE READY
 *
 * strategy_impl.h -- how an elimination strategy plugs into lib/graph (private
 * to lib/graph: strategies see graph_impl.h's structures).
 *
 * Adding a strategy takes one file lib/graph/strat_NAME.c defining one
 * jg_strategy_def_t and one line in strategy.c's registry.  A strategy gives
 * exactly one of three callbacks:
 *
 *   key    a criterion: the key of an eliminable vertex in the current graph,
 *          lower eliminated first.  The engine eliminates every eliminable
 *          vertex greedily (lowest key, ties by the next criterion of a chain,
 *          then vertex id), re-keying exactly the vertices whose key an
 *          elimination may change as hops and kept_pairs declare (a key that
 *          depends on more would be refreshed late).  Only criteria chain.
 *   next   choose the next vertex given the current graph (-1: stop).  The
 *          engine eliminates it (or refuses it at the pivot guard) and calls
 *          again; r->changed lists the vertices whose edges the last
 *          elimination changed (empty after a refusal).
 *   order  return a whole order (malloc'd vertex ids).  The engine
 *          eliminates them in turn; one the pivot guard refuses is retried
 *          after each later elimination and is left to the LFT at the end.
 *
 * A strategy never eliminates by itself: it chooses among eliminable
 * vertices (jg__strat_eliminable), and the engine (strategy.c) keeps the
 * pivot guard, the tape, the values and the cost accounting.
 */
#ifndef JG_STRATEGY_IMPL_H
#define JG_STRATEGY_IMPL_H
#include "graph_impl.h"

/* The cost of eliminating one vertex now (jacgraph/graph.h's model). */
typedef struct jg_vcost {
    int64_t inv, scale, prod, fma, adds;
    int64_t fill_edges;   /* edges the elimination creates */
    int64_t delta_nnz;    /* live nnz after minus before (v's edges removed) */
} jg_vcost_t;

/* One elimination run: the engine's state, what a strategy reads. */
typedef struct jg_strat_run {
    jg_graph_t *g;              /* the graph being eliminated (read it, never change it) */
    const char *args;           /* the spec's ":ARGS" part, "" when none */
    double time_limit;          /* seconds (jg_graph_strategy_set_time_limit), 0: default */
    const int64_t *changed;     /* next: vertices whose edges the last elimination changed */
    int64_t nchanged;
    jg_graph_cost_t *cost;      /* the run's cost so far (a search may set bound, optimal) */
    void *eng;                  /* the engine's scratch (jg__strat_vcost) */
    int64_t ntry;               /* the engine's eliminations tried so far (its timing) */
} jg_strat_run_t;

typedef struct jg_strategy_def {
    const char *name;           /* the spec name */
    const char *help;           /* one line for listings */
    const char *args_help;      /* the ARGS of NAME:ARGS it takes ("FILE", "nnz"), NULL: none */
    /* (a) criterion: *key for eliminable vertex v (lower first) */
    jg_status_t (*key)(jg_strat_run_t *r, void *state, int64_t v, double *key);
    int hops;                   /* 0: key fixed at the start; 1: depends on v's edges;
                                   2: also on its eliminable neighbors' edges */
    int kept_pairs;             /* with hops 2: also on whether two kept neighbors of v,
                                   p -> v -> q, are joined p -> q (p = q: a self-loop) */
    /* (b) next: *v = the next vertex to eliminate, -1 to stop */
    jg_status_t (*next)(jg_strat_run_t *r, void *state, int64_t *v, jg_error_t *err);
    /* optional for (a) and (b): state made before the first key/next call
     * (on the graph as the run starts) and freed after the last */
    jg_status_t (*init)(jg_strat_run_t *r, void **state, jg_error_t *err);
    void (*fini)(void *state);
    /* (c) order: a whole order into *order (malloc'd) and *n */
    jg_status_t (*order)(jg_strat_run_t *r, int64_t **order, int64_t *n, jg_error_t *err);
} jg_strategy_def_t;

/* 1 when v is alive and a strategy may eliminate it: a block input or
 * output, but not the output of an Algebraic Constraint (whose self-loop is
 * exactly 1 until the rest of its loop is folded into it). */
static inline int jg__strat_eliminable(const jg_graph_t *g, int64_t v)
{
    const jg_gvert_t *V = &g->v[v];   /* inline: the engine asks per neighbor */
    return V->alive && V->elig;       /* elig: jg__gvert_eligible at the build */
}
/* The cost of eliminating v in r's current graph, without eliminating it.
 * Errors: JG_NOMEM.  Cost: that of the patterns of v's products. */
jg_status_t jg__strat_vcost(jg_strat_run_t *r, int64_t v, jg_vcost_t *c);
/* Live nnz of g now (edges and self-loops). */
int64_t jg__graph_live_nnz(const jg_graph_t *g);

/* Symbolic trial elimination for searching strategies (exact, anneal):
 * a new structural copy of g as built (no values, nothing eliminated) */
jg_status_t jg__graph_scratch(const jg_graph_t *g, jg_graph_t **out, jg_error_t *err);
/* Eliminate v from g structurally (no values) with its cost into *c (may
 * be NULL).  Errors: JG_ARG when v is not eliminable or its pivot block is
 * not diagonal and wider than JG__GRAPH_DENSE_PIVOT_MAX (jg__elim_pivot_ok
 * 0 on a structural graph), JG_NOMEM.  The graph's cost (jg_graph_cost) and
 * order are updated as in a run. */
jg_status_t jg__graph_eliminate_one(jg_graph_t *g, int64_t v, jg_vcost_t *c, jg_error_t *err);

/* The elimination of a run, one vertex at a time (eliminate.c), for the
 * engine.  begin: reset the cost and order, load w's values (numeric) or
 * not (w NULL).  pivot_ok: 1 when v's pivot block is acceptable now, 0 when
 * the guard refuses it, -1 out of memory.  vertex: eliminate v (eliminable,
 * pivot accepted), *nb its former neighbors (valid until the next call).
 * end: the statistics, the live-edge list, the replay's workspace; st is
 * the run's status so far (JG_NOMEM gets its message), returned updated. */
jg_status_t jg__elim_begin(jg_graph_t *g, const jg_eval_work_t *w);
int jg__elim_pivot_ok(jg_graph_t *g, int64_t v);
jg_status_t jg__elim_vertex(jg_graph_t *g, int64_t v, const int64_t **nb, int64_t *nnb);
jg_status_t jg__elim_end(jg_graph_t *g, jg_status_t st, jg_error_t *err);

/* The engine: eliminate g by strategy s (numeric with w, structural with w
 * NULL; see jg__graph_eliminate). */
jg_status_t jg__graph_eliminate_strategy(jg_graph_t *g, const jg_graph_strategy_t *s,
                                         const jg_eval_work_t *w, jg_error_t *err);

/* Shared pieces of the strategies.
 *
 * The paper's worklist (strat_markowitz.c): every eliminable vertex in id
 * order, first in first out; a vertex is eliminated when rule(r, v) says so
 * (1 yes, 0 no, < 0 a status), and queued again when a neighbor's
 * elimination changes its edges.  A next-strategy calls these from its own
 * init / next / fini. */
typedef int (*jg_strat_rule_t)(jg_strat_run_t *r, int64_t v);
jg_status_t jg__strat_worklist_init(jg_strat_run_t *r, void **state, jg_error_t *err);
jg_status_t jg__strat_worklist_next(jg_strat_run_t *r, void *state, int64_t *v, jg_error_t *err,
                                    jg_strat_rule_t rule);
void jg__strat_worklist_fini(void *state);
/* Strongly connected components of the subgraph of eliminable vertices
 * (scc.c): comp[v] for each vertex (-1 when not eliminable), numbered in a
 * topological order of their condensation (sources first; among components
 * ready together, the one holding the smallest vertex id first).  Returns
 * the number of components, -1 when out of memory.  Cost: O(V + E log V). */
int64_t jg__strat_scc(const jg_graph_t *g, int64_t *comp);
/* A criterion's init (forward, reverse): *state = the component numbers of
 * jg__strat_scc, freed with free. */
jg_status_t jg__strat_scc_init(jg_strat_run_t *r, void **state, jg_error_t *err);
/* ANGEL's damage of eliminating v (strat_lmmd.c): how much the Markowitz
 * degrees (in-degree times out-degree, self-loops not counted) of the other
 * eliminable vertices grow, counting a product edge as made whatever its
 * values.  stamp has 4 entries per vertex, all below *epoch, which it
 * raises.  Cost: O(deg(v) + the degrees of v's neighbors). */
int64_t jg__strat_damage(const jg_graph_t *g, int64_t v, int64_t *stamp, int64_t *epoch);
/* The state of a criterion built on jg__strat_damage (lmmd, momr): its stamps
 * and epoch.  jg__strat_damage_init is a criterion's init, *state a
 * jg_strat_damage_t; jg__strat_damage_fini its fini. */
typedef struct {
    int64_t *stamp, epoch;
} jg_strat_damage_t;
jg_status_t jg__strat_damage_init(jg_strat_run_t *r, void **state, jg_error_t *err);
void jg__strat_damage_fini(void *state);

/* Seconds on the monotonic clock (CLOCK_MONOTONIC), for the time budgets
 * of the searches and the engine's timings (strategy.c). */
double jg__strat_now(void);

/* Registered strategies (strat_*.c). */
extern const jg_strategy_def_t jg__strat_none, jg__strat_markowitz, jg__strat_markowitz_nnz,
    jg__strat_full, jg__strat_lm, jg__strat_lrm, jg__strat_minfill, jg__strat_mincost, jg__strat_forward,
    jg__strat_reverse, jg__strat_lmmd, jg__strat_momr, jg__strat_order;
/* The searching and sparse-solver strategies (strat_exact.c, ...). */
extern const jg_strategy_def_t jg__strat_exact, jg__strat_anneal, jg__strat_camd, jg__strat_metis;

#endif
