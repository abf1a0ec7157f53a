/* jacgraph/io.h -- writers: linear models as text, JSON and Matrix Market;
 * Jacobian graphs as Graphviz dot (cgraph) and SVG (gvc); models as Simulink
 * files (MDL, SLX); simulation trajectories as CSV and operating points as
 * JSON; solver Jacobians as text, JSON, Matrix Market and an SVG spy plot. */
#ifndef JACGRAPH_IO_H
#define JACGRAPH_IO_H
#include "jacgraph/export.h"
#include <stdio.h>
#include "jacgraph/linearize.h"
#include "jacgraph/graph.h"
#include "jacgraph/simulate.h"
#include "jacgraph/solverjac.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Human-readable A, B, C, D with state/input/output names as row and column
 * labels (MATLAB ss style); wide matrices are split into column chunks and
 * large sparse ones listed as (row, column) value.  %.6g-like significant
 * digits: `digits` (<= 0: 6). */
JG_API jg_status_t jg_io_write_linsys_text(FILE *f, const jg_lin_sys_t *s, int digits, jg_error_t *err);

/* {"states": [...], "inputs": [...], "outputs": [...], "t": T, "A": M, ...}
 * with M = {"rows": r, "cols": c, "i": [...], "j": [...], "x": [...]}
 * (0-based triplets, column-major order, values with 17 significant digits). */
JG_API jg_status_t jg_io_write_linsys_json(FILE *f, const jg_lin_sys_t *s, jg_error_t *err);

/* PREFIX_A.mtx ... PREFIX_D.mtx (coordinate real general) and PREFIX_names.txt
 * (sections "states", "inputs", "outputs", one name per line). */
JG_API jg_status_t jg_io_write_linsys_mm(const char *prefix, const jg_lin_sys_t *s, jg_error_t *err);

/* The graph in Graphviz dot through cgraph: states as circles, algebraic
 * vertices as boxes, I/O points as plain ellipses/diamonds; edge labels are
 * the value for 1x1 edges and "rxc" otherwise.  Only live vertices and edges
 * are drawn.  dot_path or svg_path may be NULL; SVG is rendered with gvc
 * (layout "dot").  Errors: JG_IO naming the file. */
JG_API jg_status_t jg_io_write_graph(const jg_graph_t *g, const char *title, const char *dot_path,
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

/* ---- simulation output */

/* The CSV header line: "time", the state names (jg_program_state_name), then
 * the logged signal names of s (jg_sim_logged_name; s may be NULL: none),
 * comma-separated; a name holding a comma, a quote or a line break is quoted
 * with its quotes doubled (RFC 4180).  Stream errors are left on f (check
 * ferror/fclose as for fprintf).  Cost: linear in the names' length. */
JG_API void jg_io_write_csv_header(FILE *f, const jg_program_t *p, const jg_sim_t *s);

/* One CSV row matching jg_io_write_csv_header: t, then x[0..nx), then
 * sig[0..nlog) with 12 significant digits (%.12g) -- the arguments of a
 * jg_sim_log_fn.  Stream errors are left on f.  Cost: O(nx + nlog). */
JG_API void jg_io_write_csv_row(FILE *f, double t, int64_t nx, const double *x, int64_t nlog,
                                const double *sig);

/* An operating point file at path, {"t": T, "states": {"NAME": VALUE, ...}},
 * one state of p per line, names escaped as JSON strings (control characters
 * included), values with 17 significant digits so that jg_lin_read_op reads
 * back exactly x[0..jg_program_nstates(p)) at time t.  Errors: JG_ARG (NULL
 * argument), JG_IO naming the file (cannot open; write failed: the partial
 * file is removed when it is a regular file).  Cost: O(nstates). */
JG_API jg_status_t jg_io_write_op(const char *path, const jg_program_t *p, double t, const double *x,
                                  jg_error_t *err);

/* ---- solver Jacobian (jacgraph/solverjac.h) */

typedef enum {
    JG_IO_JAC_TEXT = 1,   /* report: model, method and reason, pattern size,
                             colors, f evaluations per Jacobian, then J_x as a
                             table with state names (up to 12 states) or as
                             "(row, column) value" lines of the nonzeros */
    JG_IO_JAC_JSON = 2,   /* {"model", "t", "states", "requested", "method",
                             "reason", "n", "pattern_nnz", "max_row_nnz",
                             "colors", "fevals_per_jacobian", "pattern": {i, j},
                             "color", "J": {rows, cols, i, j, x}} (0-based) */
    JG_IO_JAC_MM = 3      /* Matrix Market coordinate real general of the
                             nonzeros of J_x, the model, time, method and one
                             "% state K: NAME" line per state in comments
                             (control characters in names become spaces) */
} jg_io_jac_format_t;

/* J_x of sj (J from jg_solverjac_alloc, filled by jg_solverjac_eval at time t) with its
 * pattern and coloring, to f in `format`, state names from p.  `requested` is
 * the method name asked for (JSON only; may be NULL).  Nothing is retained.
 * Errors: JG_ARG (NULL argument, J not n x n compressed-column, unknown
 * format), JG_NOMEM ("out of memory writing JSON"; text: the dense table);
 * stream errors are left on f.  Cost: O(nnz) (text with n <= 12: O(n^2)
 * time and memory). */
JG_API jg_status_t jg_io_write_jacobian(FILE *f, jg_io_jac_format_t format, const jg_program_t *p,
                                        const jg_solverjac_t *sj, const cs_dl *J, const char *requested,
                                        double t, jg_error_t *err);

/* A spy plot of sj's structural pattern at path (SVG): one square per entry,
 * black where J (as for jg_io_write_jacobian, rows sorted in each column) is
 * nonzero, grey for a structural zero; state names as labels up to 40
 * states.  Errors: JG_ARG, JG_IO naming the file (a partial regular file is
 * removed).  Cost: O(nnz log n). */
JG_API jg_status_t jg_io_write_jacobian_svg(const char *path, const jg_program_t *p,
                                            const jg_solverjac_t *sj, const cs_dl *J, double t,
                                            jg_error_t *err);

#ifdef __cplusplus
}
#endif
#endif
