/* jacgraph/io.h -- writers: linear models as text, JSON and Matrix Market;
 * Jacobian graphs as Graphviz dot (cgraph) and SVG (gvc); models as Simulink
 * files (MDL, SLX); simulation trajectories as CSV and operating points as
 * JSON; solver Jacobians as text, JSON, Matrix Market and an SVG spy plot;
 * batch results (many linear models) as JSON Lines, MAT-file v7.3 and HDF5.
 * One reader: sparsing masks (JSON or Matrix Market). */
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
 * (0-based triplets, column-major order, values with 17 significant digits;
 * inf and nan as null).  Errors: JG_ARG (no file or model, a matrix of the
 * wrong shape, bad delays, a name that is not UTF-8; nothing written),
 * JG_IO (write failed), JG_NOMEM.  Cost: O(names + nnz), streamed through a
 * 64 KiB buffer (plus a sorted copy of a matrix that is not canonical). */
JG_API jg_status_t jg_io_write_linsys_json(FILE *f, const jg_lin_sys_t *s, jg_error_t *err);

/* PREFIX_A.mtx ... PREFIX_D.mtx (coordinate real general) and PREFIX_names.txt
 * (sections "states", "inputs", "outputs", one name per line).  A matrix of
 * 32,768 entries or more is formatted on up to 4 threads (the cores of the
 * process's CPU affinity); the bytes do not depend on it. */
JG_API jg_status_t jg_io_write_linsys_mm(const char *prefix, const jg_lin_sys_t *s, jg_error_t *err);
/* The same on at most `threads` threads, the caller's included (1: none
 * started; 0 or less: as jg_io_write_linsys_mm). */
JG_API jg_status_t jg_io_write_linsys_mm_threads(const char *prefix, const jg_lin_sys_t *s, int threads,
                                                 jg_error_t *err);

/* ---- exports where engineers work: MATLAB/Octave, MAT-files, Python */

/* Dense or sparse matrices in the exports. */
typedef enum {
    JG_IO_SPARSE_AUTO = 0,    /* sparse when a matrix has more than
                                 JG_IO_SPARSE_MIN_ELEMS elements (beyond 100 x 100)
                                 and at most JG_IO_SPARSE_MAX_DENSITY of them
                                 nonzero; dense otherwise */
    JG_IO_SPARSE_NEVER = 1,
    JG_IO_SPARSE_ALWAYS = 2
} jg_io_sparse_t;
#define JG_IO_SPARSE_MIN_ELEMS 10000
#define JG_IO_SPARSE_MAX_DENSITY 0.1

typedef struct jg_io_export_opts {
    jg_io_sparse_t sparse;
    const char *suffix;       /* appended to every variable name (NULL: none):
                                 letters, digits, '_', e.g. "_t2" for a snapshot */
    const char *model;        /* model name for the header comment (NULL: none) */
} jg_io_export_opts_t;

/* A MATLAB/Octave script (UTF-8) that sets A, B, C, D (dense literals, or
 * sparse(i, j, v, m, n) with 1-based triplets), Ts (0: continuous time),
 * StateName, InputName, OutputName (column cell arrays of char) and
 *   sys = ss(A, B, C, D, Ts, 'StateName', StateName, 'InputName', ...
 *            InputName, 'OutputName', OutputName);
 * (with full(A)... when sparse: ss keeps dense matrices); every name gets
 * o->suffix.  Names are char literals with quotes doubled; control
 * characters (a newline in a Simulink name) are spliced in as char(N).
 * Values with 17 significant digits; Inf, -Inf, NaN as such.  o may be NULL
 * (automatic sparsity, no suffix).  Errors: JG_ARG (NULL argument, a matrix
 * of the wrong shape, a name that is not UTF-8, a bad suffix), JG_NOMEM,
 * JG_IO (write failed).  Cost: O(nnz) sparse, O(m n) dense. */
JG_API jg_status_t jg_io_write_linsys_m(FILE *f, const jg_lin_sys_t *s, const jg_io_export_opts_t *o,
                                        jg_error_t *err);

/* A Python 3 script (UTF-8) that sets A, B, C, D (numpy.ndarray, or
 * scipy.sparse.csc_matrix from 0-based triplets), Ts, state_names,
 * input_names, output_names (lists of str) and sys: control.ss(A, B, C, D,
 * Ts, states=..., inputs=..., outputs=...) (dense) when python-control
 * imports, None otherwise; every name gets o->suffix.  Names are str
 * literals with backslash escapes for quotes, backslashes and control
 * characters.  Otherwise as jg_io_write_linsys_m. */
JG_API jg_status_t jg_io_write_linsys_py(FILE *f, const jg_lin_sys_t *s, const jg_io_export_opts_t *o,
                                         jg_error_t *err);

/* A MAT-file (level 5, uncompressed, through libmatio) at path with the
 * doubles A, B, C, D (sparse variables under the rule of o->sparse), Ts and
 * the column cell arrays of char StateName, InputName, OutputName (UTF-8
 * text, miUTF8, as scipy.io.savemat writes them), all with o->suffix; readable by MATLAB, Octave and
 * scipy.io.loadmat.  append 0 creates (replaces) the file, 1 adds to a
 * MAT-file written before (a snapshot series).  Errors: as
 * jg_io_write_linsys_m, JG_IO naming the file (a file it created is removed
 * on failure), JG_ARG (a matrix beyond the format's 2^31-byte elements).
 * matio reports its own failures on stderr as well.  Cost: O(nnz)
 * sparse, O(m n) dense. */
JG_API jg_status_t jg_io_write_linsys_mat(const char *path, const jg_lin_sys_t *s,
                                          const jg_io_export_opts_t *o, int append, jg_error_t *err);

/* The graph in Graphviz dot through cgraph: states as circles, algebraic
 * vertices as boxes, I/O points as plain ellipses/diamonds; edge labels are
 * the value for 1x1 edges and "rxc" otherwise.  Only live vertices and edges
 * are drawn.  dot_path or svg_path may be NULL; SVG is rendered with gvc
 * (layout "dot").  Errors: JG_IO naming the file. */
JG_API jg_status_t jg_io_write_graph(const jg_graph_t *g, const char *title, const char *dot_path,
                                  const char *svg_path, jg_error_t *err);

/* The graph as JSON (docs/strategies.md), live vertices and edges only:
 *   {"vertices": [{"id", "name", "kind": "state"|"input"|"output"|"io",
 *                  "width", "eliminable": bool}, ...],
 *    "edges": [{"src", "dst", "rows", "cols", "identity": bool,
 *               "i": [...], "j": [...], "x": [...]}, ...]}
 * ids are the graph's vertex ids (what an elimination order file names);
 * i, j are 0-based row and column indices of each edge matrix's entries in
 * column-major order and x their values of the last replay (17 significant
 * digits; null for a non-finite value; 0 before any replay).  "eliminable"
 * and "identity" are jg_vertex_info_t.eliminable and jg_edge_info_t.identity
 * (a connection identity: the cost model charges no multiplication for a
 * product with it).  One vertex or edge per line.
 * Errors: JG_ARG (NULL argument), JG_IO (write failed).  Cost: O(V + E + nnz). */
JG_API jg_status_t jg_io_write_graph_json(FILE *f, const jg_graph_t *g, jg_error_t *err);
/* The same into the file at path (created or truncated; a partial regular
 * file is removed on failure).  Errors: JG_IO naming the file. */
JG_API jg_status_t jg_io_save_graph_json(const char *path, const jg_graph_t *g, jg_error_t *err);

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

/* ---- batch results (`jacgraph batch --out`): many linear models of one
 * program, one per operating point or parameter set, in point order */

typedef enum {
    JG_IO_BATCH_JSONL = 0,   /* JSON Lines: a first line {"states": [...], "inputs":
                                [...], "outputs": [...]} (plus "Ts" when discrete), then
                                one line per point k in order: {"index": k, "ok": true,
                                "A": M, "B": M, "C": M, "D": M} with M the triplets of
                                jg_io_write_linsys_json (and "InternalDelay" with exact
                                delays), or {"index": k, "ok": false, "error": "..."} */
    JG_IO_BATCH_MAT = 1,     /* MAT-file v7.3 (HDF5 inside) through libmatio */
    JG_IO_BATCH_H5 = 2       /* plain HDF5 through libhdf5, the MAT-file's variables */
} jg_io_batch_format_t;

/* Matrices with at most this many elements (100 x 100) may be stored dense
 * in the MAT and HDF5 batch files, as one N-dimensional array over the
 * points; larger ones are always sparse: each distinct pattern once, the
 * values per point (docs/batch.md, "Output files"). */
#define JG_IO_BATCH_DENSE_MAX 10000

/* How A, B, C, D are stored in the MAT and HDF5 batch files (JSON Lines
 * ignores it). */
typedef enum {
    JG_IO_BATCH_AUTO = 0,    /* per matrix: dense when it has at most
                                JG_IO_BATCH_DENSE_MAX elements and the first
                                model's one has nonzeros in at least a quarter of
                                them, sparse otherwise */
    JG_IO_BATCH_DENSE = 1,   /* every matrix dense (refused for a larger one) */
    JG_IO_BATCH_SPARSE = 2   /* every matrix sparse */
} jg_io_batch_layout_t;

typedef struct jg_io_batch jg_io_batch_t;

/* The format for an output path from its extension: ".jsonl" (also
 * ".ndjson"), ".mat", ".h5" (also ".hdf5"), case-insensitive.  0 ok, -1 for
 * any other name. */
JG_API int jg_io_batch_format_parse(const char *path, jg_io_batch_format_t *f);

/* Start a batch file of npoints (>= 0) results at path in format f.  Each
 * point carries nvals values named val_names[0..nvals) (copied; e.g. "t",
 * state, input and parameter names), stored with the results (MAT, HDF5).
 * The file is written under a temporary name beside path (PATH.partXXXXXX)
 * and renamed into place only by jg_io_batch_close with commit = 1 (through
 * a symbolic link: the file it names, the link kept); a JSONL path that is
 * not a regular file (a pipe, a device) or lies under /dev or /proc
 * (/dev/stdout) is written directly.
 * *w is freed by jg_io_batch_close.  Errors: JG_ARG (NULL argument,
 * negative counts, unknown format, a MAT or HDF5 path that is not a regular
 * file), JG_IO naming the file (cannot create; matio without HDF5 support),
 * JG_NOMEM.  Cost: O(npoints + nvals) memory for the point table. */
JG_API jg_status_t jg_io_batch_open(const char *path, jg_io_batch_format_t f, int64_t npoints, int nvals,
                                    const char *const *val_names, jg_io_batch_t **w, jg_error_t *err);

/* Choose the layout of w's matrices (default JG_IO_BATCH_AUTO), before the
 * first jg_io_batch_put.  JG_IO_BATCH_DENSE is checked against the first
 * model: a matrix above JG_IO_BATCH_DENSE_MAX elements makes that put fail
 * with JG_ARG.  Errors: JG_ARG (no writer, unknown layout, points already
 * put).  Cost: O(1). */
JG_API jg_status_t jg_io_batch_set_layout(jg_io_batch_t *w, jg_io_batch_layout_t layout, jg_error_t *err);

/* Add point k's result: vals[0..nvals) its values (may be NULL when nvals
 * is 0), sys its linear model, or sys NULL and error the reason it failed
 * (NULL: "failed").  Points come in ascending k; a skipped k counts as
 * missing and makes a commit fail.  The first model fixes the names and
 * sizes (and dense or sparse storage: jg_io_batch_layout_t); a later one of
 * other sizes is refused.  Nothing of vals, sys or error is retained.
 * Errors: JG_ARG (k out of order or range, sizes changed, bad matrices,
 * names not UTF-8, a matrix too large for JG_IO_BATCH_DENSE),
 * JG_IO (write failed), JG_NOMEM; after an error the writer only accepts
 * jg_io_batch_close.  Cost: O(nnz) per point (a point whose pattern is not
 * the previous point's also hashes it), plus the point's bytes; the MAT and
 * HDF5 writers hold up to 64 Ki values or one dense chunk in memory, plus
 * each distinct sparsity pattern (written at the close). */
JG_API jg_status_t jg_io_batch_put(jg_io_batch_t *w, int64_t k, const double *vals,
                                   const jg_lin_sys_t *sys, const char *error, jg_error_t *err);

/* Finish and free w (NULL: nothing).  commit = 1: write the point table
 * (values, ok flags, error texts, names), flush, sync and rename the file
 * into place; refused (JG_ARG, naming the first missing point) unless every
 * point 0..npoints-1 was put, and after a failed put.  commit = 0, or any
 * failure: the temporary file is removed and path left as it was.  Errors:
 * JG_ARG, JG_IO naming the file, JG_NOMEM.  Cost: O(npoints). */
JG_API jg_status_t jg_io_batch_close(jg_io_batch_t *w, int commit, jg_error_t *err);

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

/* ---- sparsing masks (jacgraph/sparsing.h; `simulate --sparsing-mask`,
 * `jacgraph sparsing`) */

/* Read the entries of p's solver Jacobian J_x to drop from the file at path:
 *   JSON          {"drop": [[ROW, COL], ...]}, each ROW and COL a 0-based
 *                 state index or a state name (jg_program_state_name, e.g.
 *                 "Canning/TC(3)"); other members of the object are ignored;
 *   Matrix Market "%%MatrixMarket matrix coordinate pattern|real|integer
 *                 general", n x n (n = the states), every listed entry
 *                 (1-based, values ignored) dropped.
 * The format is told by the content ('{' or the Matrix Market banner).
 * *pairs receives 2 * *npairs indices (row, column, row, column, ...), 0-based,
 * in the file's order, duplicates kept (malloc'd, the caller frees; NULL when
 * the list is empty or on failure).  Whether an entry lies in J's pattern is
 * for the caller to decide.  Errors: JG_ARG (NULL argument, an index out of
 * range or an unknown state name, naming the entry; a Matrix Market size other
 * than n x n, fewer entries than announced), JG_PARSE (not JSON / neither
 * format), JG_IO (cannot open or read, naming the file), JG_NOMEM.  Cost:
 * the file read once; O(n) per state name. */
JG_API jg_status_t jg_io_read_mask(const char *path, const jg_program_t *p, int64_t **pairs,
                                   int64_t *npairs, jg_error_t *err);

/* ---- input signals (`simulate --input-signal`): root Inport values from a
 * CSV table, for jg_sim_opts_t.input */

typedef enum {
    JG_IO_INTERP_ZOH = 0,     /* row k's values hold on [t_k, t_k+1) */
    JG_IO_INTERP_LINEAR = 1   /* straight lines between the rows */
} jg_io_interp_t;

typedef struct jg_io_signal jg_io_signal_t;

/* Read the CSV table at path (RFC 4180: quoted fields may hold commas,
 * quotes doubled, line breaks; LF or CRLF; empty lines skipped; a UTF-8 BOM
 * ignored) for the root Inports of p.  The header is "time" then column
 * names: a root Inport's name (jg_program_block_path) when it has one
 * element, NAME(K) for its element K (1-based; as state names are written)
 * otherwise.  Elements with no column keep the value the simulation has
 * (zero).  Rows: numbers (blanks around them allowed), times strictly
 * increasing; before the first time the first row holds, after the last the
 * last.  *out is freed with jg_io_signal_free.  Errors: JG_IO (cannot open or
 * read, naming the file), JG_PARSE (FILE:LINE:COL for a bad field or
 * quoting, a first column other than "time", FILE:LINE for a row with the
 * wrong number of fields, an empty table), JG_ARG (FILE:LINE:COL for an
 * unknown or repeated column, listing the root Inports; FILE:LINE for a time
 * not after the previous one; a NULL argument, an unknown interp), JG_NOMEM.
 * Cost: the file read once; O(Inports) per column name. */
JG_API jg_status_t jg_io_signal_read(const char *path, const jg_program_t *p, jg_io_interp_t interp,
                                     jg_io_signal_t **out, jg_error_t *err);
JG_API void jg_io_signal_free(jg_io_signal_t *s);
/* The table's times (n of them; owned by s): the breaks for
 * jg_sim_opts_t.input_breaks. */
JG_API const double *jg_io_signal_times(const jg_io_signal_t *s, int64_t *n);
/* Value columns (time excluded). */
JG_API int64_t jg_io_signal_ncolumns(const jg_io_signal_t *s);
/* Write the table's value at t into the elements of u it has columns for (u
 * as jg_eval_inputs: every root Inport element in port order); left = 1: the
 * limit from the left (zero-order hold at a row's time gives the row
 * before).  Remembers the last row found (s is modified: one simulation per
 * table at a time).  Cost: O(1) when t moves to the same or the next row,
 * O(log rows) otherwise. */
JG_API void jg_io_signal_eval(jg_io_signal_t *s, double t, int left, double *u);
/* jg_sim_opts_t.input for a table: ctx is the jg_io_signal_t; returns 0. */
JG_API int jg_io_signal_input(double t, int left, double *u, void *ctx);

#ifdef __cplusplus
}
#endif
#endif
