/* test_graph.c -- the Jacobian graph (lib/graph, jacgraph/graph.h) read
 * through the linearizer: vertex and edge counts of a model built by hand
 * (Def. 2 of Han, Mosterman & Zhang), what each reduction leaves (full
 * elimination: input -> output edges carrying the sum of the paths;
 * Markowitz without I/O: the state vertices), and the reduction names.
 * Every numeric result of a reduced graph is also checked against the matrix
 * method in tests/test_linearize.c and tests/test_linearize_property.c. */
#include <stdlib.h>
#include <string.h>
#include "jacgraph/jacgraph.h"
#include "testlib.h"

/* Two parallel gains summed: after full elimination one edge In -> Out with
 * the sum of the paths (Def. 2), and no algebraic vertex left. */
static const char parallel[] =
    "{\"name\":\"par\",\"blocks\":["
    "{\"name\":\"In1\",\"type\":\"Inport\",\"Port\":1},"
    "{\"name\":\"G1\",\"type\":\"Gain\",\"Gain\":3},"
    "{\"name\":\"G2\",\"type\":\"Gain\",\"Gain\":-0.5},"
    "{\"name\":\"S\",\"type\":\"Sum\",\"Inputs\":\"++\"},"
    "{\"name\":\"Out1\",\"type\":\"Outport\",\"Port\":1}],"
    "\"lines\":[{\"src\":\"In1:1\",\"dst\":[\"G1:1\",\"G2:1\"]},{\"src\":\"G1:1\",\"dst\":\"S:1\"},"
    "{\"src\":\"G2:1\",\"dst\":\"S:2\"},{\"src\":\"S:1\",\"dst\":\"Out1:1\"}]}";

static void test_parallel(void)
{
    fx_t f;
    tap_ok(!fx_load(&f, parallel, NULL), "parallel gains compile");
    jg_lin_sys_t *s = NULL;
    jg_status_t st = jg_lin_run(f.l, JG_LIN_GRAPH, JG_GRAPH_REDUCE_FULL, &s, NULL, &f.err);
    tap_ok(!st && fabs(fx_entry(s->D, 0, 0) - 2.5) < 1e-15, "parallel paths sum: D = 3 - 0.5");
    jg_lin_sys_free(s);
    const jg_graph_t *g;
    st = jg_lin_graph(f.l, JG_GRAPH_REDUCE_FULL, &g, &f.err);
    int64_t nv, ne, alive_edge = -1;
    jg_graph_count(g, &nv, &ne);
    for (int64_t e = 0; e < jg_graph_nedges(g); e++) {
        jg_edge_info_t ei;
        jg_graph_edge(g, e, &ei);
        if (ei.alive) alive_edge = e;
    }
    jg_edge_info_t ei = {0};
    if (alive_edge >= 0) jg_graph_edge(g, alive_edge, &ei);
    tap_ok(!st && nv == 2 && ne == 1 && ei.x && fabs(ei.x[0] - 2.5) < 1e-15,
           "full elimination leaves in -> out with value 2.5 (V:%lld E:%lld)", (long long)nv,
           (long long)ne);
    fx_unload(&f);
}

/* Markowitz on vdp (no I/O): every algebraic vertex qualifies, only states remain. */
static void test_markowitz_states_only(void)
{
    fx_t f;
    jg_lin_opts_t o = {.no_defaults = 1};
    tap_ok(!fx_load(&f, tl_vdp, &o), "vdp without I/O");
    const jg_graph_t *g;
    jg_status_t st = jg_lin_graph(f.l, JG_GRAPH_REDUCE_MARKOWITZ, &g, &f.err);
    int only_states = !st, nalive = 0;
    for (int64_t v = 0; !st && v < jg_graph_nvertices(g); v++) {
        jg_vertex_info_t vi;
        jg_graph_vertex(g, v, &vi);
        if (!vi.alive) continue;
        nalive++;
        only_states &= vi.kind == JG_V_STATE;
    }
    jg_graph_stats_t gs;
    jg_graph_stats(g, &gs);
    tap_ok(only_states && nalive == 2, "markowitz reduces vdp to its 2 state vertices");
    /* by hand: 20 port/state vertices; 12 block edges + 10 connections; after:
     * x1 -> x2, x2 -> x1 and the self-loop x2 -> x2 */
    tap_ok(gs.v_before == 20 && gs.e_before == 22 && gs.v_after == 2 && gs.e_after == 3,
           "vdp graph V:%lld E:%lld -> V:%lld E:%lld", (long long)gs.v_before,
           (long long)gs.e_before, (long long)gs.v_after, (long long)gs.e_after);
    fx_unload(&f);
}

/* The reductions by name, both ways; an unknown name is -1. */
static void test_names(void)
{
    const jg_graph_reduce_t r[] = {JG_GRAPH_REDUCE_NONE, JG_GRAPH_REDUCE_MARKOWITZ, JG_GRAPH_REDUCE_FULL};
    for (size_t k = 0; k < sizeof r / sizeof *r; k++) {
        const char *name = jg_graph_reduce_name(r[k]);
        tap_ok(name && jg_graph_reduce_parse(name) == (int)r[k], "reduction '%s' parses back", name ? name : "?");
    }
    tap_ok(jg_graph_reduce_parse("bogus") == -1, "unknown reduction name: -1");
}

int main(void)
{
    test_parallel();
    test_markowitz_states_only();
    test_names();
    return tap_done();
}
