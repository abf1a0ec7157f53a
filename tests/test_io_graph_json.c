/* test_io_graph_json.c -- the Jacobian graph as JSON (jg_io_write_graph_json,
 * lib/io/graph_json.c) read back with jansson and checked against the graph
 * API entry by entry: every live vertex (id, label, kind, width, eliminable)
 * and edge (ends, shape, identity flag, pattern, values bit for bit), on a
 * shipped model, generated power and aerospace models (vector signals,
 * algebraic loops, connection identities) and random diagrams; a graph after
 * elimination lists only what is alive; bad arguments and unwritable paths. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/jacgraph.h"
#include "testlib.h"

static const char *kind_name(jg_vkind_t k)
{
    return k == JG_V_STATE ? "state" : k == JG_V_INPUT ? "input" : k == JG_V_OUTPUT ? "output" : "io";
}

/* The JSON at path against g; returns the number of disagreements (the
 * first few printed as TAP comments).  *nid, *nie: identity edges and
 * eliminable vertices seen. */
static int compare(const jg_graph_t *g, const char *path, int64_t *nid, int64_t *nel)
{
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    int bad = 0;
    *nid = *nel = 0;
#define BAD(...)                                 \
    do {                                         \
        if (bad++ < 5) printf("#   " __VA_ARGS__); \
    } while (0)
    if (!root) {
        BAD("%s: %s\n", path, je.text);
        return bad;
    }
    json_t *vs = json_object_get(root, "vertices"), *es = json_object_get(root, "edges");
    if (!json_is_array(vs) || !json_is_array(es) || json_object_size(root) != 2) {
        BAD("top level is not {vertices, edges}\n");
        json_decref(root);
        return bad;
    }
    size_t k = 0;
    for (int64_t v = 0; v < jg_graph_nvertices(g); v++) {
        jg_vertex_info_t vi;
        jg_graph_vertex(g, v, &vi);
        if (!vi.alive) continue;
        json_t *o = json_array_get(vs, k++);
        const char *name = json_string_value(json_object_get(o, "name"));
        const char *kind = json_string_value(json_object_get(o, "kind"));
        json_t *el = json_object_get(o, "eliminable");
        if (json_integer_value(json_object_get(o, "id")) != v || !name ||
            strcmp(name, jg_graph_vertex_label(g, v)) || !kind || strcmp(kind, kind_name(vi.kind)) ||
            json_integer_value(json_object_get(o, "width")) != vi.width || !json_is_boolean(el) ||
            json_is_true(el) != (vi.eliminable != 0) || json_object_size(o) != 5)
            BAD("vertex %lld differs\n", (long long)v);
        *nel += vi.eliminable != 0;
    }
    if (k != json_array_size(vs)) BAD("%zu vertices written, %zu alive\n", json_array_size(vs), k);
    k = 0;
    for (int64_t e = 0; e < jg_graph_nedges(g); e++) {
        jg_edge_info_t ei;
        jg_graph_edge(g, e, &ei);
        if (!ei.alive) continue;
        json_t *o = json_array_get(es, k++);
        json_t *ri = json_object_get(o, "i"), *cj = json_object_get(o, "j"), *vx = json_object_get(o, "x");
        json_t *id = json_object_get(o, "identity");
        if (!o || json_integer_value(json_object_get(o, "src")) != ei.src ||
            json_integer_value(json_object_get(o, "dst")) != ei.dst ||
            json_integer_value(json_object_get(o, "rows")) != ei.rows ||
            json_integer_value(json_object_get(o, "cols")) != ei.cols || !json_is_boolean(id) ||
            json_is_true(id) != (ei.identity != 0) || json_array_size(ri) != (size_t)ei.nnz ||
            json_array_size(cj) != (size_t)ei.nnz || json_array_size(vx) != (size_t)ei.nnz) {
            BAD("edge %lld: header differs\n", (long long)e);
            continue;
        }
        *nid += ei.identity != 0;
        for (int64_t j = 0, q = 0; j < ei.cols; j++)
            for (; q < ei.p[j + 1]; q++) {
                double x = ei.x ? ei.x[q] : 0;
                if (json_integer_value(json_array_get(ri, (size_t)q)) != ei.i[q] ||
                    json_integer_value(json_array_get(cj, (size_t)q)) != j ||
                    json_number_value(json_array_get(vx, (size_t)q)) != x) {
                    BAD("edge %lld entry %lld differs\n", (long long)e, (long long)q);
                    q = ei.nnz;
                    j = ei.cols;
                }
            }
        /* a connection identity is a square identity matrix */
        if (ei.identity) {
            int isid = ei.rows == ei.cols && ei.nnz == ei.rows;
            for (int64_t j = 0; isid && j < ei.cols; j++) isid = ei.p[j] == j && ei.i[j] == j && ei.x[j] == 1;
            if (!isid) BAD("edge %lld is flagged identity but is not I\n", (long long)e);
        }
    }
    if (k != json_array_size(es)) BAD("%zu edges written, %zu alive\n", json_array_size(es), k);
#undef BAD
    json_decref(root);
    return bad;
}

/* Linearizer for the model text, the graph of reduction r (replayed), the
 * JSON written and compared.  name labels the checks. */
static void check_model(const char *json, const char *name, jg_graph_reduce_t r, const char *dir)
{
    fx_t f;
    const jg_graph_t *g = NULL;
    jg_status_t st = fx_load(&f, json, NULL);
    if (!st) st = jg_lin_graph(f.l, r, &g, &f.err);
    if (st) {
        tap_ok(0, "%s: loads (%s)", name, f.err.msg);
        fx_unload(&f);
        return;
    }
    char path[1200];
    snprintf(path, sizeof path, "%s/g.json", dir);
    st = jg_io_save_graph_json(path, g, &f.err);
    int64_t nid = 0, nel = 0;
    int bad = st ? -1 : compare(g, path, &nid, &nel);
    int64_t nv, ne;
    jg_graph_count(g, &nv, &ne);
    tap_ok(!st && bad == 0, "%s (%s): %lld vertices (%lld eliminable), %lld edges (%lld connection identities) "
           "read back equal to the graph API", name, jg_graph_reduce_name(r), (long long)nv, (long long)nel,
           (long long)ne, (long long)nid);
    remove(path);
    fx_unload(&f);
}

int main(void)
{
    char dir[1024];
    if (!tl_tmpdir(dir, sizeof dir, "jg_graph_json")) {
        tap_ok(0, "scratch directory");
        return tap_done();
    }
    char *f14 = tl_slurp("graphs/f14.json", NULL);
    tap_ok(f14 != NULL, "graphs/f14.json read");
    if (f14) {
        check_model(f14, "f14", JG_GRAPH_REDUCE_NONE, dir);
        check_model(f14, "f14", JG_GRAPH_REDUCE_MARKOWITZ, dir);
    }
    free(f14);
    for (int kind = JG_GEN_AEROSPACE; kind <= JG_GEN_POWER; kind++) {
        jg_gen_opts_t o;
        jg_gen_opts_default(&o, (jg_gen_kind_t)kind, 400, 3);
        char *text = NULL;
        jg_error_t err;
        if (jg_gen_model(&o, &text, NULL, NULL, &err)) {
            tap_ok(0, "generate %s (%s)", jg_gen_kind_name((jg_gen_kind_t)kind), err.msg);
            continue;
        }
        check_model(text, jg_gen_kind_name((jg_gen_kind_t)kind), JG_GRAPH_REDUCE_NONE, dir);
        check_model(text, jg_gen_kind_name((jg_gen_kind_t)kind), JG_GRAPH_REDUCE_FULL, dir);
        free(text);
    }
    for (uint64_t seed = 1; seed <= 5; seed++) {
        jg_gen_random_opts_t o;
        jg_gen_random_defaults(&o, seed, 40);
        char *text = fx_gen_text(&o, NULL);
        char name[64];
        snprintf(name, sizeof name, "random diagram %llu", (unsigned long long)seed);
        if (text) check_model(text, name, JG_GRAPH_REDUCE_NONE, dir);
        free(text);
    }
    /* bad arguments and paths */
    jg_error_t err;
    jg_error_clear(&err);
    tap_ok(jg_io_write_graph_json(NULL, NULL, &err) == JG_ARG, "NULL file and graph: JG_ARG");
    fx_t f;
    const jg_graph_t *g = NULL;
    if (!fx_load(&f, tl_vdp, NULL) && !jg_lin_graph(f.l, JG_GRAPH_REDUCE_NONE, &g, &f.err)) {
        char path[1200];
        snprintf(path, sizeof path, "%s/no/such/dir/g.json", dir);
        jg_status_t st = jg_io_save_graph_json(path, g, &err);
        tap_ok(st == JG_IO && strstr(err.msg, path) != NULL, "an unwritable path: JG_IO naming it (%s)", err.msg);
        tap_ok(jg_io_save_graph_json(NULL, g, &err) == JG_ARG, "NULL path: JG_ARG");
    } else {
        tap_ok(0, "the van der Pol fixture loads");
    }
    fx_unload(&f);
    tl_rmtree(dir);
    return tap_done();
}
