/* graph_internal.h -- lib/graph's interface for the later stages (linearize):
 * build, eliminate, replay and extract the Jacobian graph of a compiled
 * program without seeing its structures (graph_impl.h).  Not installed; it
 * includes only public headers and eval's interface for later modules. */
#ifndef JG_GRAPH_INTERNAL_H
#define JG_GRAPH_INTERNAL_H
#include <stdint.h>
#include <cs.h>
#include "jacgraph/graph.h"
#include "../eval/eval_internal.h"

/* Build (build.c): the structure and original values from the block
 * patterns and io's connections (io must outlive the graph).  Errors: JG_NOMEM. */
jg_status_t jg__graph_build(const jg_program_t *p, const jg_iospec_t *io, jg_graph_t **out,
                            jg_error_t *err);
/* Decide and record the elimination (eliminate.c).  With w (block Jacobians
 * evaluated) the elimination is numeric: it leaves a vertex whose pivot
 * block I - Dv is ill-conditioned to the LFT and ends with the values of a
 * replay at w (jg__graph_replayed is 1); with w NULL it is structural only. */
jg_status_t jg__graph_eliminate(jg_graph_t *g, jg_graph_reduce_t how, const jg_eval_work_t *w,
                                jg_error_t *err);
/* The same by any strategy (strategy.c; jacgraph/graph.h's spec grammar):
 * jg__graph_eliminate(g, r, ...) is this with jg_graph_strategy_from_reduce(r).
 * Errors: a strategy's own (an order file naming a bad vertex: JG_ARG),
 * JG_NOMEM. */
jg_status_t jg__graph_eliminate_strategy(jg_graph_t *g, const jg_graph_strategy_t *s,
                                         const jg_eval_work_t *w, jg_error_t *err);
/* A copy of s (NULL when out of memory). */
jg_graph_strategy_t *jg__graph_strategy_dup(const jg_graph_strategy_t *s);
/* 1 when a and b are the same strategy (spec and time limit). */
int jg__graph_strategy_same(const jg_graph_strategy_t *a, const jg_graph_strategy_t *b);
/* The classic reduction s stands for (its spec is "none", "markowitz" or
 * "full"), -1 for every other strategy. */
int jg__graph_strategy_reduce(const jg_graph_strategy_t *s);
/* The replay with its FMA counted: as jg__graph_replay, and fma[0..2] get
 * the multiply-adds actually executed by the inversions, the scalings and
 * the products (jacgraph/graph.h's inv, scale, prod; a dense inversion by
 * LAPACK counts w^3).  The normal replay does not count. */
jg_status_t jg__graph_replay_count(jg_graph_t *g, const jg_eval_work_t *w, int64_t fma[3],
                                   jg_error_t *err);
/* Numeric phase (replay.c): values from the work's block Jacobians, then the
 * tape, run compiled (tape.c: the first replay compiles it, unless
 * jg__graph_compile did; the operation-by-operation values, bit for bit);
 * after that it allocates nothing but, at a work it has not replayed at
 * before, a byte per run of Jacobian parts (where the work keeps them).
 * JG_SINGULAR_LOOP names the vertex and its loop.  A pivot that is regular
 * but ill-conditioned at this operating point (the tape was decided at
 * another one) is not an error: jg__graph_pivots reports it, and the caller
 * decides (linearization solves that run with the unreduced graph's pivoted
 * LU). */
jg_status_t jg__graph_replay(jg_graph_t *g, const jg_eval_work_t *w, jg_error_t *err);
/* Compile g's tape for the replay now (it is otherwise compiled on the first
 * replay), so that the views made afterwards share the program instead of
 * each compiling its own.  Call before sharing g with threads.  Errors:
 * JG_NOMEM (the replays then interpret the tape: the same values, slower).
 * Cost: O(the tape's multiply-adds), about 12 bytes each. */
jg_status_t jg__graph_compile(jg_graph_t *g);
/* The pivots of the last replay or numeric elimination: *cond the largest
 * condition max(1, |Dv|) |(I - Dv)^-1| of an eliminated vertex (1 with none),
 * returns the first vertex whose pivot condition exceeded the elimination's
 * threshold (or that was singular), -1 when none did. */
int64_t jg__graph_pivots(const jg_graph_t *g, double *cond);
/* 1 once g has been replayed. */
int jg__graph_replayed(const jg_graph_t *g);

/* ---- views for threads (share.c) */

/* A graph sharing g's structure, elimination tape and labels (read-only: g
 * must outlive it, be eliminated already and have every vertex label built,
 * jg_graph_vertex_label) with its own edge values (a copy of g's) and replay
 * workspace: jg__graph_replay and the extraction work on it as on g, from
 * another thread.  NULL when out of memory.  Cost: O(values + widest vertex). */
jg_graph_t *jg__graph_share(const jg_graph_t *g);
/* Free a view of jg__graph_share (never jg_graph_free); NULL is fine. */
void jg__graph_share_free(jg_graph_t *c);

/* ---- extraction (extract.c) */

/* Offset maps for the extraction: map[v] = base[kind] + the vertex's element
 * offset (into x, u, y, w or z by its kind) for every vertex whose kind has
 * base[kind] >= 0 (and that is alive when live_only), -1 for the others.
 * base is indexed by jg_vkind_t; map has jg_graph_nvertices(g) entries. */
void jg__graph_offset_map(const jg_graph_t *g, const int64_t base[5], int live_only,
                          int64_t *map);
/* The algebraic vertices (block inputs and outputs) alive after the
 * elimination, numbered element by element in vertex order: map[v] is the
 * first element of a surviving one, -1 for every other vertex.  Returns the
 * number of elements. */
int64_t jg__graph_survivor_map(const jg_graph_t *g, int64_t *map);

/* Theorem 1: sub(J, I, O) for the vertex sets given by offset maps.  Every
 * live edge src -> dst with coloff[src] >= 0 and rowoff[dst] >= 0 puts its
 * matrix at (rowoff[dst], coloff[src]).  Returns a new m x n cs_dl (values of
 * the last replay) or NULL when out of memory.  Cost: O(live edge entries). */
cs_dl *jg__graph_sub(const jg_graph_t *g, const int64_t *rowoff, int64_t m,
                     const int64_t *coloff, int64_t n);
/* The entries of the same submatrix, symbolically: for each, its row, its
 * column and the index of its value in jg__graph_values (duplicates are not
 * summed).  Returns their number; with NULL arrays only counts them. */
int64_t jg__graph_sub_entries(const jg_graph_t *g, const int64_t *rowoff,
                              const int64_t *coloff, int64_t *row, int64_t *col, int64_t *val);
/* Every edge value of the last replay (what jg__graph_sub_entries indexes). */
const double *jg__graph_values(const jg_graph_t *g);

#endif
