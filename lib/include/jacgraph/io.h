/* jacgraph/io.h -- writers: linear models as text, JSON and Matrix Market;
 * Jacobian graphs as Graphviz dot (cgraph) and SVG (gvc); models as Simulink
 * files (MDL, SLX). */
#ifndef JACGRAPH_IO_H
#define JACGRAPH_IO_H
#include "jacgraph/export.h"
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
JG_API jg_status_t jg_write_linsys_text(FILE *f, const jg_linsys_t *s, int digits, jg_error_t *err);

/* {"states": [...], "inputs": [...], "outputs": [...], "t": T, "A": M, ...}
 * with M = {"rows": r, "cols": c, "i": [...], "j": [...], "x": [...]}
 * (0-based triplets, column-major order, values with 17 significant digits). */
JG_API jg_status_t jg_write_linsys_json(FILE *f, const jg_linsys_t *s, jg_error_t *err);

/* PREFIX_A.mtx ... PREFIX_D.mtx (coordinate real general) and PREFIX_names.txt
 * (sections "states", "inputs", "outputs", one name per line). */
JG_API jg_status_t jg_write_linsys_mm(const char *prefix, const jg_linsys_t *s, jg_error_t *err);

/* The graph in Graphviz dot through cgraph: states as circles, algebraic
 * vertices as boxes, I/O points as plain ellipses/diamonds; edge labels are
 * the value for 1x1 edges and "rxc" otherwise.  Only live vertices and edges
 * are drawn.  dot_path or svg_path may be NULL; SVG is rendered with gvc
 * (layout "dot").  Errors: JG_IO naming the file. */
JG_API jg_status_t jg_write_graph(const jg_graph_t *g, const char *title, const char *dot_path,
                                  const char *svg_path, jg_error_t *err);

/* Simulink file encodings written by jg_io_write_simulink. */
typedef enum {
    JG_SL_WRITE_MDL = 1,  /* classic MDL text, Simulink 8.1 (R2013a) layout */
    JG_SL_WRITE_SLX = 2   /* SLX zip package, R2019b layout (systems inline in
                             simulink/blockdiagram.xml, defaults in bddefaults.xml) */
} jg_sl_write_format_t;

/* Convert a jacgraph JSON model (docs/model-format.md; `json_text`, `len`
 * bytes, need not be NUL-terminated) into a Simulink file at `path`, in
 * `format` (a jg_sl_write_format_t).  Block types map to Simulink BlockTypes
 * (SineWave -> Sin, Saturation -> Saturate, Sign -> Signum, IC ->
 * InitialCondition, HitCrossing -> HitCross, Lookup1D/Lookup2D -> Lookup_n-D);
 * parameters become MATLAB text (numbers with the fewest digits that read
 * back exactly, matrices as "[1 2;3 4]", strings as they are), and every
 * parameter whose jacgraph default differs from Simulink's built-in default
 * is written out, so the file means the same model.  The root "parameters"
 * become MATLAB assignments in the model's InitFcn; a SubSystem's
 * "parameters" become its mask (MDL: MaskVariables/MaskValueString; SLX: a
 * Simulink.Mask object with Simulink.MaskParameter entries).  Lines from one
 * output port are merged into one Simulink Line with a Branch per reader.
 * The model name is the file name without its extension.
 * Errors: JG_PARSE (not JSON), JG_MODEL (structure, a block type with no
 * Simulink BlockType -- Ramp, PulseGenerator, plugin types -- or a name with
 * control characters), JG_ARG (bad format), JG_IO (naming the file).
 * Cost: linear in the model size; the output is streamed (SLX: through a
 * temporary file), so memory is the parsed JSON plus one system's index. */
JG_API jg_status_t jg_io_write_simulink(const char *json_text, size_t len, int format, const char *path,
                                        jg_error_t *err);

#ifdef __cplusplus
}
#endif
#endif
