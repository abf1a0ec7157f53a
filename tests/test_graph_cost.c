/* test_graph_cost.c -- the cost model of the vertex elimination
 * (jacgraph/graph.h): costs derived by hand on two small diagrams, the
 * replay's counted multiply-adds equal to the predicted ones on every
 * shipped model and on random diagrams for several strategies, and the
 * cost's own consistency (FMA split, nonzeros after, peak). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "jacgraph/jacgraph.h"
#include "testlib.h"
#include "graph/graph_internal.h"
#include "linearize/lin_internal.h"

/* Vertex id by label in g, -1 when none. */
static int64_t vid(const jg_graph_t *g, const char *label)
{
    for (int64_t v = 0; v < jg_graph_nvertices(g); v++)
        if (!strcmp(jg_graph_vertex_label(g, v), label)) return v;
    return -1;
}

/* A temporary order file of the vertices labelled labels[0..n-1] in g. */
static int order_file(const jg_graph_t *g, const char *const *labels, int n, char *path)
{
    strcpy(path, "jg_order_XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0) return -1;
    FILE *f = fdopen(fd, "w");
    if (!f) return -1;
    int ok = 1;
    for (int k = 0; k < n; k++) {
        int64_t v = vid(g, labels[k]);
        ok &= v >= 0;
        fprintf(f, "%lld\n", (long long)v);
    }
    fclose(f);
    return ok ? 0 : -1;
}

/* The live nonzeros of g through the public API. */
static int64_t live_nnz(const jg_graph_t *g)
{
    int64_t n = 0;
    for (int64_t e = 0; e < jg_graph_nedges(g); e++) {
        jg_edge_info_t ei;
        jg_graph_edge(g, e, &ei);
        if (ei.alive) n += ei.nnz;
    }
    return n;
}

/* Load the model js, eliminate it with spec and take the graph's costs. */
static jg_status_t eliminate_as(fx_t *f, const char *js, const char *spec, jg_graph_strategy_t **s,
                                const jg_graph_t **g, jg_graph_cost_t *c)
{
    jg_status_t st = fx_load(f, js, NULL);
    if (!st) st = jg_graph_strategy_parse(spec, s, &f->err);
    if (!st) st = jg_lin_graph_strategy(f->l, *s, g, &f->err);
    if (!st) jg_graph_cost(*g, c);
    return st;
}

/* In1 -> G1 (a) -> G2 (b) -> Out1, fully eliminated by lm (the root Inport's
 * output and the Outport's input are vertices too: 6 eliminable, 7 edges):
 * the connection identities cost nothing, so the one multiply-add is b * a. */
static void hand_chain(void)
{
    fx_t f;
    const char *js = "{\"name\":\"chain\",\"blocks\":[{\"name\":\"In1\",\"type\":\"Inport\",\"Port\":1},"
                     "{\"name\":\"G1\",\"type\":\"Gain\",\"Gain\":2},{\"name\":\"G2\",\"type\":\"Gain\",\"Gain\":3},"
                     "{\"name\":\"Out1\",\"type\":\"Outport\",\"Port\":1}],\"lines\":["
                     "{\"src\":\"In1:1\",\"dst\":\"G1:1\"},{\"src\":\"G1:1\",\"dst\":\"G2:1\"},"
                     "{\"src\":\"G2:1\",\"dst\":\"Out1:1\"}]}";
    jg_graph_strategy_t *s = NULL;
    const jg_graph_t *g = NULL;
    jg_graph_cost_t c = {0};
    jg_status_t st = eliminate_as(&f, js, "lm", &s, &g, &c);
    tap_ok(!st && c.eliminated == 6 && c.fma == 1 && c.fma_prod == 1 && c.fma_inv == 0 &&
               c.fma_scale == 0 && c.adds == 0 && c.nnz_before == 7 && c.nnz_after == 1 &&
               c.v_after == 2 && c.e_after == 1,
           "gain chain, lm: 6 eliminated, FMA 1 (b*a; identities free), nnz 7 -> 1 (%s; elim %lld "
           "fma %lld adds %lld nnz %lld -> %lld, V %lld E %lld)",
           st ? f.err.msg : "ok", (long long)c.eliminated, (long long)c.fma, (long long)c.adds,
           (long long)c.nnz_before, (long long)c.nnz_after, (long long)c.v_after, (long long)c.e_after);
    int64_t fma[3] = {-1, -1, -1};
    if (!st) st = jg__graph_replay_count((jg_graph_t *)g, jg__lin_work(f.l), fma, &f.err);
    tap_ok(!st && fma[0] == 0 && fma[1] == 0 && fma[2] == 1, "gain chain: the replay counts 0/0/1");
    jg_graph_strategy_free(s);
    fx_unload(&f);
}

/* e = In1 - a e (Sum "+-" with the Gain a feeding its second input), 9
 * vertices and 9 scalar edges, eliminated in a given order: u Gain, y Gain
 * (identities: 0), u Sum:2 (a * -1 makes the self-loop -a: 1), y Sum (inv
 * 1, scale 1, out to u Out1 and the output point through identities: 0;
 * the live nonzeros peak here at 8 edges + S + S K_e = 10), u Sum:1, y In1,
 * u Out1 (identities, or nothing to multiply: 0). */
static void hand_loop(void)
{
    fx_t f;
    const char *js = "{\"name\":\"loop\",\"blocks\":[{\"name\":\"In1\",\"type\":\"Inport\",\"Port\":1},"
                     "{\"name\":\"Sum\",\"type\":\"Sum\",\"Inputs\":\"+-\"},"
                     "{\"name\":\"Gain\",\"type\":\"Gain\",\"Gain\":0.5},"
                     "{\"name\":\"Out1\",\"type\":\"Outport\",\"Port\":1}],\"lines\":["
                     "{\"src\":\"In1:1\",\"dst\":\"Sum:1\"},{\"src\":\"Sum:1\",\"dst\":[\"Gain:1\",\"Out1:1\"]},"
                     "{\"src\":\"Gain:1\",\"dst\":\"Sum:2\"}]}";
    static const char *const order[] = {"u Gain:1", "y Gain:1", "u Sum:2", "y Sum:1",
                                        "u Sum:1",  "y In1:1",  "u Out1:1"};
    char path[64] = "", spec[80];
    jg_graph_strategy_t *s = NULL;
    const jg_graph_t *g0 = NULL, *g = NULL;
    jg_lin_sys_t *sys = NULL;
    jg_status_t st = fx_load(&f, js, NULL);
    if (!st) st = jg_lin_graph(f.l, JG_GRAPH_REDUCE_NONE, &g0, &f.err);
    if (!st && order_file(g0, order, 7, path)) st = jg_error_set(&f.err, JG_IO, "order file");
    snprintf(spec, sizeof spec, "order:%s", path);
    if (!st) st = jg_graph_strategy_parse(spec, &s, &f.err);
    if (!st) st = jg_lin_run_strategy(f.l, s, &sys, NULL, &f.err);
    if (!st) st = jg_lin_graph_strategy(f.l, s, &g, &f.err);
    jg_graph_cost_t c = {0};
    if (!st) jg_graph_cost(g, &c);
    tap_ok(!st && c.eliminated == 7 && c.fma_inv == 1 && c.fma_scale == 1 && c.fma_prod == 1 &&
               c.fma == 3 && c.adds == 0,
           "algebraic loop by order: FMA inv 1 + scale 1 + prod 1 = 3, no adds (%s; %lld/%lld/%lld)",
           st ? f.err.msg : "ok", (long long)c.fma_inv, (long long)c.fma_scale, (long long)c.fma_prod);
    tap_ok(!st && c.nnz_before == 9 && c.nnz_after == 1 && c.peak_nnz == 10 && c.v_after == 2 &&
               c.e_after == 1,
           "algebraic loop: nnz 9 -> 1, peak 10, V 2, E 1 (nnz %lld -> %lld, "
           "peak %lld, V %lld, E %lld)",
           (long long)c.nnz_before, (long long)c.nnz_after, (long long)c.peak_nnz, (long long)c.v_after,
           (long long)c.e_after);
    tap_ok(!st && sys && sys->D && sys->D->p[1] == 1 && sys->D->x[0] > 0.6666666 &&
               sys->D->x[0] < 0.6666667,
           "algebraic loop: D = 1 / (1 + a) = 2/3");
    const int64_t *ord = NULL;
    int64_t n = st ? 0 : jg_graph_order(g, &ord);
    int same = n == 7;
    for (int k = 0; same && k < 7; k++) same = ord[k] == vid(g, order[k]);
    tap_ok(same, "jg_graph_order gives the file's order back");
    int64_t fma[3] = {-1, -1, -1};
    if (!st) st = jg__graph_replay_count((jg_graph_t *)g, jg__lin_work(f.l), fma, &f.err);
    tap_ok(!st && fma[0] == 1 && fma[1] == 1 && fma[2] == 1, "algebraic loop: the replay counts 1/1/1");
    if (path[0]) unlink(path);
    jg_lin_sys_free(sys);
    jg_graph_strategy_free(s);
    fx_unload(&f);
}

/* A vector loop e = In1 - K e with a full 2 x 2 K: a dense pivot, whose
 * inverse the model counts w^3 = 8 and whose scaling w nnz(K_e). */
static void hand_vector_loop(void)
{
    fx_t f;
    const char *js = "{\"name\":\"vloop\",\"blocks\":[{\"name\":\"In1\",\"type\":\"Inport\",\"Port\":1,"
                     "\"PortDimensions\":2},{\"name\":\"Sum\",\"type\":\"Sum\",\"Inputs\":\"+-\"},"
                     "{\"name\":\"K\",\"type\":\"Gain\",\"Gain\":[[0.1,0.2],[0.3,0.4]],"
                     "\"Multiplication\":\"Matrix(K*u)\"},"
                     "{\"name\":\"Out1\",\"type\":\"Outport\",\"Port\":1}],\"lines\":["
                     "{\"src\":\"In1:1\",\"dst\":\"Sum:1\"},{\"src\":\"Sum:1\",\"dst\":[\"K:1\",\"Out1:1\"]},"
                     "{\"src\":\"K:1\",\"dst\":\"Sum:2\"}]}";
    jg_graph_strategy_t *s = NULL;
    const jg_graph_t *g = NULL;
    jg_graph_cost_t c = {0};
    int64_t fma[3] = {-1, -1, -1};
    jg_status_t st = eliminate_as(&f, js, "full", &s, &g, &c);
    if (!st) st = jg__graph_replay_count((jg_graph_t *)g, jg__lin_work(f.l), fma, &f.err);
    tap_ok(!st && c.fma_inv == 8 && c.fma_scale > 0 && c.fma_scale % 2 == 0 && fma[0] == c.fma_inv &&
               fma[1] == c.fma_scale && fma[2] == c.fma_prod,
           "vector loop (2 x 2 K), full: one dense pivot, inv 8, scale %lld; counted %lld/%lld/%lld "
           "= predicted %lld/%lld/%lld (%s)",
           (long long)c.fma_scale, (long long)fma[0], (long long)fma[1], (long long)fma[2],
           (long long)c.fma_inv, (long long)c.fma_scale, (long long)c.fma_prod, st ? f.err.msg : "ok");
    jg_graph_strategy_free(s);
    fx_unload(&f);
}

static const char *const specs[] = {"markowitz", "full",    "markowitz-nnz", "forward",
                                    "reverse",   "lrm",     "minfill",       "mincost",
                                    "lmmd",      "momr>lm>reverse"};
#define NSPECS (int)(sizeof specs / sizeof *specs)

/* For every strategy of specs: the cost is consistent and the counted
 * replay equals it.  Returns the number of strategies that failed, with the
 * first failure in why. */
static int check_program(const jg_program_t *p, char *why, size_t cap, int64_t *total_fma)
{
    jg_lin_t *l = NULL;
    jg_error_t err;
    jg_error_clear(&err);
    int bad = 0;
    why[0] = 0;
    if (jg_lin_create(p, NULL, &l, &err)) {
        snprintf(why, cap, "lin_create: %.400s", err.msg);
        return 1;
    }
    for (int k = 0; k < NSPECS; k++) {
        jg_graph_strategy_t *s = NULL;
        const jg_graph_t *g = NULL;
        jg_status_t st = jg_graph_strategy_parse(specs[k], &s, &err);
        if (!st) st = jg_lin_graph_strategy(l, s, &g, &err);
        jg_graph_cost_t c = {0};
        int64_t fma[3] = {0, 0, 0}, nv = 0, ne = 0;
        if (!st) {
            jg_graph_cost(g, &c);
            jg_graph_count(g, &nv, &ne);
            st = jg__graph_replay_count((jg_graph_t *)g, jg__lin_work(l), fma, &err);
        }
        jg_graph_stats_t gs = {0};
        if (!st) jg_graph_stats(g, &gs);
        int ok = !st && fma[0] == c.fma_inv && fma[1] == c.fma_scale && fma[2] == c.fma_prod &&
                 c.fma == c.fma_inv + c.fma_scale + c.fma_prod && c.nnz_after == live_nnz(g) &&
                 c.peak_nnz >= c.nnz_before && c.peak_nnz >= c.nnz_after && c.v_after == nv &&
                 c.e_after == ne && c.eliminated == gs.eliminated && c.t_strategy <= c.t_elim + 1e-9;
        if (!ok && !bad)
            snprintf(why, cap, "%s: %.400s predicted %lld/%lld/%lld, counted %lld/%lld/%lld, nnz %lld vs %lld",
                     specs[k], st ? err.msg : "", (long long)c.fma_inv, (long long)c.fma_scale,
                     (long long)c.fma_prod, (long long)fma[0], (long long)fma[1], (long long)fma[2],
                     (long long)c.nnz_after, st ? -1LL : (long long)live_nnz(g));
        bad += !ok;
        if (ok) *total_fma += c.fma;
        jg_graph_strategy_free(s);
    }
    jg_lin_free(l);
    return bad;
}

static void shipped_model(const char *path, const jg_program_t *p, void *user)
{
    (void)user;
    char why[1024];
    int64_t fma = 0;
    int bad = check_program(p, why, sizeof why, &fma);
    tap_ok(!bad, "%s: predicted FMA == counted for %d strategies (total %lld)%s%s", path, NSPECS,
           (long long)fma, bad ? ": " : "", bad ? why : "");
}

static void shipped_models(void)
{
    int nmodels = tl_each_shipped(shipped_model, NULL);
    tap_ok(nmodels >= 10, "%d shipped models checked", nmodels);
}

static void random_models(int nseeds)
{
    int nbad = 0, nok = 0;
    int64_t total = 0;
    for (int seed = 1; seed <= nseeds; seed++) {
        jg_gen_random_opts_t o;
        fx_random_opts(&o, seed);
        char why[1024];
        jg_model_t *m;
        jg_program_t *p;
        jg_error_t err;
        if (fx_gen_program(&o, &m, &p, &err)) {
            tap_ok(0, "seed %d compiles: %s", seed, err.msg);
            nbad++;
        } else if (check_program(p, why, sizeof why, &total)) {
            tap_ok(0, "seed %d (%d blocks): %s", seed, o.nblocks, why);
            nbad++;
        } else {
            nok++;
        }
        jg_program_free(p);
        jg_model_free(m);
    }
    tap_ok(nbad == 0, "random diagrams: predicted FMA == counted on %d of %d seeds, %d strategies each "
                      "(total FMA %lld)", nok, nseeds, NSPECS, (long long)total);
}

int main(int argc, char **argv)
{
    int nseeds = argc > 1 ? atoi(argv[1]) : 120;
    hand_chain();
    hand_loop();
    hand_vector_loop();
    shipped_models();
    random_models(nseeds);
    return tap_done();
}
