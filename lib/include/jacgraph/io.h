/* jacgraph/io.h -- writers: linear models as text, JSON and Matrix Market;
 * Jacobian graphs as Graphviz dot (cgraph) and SVG (gvc). */
#ifndef JACGRAPH_IO_H
#define JACGRAPH_IO_H
#include <stdio.h>
#include "jacgraph/linearize.h"
#include "jacgraph/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Human-readable A, B, C, D with state/input/output names as row and column
 * labels (MATLAB ss style); wide matrices are split into column chunks and
 * large sparse ones listed as (row, column) value.  %.6g-like significant
 * digits: `digits` (<= 0: 6). */
jg_status_t jg_write_linsys_text(FILE *f, const jg_linsys_t *s, int digits, jg_error_t *err);

/* {"states": [...], "inputs": [...], "outputs": [...], "t": T, "A": M, ...}
 * with M = {"rows": r, "cols": c, "i": [...], "j": [...], "x": [...]}
 * (0-based triplets, column-major order, values with 17 significant digits). */
jg_status_t jg_write_linsys_json(FILE *f, const jg_linsys_t *s, jg_error_t *err);

/* PREFIX_A.mtx ... PREFIX_D.mtx (coordinate real general) and PREFIX_names.txt
 * (sections "states", "inputs", "outputs", one name per line). */
jg_status_t jg_write_linsys_mm(const char *prefix, const jg_linsys_t *s, jg_error_t *err);

/* The graph in Graphviz dot through cgraph: states as circles, algebraic
 * vertices as boxes, I/O points as plain ellipses/diamonds; edge labels are
 * the value for 1x1 edges and "rxc" otherwise.  Only live vertices and edges
 * are drawn.  dot_path or svg_path may be NULL; SVG is rendered with gvc
 * (layout "dot").  Errors: JG_IO naming the file. */
jg_status_t jg_write_graph(const jg_graph_t *g, const char *title, const char *dot_path,
                           const char *svg_path, jg_error_t *err);

#ifdef __cplusplus
}
#endif
#endif
