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

typedef struct jg_vertex_info {
    jg_vkind_t kind;
    int32_t block;        /* owning block id (-1 for I/O points) */
    int port;             /* 0-based port (or I/O point index) */
    int64_t width;
    int alive;            /* 0 once eliminated */
    int64_t self_loop;    /* edge id of its self-loop, -1 */
} jg_vertex_info_t;

typedef struct jg_edge_info {
    int64_t src, dst;     /* vertex ids */
    int64_t rows, cols, nnz;
    int alive;            /* 0 once removed by an elimination */
    const double *x;      /* values (last replay), CSC order; NULL before replay */
    const int64_t *p, *i; /* CSC pattern */
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
