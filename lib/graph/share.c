/* A second set of values over an eliminated Jacobian graph: the structure,
 * the elimination tape and its compiled program (when the graph has one,
 * jg__graph_compile) shared read-only, the edge values and the replay
 * workspace its own, so that threads replay one tape at their own points. */
#include <stdlib.h>
#include <string.h>
#include "graph_impl.h"

jg_graph_t *jg__graph_share(const jg_graph_t *g)
{
    /* the label table is g's (freed with g), even when no label was asked
     * for yet: a view never owns one */
    if (!g->labels && !(((jg_graph_t *)g)->labels = calloc((size_t)g->nv + 1, sizeof *g->labels)))
        return NULL;
    jg_graph_t *c = malloc(sizeof *c);
    if (!c) return NULL;
    *c = *g;
    /* labels are built lazily into the arena: the caller warms them
     * (jg_graph_vertex_label on every vertex) before sharing, so that the view
     * never writes the shared table; its own arena stays empty */
    memset(&c->arena, 0, sizeof c->arena);
    c->ws_mark = NULL;   /* symbolic work: a view never eliminates */
    c->el = NULL;
    c->fma_count = NULL;
    c->inv_ipiv = NULL;  /* the replay's dense-inverse workspace: its own */
    c->inv_work = NULL;
    c->inv_cap = 0;
    c->tape_own = 0;     /* the compiled replay: g's, when g has one */
    c->tape_w = NULL;
    c->tape_whole = NULL;
    c->x = malloc(sizeof(double) * (size_t)(g->nx + JG__TAPE_CELLS));
    c->ws = calloc((size_t)g->maxw + 1, sizeof(double));
    if (!c->x || !c->ws || jg__graph_inverse_reserve(c, g->inv_cap)) {
        jg__graph_share_free(c);
        return NULL;
    }
    memcpy(c->x, g->x, sizeof(double) * (size_t)g->nx);
    c->capx = g->nx + JG__TAPE_CELLS;
    return c;
}

void jg__graph_share_free(jg_graph_t *c)
{
    if (!c) return;
    free(c->x);
    free(c->ws);
    free(c->inv_ipiv);
    free(c->inv_work);
    if (c->tape_own) jg__tape_free(c->tape);
    free(c->tape_whole);
    free(c);
}
