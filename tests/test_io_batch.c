/* io: batch result files (JSON Lines, MAT-file v7.3, HDF5) of hand-made
 * linear models, read back with jansson, matio and libhdf5 and checked
 * against the models' entries; the dense and the sparse layout (the pattern
 * dictionary, the auto choice and both overrides), failed and held-back
 * points, the commit by rename and every refusal (order, sizes, missing
 * points, paths, layouts). */
#define _POSIX_C_SOURCE 200809L   /* mkdtemp */
#include <dirent.h>
#include <hdf5.h>
#include <jansson.h>
#include <matio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "jacgraph/io.h"
#include "io/batch_impl.h"   /* the write-behind's progress */
#include "tap.h"

static char dir[512];

static const char *tmp(const char *name)
{
    static char path[4][640];
    static int k;
    k = (k + 1) % 4;
    snprintf(path[k], sizeof path[k], "%s/%s", dir, name);
    return path[k];
}

/* Files in dir (a leftover PATH.partXXXXXX shows here). */
static int nfiles(void)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) n += e->d_name[0] != '.';
    if (d) closedir(d);
    return n;
}

static int exists(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0;
}

static void clean(void)
{
    if (getenv("JG_KEEP")) return;   /* debugging: keep the files */
    DIR *d = opendir(dir);
    char p[1024];
    for (struct dirent *e; d && (e = readdir(d));)
        if (e->d_name[0] != '.') snprintf(p, sizeof p, "%s/%s", dir, e->d_name), remove(p);
    if (d) closedir(d);
}

/* ---- models: s(scale) with A = scale * [1 0 0; 0 -2.5 0; 1e-300 0 3], B = [1 0; 0 0; 0 4],
 * C = [0 0 7], D = [0 0.5]; big(n): A = n x n bidiagonal (sparse layout) */

static cs_dl *mat(int64_t m, int64_t n, int nz, const int64_t *i, const int64_t *j, const double *x)
{
    cs_dl *T = cs_dl_spalloc(m, n, nz ? nz : 1, 1, 1);
    for (int k = 0; k < nz; k++) cs_dl_entry(T, i[k], j[k], x[k]);
    cs_dl *C = cs_dl_compress(T);
    cs_dl_spfree(T);
    return C;
}

static char **names(int n, const char *const *v)
{
    char **r = calloc((size_t)n + 1, sizeof *r);
    for (int k = 0; k < n; k++) r[k] = v[k] ? strdup(v[k]) : NULL;
    return r;
}

static jg_lin_sys_t *small(double scale)
{
    jg_lin_sys_t *s = calloc(1, sizeof *s);
    s->nx = 3, s->nu = 2, s->ny = 1;
    s->A = mat(3, 3, 4, (const int64_t[]){2, 1, 0, 2}, (const int64_t[]){2, 1, 0, 0},
               (const double[]){3 * scale, -2.5 * scale, scale, 1e-300 * scale});
    s->B = mat(3, 2, 2, (const int64_t[]){0, 2}, (const int64_t[]){0, 1}, (const double[]){1, 4});
    s->C = mat(1, 3, 1, (const int64_t[]){0}, (const int64_t[]){2}, (const double[]){7});
    s->D = mat(1, 2, 1, (const int64_t[]){0}, (const int64_t[]){1}, (const double[]){0.5});
    s->state_names = names(3, (const char *const[]){"x\"1", "two\nlines", "\xce\xa9"});
    s->input_names = names(2, (const char *const[]){"u", NULL});
    s->output_names = names(1, (const char *const[]){"y"});
    return s;
}

static jg_lin_sys_t *big(int64_t n, double scale)
{
    jg_lin_sys_t *s = calloc(1, sizeof *s);
    s->nx = n, s->nu = 1, s->ny = 1;
    cs_dl *T = cs_dl_spalloc(n, n, 2 * n, 1, 1);
    for (int64_t k = 0; k < n; k++) {
        cs_dl_entry(T, k, k, -1.0 - (double)k * scale);
        if (k + 1 < n) cs_dl_entry(T, k + 1, k, scale);
    }
    s->A = cs_dl_compress(T);
    cs_dl_spfree(T);
    s->B = mat(n, 1, 1, (const int64_t[]){0}, (const int64_t[]){0}, (const double[]){1});
    s->C = mat(1, n, 1, (const int64_t[]){0}, (const int64_t[]){n - 1}, (const double[]){2});
    s->D = mat(1, 1, 0, NULL, NULL, NULL);
    return s;
}

static const char *const VN[2] = {"t", "gain"};

/* Write points 0 (failed: held back until point 1), 1 (small(1)), 2 (failed),
 * 3 (small(2)) to path. */
static jg_status_t write4(const char *path, jg_io_batch_format_t f, jg_error_t *err)
{
    jg_io_batch_t *w;
    jg_status_t st = jg_io_batch_open(path, f, 4, 2, VN, &w, err);
    if (st) return st;
    jg_lin_sys_t *s1 = small(1), *s2 = small(2);
    double v[4][2] = {{0, 10}, {0.5, 11}, {1, 12}, {1.5, 13}};
    if (!st) st = jg_io_batch_put(w, 0, v[0], NULL, "singular loop at \"x\"", err);
    if (!st) st = jg_io_batch_put(w, 1, v[1], s1, NULL, err);
    if (!st) st = jg_io_batch_put(w, 2, v[2], NULL, NULL, err);
    if (!st) st = jg_io_batch_put(w, 3, v[3], s2, NULL, err);
    jg_status_t cs = jg_io_batch_close(w, st == JG_OK, err);
    jg_lin_sys_free(s1);
    jg_lin_sys_free(s2);
    return st ? st : cs;
}

/* ---- JSON Lines */

static json_t *linsys_json(const jg_lin_sys_t *s)
{
    char *buf = NULL;
    size_t len = 0;
    jg_error_t err;
    FILE *f = open_memstream(&buf, &len);
    jg_io_write_linsys_json(f, s, &err);
    fclose(f);
    json_t *o = json_loads(buf, 0, NULL);
    free(buf);
    return o;
}

static void test_jsonl(void)
{
    jg_error_t err;
    const char *p = tmp("r.jsonl");
    tap_ok(write4(p, JG_IO_BATCH_JSONL, &err) == JG_OK, "jsonl: written");
    tap_ok(nfiles() == 1, "jsonl: only the target left (no temporary file)");
    FILE *f = fopen(p, "r");
    char *line = NULL;
    size_t cap = 0;
    json_t *l[6] = {0};
    int n = 0;
    while (f && n < 6 && getline(&line, &cap, f) > 0) l[n++] = json_loads(line, 0, NULL);
    if (f) fclose(f);
    free(line);
    tap_ok(n == 5, "jsonl: names line + 4 point lines (%d)", n);
    jg_lin_sys_t *s1 = small(1), *s2 = small(2);
    json_t *ref1 = linsys_json(s1), *ref2 = linsys_json(s2);
    tap_ok(l[0] && json_equal(json_object_get(l[0], "states"), json_object_get(ref1, "states")) &&
               json_equal(json_object_get(l[0], "inputs"), json_object_get(ref1, "inputs")) &&
               json_equal(json_object_get(l[0], "outputs"), json_object_get(ref1, "outputs")),
           "jsonl: first line holds the names of linearize --format json (defaults filled)");
    tap_ok(l[0] && !json_object_get(l[0], "Ts") && json_object_size(l[0]) == 3, "jsonl: no Ts when continuous");
    tap_ok(l[1] && json_integer_value(json_object_get(l[1], "index")) == 0 &&
               json_is_false(json_object_get(l[1], "ok")) &&
               !strcmp(json_string_value(json_object_get(l[1], "error")), "singular loop at \"x\""),
           "jsonl: held-back failed point 0 written first, with its error");
    tap_ok(l[3] && !strcmp(json_string_value(json_object_get(l[3], "error")), "failed"),
           "jsonl: failure with no message says 'failed'");
    int same = 1;
    static const char *const M[4] = {"A", "B", "C", "D"};
    for (int q = 0; q < 4; q++) {
        same &= l[2] && json_equal(json_object_get(l[2], M[q]), json_object_get(ref1, M[q]));
        same &= l[4] && json_equal(json_object_get(l[4], M[q]), json_object_get(ref2, M[q]));
    }
    tap_ok(same, "jsonl: A..D equal the triplets of linearize --format json");
    tap_ok(l[4] && json_integer_value(json_object_get(l[4], "index")) == 3 &&
               json_is_true(json_object_get(l[4], "ok")) && json_object_size(l[4]) == 6,
           "jsonl: ok line has index, ok, A, B, C, D only");
    json_t *a = l[2] ? json_object_get(l[2], "A") : NULL;
    tap_ok(a && json_real_value(json_array_get(json_object_get(a, "x"), 1)) == 1e-300 &&
               json_integer_value(json_array_get(json_object_get(a, "i"), 1)) == 2,
           "jsonl: 1e-300 kept, column-major 0-based order");
    for (int k = 0; k < 6; k++) json_decref(l[k]);
    json_decref(ref1);
    json_decref(ref2);
    jg_lin_sys_free(s1);
    jg_lin_sys_free(s2);
    clean();
}

/* ---- MAT-file v7.3 read back with matio */

static matvar_t *mvar(mat_t *m, const char *name)
{
    matvar_t *v = m ? Mat_VarRead(m, name) : NULL;
    if (!v) printf("#   no variable %s\n", name);
    return v;
}

/* Row k of a char matrix read back (v7.3 stores UTF-16 code units) is the
 * ASCII text t padded with blanks. */
static int row_is(const matvar_t *v, size_t k, const char *t)
{
    size_t n = strlen(t);
    if (!v || v->class_type != MAT_C_CHAR || v->rank != 2 || k >= v->dims[0] || v->dims[1] < n) return 0;
    for (size_t j = 0; j < v->dims[1]; j++) {
        size_t at = k + v->dims[0] * j;
        unsigned c = v->data_type == MAT_T_UINT16 || v->data_type == MAT_T_UTF16
                         ? ((const unsigned short *)v->data)[at]
                         : ((const unsigned char *)v->data)[at];
        if (c != (j < n ? (unsigned char)t[j] : ' ')) return 0;
    }
    return 1;
}

static void test_mat(void)
{
    jg_error_t err;
    const char *p = tmp("r.mat");
    jg_status_t st = write4(p, JG_IO_BATCH_MAT, &err);
    if (!tap_ok(st == JG_OK, "mat: written")) printf("#   %s\n", err.msg);
    tap_ok(nfiles() == 1, "mat: only the target left");
    mat_t *m = Mat_Open(p, MAT_ACC_RDONLY);
    tap_ok(m && Mat_GetVersion(m) == MAT_FT_MAT73, "mat: a v7.3 MAT-file");
    matvar_t *A = mvar(m, "A");
    tap_ok(A && A->rank == 3 && A->dims[0] == 3 && A->dims[1] == 3 && A->dims[2] == 4 &&
               A->class_type == MAT_C_DOUBLE,
           "mat: A is 3 x 3 x 4 (dense, points last)");
    if (A && A->rank == 3 && A->dims[2] == 4) {
        const double *a = A->data;
        /* A(i,j,k) at i + 3 j + 9 k */
        tap_ok(isnan(a[0]) && isnan(a[8]) && isnan(a[18]), "mat: failed points 0 and 2 are NaN");
        tap_ok(a[9 + 0] == 1 && a[9 + 2] == 1e-300 && a[9 + 4] == -2.5 && a[9 + 8] == 3 && a[9 + 1] == 0,
               "mat: A(:,:,2) is point 1's A");
        tap_ok(a[27 + 0] == 2 && a[27 + 4] == -5 && a[27 + 8] == 6, "mat: A(:,:,4) is point 3's A");
    }
    matvar_t *D = mvar(m, "D");
    tap_ok(D && D->rank == 3 && D->dims[0] == 1 && D->dims[1] == 2 && ((double *)D->data)[3 * 2 + 1] == 0.5,
           "mat: D(1,2,4) = 0.5");
    matvar_t *ok = mvar(m, "Ok");
    tap_ok(ok && ok->dims[0] == 4 && ok->isLogical && ((unsigned char *)ok->data)[0] == 0 &&
               ((unsigned char *)ok->data)[1] == 1 && ((unsigned char *)ok->data)[2] == 0 &&
               ((unsigned char *)ok->data)[3] == 1,
           "mat: Ok is logical [0 1 0 1]'");
    matvar_t *e = mvar(m, "Error");
    tap_ok(e && e->dims[0] == 4 && e->dims[1] == strlen("singular loop at \"x\"") &&
               row_is(e, 0, "singular loop at \"x\"") && row_is(e, 1, "") && row_is(e, 2, "failed"),
           "mat: Error is a char matrix, a row per point, blank when ok");
    matvar_t *v = mvar(m, "Value");
    tap_ok(v && v->dims[0] == 2 && v->dims[1] == 4 && ((double *)v->data)[2 * 3 + 1] == 13 &&
               ((double *)v->data)[2 * 1] == 0.5,
           "mat: Value is 2 x 4, column k = point k's values");
    matvar_t *vn = mvar(m, "ValueName");
    tap_ok(row_is(vn, 1, "gain") && row_is(vn, 0, "t"), "mat: ValueName rows 't', 'gain'");
    matvar_t *sn = mvar(m, "StateName"), *in = mvar(m, "InputName");
    tap_ok(sn && sn->dims[0] == 3 && row_is(sn, 1, "two\nlines") && row_is(in, 1, "u2") &&
               ((const unsigned short *)sn->data)[2] == 0x3A9,
           "mat: StateName (UTF-16: the Omega), InputName with the default name u2");
    matvar_t *ts = mvar(m, "Ts");
    tap_ok(ts && ((double *)ts->data)[0] == 0, "mat: Ts = 0");
    matvar_t *all[] = {A, D, ok, e, v, vn, sn, in, ts};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++) Mat_VarFree(all[k]);
    if (m) Mat_Close(m);
    clean();
}

/* ---- HDF5 read back with libhdf5 */

static int h5read(hid_t f, const char *name, hid_t mtype, void *buf, hsize_t *dims, int *rank)
{
    hid_t ds = H5Dopen2(f, name, H5P_DEFAULT);
    if (ds < 0) {
        printf("#   no dataset %s\n", name);
        return -1;
    }
    hid_t sp = H5Dget_space(ds);
    *rank = H5Sget_simple_extent_dims(sp, dims, NULL);
    int bad = buf && H5Dread(ds, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0;
    H5Sclose(sp);
    H5Dclose(ds);
    return bad ? -1 : 0;
}

static void test_h5(void)
{
    jg_error_t err;
    const char *p = tmp("r.h5");
    jg_status_t st = write4(p, JG_IO_BATCH_H5, &err);
    if (!tap_ok(st == JG_OK, "h5: written")) printf("#   %s\n", err.msg);
    tap_ok(nfiles() == 1, "h5: only the target left");
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
    double a[36];
    hsize_t dims[4] = {0};
    int rank = 0;
    tap_ok(f >= 0 && !h5read(f, "A", H5T_NATIVE_DOUBLE, a, dims, &rank) && rank == 3 && dims[0] == 4 &&
               dims[1] == 3 && dims[2] == 3,
           "h5: A is 4 x 3 x 3 (points first, C order)");
    /* A[k][i][j] at 9 k + 3 i + j */
    tap_ok(isnan(a[0]) && isnan(a[18 + 4]), "h5: failed points read NaN");
    tap_ok(a[9] == 1 && a[9 + 6] == 1e-300 && a[9 + 4] == -2.5 && a[9 + 8] == 3 && a[9 + 3] == 0,
           "h5: A[1] is point 1's A");
    tap_ok(a[27 + 4] == -5, "h5: A[3] is point 3's A");
    unsigned char ok[4] = {9, 9, 9, 9};
    tap_ok(!h5read(f, "Ok", H5T_NATIVE_UCHAR, ok, dims, &rank) && dims[0] == 4 && ok[0] == 0 && ok[1] == 1 &&
               ok[2] == 0 && ok[3] == 1,
           "h5: Ok = [0 1 0 1]");
    double v[8];
    tap_ok(!h5read(f, "Value", H5T_NATIVE_DOUBLE, v, dims, &rank) && rank == 2 && dims[0] == 4 &&
               dims[1] == 2 && v[7] == 13 && v[2] == 0.5,
           "h5: Value is 4 x 2, row k = point k's values");
    char *e[4] = {0};
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);   /* HDF5 converts no character sets */
    tap_ok(!h5read(f, "Error", t, e, dims, &rank) && e[0] && !strcmp(e[0], "singular loop at \"x\"") &&
               e[1] && !*e[1] && e[2] && !strcmp(e[2], "failed"),
           "h5: Error strings, '' when ok");
    char *sn[3] = {0};
    tap_ok(!h5read(f, "StateName", t, sn, dims, &rank) && dims[0] == 3 && sn[2] &&
               !strcmp(sn[2], "\xce\xa9"),
           "h5: StateName (UTF-8)");
    for (int k = 0; k < 4; k++) free(e[k]);
    for (int k = 0; k < 3; k++) free(sn[k]);
    H5Tclose(t);
    if (f >= 0) H5Fclose(f);
    clean();
}

/* ---- a sparse variable read back from either format: 0-based indices,
 * pattern -1 for a failed point (the MAT-file's 1-based ids and 0) */

typedef struct {
    int64_t m, n, npat, N;
    double *i, *j, *x, *pptr, *pat, *ptr;
} sp_t;

static void sp_free(sp_t *a)
{
    free(a->i), free(a->j), free(a->x), free(a->pptr), free(a->pat), free(a->ptr);
    memset(a, 0, sizeof *a);
}

/* Read VAR_i, _j, _x, _pptr, _pat, _ptr, _size of path as doubles; 1 ok. */
static int sp_read(const char *path, int fmt, const char *var, sp_t *a)
{
    static const char *const sfx[7] = {"_i", "_j", "_x", "_pptr", "_pat", "_ptr", "_size"};
    double *dst[7] = {0};
    int64_t len[7] = {0};
    char name[32];
    int ok = 1;
    memset(a, 0, sizeof *a);
    if (fmt == JG_IO_BATCH_MAT) {
        mat_t *m = Mat_Open(path, MAT_ACC_RDONLY);
        for (int c = 0; c < 7 && ok; c++) {
            snprintf(name, sizeof name, "%s%s", var, sfx[c]);
            matvar_t *v = mvar(m, name);
            ok = v && v->class_type == MAT_C_DOUBLE;
            if (ok) {
                len[c] = (int64_t)(v->nbytes / sizeof(double));
                dst[c] = malloc(v->nbytes + sizeof(double));
                memcpy(dst[c], v->data, v->nbytes);
            }
            Mat_VarFree(v);
        }
        if (m) Mat_Close(m);
        ok = ok && m;
    } else {
        hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
        ok = f >= 0;
        for (int c = 0; c < 7 && ok; c++) {
            hsize_t d[3] = {0};
            int r = 0;
            snprintf(name, sizeof name, "%s%s", var, sfx[c]);
            hid_t ds = H5Dopen2(f, name, H5P_DEFAULT);
            if (ds >= 0) {
                hid_t sp = H5Dget_space(ds);
                r = H5Sget_simple_extent_dims(sp, d, NULL);
                H5Sclose(sp);
                H5Dclose(ds);
            }
            ok = ds >= 0 && r == 1;
            dst[c] = malloc(sizeof(double) * (d[0] + 1));
            len[c] = (int64_t)d[0];
            ok = ok && !h5read(f, name, H5T_NATIVE_DOUBLE, dst[c], d, &r);
        }
        if (f >= 0) H5Fclose(f);
    }
    a->i = dst[0], a->j = dst[1], a->x = dst[2], a->pptr = dst[3], a->pat = dst[4], a->ptr = dst[5];
    if (!ok || len[6] != 2 || len[0] != len[1] || len[3] < 1) {
        free(dst[6]);
        sp_free(a);
        return 0;
    }
    a->m = (int64_t)dst[6][0], a->n = (int64_t)dst[6][1];
    free(dst[6]);
    a->npat = len[3] - 1, a->N = len[4];
    if (fmt == JG_IO_BATCH_MAT)
        for (int64_t k = 0; k < len[0]; k++) a->i[k] -= 1, a->j[k] -= 1;
    if (fmt == JG_IO_BATCH_MAT)
        for (int64_t k = 0; k < a->N; k++) a->pat[k] -= 1;
    return len[5] == a->N + 1;
}

/* Point k of a equals M (entries that are exactly zero are not stored) or,
 * M NULL, the point failed: no pattern, no values. */
static int sp_point_is(const sp_t *a, int64_t k, const cs_dl *M)
{
    int64_t lo = (int64_t)a->ptr[k], hi = (int64_t)a->ptr[k + 1], t = (int64_t)a->pat[k];
    if (!M) return t == -1 && lo == hi;
    if (t < 0 || t >= a->npat || M->m != a->m || M->n != a->n) return 0;
    int64_t q = (int64_t)a->pptr[t], nq = (int64_t)a->pptr[t + 1] - q, e = 0;
    if (nq != hi - lo) return 0;
    for (int64_t j = 0; j < M->n; j++)   /* M's nonzeros in column order = the stored order */
        for (int64_t p = M->p[j]; p < M->p[j + 1]; p++) {
            if (M->x[p] == 0) continue;
            if (e == nq || a->i[q + e] != (double)M->i[p] || a->j[q + e] != (double)j || a->x[lo + e] != M->x[p])
                return 0;
            e++;
        }
    return e == nq;
}

/* ---- sparse layout: A of 120 x 120 (beyond JG_IO_BATCH_DENSE_MAX) */

static void test_sparse(void)
{
    jg_error_t err;
    for (int fmt = JG_IO_BATCH_MAT; fmt <= JG_IO_BATCH_H5; fmt++) {
        const char *name = fmt == JG_IO_BATCH_MAT ? "mat" : "h5";
        const char *p = tmp(fmt == JG_IO_BATCH_MAT ? "s.mat" : "s.h5");
        jg_io_batch_t *w;
        jg_status_t st = jg_io_batch_open(p, fmt, 3, 0, NULL, &w, &err);
        jg_lin_sys_t *s0 = big(120, 1), *s2 = big(120, 0);   /* scale 0: the subdiagonal drops */
        if (!st) st = jg_io_batch_put(w, 0, NULL, s0, NULL, &err);
        if (!st) st = jg_io_batch_put(w, 1, NULL, NULL, "no", &err);
        if (!st) st = jg_io_batch_put(w, 2, NULL, s2, NULL, &err);
        st = st ? st : jg_io_batch_close(w, 1, &err);
        if (!tap_ok(st == JG_OK, "%s sparse: written", name)) printf("#   %s\n", err.msg);
        jg_lin_sys_free(s0);
        jg_lin_sys_free(s2);
        double ptr[4] = {-1, -1, -1, -1}, ai[400], aj[400], ax[400], size[2] = {0};
        if (fmt == JG_IO_BATCH_MAT) {
            mat_t *m = Mat_Open(p, MAT_ACC_RDONLY);
            matvar_t *v[5] = {mvar(m, "A_ptr"), mvar(m, "A_i"), mvar(m, "A_j"), mvar(m, "A_x"),
                              mvar(m, "A_size")};
            double *dst[5] = {ptr, ai, aj, ax, size};
            size_t cap[5] = {4, 400, 400, 400, 2};
            for (int c = 0; c < 5; c++)
                if (v[c] && v[c]->nbytes <= cap[c] * sizeof(double)) memcpy(dst[c], v[c]->data, v[c]->nbytes);
            matvar_t *A = Mat_VarRead(m, "A"), *B = Mat_VarRead(m, "B"), *D = Mat_VarRead(m, "D");
            tap_ok(!A && !B && !D, "mat sparse: no dense A, nor B (120 x 1, one nonzero), nor D (none)");
            Mat_VarFree(A), Mat_VarFree(B), Mat_VarFree(D);
            for (int c = 0; c < 5; c++) Mat_VarFree(v[c]);
            if (m) Mat_Close(m);
            /* 1-based in the MAT-file */
            for (int k = 0; k < 400; k++) ai[k] -= 1, aj[k] -= 1;
        } else {
            hid_t f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
            hsize_t d[3];
            int r;
            int64_t ip[4], ii[400], ij[400], is[2];
            h5read(f, "A_ptr", H5T_NATIVE_INT64, ip, d, &r);
            h5read(f, "A_i", H5T_NATIVE_INT64, ii, d, &r);
            h5read(f, "A_j", H5T_NATIVE_INT64, ij, d, &r);
            h5read(f, "A_x", H5T_NATIVE_DOUBLE, ax, d, &r);
            h5read(f, "A_size", H5T_NATIVE_INT64, is, d, &r);
            for (int k = 0; k < 4; k++) ptr[k] = (double)ip[k];
            for (int k = 0; k < 359; k++) ai[k] = (double)ii[k], aj[k] = (double)ij[k];
            size[0] = (double)is[0], size[1] = (double)is[1];
            if (f >= 0) H5Fclose(f);
        }
        tap_ok(ptr[0] == 0 && ptr[1] == 239 && ptr[2] == 239 && ptr[3] == 359,
               "%s sparse: offsets 0 239 239 359 (failed point empty)", name);
        tap_ok(size[0] == 120 && size[1] == 120, "%s sparse: A_size = [120 120]", name);
        tap_ok(ai[0] == 0 && aj[0] == 0 && ax[0] == -1 && ai[1] == 1 && aj[1] == 0 && ax[1] == 1 &&
                   ai[238] == 119 && aj[238] == 119 && ax[238] == -120,
               "%s sparse: point 0's triplets in column order", name);
        tap_ok(ai[239 + 5] == 5 && aj[239 + 5] == 5 && ax[239 + 5] == -1, "%s sparse: point 2's diagonal", name);
        /* two patterns: point 0's (239 entries), point 2's (the diagonal, 120) */
        sp_t a;
        int got = sp_read(p, fmt, "A", &a);
        tap_ok(got && a.npat == 2 && a.pptr[1] == 239 && a.pptr[2] == 359 && a.pat[0] == 0 && a.pat[1] == -1 &&
                   a.pat[2] == 1,
               "%s sparse: A_pptr = [0 239 359], A_pat = point 0, none, point 2's", name);
        sp_free(&a);
        clean();
    }
}

/* ---- HDF5 sparse triplets are appended in blocks (65536): 300 points of
 * 239 triplets cross a block inside a put and leave a partial block for the
 * close; every point must still be where A_ptr says */

static void test_sparse_blocks(void)
{
    jg_error_t err;
    const char *p = tmp("blocks.h5");
    enum { NP = 300, NZ = 239 };
    jg_io_batch_t *w;
    jg_status_t st = jg_io_batch_open(p, JG_IO_BATCH_H5, NP, 0, NULL, &w, &err);
    for (int k = 0; k < NP && !st; k++) {
        jg_lin_sys_t *s = big(120, 1.0 + k);
        st = jg_io_batch_put(w, k, NULL, s, NULL, &err);
        jg_lin_sys_free(s);
    }
    st = st ? st : jg_io_batch_close(w, 1, &err);
    if (!tap_ok(st == JG_OK, "h5 blocks: %d points written", NP)) printf("#   %s\n", err.msg);
    hid_t f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
    hsize_t d[3] = {0};
    int r = 0, ok = f >= 0;
    int64_t *ip = calloc(NP + 1, sizeof *ip), *ii = calloc(NP * NZ, sizeof *ii);
    double *ax = calloc(NP * NZ, sizeof *ax);
    ok = ok && !h5read(f, "A_ptr", H5T_NATIVE_INT64, ip, d, &r) && d[0] == NP + 1;
    ok = ok && !h5read(f, "A_x", H5T_NATIVE_DOUBLE, ax, d, &r) && d[0] == (hsize_t)NP * NZ;
    ok = ok && !h5read(f, "A_i", H5T_NATIVE_INT64, ii, d, &r) && d[0] == NZ;   /* one pattern */
    for (int k = 0; ok && k <= NP; k++) ok = ip[k] == (int64_t)k * NZ;
    /* big(n, scale): A(1, 0) = scale, A(n-1, n-1) = -1 - (n-1) scale; scale = 1 + k */
    for (int k = 0; ok && k < NP; k++)
        ok = ax[k * NZ] == -1 && ax[k * NZ + 1] == 1.0 + k && ax[k * NZ + NZ - 1] == -1 - 119 * (1.0 + k);
    ok = ok && ii[NZ - 1] == 119;
    ok = ok && !h5read(f, "A_pat", H5T_NATIVE_INT64, ip, d, &r) && d[0] == NP;
    for (int k = 0; ok && k < NP; k++) ok = ip[k] == 0;
    tap_ok(ok, "h5 blocks: A_ptr = 239 k, each point's values in place, one pattern");
    if (f >= 0) H5Fclose(f);
    free(ip);
    free(ii);
    free(ax);
    clean();
}

/* ---- write-behind: a file that grows past 8 MiB is handed to the disk as it
 * grows (batch.c), and what is read back is still every point; JSON Lines
 * to a device is not (no temporary file) */

static void test_write_behind(void)
{
    jg_error_t err;
    const char *p = tmp("behind.h5");
    enum { NP = 400, N = 2000, NZ = 2 * N - 1 };   /* 32 KB of values a point: 12.8 MB */
    jg_io_batch_t *w;
    int64_t handed = -1, handed_half = -1;
    jg_status_t st = jg_io_batch_open(p, JG_IO_BATCH_H5, NP, 0, NULL, &w, &err);
    for (int k = 0; k < NP && !st; k++) {
        jg_lin_sys_t *s = big(N, 1.0 + k);
        st = jg_io_batch_put(w, k, NULL, s, NULL, &err);
        jg_lin_sys_free(s);
        if (k == NP / 8) handed_half = w->wb_done;   /* 1.6 MB written: too little */
    }
    if (!st) handed = w->wb_done;
    st = st ? st : jg_io_batch_close(w, 1, &err);
    if (!tap_ok(st == JG_OK, "write-behind: %d points written", NP)) printf("#   %s\n", err.msg);
    tap_ok(handed_half == 0 && handed >= 8 << 20 && handed % (1 << 20) == 0,
           "write-behind: nothing handed over at 1.6 MB, whole MiB past 8 MiB at the end (%lld)",
           (long long)handed);
    hid_t f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
    hsize_t d[3] = {0};
    int r = 0, ok = f >= 0;
    double *ax = calloc((size_t)NP * NZ, sizeof *ax);
    ok = ok && !h5read(f, "A_x", H5T_NATIVE_DOUBLE, ax, d, &r) && d[0] == (hsize_t)NP * NZ;
    for (int k = 0; ok && k < NP; k++)
        ok = ax[(size_t)k * NZ] == -1 && ax[(size_t)k * NZ + 1] == 1.0 + k &&
             ax[(size_t)k * NZ + NZ - 1] == -1 - (N - 1) * (1.0 + k);
    tap_ok(ok, "write-behind: every point's values read back");
    if (f >= 0) H5Fclose(f);
    free(ax);
    st = jg_io_batch_open("/dev/null", JG_IO_BATCH_JSONL, 1, 0, NULL, &w, &err);
    tap_ok(!st && w->direct && w->wb_fd == -1, "write-behind: none for JSON Lines to a device");
    if (!st) jg_io_batch_close(w, 0, NULL);
    clean();
}

/* ---- HDF5's Value table is written a chunk of rows at a time as the points
 * come in: 3,000 values a point make chunks of 10 rows; 25 points, the
 * first two failed (held back until point 2), leave a partial chunk for the
 * close; every row must read back as put */

static void test_value_chunks(void)
{
    jg_error_t err;
    const char *p = tmp("values.h5");
    enum { NP = 25, NV = 3000 };
    char **vn = calloc(NV, sizeof *vn);
    double *v = malloc(sizeof(double) * NP * NV), *got = calloc(NP * NV, sizeof(double));
    for (int j = 0; j < NV; j++) {
        vn[j] = malloc(16);
        snprintf(vn[j], 16, "v%d", j);
    }
    for (int k = 0; k < NP * NV; k++) v[k] = 0.25 * k - 7;
    jg_io_batch_t *w;
    jg_status_t st = jg_io_batch_open(p, JG_IO_BATCH_H5, NP, NV, (const char *const *)vn, &w, &err);
    for (int k = 0; k < NP && !st; k++) {
        jg_lin_sys_t *s = k < 2 ? NULL : small(k);
        st = jg_io_batch_put(w, k, v + (size_t)k * NV, s, s ? NULL : "no", &err);
        jg_lin_sys_free(s);
    }
    st = st ? st : jg_io_batch_close(w, 1, &err);
    if (!tap_ok(st == JG_OK, "h5 values: %d points of %d values written", NP, NV)) printf("#   %s\n", err.msg);
    hid_t f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
    hsize_t d[3] = {0};
    int r = 0, ok = f >= 0 && !h5read(f, "Value", H5T_NATIVE_DOUBLE, got, d, &r) && r == 2 && d[0] == NP &&
                    d[1] == NV;
    for (int k = 0; ok && k < NP * NV; k++) ok = got[k] == v[k];
    tap_ok(ok, "h5 values: Value is 25 x 3000, every row as put (chunks of 10 rows, the last partial)");
    if (f >= 0) H5Fclose(f);
    for (int j = 0; j < NV; j++) free(vn[j]);
    free(vn);
    free(v);
    free(got);
    clean();
}

/* ---- the pattern dictionary: points whose patterns change and come back */

/* An n x n model whose A holds the entries of mask (bit e: column-major
 * element e of the first 6 x 6 block) with values scale * (e + 1), and an
 * exact zero at (n-1, 0) that is not stored. */
static jg_lin_sys_t *masked(int64_t n, uint64_t mask, double scale)
{
    jg_lin_sys_t *s = big(n, scale);
    cs_dl_spfree(s->A);
    cs_dl *T = cs_dl_spalloc(n, n, 40, 1, 1);
    for (int e = 0; e < 36; e++)
        if (mask >> e & 1) cs_dl_entry(T, e % 6, e / 6, scale * (e + 1));
    cs_dl_entry(T, n - 1, 0, 0.0);
    s->A = cs_dl_compress(T);
    cs_dl_spfree(T);
    return s;
}

static void test_patterns(void)
{
    jg_error_t err;
    /* masks: P0, P1, P0, failed, P1, P2, P2 -> patterns 0 1 0 -1 1 2 2 */
    static const uint64_t mk[7] = {0x3F, 0x1041, 0x3F, 0, 0x1041, 0xFFFFFFFFFULL, 0xFFFFFFFFFULL};
    enum { NP = 7 };
    for (int fmt = JG_IO_BATCH_MAT; fmt <= JG_IO_BATCH_H5; fmt++) {
        const char *name = fmt == JG_IO_BATCH_MAT ? "mat" : "h5";
        const char *p = tmp(fmt == JG_IO_BATCH_MAT ? "pat.mat" : "pat.h5");
        jg_lin_sys_t *s[NP] = {0};
        jg_io_batch_t *w;
        jg_status_t st = jg_io_batch_open(p, fmt, NP, 0, NULL, &w, &err);
        for (int k = 0; k < NP && !st; k++) {
            if (k != 3) s[k] = masked(120, mk[k], 1.0 + k);
            st = jg_io_batch_put(w, k, NULL, s[k], s[k] ? NULL : "failed", &err);
        }
        st = st ? st : jg_io_batch_close(w, 1, &err);
        if (!tap_ok(st == JG_OK, "%s patterns: written", name)) printf("#   %s\n", err.msg);
        sp_t a;
        int ok = sp_read(p, fmt, "A", &a);
        tap_ok(ok && a.npat == 3 && a.pptr[0] == 0 && a.pptr[1] == 6 && a.pptr[2] == 9 && a.pptr[3] == 45,
               "%s patterns: three distinct patterns of 6, 3 and 36 entries, in order of first appearance", name);
        tap_ok(ok && a.pat[0] == 0 && a.pat[1] == 1 && a.pat[2] == 0 && a.pat[3] == -1 && a.pat[4] == 1 &&
                   a.pat[5] == 2 && a.pat[6] == 2,
               "%s patterns: A_pat = 0 1 0 none 1 2 2", name);
        int same = ok;
        for (int k = 0; same && k < NP; k++) same = sp_point_is(&a, k, s[k] ? s[k]->A : NULL);
        tap_ok(same, "%s patterns: every point's A read back through its pattern (stored zero dropped)", name);
        sp_free(&a);
        ok = sp_read(p, fmt, "B", &a);
        same = ok && a.npat == 1;
        for (int k = 0; same && k < NP; k++) same = sp_point_is(&a, k, s[k] ? s[k]->B : NULL);
        tap_ok(same, "%s patterns: B (120 x 1, one nonzero: sparse by default) one pattern", name);
        sp_free(&a);
        for (int k = 0; k < NP; k++) jg_lin_sys_free(s[k]);
        clean();
    }
}

/* ---- the layout: auto's quarter rule, the overrides, the refusals */

/* nx = 10 states, A with its first nz elements (column-major) nonzero. */
static jg_lin_sys_t *filled(int nz)
{
    jg_lin_sys_t *s = big(10, 1);
    cs_dl_spfree(s->A);
    cs_dl *T = cs_dl_spalloc(10, 10, 100, 1, 1);
    for (int e = 0; e < nz; e++) cs_dl_entry(T, e % 10, e / 10, 1.0 + e);
    s->A = cs_dl_compress(T);
    cs_dl_spfree(T);
    return s;
}

/* 1 when path holds variable var dense (MAT: var; HDF5: dataset var). */
static int has_dense(const char *path, int fmt, const char *var)
{
    int yes = 0;
    if (fmt == JG_IO_BATCH_MAT) {
        mat_t *m = Mat_Open(path, MAT_ACC_RDONLY);
        matvar_t *v = m ? Mat_VarReadInfo(m, var) : NULL;
        yes = v != NULL;
        Mat_VarFree(v);
        if (m) Mat_Close(m);
    } else {
        hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
        yes = f >= 0 && H5Lexists(f, var, H5P_DEFAULT) > 0;
        if (f >= 0) H5Fclose(f);
    }
    return yes;
}

static jg_status_t write_one(const char *p, int fmt, int layout, jg_lin_sys_t *s, jg_error_t *err)
{
    jg_io_batch_t *w;
    jg_status_t st = jg_io_batch_open(p, fmt, 2, 0, NULL, &w, err);
    if (st) return st;
    if (layout >= 0) st = jg_io_batch_set_layout(w, (jg_io_batch_layout_t)layout, err);
    if (!st) st = jg_io_batch_put(w, 0, NULL, NULL, "first fails", err);   /* the layout waits for a model */
    if (!st) st = jg_io_batch_put(w, 1, NULL, s, NULL, err);
    jg_status_t cs = jg_io_batch_close(w, st == JG_OK, err);
    return st ? st : cs;
}

static void test_layout(void)
{
    jg_error_t err;
    for (int fmt = JG_IO_BATCH_MAT; fmt <= JG_IO_BATCH_H5; fmt++) {
        const char *name = fmt == JG_IO_BATCH_MAT ? "mat" : "h5";
        const char *p = tmp(fmt == JG_IO_BATCH_MAT ? "l.mat" : "l.h5");
        /* auto: 25 of 100 nonzero is a quarter (dense), 24 is not */
        jg_lin_sys_t *q25 = filled(25), *q24 = filled(24), *b = big(120, 1);
        tap_ok(!write_one(p, fmt, -1, q25, &err) && has_dense(p, fmt, "A"), "%s auto: 25 of 100 dense", name);
        tap_ok(!write_one(p, fmt, JG_IO_BATCH_AUTO, q24, &err) && !has_dense(p, fmt, "A") &&
                   has_dense(p, fmt, "A_pat"),
               "%s auto: 24 of 100 sparse", name);
        sp_t a;
        int ok = sp_read(p, fmt, "A", &a) && sp_point_is(&a, 0, NULL) && sp_point_is(&a, 1, q24->A);
        tap_ok(ok, "%s auto: the sparse A read back, the failed point without a pattern", name);
        sp_free(&a);
        /* the overrides */
        tap_ok(!write_one(p, fmt, JG_IO_BATCH_SPARSE, q25, &err) && !has_dense(p, fmt, "A") &&
                   !has_dense(p, fmt, "D") && has_dense(p, fmt, "D_x"),
               "%s --layout sparse: A and D (1 x 1) sparse", name);
        ok = sp_read(p, fmt, "A", &a) && sp_point_is(&a, 1, q25->A);
        tap_ok(ok, "%s --layout sparse: A read back", name);
        sp_free(&a);
        tap_ok(!write_one(p, fmt, JG_IO_BATCH_DENSE, q24, &err) && has_dense(p, fmt, "A") &&
                   has_dense(p, fmt, "B") && !has_dense(p, fmt, "B_x"),
               "%s --layout dense: A (24 of 100) and B (10 x 1, one nonzero) dense", name);
        jg_status_t st = write_one(p, fmt, JG_IO_BATCH_DENSE, b, &err);
        if (!tap_ok(st == JG_ARG && strstr(err.msg, "matrix A is 120x120") && strstr(err.msg, "at most 10000") &&
                        nfiles() == 1,
                    "%s --layout dense: a 120 x 120 A refused, the earlier file kept, no temporary", name))
            printf("#   %s\n", err.msg);
        jg_lin_sys_free(q25);
        jg_lin_sys_free(q24);
        jg_lin_sys_free(b);
        clean();
    }
    jg_io_batch_t *w;
    jg_lin_sys_t *s = small(1);
    jg_io_batch_open(tmp("x.h5"), JG_IO_BATCH_H5, 2, 0, NULL, &w, &err);
    tap_ok(jg_io_batch_set_layout(w, (jg_io_batch_layout_t)3, &err) == JG_ARG, "layout: unknown refused");
    tap_ok(jg_io_batch_set_layout(NULL, JG_IO_BATCH_AUTO, &err) == JG_ARG, "layout: no writer refused");
    jg_io_batch_put(w, 0, NULL, s, NULL, &err);
    tap_ok(jg_io_batch_set_layout(w, JG_IO_BATCH_SPARSE, &err) == JG_ARG && strstr(err.msg, "before the first"),
           "layout: refused after a point");
    jg_io_batch_put(w, 1, NULL, s, NULL, &err);
    tap_ok(jg_io_batch_close(w, 1, &err) == JG_OK && has_dense(tmp("x.h5"), JG_IO_BATCH_H5, "A"),
           "layout: the writer goes on as it was");
    jg_lin_sys_free(s);
    clean();
}

/* ---- refusals: nothing half-written is left under the target's name */

static void test_refusals(void)
{
    jg_error_t err;
    jg_io_batch_format_t f = JG_IO_BATCH_H5;
    tap_ok(!jg_io_batch_format_parse("a/b.JSONL", &f) && f == JG_IO_BATCH_JSONL &&
               !jg_io_batch_format_parse("x.mat", &f) && f == JG_IO_BATCH_MAT &&
               !jg_io_batch_format_parse("x.hdf5", &f) && f == JG_IO_BATCH_H5 &&
               jg_io_batch_format_parse("x.json", &f) == -1 && jg_io_batch_format_parse(".h5", &f) == -1 &&
               jg_io_batch_format_parse(NULL, &f) == -1,
           "format from the extension");

    jg_io_batch_t *w = (jg_io_batch_t *)1;
    tap_ok(jg_io_batch_open(NULL, JG_IO_BATCH_MAT, 1, 0, NULL, &w, &err) == JG_ARG && !w, "open: no path");
    tap_ok(jg_io_batch_open(tmp("x.mat"), JG_IO_BATCH_MAT, -1, 0, NULL, &w, &err) == JG_ARG, "open: negative count");
    tap_ok(jg_io_batch_open(tmp("x.mat"), (jg_io_batch_format_t)7, 1, 0, NULL, &w, &err) == JG_ARG,
           "open: unknown format");
    tap_ok(jg_io_batch_open(tmp("x.mat"), JG_IO_BATCH_MAT, 1, 1, (const char *const[]){"\xff"}, &w, &err) ==
               JG_ARG,
           "open: a value name that is not UTF-8");
    tap_ok(jg_io_batch_open(tmp("no/such/x.jsonl"), JG_IO_BATCH_JSONL, 1, 0, NULL, &w, &err) == JG_IO &&
               strstr(err.msg, "no/such"),
           "open: a missing directory is JG_IO naming the file");
    tap_ok(jg_io_batch_open("/dev/null", JG_IO_BATCH_MAT, 1, 0, NULL, &w, &err) == JG_ARG,
           "open: MAT to a device refused");
    tap_ok(jg_io_batch_put(NULL, 0, NULL, NULL, NULL, &err) == JG_ARG && jg_io_batch_close(NULL, 1, &err) == JG_OK,
           "put/close: NULL writer");

    /* an older file under the name survives every failed run */
    const char *p = tmp("keep.h5");
    FILE *old = fopen(p, "w");
    fputs("old", old);
    fclose(old);
    jg_lin_sys_t *s = small(1), *b = big(4, 1);
    for (int fmt = 0; fmt < 3; fmt++) {
        static const char *const nm[3] = {"jsonl", "mat", "h5"};
        jg_status_t st;
        /* out of order */
        jg_io_batch_open(p, fmt, 3, 0, NULL, &w, &err);
        jg_io_batch_put(w, 1, NULL, s, NULL, &err);
        st = jg_io_batch_put(w, 0, NULL, s, NULL, &err);
        tap_ok(st == JG_ARG && strstr(err.msg, "out of order"), "%s: point out of order refused", nm[fmt]);
        tap_ok(jg_io_batch_put(w, 2, NULL, s, NULL, &err) == JG_ARG, "%s: nothing accepted after a failure", nm[fmt]);
        tap_ok(jg_io_batch_close(w, 1, &err) == JG_ARG, "%s: commit refused after a failure", nm[fmt]);
        /* a missing point */
        jg_io_batch_open(p, fmt, 3, 0, NULL, &w, &err);
        jg_io_batch_put(w, 0, NULL, s, NULL, &err);
        jg_io_batch_put(w, 2, NULL, s, NULL, &err);
        tap_ok(jg_io_batch_close(w, 1, &err) == JG_ARG && strstr(err.msg, "point 1 of 3"),
               "%s: commit refused naming the missing point", nm[fmt]);
        /* sizes change */
        jg_io_batch_open(p, fmt, 2, 0, NULL, &w, &err);
        jg_io_batch_put(w, 0, NULL, s, NULL, &err);
        tap_ok(jg_io_batch_put(w, 1, NULL, b, NULL, &err) == JG_ARG && strstr(err.msg, "point 1 has 4 states"),
               "%s: a model of other sizes refused", nm[fmt]);
        jg_io_batch_close(w, 1, &err);
        /* beyond the end; no values */
        jg_io_batch_open(p, fmt, 1, 1, VN, &w, &err);
        tap_ok(jg_io_batch_put(w, 0, NULL, s, NULL, &err) == JG_ARG, "%s: point without its values refused",
               nm[fmt]);
        jg_io_batch_close(w, 1, &err);
        jg_io_batch_open(p, fmt, 1, 0, NULL, &w, &err);
        jg_io_batch_put(w, 0, NULL, s, NULL, &err);
        tap_ok(jg_io_batch_put(w, 1, NULL, s, NULL, &err) == JG_ARG, "%s: point beyond the end refused", nm[fmt]);
        jg_io_batch_close(w, 1, &err);
        /* commit = 0 */
        jg_io_batch_open(p, fmt, 1, 0, NULL, &w, &err);
        jg_io_batch_put(w, 0, NULL, s, NULL, &err);
        tap_ok(jg_io_batch_close(w, 0, &err) == JG_OK, "%s: abandoned", nm[fmt]);
        char buf[8] = {0};
        FILE *r = fopen(p, "r");
        if (r) fread(buf, 1, 7, r), fclose(r);
        tap_ok(!strcmp(buf, "old") && nfiles() == 1, "%s: the old file is intact, no temporary left", nm[fmt]);
    }
    /* through a link: the file it names is replaced, the link kept */
    const char *real = tmp("real.jsonl"), *link = tmp("link.jsonl");
    FILE *rf = fopen(real, "w");
    fputs("old", rf);
    fclose(rf);
    tap_ok(symlink("real.jsonl", link) == 0, "a link made");
    jg_io_batch_open(link, JG_IO_BATCH_JSONL, 1, 0, NULL, &w, &err);
    jg_io_batch_put(w, 0, NULL, s, NULL, &err);
    struct stat lb;
    tap_ok(jg_io_batch_close(w, 1, &err) == JG_OK && lstat(link, &lb) == 0 && S_ISLNK(lb.st_mode) &&
               stat(real, &lb) == 0 && lb.st_size > 100,
           "through a link: the link kept, the file it names written");
    remove(link);
    remove(real);
    /* a device: JSON Lines written straight to it, nothing created beside it */
    tap_ok(jg_io_batch_open("/dev/null", JG_IO_BATCH_JSONL, 1, 0, NULL, &w, &err) == JG_OK &&
               jg_io_batch_put(w, 0, NULL, s, NULL, &err) == JG_OK && jg_io_batch_close(w, 1, &err) == JG_OK,
           "JSON Lines to /dev/null");
    /* a bad matrix */
    jg_io_batch_open(tmp("bad.jsonl"), JG_IO_BATCH_JSONL, 1, 0, NULL, &w, &err);
    cs_dl *keep = s->C;
    s->C = NULL;
    tap_ok(jg_io_batch_put(w, 0, NULL, s, NULL, &err) == JG_ARG, "a missing matrix refused");
    s->C = keep;
    jg_io_batch_close(w, 1, &err);
    tap_ok(!exists(tmp("bad.jsonl")), "nothing written under the name");
    jg_lin_sys_free(s);
    jg_lin_sys_free(b);
    clean();
}

/* ---- degenerate batches: no points; every point failed */

static void test_degenerate(void)
{
    jg_error_t err;
    for (int fmt = 0; fmt < 3; fmt++) {
        static const char *const ext[3] = {"e.jsonl", "e.mat", "e.h5"};
        jg_io_batch_t *w;
        jg_status_t st = jg_io_batch_open(tmp(ext[fmt]), fmt, 0, 0, NULL, &w, &err);
        if (!st) st = jg_io_batch_close(w, 1, &err);
        if (!tap_ok(st == JG_OK && exists(tmp(ext[fmt])), "%s: no points, a valid file", ext[fmt]))
            printf("#   %s\n", err.msg);
        st = jg_io_batch_open(tmp(ext[fmt]), fmt, 2, 1, VN, &w, &err);
        if (!st) st = jg_io_batch_put(w, 0, (double[]){1}, NULL, "a", &err);
        if (!st) st = jg_io_batch_put(w, 1, (double[]){2}, NULL, "b", &err);
        if (!st) st = jg_io_batch_close(w, 1, &err);
        if (!tap_ok(st == JG_OK, "%s: all points failed, written", ext[fmt])) printf("#   %s\n", err.msg);
        if (fmt == JG_IO_BATCH_JSONL) {
            FILE *f = fopen(tmp(ext[fmt]), "r");
            char l1[256] = "", l2[256] = "";
            if (f) {
                if (!fgets(l1, sizeof l1, f) || !fgets(l2, sizeof l2, f)) l1[0] = 0;
                fclose(f);
            }
            tap_streq(l1, "{\"states\": [], \"inputs\": [], \"outputs\": []}\n", "jsonl: empty names line");
            tap_streq(l2, "{\"index\": 0, \"ok\": false, \"error\": \"a\"}\n", "jsonl: failed point line");
        }
        if (fmt == JG_IO_BATCH_MAT) {
            mat_t *m = Mat_Open(tmp(ext[fmt]), MAT_ACC_RDONLY);
            matvar_t *e = m ? Mat_VarRead(m, "Error") : NULL;
            tap_ok(row_is(e, 1, "b"), "mat: Error row 2 = 'b'");
            Mat_VarFree(e);
            if (m) Mat_Close(m);
        }
        clean();
    }
}

int main(void)
{
    snprintf(dir, sizeof dir, "%s/jg_batchXXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) return 1;
    test_jsonl();
    test_mat();
    test_h5();
    test_sparse();
    test_sparse_blocks();
    test_write_behind();
    test_value_chunks();
    test_patterns();
    test_layout();
    test_refusals();
    test_degenerate();
    if (!getenv("JG_KEEP")) rmdir(dir);
    return tap_done();
}
