/* The Jacobian graph as JSON: vertices with kind, width and eliminability, edges with their pattern and values. */
#include <math.h>
#include <stdio.h>
#include "jacgraph/io.h"
#include "io_impl.h"
#include "../core/jsonstr.h"

static const char *kind_name(jg_vkind_t k)
{
    switch (k) {
    case JG_V_STATE: return "state";
    case JG_V_INPUT: return "input";
    case JG_V_OUTPUT: return "output";
    default: return "io";   /* linearization input and output points */
    }
}

/* JSON has no inf or nan: null keeps the file readable. */
static void put_real(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.17g", v);
    else
        fputs("null", f);
}

jg_status_t jg_io_write_graph_json(FILE *f, const jg_graph_t *g, jg_error_t *err)
{
    if (!f || !g) return jg_error_set(err, JG_ARG, "graph JSON: no file or no graph");
    int64_t nv = jg_graph_nvertices(g), ne = jg_graph_nedges(g);
    fputs("{\"vertices\": [", f);
    int first = 1;
    for (int64_t v = 0; v < nv; v++) {
        jg_vertex_info_t vi;
        jg_graph_vertex(g, v, &vi);
        if (!vi.alive) continue;
        fprintf(f, "%s\n  {\"id\": %lld, \"name\": ", first ? "" : ",", (long long)v);
        jg__json_put_string(f, jg_graph_vertex_label(g, v));
        fprintf(f, ", \"kind\": \"%s\", \"width\": %lld, \"eliminable\": %s}", kind_name(vi.kind),
                (long long)vi.width, vi.eliminable ? "true" : "false");
        first = 0;
    }
    fputs("\n],\n\"edges\": [", f);
    first = 1;
    for (int64_t e = 0; e < ne; e++) {
        jg_edge_info_t ei;
        jg_graph_edge(g, e, &ei);
        if (!ei.alive) continue;
        fprintf(f, "%s\n  {\"src\": %lld, \"dst\": %lld, \"rows\": %lld, \"cols\": %lld, \"identity\": %s, \"i\": [",
                first ? "" : ",", (long long)ei.src, (long long)ei.dst, (long long)ei.rows,
                (long long)ei.cols, ei.identity ? "true" : "false");
        first = 0;
        for (int64_t q = 0; q < ei.nnz; q++) fprintf(f, "%s%lld", q ? ", " : "", (long long)ei.i[q]);
        fputs("], \"j\": [", f);
        for (int64_t j = 0, q = 0; j < ei.cols; j++)
            for (; q < ei.p[j + 1]; q++) fprintf(f, "%s%lld", q ? ", " : "", (long long)j);
        fputs("], \"x\": [", f);
        for (int64_t q = 0; q < ei.nnz; q++) {
            if (q) fputs(", ", f);
            put_real(f, ei.x ? ei.x[q] : 0.0);
        }
        fputs("]}", f);
    }
    fputs("\n]}\n", f);
    if (ferror(f)) return jg_error_set(err, JG_IO, "graph JSON: write failed");
    return JG_OK;
}

jg_status_t jg_io_save_graph_json(const char *path, const jg_graph_t *g, jg_error_t *err)
{
    if (!path || !g) return jg_error_set(err, JG_ARG, "graph JSON: no file or no graph");
    FILE *f = fopen(path, "w");
    if (!f) return jg_error_set(err, JG_IO, "%s: cannot write", path);
    jg_status_t st = jg_io_write_graph_json(f, g, err);
    return jg__io_close(f, st != JG_OK, path, err);
}
