/* The live part of a Jacobian graph as Graphviz dot (cgraph) and SVG (gvc,
 * layout "dot"), shaped like the paper's figures. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gvc.h>
#include "jacgraph/io.h"
#include "io_impl.h"

/* cgraph 2.42 takes char * everywhere but copies what it keeps (agstrdup). */
static int set(void *obj, const char *name, const char *value, const char *def)
{
    return agsafeset(obj, (char *)name, (char *)value, (char *)def);
}

/* dot reads backslashes in labels as escapes (\n, \N, \G ...): double them.
 * A newline (Simulink block names have them) becomes dot's \n line break, so
 * the label reads as the block does in Simulink; a carriage return is dropped.
 * Returns s itself when there is nothing to escape, NULL when out of memory. */
static char *escape(const char *s)
{
    size_t n = 0;
    for (const char *c = s; *c; c++) n += *c == '\\' || *c == '\n' || *c == '\r';
    if (!n) return (char *)s;
    char *r = malloc(strlen(s) + n + 1), *o = r;
    if (!r) return NULL;
    for (const char *c = s; *c; c++) {
        if (*c == '\r') continue;
        if (*c == '\\' || *c == '\n') *o++ = '\\';
        *o++ = *c == '\n' ? 'n' : *c;
    }
    *o = '\0';
    return r;
}

static int set_label(void *obj, const char *text)
{
    char *e = escape(text);
    if (!e) return -1;
    int r = set(obj, "label", e, "");
    if (e != text) free(e);
    return r;
}

static void edge_label(char buf[64], const jg_edge_info_t *e)
{
    if (e->rows != 1 || e->cols != 1)
        snprintf(buf, 64, "%lldx%lld", (long long)e->rows, (long long)e->cols);
    else if (e->nnz == 0 || (e->x && e->x[0] == 0))
        snprintf(buf, 64, "0");
    else if (!e->x)
        snprintf(buf, 64, "\xc2\xb7");   /* U+00B7: structurally nonzero, no value yet */
    else
        snprintf(buf, 64, "%.4g", e->x[0]);
}

/* Graphviz reports through agerr; messages are kept off stderr (the library
 * never prints) and read back here for the error. */
static jg_status_t gv_error(jg_error_t *err, const char *path, const char *what)
{
    char *m = aglasterr();
    size_t n = m ? strlen(m) : 0;
    while (n && (m[n - 1] == '\n' || m[n - 1] == ' ')) m[--n] = '\0';
    jg_status_t st = jg_error_set(err, JG_IO, "%s: %s%s%s", path, what, n ? ": " : "",
                                  n ? m : "");
    free(m);
    return st;
}

static jg_status_t build(const jg_graph_t *g, const char *title, Agraph_t *G, Agnode_t **node,
                         jg_error_t *err)
{
    char name[32], lab[64];
    int bad = set(G, "rankdir", "LR", "") || (title && set_label(G, title));
    int64_t nv = jg_graph_nvertices(g), ne = jg_graph_nedges(g);
    for (int64_t v = 0; v < nv && !bad; v++) {
        jg_vertex_info_t vi;
        jg_graph_vertex(g, v, &vi);
        if (!vi.alive) continue;
        snprintf(name, sizeof name, "v%lld", (long long)v);
        const char *shape = "box", *style = "";
        if (vi.kind == JG_V_STATE) shape = "circle";
        else if (vi.kind == JG_V_LIN_IN || vi.kind == JG_V_LIN_OUT) {
            shape = "ellipse";
            style = "dashed";
        }
        const char *text = jg_graph_vertex_label(g, v);
        Agnode_t *n = node[v] = agnode(G, name, 1);
        bad = !n || set_label(n, text ? text : name) || set(n, "shape", shape, "ellipse")
              || set(n, "style", style, "");
    }
    for (int64_t e = 0; e < ne && !bad; e++) {
        jg_edge_info_t ei;
        jg_graph_edge(g, e, &ei);
        if (!ei.alive || ei.src < 0 || ei.src >= nv || ei.dst < 0 || ei.dst >= nv
            || !node[ei.src] || !node[ei.dst])
            continue;
        Agedge_t *a = agedge(G, node[ei.src], node[ei.dst], NULL, 1);
        edge_label(lab, &ei);
        bad = !a || set(a, "label", lab, "");
    }
    return bad ? jg_error_set(err, JG_NOMEM, "graph output: out of memory") : JG_OK;
}

/* One Graphviz context for the process, created on first use and never
 * freed: the pango plugin of Graphviz 2.42 keeps a static pointer to a font
 * name owned by the context (pango_textlayout), so text layout under a second
 * context reads freed memory.  Graphviz is not thread-safe in any case. */
static GVC_t *context(void)
{
    static GVC_t *gvc;
    if (!gvc) gvc = gvContext();
    return gvc;
}

jg_status_t jg_io_write_graph(const jg_graph_t *g, const char *title, const char *dot_path,
                           const char *svg_path, jg_error_t *err)
{
    if (!g) return jg_error_set(err, JG_ARG, "graph output: no graph");
    if (!dot_path && !svg_path) return JG_OK;

    jg_status_t st = JG_OK;
    agerrlevel_t level = agseterr(AGMAX);   /* restored below: the setting is global */
    int64_t nv = jg_graph_nvertices(g);
    Agnode_t **node = calloc(nv > 0 ? (size_t)nv : 1, sizeof *node);
    GVC_t *gvc = NULL;
    Agraph_t *G = NULL;
    int laid = 0;
    if (!node) {
        st = jg_error_set(err, JG_NOMEM, "graph output: out of memory");
        goto done;
    }
    /* the context first: gvc expects to see graphs created after it */
    if (svg_path && !(gvc = context())) {
        st = jg_error_set(err, JG_NOMEM, "graph output: cannot create a Graphviz context");
        goto done;
    }
    if (!(G = agopen((char *)"jacgraph", Agdirected, NULL))) {
        st = jg_error_set(err, JG_NOMEM, "graph output: out of memory");
        goto done;
    }
    if ((st = build(g, title, G, node, err))) goto done;

    /* dot before layout, so the file holds the graph and not positions */
    if (dot_path) {
        FILE *f = fopen(dot_path, "w");
        if (!f) {
            st = jg_error_set(err, JG_IO, "%s: cannot write: %s", dot_path, strerror(errno));
            goto done;
        }
        if ((st = jg__io_close(f, agwrite(G, f) != 0, dot_path, err))) goto done;
    }
    if (svg_path) {
        /* rendered to memory and written here: Graphviz 2.42 calls exit(1)
         * when a write to its own output file fails (gvwrite) */
        char *svg = NULL;
        unsigned int len = 0;
        FILE *f = fopen(svg_path, "w");   /* first: no layout for an unwritable path */
        if (!f) {
            st = jg_error_set(err, JG_IO, "%s: cannot write: %s", svg_path, strerror(errno));
            goto done;
        }
        int rc = gvLayout(gvc, G, "dot");
        laid = !rc;
        if (!rc) rc = gvRenderData(gvc, G, "svg", &svg, &len) || !svg;
        if (rc) {
            fclose(f);
            jg__io_discard(svg_path);
            gvFreeRenderData(svg);
            st = gv_error(err, svg_path,
                          laid ? "Graphviz cannot render SVG" : "Graphviz layout failed");
            goto done;
        }
        st = jg__io_close(f, fwrite(svg, 1, len, f) != len, svg_path, err);
        gvFreeRenderData(svg);
    }
done:
    if (laid) gvFreeLayout(gvc, G);
    if (G) agclose(G);
    free(node);
    agseterr(level);
    return st;
}
