/* io: the engineering exports (MATLAB/Octave script, Python script, MAT-file
 * read back through matio) of a hand-made linear model with awkward names,
 * dense and sparse; the CSV input-signal reader (interpolation, left limits,
 * errors naming file:line:column) and a simulation driven by it against the
 * hand-integrated result. */
#define _POSIX_C_SOURCE 200809L   /* open_memstream, mkdtemp */
#include <matio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "jacgraph/io.h"
#include "testlib.h"

static char dir[512];

static const char *tmp(const char *name)
{
    static char path[4][640];
    static int k;
    k = (k + 1) % 4;
    snprintf(path[k], sizeof path[k], "%s/%s", dir, name);
    return path[k];
}

/* ---- a linear model by hand: 3 states, 2 inputs, 1 output */

static cs_dl *mat(int64_t m, int64_t n, int nz, const int64_t *i, const int64_t *j, const double *x)
{
    cs_dl *T = cs_dl_spalloc(m, n, nz ? nz : 1, 1, 1);
    for (int k = 0; k < nz; k++) cs_dl_entry(T, i[k], j[k], x[k]);
    cs_dl *C = cs_dl_compress(T);
    cs_dl_spfree(T);
    return C;
}

static char *sdup(const char *s) { return s ? strdup(s) : NULL; }

/* A = [1 0 0; 0 -2.5 0; 1e-300 0 3], B = [1 0; 0 0; 0 4], C = [0 0 7], D = [0 0.5] */
static jg_lin_sys_t *model(const char *const *xn, const char *const *un, const char *yn)
{
    jg_lin_sys_t *s = calloc(1, sizeof *s);
    s->nx = 3, s->nu = 2, s->ny = 1;
    static const int64_t ai[] = {0, 1, 2, 2}, aj[] = {0, 1, 0, 2};
    static const double ax[] = {1, -2.5, 1e-300, 3};
    s->A = mat(3, 3, 4, ai, aj, ax);
    s->B = mat(3, 2, 2, (const int64_t[]){0, 2}, (const int64_t[]){0, 1}, (const double[]){1, 4});
    s->C = mat(1, 3, 1, (const int64_t[]){0}, (const int64_t[]){2}, (const double[]){7});
    s->D = mat(1, 2, 1, (const int64_t[]){0}, (const int64_t[]){1}, (const double[]){0.5});
    s->state_names = calloc(3, sizeof(char *));
    s->input_names = calloc(2, sizeof(char *));
    s->output_names = calloc(1, sizeof(char *));
    for (int k = 0; k < 3; k++) s->state_names[k] = sdup(xn[k]);
    for (int k = 0; k < 2; k++) s->input_names[k] = sdup(un[k]);
    s->output_names[0] = sdup(yn);
    s->t = 1.5;
    return s;
}

static const char *const XN[3] = {"it's", "a,b", "two\nlines"};
static const char *const UN[2] = {"\xce\xa9mega caf\xc3\xa9", "say \"hi\" \\ back"};
static const char *const YN = NULL;   /* the default name y1 */

static char *to_text(jg_status_t (*w)(FILE *, const jg_lin_sys_t *, const jg_io_export_opts_t *,
                                      jg_error_t *),
                     const jg_lin_sys_t *s, const jg_io_export_opts_t *o, jg_status_t *st,
                     jg_error_t *err)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    *st = w(f, s, o, err);
    fclose(f);
    return buf;
}

static int has(const char *text, const char *what, const char *name)
{
    int ok = text && strstr(text, what);
    if (!tap_ok(ok, "%s", name)) printf("#   no '%s' in:\n%s\n", what, text ? text : "(null)");
    return ok;
}

static void test_m(const jg_lin_sys_t *s)
{
    jg_status_t st;
    jg_error_t err;
    char *t = to_text(jg_io_write_linsys_m, s, NULL, &st, &err);
    tap_ok(st == JG_OK, "m: written");
    has(t, "A = [\n    1, 0, 0;\n    0, -2.5, 0;\n    1e-300, 0, 3\n];\n", "m: dense A row by row");
    has(t, "D = [\n    0, 0.5\n];\n", "m: D");
    has(t, "Ts = 0;\n", "m: Ts = 0 (continuous)");
    has(t, "StateName = {'it''s'; 'a,b'; ['two' char(10) 'lines']};\n", "m: quote doubled, newline spliced");
    has(t, "InputName = {'\xce\xa9mega caf\xc3\xa9'; 'say \"hi\" \\ back'};\n", "m: UTF-8 and double quotes as they are");
    has(t, "OutputName = {'y1'};\n", "m: default output name");
    has(t, "    sys = ss(full(A), full(B), full(C), full(D), Ts, ...\n"
           "      'StateName', StateName, 'InputName', InputName, 'OutputName', OutputName);", "m: ss call");
    has(t, "% jacgraph linear model at t = 1.5 (continuous time)", "m: header");
    free(t);

    jg_io_export_opts_t o = {.sparse = JG_IO_SPARSE_ALWAYS, .suffix = "_t2", .model = "m\nx"};
    t = to_text(jg_io_write_linsys_m, s, &o, &st, &err);
    tap_ok(st == JG_OK, "m sparse: written");
    has(t, "A_t2 = sparse([1, 3, 2, 3], ...\n    [1, 1, 2, 3], ...\n    [1, 1e-300, -2.5, 3], 3, 3);",
        "m sparse: 1-based triplets in column order");
    has(t, "sys_t2 = ss(full(A_t2)", "m sparse: suffix on sys and the matrices");
    has(t, "% jacgraph linear model of m x at", "m: model name on one comment line");
    free(t);
}

static void test_py(const jg_lin_sys_t *s)
{
    jg_status_t st;
    jg_error_t err;
    char *t = to_text(jg_io_write_linsys_py, s, NULL, &st, &err);
    tap_ok(st == JG_OK, "py: written");
    has(t, "import numpy as np\n", "py: numpy");
    tap_ok(t && !strstr(t, "import scipy"), "py: no scipy when all is dense");
    has(t, "A = np.array([\n    [1, 0, 0],\n    [0, -2.5, 0],\n    [1e-300, 0, 3],\n], dtype=float)\n",
        "py: dense A");
    has(t, "state_names = [\"it's\", \"a,b\", \"two\\nlines\"]\n", "py: newline escaped");
    has(t, "input_names = [\"\xce\xa9mega caf\xc3\xa9\", \"say \\\"hi\\\" \\\\ back\"]\n",
        "py: quotes and backslash escaped, UTF-8 as is");
    has(t, "Ts = float(0)\n", "py: Ts");
    free(t);

    jg_io_export_opts_t o = {.sparse = JG_IO_SPARSE_ALWAYS};
    t = to_text(jg_io_write_linsys_py, s, &o, &st, &err);
    has(t, "import scipy.sparse\n", "py sparse: scipy imported");
    has(t, "B = scipy.sparse.csc_matrix((np.array([1, 4], dtype=float),\n"
           "    (np.array([0, 2], dtype=np.int64),\n     np.array([0, 1], dtype=np.int64))), shape=(3, 2))",
        "py sparse: 0-based triplets");
    free(t);
}

/* ---- the MAT-file read back with matio */

static matvar_t *var(mat_t *m, const char *name)
{
    matvar_t *v = m ? Mat_VarRead(m, name) : NULL;
    if (!v) printf("#   no variable %s\n", name);
    return v;
}

static int dense_is(mat_t *m, const char *name, int64_t rows, int64_t cols, const double *want)
{
    matvar_t *v = var(m, name);
    int ok = v && v->class_type == MAT_C_DOUBLE && v->rank == 2 && v->dims[0] == (size_t)rows &&
             v->dims[1] == (size_t)cols && !v->isComplex;
    for (int64_t k = 0; ok && k < rows * cols; k++) ok = ((double *)v->data)[k] == want[k];
    Mat_VarFree(v);
    return ok;
}

static int sparse_is(mat_t *m, const char *name, int64_t rows, int64_t cols, const double *want)
{
    matvar_t *v = var(m, name);
    int ok = v && v->class_type == MAT_C_SPARSE && v->dims[0] == (size_t)rows && v->dims[1] == (size_t)cols;
    if (ok) {
        mat_sparse_t *sp = v->data;
        double *d = calloc((size_t)(rows * cols), sizeof(double));
        for (int64_t j = 0; j < cols; j++)
            for (mat_uint32_t p = sp->jc[j]; p < sp->jc[j + 1]; p++) d[j * rows + sp->ir[p]] = ((double *)sp->data)[p];
        for (int64_t k = 0; k < rows * cols; k++) ok &= d[k] == want[k];
        free(d);
    }
    Mat_VarFree(v);
    return ok;
}

/* A column cell array of char: element k has nchar[k] characters and the
 * UTF-8 text want[k]. */
static int cell_is(mat_t *m, const char *name, int n, const char *const *want, const int *nchar)
{
    matvar_t *v = var(m, name);
    int ok = v && v->class_type == MAT_C_CELL && v->dims[0] == (size_t)n && v->dims[1] == 1;
    for (int k = 0; ok && k < n; k++) {
        matvar_t *e = Mat_VarGetCell(v, k);
        ok = e && e->class_type == MAT_C_CHAR && (int)(e->dims[0] * e->dims[1]) == nchar[k] &&
             e->data_type == MAT_T_UTF8 && e->nbytes == strlen(want[k]) &&
             (!e->nbytes || !memcmp(e->data, want[k], e->nbytes));
        if (!ok && e) printf("#   %s{%d}: %zux%zu, type %d, %zu bytes\n", name, k + 1, e->dims[0], e->dims[1],
                             (int)e->data_type, e->nbytes);
    }
    Mat_VarFree(v);
    return ok;
}

static void test_mat(const jg_lin_sys_t *s)
{
    jg_error_t err;
    const char *path = tmp("m.mat");
    tap_ok(jg_io_write_linsys_mat(path, s, NULL, 0, &err) == JG_OK, "mat: written");
    mat_t *m = Mat_Open(path, MAT_ACC_RDONLY);
    tap_ok(m && Mat_GetVersion(m) == MAT_FT_MAT5, "mat: a level-5 MAT-file");
    static const double A[9] = {1, 0, 1e-300, 0, -2.5, 0, 0, 0, 3};   /* column-major */
    static const double B[6] = {1, 0, 0, 0, 0, 4}, C[3] = {0, 0, 7}, D[2] = {0, 0.5}, Ts[1] = {0};
    tap_ok(dense_is(m, "A", 3, 3, A), "mat: A dense, column-major");
    tap_ok(dense_is(m, "B", 3, 2, B) && dense_is(m, "C", 1, 3, C) && dense_is(m, "D", 1, 2, D),
           "mat: B, C, D");
    tap_ok(dense_is(m, "Ts", 1, 1, Ts), "mat: Ts = 0");
    tap_ok(cell_is(m, "StateName", 3, XN, (const int[]){4, 3, 9}), "mat: StateName (quote, comma, newline)");
    tap_ok(cell_is(m, "InputName", 2, UN, (const int[]){10, 15}),
           "mat: InputName in UTF-8, sized in characters (Greek capital omega, e acute)");
    tap_ok(cell_is(m, "OutputName", 1, (const char *const[]){"y1"}, (const int[]){2}), "mat: default output name");
    if (m) Mat_Close(m);

    /* a snapshot series: sparse variables added with a suffix */
    jg_io_export_opts_t o = {.sparse = JG_IO_SPARSE_ALWAYS, .suffix = "_t2"};
    tap_ok(jg_io_write_linsys_mat(path, s, &o, 1, &err) == JG_OK, "mat: a second system added");
    m = Mat_Open(path, MAT_ACC_RDONLY);
    tap_ok(sparse_is(m, "A_t2", 3, 3, A) && sparse_is(m, "D_t2", 1, 2, D), "mat: sparse A_t2, D_t2");
    tap_ok(dense_is(m, "A", 3, 3, A), "mat: the first system kept");
    if (m) Mat_Close(m);
    tap_ok(jg_io_write_linsys_mat(path, s, &o, 1, &err) != JG_OK, "mat: the same names twice refused");
    unlink(path);
}

/* ---- bad arguments never crash and name the problem */

static void test_bad(jg_lin_sys_t *s)
{
    jg_error_t err;
    jg_status_t st;
    char *t;
    tap_ok(jg_io_write_linsys_m(NULL, s, NULL, &err) == JG_ARG && jg_io_write_linsys_py(stdout, NULL, NULL, &err) == JG_ARG &&
           jg_io_write_linsys_mat(NULL, s, NULL, 0, &err) == JG_ARG, "NULL arguments: JG_ARG");
    jg_io_export_opts_t o = {.suffix = "x-y"};
    t = to_text(jg_io_write_linsys_m, s, &o, &st, &err);
    tap_ok(st == JG_ARG && strstr(err.msg, "'x-y'"), "a suffix that is no identifier: %s", err.msg);
    free(t);
    char *keep = s->state_names[1];
    s->state_names[1] = strdup("bad\xff");
    t = to_text(jg_io_write_linsys_py, s, NULL, &st, &err);
    tap_streq(st == JG_ARG ? err.msg : "", "Python output: state name 2 is not valid UTF-8", "not UTF-8: refused");
    free(t);
    free(s->state_names[1]);
    s->state_names[1] = keep;
    cs_dl *Bk = s->B;
    s->B = s->C;   /* 1x3 where 3x2 is due */
    tap_streq(jg_io_write_linsys_mat(tmp("w.mat"), s, NULL, 0, &err) == JG_ARG ? err.msg : "",
              "MAT-file output: matrix B is missing or not 3x2", "wrong shape: refused");
    s->B = Bk;
    tap_ok(access(tmp("w.mat"), F_OK) != 0, "wrong shape: no file left");
    tap_ok(jg_io_write_linsys_mat(tmp("no/such/dir.mat"), s, NULL, 0, &err) == JG_IO && strstr(err.msg, "no/such/dir.mat"),
           "unwritable path: JG_IO naming it (%s)", err.msg);
    tap_ok(jg_io_write_linsys_mat(tmp("missing.mat"), s, NULL, 1, &err) == JG_IO, "append to no file: JG_IO");
    tl_write_file(tmp("text.mat"), "not a MAT-file, only some text that is long enough to hold a header of 128 bytes "
                                   "..........................................................\n");
    tap_ok(jg_io_write_linsys_mat(tmp("text.mat"), s, NULL, 1, &err) == JG_IO, "append to a text file: JG_IO");
    unlink(tmp("text.mat"));

    /* no states, no inputs: empty matrices and names */
    jg_lin_sys_t e = {0};
    e.ny = 1;
    e.A = mat(0, 0, 0, NULL, NULL, NULL);
    e.B = mat(0, 0, 0, NULL, NULL, NULL);
    e.C = mat(1, 0, 0, NULL, NULL, NULL);
    e.D = mat(1, 0, 0, NULL, NULL, NULL);
    t = to_text(jg_io_write_linsys_m, &e, NULL, &st, &err);
    tap_ok(st == JG_OK && strstr(t, "A = zeros(0, 0);") && strstr(t, "StateName = cell(0, 1);"),
           "m: empty model");
    free(t);
    t = to_text(jg_io_write_linsys_py, &e, &(jg_io_export_opts_t){.sparse = JG_IO_SPARSE_ALWAYS}, &st, &err);
    tap_ok(st == JG_OK && strstr(t, "C = scipy.sparse.csc_matrix((1, 0))") && strstr(t, "state_names = []"),
           "py: empty model, sparse");
    free(t);
    tap_ok(jg_io_write_linsys_mat(tmp("e.mat"), &e, &(jg_io_export_opts_t){.sparse = JG_IO_SPARSE_ALWAYS}, 0, &err) == JG_OK,
           "mat: empty model, sparse");
    mat_t *m = Mat_Open(tmp("e.mat"), MAT_ACC_RDONLY);
    tap_ok(sparse_is(m, "C", 1, 0, NULL) && cell_is(m, "StateName", 0, NULL, NULL), "mat: empty C and names read back");
    if (m) Mat_Close(m);
    unlink(tmp("e.mat"));
    cs_dl_spfree(e.A);
    cs_dl_spfree(e.B);
    cs_dl_spfree(e.C);
    cs_dl_spfree(e.D);
}

/* ---- the automatic rule: sparse beyond 100 x 100 with at most 10% nonzero */

static void test_auto(void)
{
    jg_lin_sys_t s = {0};
    int64_t n = 101;
    int64_t *i = malloc(sizeof(int64_t) * (size_t)n);
    double *x = malloc(sizeof(double) * (size_t)n);
    for (int64_t k = 0; k < n; k++) i[k] = k, x[k] = -(double)(k + 1);
    s.nx = n;
    s.A = mat(n, n, (int)n, i, i, x);
    s.B = mat(n, 0, 0, NULL, NULL, NULL);
    s.C = mat(0, n, 0, NULL, NULL, NULL);
    s.D = mat(0, 0, 0, NULL, NULL, NULL);
    jg_status_t st;
    jg_error_t err;
    char *t = to_text(jg_io_write_linsys_m, &s, NULL, &st, &err);
    tap_ok(st == JG_OK && strstr(t, "A = sparse([1, 2, 3") && strstr(t, "101, 101);") && strstr(t, "B = zeros(101, 0);"),
           "auto: a 101x101 diagonal is sparse, the empty B dense");
    free(t);
    jg_io_export_opts_t o = {.sparse = JG_IO_SPARSE_NEVER};
    t = to_text(jg_io_write_linsys_m, &s, &o, &st, &err);
    tap_ok(st == JG_OK && strstr(t, "A = [\n    -1, 0, 0"), "never: dense");
    free(t);
    n = 100;   /* exactly 10^4 elements: dense */
    cs_dl_spfree(s.A);
    s.A = mat(n, n, (int)n, i, i, x);
    s.nx = n;
    cs_dl_spfree(s.B);
    cs_dl_spfree(s.C);
    s.B = mat(n, 0, 0, NULL, NULL, NULL);
    s.C = mat(0, n, 0, NULL, NULL, NULL);
    t = to_text(jg_io_write_linsys_py, &s, NULL, &st, &err);
    tap_ok(st == JG_OK && strstr(t, "A = np.array(["), "auto: 100x100 stays dense");
    free(t);
    free(i);
    free(x);
    cs_dl_spfree(s.A);
    cs_dl_spfree(s.B);
    cs_dl_spfree(s.C);
    cs_dl_spfree(s.D);
}

/* ---- input signals */

/* u -> Integrator xu -> Out1; w (2 wide) -> Integrator xw -> Out2; "a,b" -> Out3 */
static const char sig_model[] =
    "{'name':'sig','blocks':["
    "{'name':'u','type':'Inport','Port':1},"
    "{'name':'w','type':'Inport','Port':2,'PortDimensions':2},"
    "{'name':'a,b','type':'Inport','Port':3},"
    "{'name':'xu','type':'Integrator','InitialCondition':0},"
    "{'name':'xw','type':'Integrator','InitialCondition':[0,0]},"
    "{'name':'Out1','type':'Outport','Port':1},"
    "{'name':'Out2','type':'Outport','Port':2},"
    "{'name':'Out3','type':'Outport','Port':3}],"
    "'lines':[{'src':'u:1','dst':'xu:1'},{'src':'xu:1','dst':'Out1:1'},"
    "{'src':'w:1','dst':'xw:1'},{'src':'xw:1','dst':'Out2:1'},{'src':'a,b:1','dst':'Out3:1'}]}";

static jg_status_t read_sig(const jg_program_t *p, const char *text, jg_io_interp_t in, jg_io_signal_t **s,
                            jg_error_t *err)
{
    const char *path = tmp("in.csv");
    tl_write_file(path, text);
    return jg_io_signal_read(path, p, in, s, err);
}

static void expect_sig_err(const jg_program_t *p, const char *text, jg_status_t want, const char *msg,
                           const char *name)
{
    jg_io_signal_t *s = NULL;
    jg_error_t err;
    jg_status_t st = read_sig(p, text, JG_IO_INTERP_ZOH, &s, &err);
    char full[1024];
    snprintf(full, sizeof full, "%s/in.csv%s", dir, msg);
    tap_streq(st == want && !s ? err.msg : "", full, name);
    jg_io_signal_free(s);
}

static void test_signal_read(const jg_program_t *p)
{
    jg_io_signal_t *s = NULL;
    jg_error_t err;
    /* columns in any order, a quoted name with a comma, CRLF, an element of w missing */
    jg_status_t st = read_sig(p, "time,w(2),\"a,b\",u\r\n0,10,5,1\r\n1,20,6,3\r\n\r\n3,40,7,-1\r\n",
                              JG_IO_INTERP_ZOH, &s, &err);
    if (!tap_ok(st == JG_OK, "signal: read")) printf("#   %s\n", err.msg);
    if (st) return;
    int64_t n;
    const double *T = jg_io_signal_times(s, &n);
    tap_ok(n == 3 && T[0] == 0 && T[1] == 1 && T[2] == 3 && jg_io_signal_ncolumns(s) == 3, "signal: times, columns");
    double u[4] = {-9, -9, -9, -9};   /* u, w(1), w(2), a,b */
    jg_io_signal_eval(s, 0.5, 0, u);
    tap_ok(u[0] == 1 && u[1] == -9 && u[2] == 10 && u[3] == 5, "zoh: row 1 inside [0, 1); w(1) untouched");
    jg_io_signal_eval(s, 1, 0, u);
    tap_ok(u[0] == 3 && u[2] == 20, "zoh: at a row's time its value");
    jg_io_signal_eval(s, 1, 1, u);
    tap_ok(u[0] == 1 && u[2] == 10, "zoh: the limit from the left is the row before");
    jg_io_signal_eval(s, -5, 0, u);
    tap_ok(u[0] == 1, "zoh: before the first time the first row holds");
    jg_io_signal_eval(s, 1e9, 1, u);
    tap_ok(u[0] == -1 && u[3] == 7, "zoh: after the last the last holds");
    jg_io_signal_eval(s, 2.9, 0, u);
    jg_io_signal_eval(s, 0.1, 0, u);   /* backwards: the cursor is searched again */
    tap_ok(u[0] == 1, "zoh: going back in time");
    jg_io_signal_free(s);

    st = read_sig(p, "time,u\n0,0\n1,2\n2,-1\n", JG_IO_INTERP_LINEAR, &s, &err);
    tap_ok(st == JG_OK, "linear: read");
    if (st) return;
    jg_io_signal_eval(s, 0.25, 0, u);
    tap_near(u[0], 0.5, 1e-15, "linear: between rows");
    jg_io_signal_eval(s, 1.5, 1, u);
    tap_near(u[0], 0.5, 1e-15, "linear: the left limit is the same inside a segment");
    jg_io_signal_eval(s, 1, 1, u);
    tap_near(u[0], 2, 1e-15, "linear: continuous at a row");
    jg_io_signal_eval(s, 7, 0, u);
    tap_ok(u[0] == -1, "linear: holds after the last row");
    jg_io_signal_free(s);

    const char *ins = " (the root Inports: u, w(1)..w(2), a,b)";
    char m[256];
    snprintf(m, sizeof m, ":1:8: unknown column \"speed\"%s", ins);
    expect_sig_err(p, "time,u,speed\n0,1,2\n", JG_ARG, m, "unknown column: file:line:col and the Inports");
    snprintf(m, sizeof m, ":1:6: unknown column \"w(3)\"%s", ins);
    expect_sig_err(p, "time,w(3)\n0,1\n", JG_ARG, m, "element beyond the width");
    snprintf(m, sizeof m, ":1:6: unknown column \"w\"%s", ins);
    expect_sig_err(p, "time,w\n0,1\n", JG_ARG, m, "a wide Inport needs element columns");
    expect_sig_err(p, "time,u,u(1)\n0,1,2\n", JG_ARG, ":1:8: column \"u(1)\" given twice", "duplicate column");
    expect_sig_err(p, "time,u\n0,1\n2,1\n2,3\n", JG_ARG,
                   ":4: time 2 is not after the previous row's 2 (times must increase strictly)",
                   "non-monotone time names its line");
    expect_sig_err(p, "time,u\n0,1\n1,x1\n", JG_PARSE, ":3:3: not a finite number: \"x1\"", "bad number");
    expect_sig_err(p, "time,u\n0,1\n1,inf\n", JG_PARSE, ":3:3: not a finite number: \"inf\"", "infinite value");
    expect_sig_err(p, "time,u\n0,1,2\n", JG_PARSE, ":2: more fields than the header's 2", "too many fields");
    expect_sig_err(p, "time,u\n0\n", JG_PARSE, ":2: 1 fields, the header has 2", "too few fields");
    expect_sig_err(p, "t,u\n0,1\n", JG_PARSE, ":1:1: the first column must be \"time\", not \"t\"", "no time column");
    expect_sig_err(p, "time,\"u\n", JG_PARSE, ":1:6: quoted field not closed", "unclosed quote");
    expect_sig_err(p, "time,u\n", JG_PARSE, ": no data rows after the header", "no rows");
    expect_sig_err(p, "", JG_PARSE, ": empty file (expected a header \"time,NAME,...\")", "empty file");
    tap_ok(jg_io_signal_read(tmp("none.csv"), p, JG_IO_INTERP_ZOH, &s, &err) == JG_IO && !s, "missing file: JG_IO");
}

/* x(t) of the integrator xu (Out1) driven by the table, at t = 1.5 and 3 */
static void simulate(const jg_program_t *p, const char *csv, jg_io_interp_t in, jg_solver_method_t solver, double h,
                     int breaks, double *x15, double *x3)
{
    jg_io_signal_t *s = NULL;
    jg_error_t err;
    jg_sim_t *sim = NULL;
    *x15 = *x3 = NAN;
    if (read_sig(p, csv, in, &s, &err)) return;
    int64_t n;
    const double *T = jg_io_signal_times(s, &n);
    jg_sim_opts_t o = {.solver = solver, .t0 = 0, .tstop = 3, .out_step = 0.5, .input = jg_io_signal_input,
                       .input_ctx = s, .input_breaks = breaks ? T : NULL, .input_nbreaks = breaks ? n : 0};
    o.so.fixed_step = h;
    o.so.rtol = 1e-10;
    o.so.atol = 1e-12;
    tl_rec_t *r = calloc(1, sizeof *r);
    r->nsig = 1;
    r->nx = 1;
    if (!jg_sim_create(p, &o, &sim, &err) && !jg_sim_run(sim, 3, tl_record, r, &err))
        for (int k = 0; k < r->n; k++) {
            if (fabs(r->t[k] - 1.5) < 1e-12) *x15 = r->y[k][0];
            if (fabs(r->t[k] - 3) < 1e-12) *x3 = r->y[k][0];
        }
    else
        printf("#   %s\n", err.msg);
    free(r);
    jg_sim_free(sim);
    jg_io_signal_free(s);
}

static void test_signal_sim(const jg_program_t *p)
{
    /* u = 0 on [0, 1), 2 on [1, 2), -1 after: x(1.5) = 1, x(3) = 2 - 1 = 1;
     * linear: u = 2t on [0, 1], 2 - 3(t - 1) on [1, 2], -1 after:
     * x(1.5) = 1 + (1 - 3/8) = 1.625, x(3) = 1 + 0.5 - 1 = 0.5 */
    static const char csv[] = "time,u\n0,0\n1,2\n2,-1\n";
    double a, b;
    simulate(p, csv, JG_IO_INTERP_ZOH, JG_SOLVER_ODE45, 0, 1, &a, &b);
    tap_near(a, 1, 1e-9, "zoh, ode45: x(1.5) = 1");
    tap_near(b, 1, 1e-9, "zoh, ode45: x(3) = 1");
    simulate(p, csv, JG_IO_INTERP_LINEAR, JG_SOLVER_ODE45, 0, 1, &a, &b);
    tap_near(a, 1.625, 1e-9, "linear, ode45: x(1.5) = 1.625");
    tap_near(b, 0.5, 1e-9, "linear, ode45: x(3) = 0.5");
    /* Euler with h = 0.3 is exact on a piecewise-constant input only when its
     * steps end on the jumps: the breaks make them */
    simulate(p, csv, JG_IO_INTERP_ZOH, JG_SOLVER_ODE1, 0.3, 1, &a, &b);
    tap_near(b, 1, 1e-12, "zoh, ode1 h = 0.3: steps land on the jumps, x(3) = 1 exactly");
    simulate(p, csv, JG_IO_INTERP_ZOH, JG_SOLVER_ODE1, 0.3, 0, &a, &b);
    tap_near(b, 0.9, 1e-12, "zoh, ode1 without the breaks: x(3) = 0.9 (steps across the jumps)");
    simulate(p, csv, JG_IO_INTERP_ZOH, JG_SOLVER_ODE15S, 0, 1, &a, &b);
    tap_near(b, 1, 1e-6, "zoh, ode15s: x(3) = 1");

    jg_sim_opts_t o = {.tstop = 1, .input_nbreaks = 2};
    jg_sim_t *sim = NULL;
    jg_error_t err;
    tap_ok(jg_sim_create(p, &o, &sim, &err) == JG_ARG && !sim, "breaks counted but no list: JG_ARG");
    o.input_breaks = (const double[]){1, 0.5};
    tap_ok(jg_sim_create(p, &o, &sim, &err) == JG_ARG && !sim, "decreasing breaks: JG_ARG");
}

int main(void)
{
    if (!tl_tmpdir(dir, sizeof dir, "jg_export")) {
        printf("Bail out! no temporary directory\n");
        return 1;
    }
    jg_lin_sys_t *s = model(XN, UN, YN);
    test_m(s);
    test_py(s);
    test_mat(s);
    test_bad(s);
    test_auto();
    jg_lin_sys_free(s);

    jg_model_t *m = NULL;
    jg_program_t *p = NULL;
    jg_error_t err;
    if (!tap_ok(jg_model_parse(q(sig_model), "<test>", &m, &err) == JG_OK &&
                jg_program_compile(m, &p, &err) == JG_OK, "input-signal model compiles"))
        printf("#   %s\n", err.msg);
    else {
        test_signal_read(p);
        test_signal_sim(p);
    }
    jg_program_free(p);
    jg_model_free(m);
    unlink(tmp("in.csv"));
    rmdir(dir);
    return tap_done();
}
