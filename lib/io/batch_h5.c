/* Batch results as plain HDF5 through libhdf5: the MAT-file's variables in
 * C order with the point index first -- A as N x m x n (dense, NaN for a
 * failed point) or sparse: each distinct pattern once as 0-based triplet
 * indices, the values of every point concatenated (offsets A_ptr) -- the
 * point table and the names as UTF-8 strings. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/io.h"
#include "batch_impl.h"
#include "io_impl.h"
#include "h5load.h"

#define SPARSE_CHUNK 65536
#define DENSE_CHUNK_BYTES 262144.0   /* within HDF5's default 1 MiB chunk cache */

typedef struct {
    int dense;
    int64_t m, n;
    hid_t ds;          /* dense: the N x m x n array; sparse: _x (extendible) */
    double *buf;       /* dense: one point, row-major */
    /* sparse: the patterns, per point its pattern (-1 failed) and the offset
     * of its values, and the values waiting for one append of at least
     * SPARSE_CHUNK (an extend and a write per matrix and point cost as much
     * as the point) */
    jg__patdict_t pd;
    int64_t nnz;       /* values written to the file */
    int64_t *ptr, *pat;
    double *x;
    int64_t npend, cap;
} h5_var_t;

typedef struct {
    const jg__h5_t *H;   /* libhdf5, loaded (h5load.h) */
    hid_t file;
    h5_var_t v[4];
    /* Value, N x nvals: written a chunk of rows at a time as the points
     * come in (their rows of w->values are final once put), so that closing
     * the file does not write the whole table at the end; -1 until start,
     * and when there are no values */
    hid_t value;
    int64_t vrows, vdone;   /* rows per chunk, rows written */
} h5_impl_t;

static const char *const VAR[4] = {"A", "B", "C", "D"};

/* HDF5's identifier (h5load.h), for the function's H */
#define ID(name) jg__h5_id(H, H->name)

/* HDF5 prints its error stack by default; the library never prints. */
#define QUIET_BEGIN                        \
    H5E_auto2_t old_fn_;                   \
    void *old_ctx_;                        \
    H->H5Eget_auto2(H5E_DEFAULT, &old_fn_, &old_ctx_); \
    H->H5Eset_auto2(H5E_DEFAULT, NULL, NULL)
#define QUIET_END H->H5Eset_auto2(H5E_DEFAULT, old_fn_, old_ctx_)

static jg_status_t create(jg_io_batch_t *w, jg_error_t *err)
{
    const jg__h5_t *H = jg__h5(err);
    if (!H) return JG_IO;
    h5_impl_t *im = calloc(1, sizeof *im);
    if (!im) return jg_error_set(err, JG_NOMEM, "%s: out of memory", w->path);
    im->H = H;
    im->value = -1;
    for (int q = 0; q < 4; q++) im->v[q].ds = -1;
    QUIET_BEGIN;
    im->file = H->H5Fcreate(w->tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    QUIET_END;
    if (im->file < 0) {
        free(im);
        return jg_error_set(err, JG_IO, "%s: cannot create an HDF5 file", w->tmp);
    }
    w->impl = im;
    return JG_OK;
}

/* A dataset creation list without modification times (the same results give
 * the same file) and, for chunked datasets, the chunk and the fill. */
static hid_t dcpl(const jg__h5_t *H, int rank, const hsize_t *chunk, const double *fill)
{
    hid_t p = H->H5Pcreate(ID(p_dataset_create));
    if (p < 0) return p;
    if (H->H5Pset_obj_track_times(p, 0) < 0 || (chunk && H->H5Pset_chunk(p, rank, chunk) < 0) ||
        (fill && H->H5Pset_fill_value(p, ID(t_native_double), fill) < 0)) {
        H->H5Pclose(p);
        return -1;
    }
    return p;
}

/* A dataset of rank dims (maxdims NULL: fixed), stored type ftype. */
static hid_t make(const jg__h5_t *H, hid_t file, const char *name, hid_t ftype, int rank, const hsize_t *dims,
                  const hsize_t *maxdims, const hsize_t *chunk, const double *fill)
{
    hid_t sp = H->H5Screate_simple(rank, dims, maxdims), p = dcpl(H, rank, chunk, fill), ds = -1;
    if (sp >= 0 && p >= 0) ds = H->H5Dcreate2(file, name, ftype, sp, H5P_DEFAULT, p, H5P_DEFAULT);
    if (sp >= 0) H->H5Sclose(sp);
    if (p >= 0) H->H5Pclose(p);
    return ds;
}

/* A whole fixed-size dataset written from data (mtype in memory). */
static int whole(const jg__h5_t *H, hid_t file, const char *name, hid_t ftype, hid_t mtype, int rank, const hsize_t *dims,
                 const void *data)
{
    hsize_t total = 1;
    for (int r = 0; r < rank; r++) total *= dims[r];
    hid_t ds = make(H, file, name, ftype, rank, dims, NULL, NULL, NULL);
    if (ds < 0) return -1;
    int bad = total > 0 && H->H5Dwrite(ds, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0;
    return (H->H5Dclose(ds) < 0) | bad ? -1 : 0;
}

static jg_status_t start(jg_io_batch_t *w, jg_error_t *err)
{
    h5_impl_t *im = w->impl;
    const jg__h5_t *H = im->H;
    const cs_dl *m[4];
    int64_t d[4][2];
    jg_status_t st = JG_OK;
    jg__io_batch_mats(w, NULL, m, d);
    QUIET_BEGIN;
    for (int q = 0; q < 4 && !st; q++) {
        h5_var_t *v = &im->v[q];
        char name[32];
        v->m = d[q][0], v->n = d[q][1];
        v->dense = jg__io_batch_dense(w, q);
        if (v->dense) {
            /* N x m x n, a chunk of whole points; unwritten (failed) points read NaN */
            static const double nan = NAN;
            hsize_t dims[3] = {(hsize_t)w->npoints, (hsize_t)v->m, (hsize_t)v->n};
            double per = (double)(v->m * v->n) * 8;
            hsize_t cp = per > 0 ? (hsize_t)fmax(1, floor(DENSE_CHUNK_BYTES / per)) : 1;
            if (cp > dims[0]) cp = dims[0] > 0 ? dims[0] : 1;
            hsize_t chunk[3] = {cp, v->m ? (hsize_t)v->m : 1, v->n ? (hsize_t)v->n : 1};
            v->ds = make(H, im->file, VAR[q], ID(t_ieee_f64le), 3, dims, NULL,
                         dims[0] && v->m && v->n ? chunk : NULL, &nan);
            v->buf = malloc(sizeof(double) * (size_t)(v->m * v->n + 1));
            if (v->ds < 0 || !v->buf) st = jg_error_set(err, JG_IO, "%s: cannot create %s", w->path, VAR[q]);
        } else {
            hsize_t zero = 0, unl = H5S_UNLIMITED, chunk = SPARSE_CHUNK;
            jg__patdict_init(&v->pd, v->n);
            snprintf(name, sizeof name, "%s_x", VAR[q]);
            v->ds = make(H, im->file, name, ID(t_ieee_f64le), 1, &zero, &unl, &chunk, NULL);
            if (v->ds < 0) st = jg_error_set(err, JG_IO, "%s: cannot create %s", w->path, name);
            v->ptr = calloc((size_t)w->npoints + 1, sizeof *v->ptr);
            v->pat = malloc(sizeof *v->pat * ((size_t)w->npoints + 1));
            if (!st && (!v->ptr || !v->pat)) st = jg_error_set(err, JG_NOMEM, "%s: out of memory", w->path);
        }
    }
    if (!st && w->npoints > 0 && w->nvals > 0) {
        hsize_t vd[2] = {(hsize_t)w->npoints, (hsize_t)w->nvals};
        double rows = floor(DENSE_CHUNK_BYTES / (8.0 * w->nvals));
        im->vrows = rows < 1 ? 1 : rows > w->npoints ? w->npoints : (int64_t)rows;
        hsize_t chunk[2] = {(hsize_t)im->vrows, (hsize_t)w->nvals};
        im->value = make(H, im->file, "Value", ID(t_ieee_f64le), 2, vd, NULL, chunk, NULL);
        if (im->value < 0) st = jg_error_set(err, JG_IO, "%s: cannot create Value", w->path);
    }
    QUIET_END;
    return st;
}

/* The block of rank dimensions at off, cnt long in each, of dataset ds from
 * data (doubles, row-major); -1 when HDF5 fails. */
static int write_block(const jg__h5_t *H, hid_t ds, int rank, const hsize_t *off, const hsize_t *cnt,
                       const double *data)
{
    hid_t fs = H->H5Dget_space(ds), ms = H->H5Screate_simple(rank, cnt, NULL);
    int bad = fs < 0 || ms < 0 || H->H5Sselect_hyperslab(fs, H5S_SELECT_SET, off, NULL, cnt, NULL) < 0 ||
              H->H5Dwrite(ds, ID(t_native_double), ms, fs, H5P_DEFAULT, data) < 0;
    if (fs >= 0) H->H5Sclose(fs);
    if (ms >= 0) H->H5Sclose(ms);
    return bad ? -1 : 0;
}

/* Rows [im->vdone, upto) of w->values into Value. */
static jg_status_t value_rows(jg_io_batch_t *w, int64_t upto, jg_error_t *err)
{
    h5_impl_t *im = w->impl;
    const jg__h5_t *H = im->H;
    if (im->value < 0 || upto <= im->vdone) return JG_OK;
    hsize_t off[2] = {(hsize_t)im->vdone, 0}, cnt[2] = {(hsize_t)(upto - im->vdone), (hsize_t)w->nvals};
    if (write_block(H, im->value, 2, off, cnt, w->values + (size_t)im->vdone * (size_t)w->nvals))
        return jg_error_set(err, JG_IO, "%s: cannot write Value", w->path);
    im->vdone = upto;
    return JG_OK;
}

/* Append v's waiting values to its _x (1-D, extended). */
static jg_status_t flush_var(jg_io_batch_t *w, h5_var_t *v, int q, jg_error_t *err)
{
    const jg__h5_t *H = ((h5_impl_t *)w->impl)->H;
    hsize_t have = (hsize_t)v->nnz, n = (hsize_t)v->npend, size = have + n;
    if (n > 0 && (H->H5Dset_extent(v->ds, &size) < 0 || write_block(H, v->ds, 1, &have, &n, v->x)))
        return jg_error_set(err, JG_IO, "%s: cannot write %s", w->path, VAR[q]);
    v->nnz += v->npend;
    v->npend = 0;
    return JG_OK;
}

static jg_status_t put_var(jg_io_batch_t *w, h5_var_t *v, int q, int64_t k, const cs_dl *S, jg_error_t *err)
{
    const jg__h5_t *H = ((h5_impl_t *)w->impl)->H;
    if (v->dense) {
        if (!S || v->m * v->n == 0) return JG_OK;   /* the fill value marks a failure */
        for (int64_t e = 0; e < v->m * v->n; e++) v->buf[e] = 0.0;
        for (int64_t j = 0; j < v->n; j++)
            for (int64_t p = S->p[j]; p < S->p[j + 1]; p++) v->buf[S->i[p] * v->n + j] = S->x[p];
        hsize_t off[3] = {(hsize_t)k, 0, 0}, cnt[3] = {1, (hsize_t)v->m, (hsize_t)v->n};
        return write_block(H, v->ds, 3, off, cnt, v->buf)
                   ? jg_error_set(err, JG_IO, "%s: cannot write %s of point %lld", w->path, VAR[q], (long long)k)
                   : JG_OK;
    }
    int64_t nz = S ? S->p[v->n] : 0, at = v->npend;
    v->ptr[k + 1] = v->ptr[k] + nz;
    v->pat[k] = S ? jg__patdict_id(&v->pd, S) : -1;
    if (S && v->pat[k] < 0) return jg_error_set(err, JG_NOMEM, "%s: out of memory", w->path);
    if (nz == 0) return JG_OK;
    if (at + nz > v->cap) {
        int64_t c = v->cap ? v->cap : SPARSE_CHUNK;
        while (c < at + nz) c *= 2;
        double *x = realloc(v->x, sizeof(double) * (size_t)c);
        if (!x) return jg_error_set(err, JG_NOMEM, "%s: out of memory", w->path);
        v->x = x, v->cap = c;
    }
    memcpy(v->x + at, S->x, sizeof(double) * (size_t)nz);
    v->npend = at + nz;
    return v->npend >= SPARSE_CHUNK ? flush_var(w, v, q, err) : JG_OK;
}

static jg_status_t put(jg_io_batch_t *w, int64_t k, const jg_lin_sys_t *s, jg_error_t *err)
{
    h5_impl_t *im = w->impl;
    const jg__h5_t *H = im->H;
    const cs_dl *mats[4];
    int64_t d[4][2];
    jg_status_t st = JG_OK;
    jg__io_batch_mats(w, s, mats, d);
    QUIET_BEGIN;
    for (int q = 0; q < 4 && !st; q++) {
        cs_dl *own = NULL;
        const cs_dl *S = s ? jg__io_canonical(mats[q], &own) : NULL;
        if (s && !S) {
            st = jg_error_set(err, JG_NOMEM, "%s: out of memory", w->path);
            break;
        }
        st = put_var(w, &im->v[q], q, k, S, err);
        cs_dl_spfree(own);
    }
    /* rows 0..k are final: write the whole chunks among them */
    if (!st && im->value >= 0 && k + 1 - im->vdone >= im->vrows)
        st = value_rows(w, (k + 1) / im->vrows * im->vrows, err);
    QUIET_END;
    return st;
}

/* A 1-D dataset of UTF-8 strings (NULL entries: ""). */
static int strings(const jg__h5_t *H, hid_t file, const char *name, char *const *v, int64_t n)
{
    hid_t t = H->H5Tcopy(ID(t_c_s1));
    const char **p = malloc(sizeof(char *) * ((size_t)n + 1));
    int bad = t < 0 || !p || H->H5Tset_size(t, H5T_VARIABLE) < 0 || H->H5Tset_cset(t, H5T_CSET_UTF8) < 0;
    for (int64_t k = 0; p && k < n; k++) p[k] = v && v[k] ? v[k] : "";
    hsize_t dims[1] = {(hsize_t)n};
    if (!bad) bad = whole(H, file, name, t, t, 1, dims, p) < 0;
    if (t >= 0) H->H5Tclose(t);
    free(p);
    return bad ? -1 : 0;
}

/* The 1-D int64 dataset VAR SFX of n values. */
static int ints(const jg__h5_t *H, hid_t file, const char *var, const char *sfx, int64_t n, const int64_t *data)
{
    char name[32];
    hsize_t dims[1] = {(hsize_t)n};
    snprintf(name, sizeof name, "%s%s", var, sfx);
    return whole(H, file, name, ID(t_std_i64le), ID(t_native_int64), 1, dims, data);
}

static jg_status_t finish_table(jg_io_batch_t *w, jg_error_t *err)
{
    h5_impl_t *im = w->impl;
    const jg__h5_t *H = im->H;
    hid_t f = im->file;
    hsize_t N = (hsize_t)w->npoints;
    const char *bad = NULL;
    for (int q = 0; q < 4 && !bad; q++) {
        h5_var_t *v = &im->v[q];
        if (!v->dense) {
            /* the patterns (_i, _j, _pptr), then per point its pattern and offset */
            int64_t size[2] = {v->m, v->n}, zero = 0;
            int64_t *ri = malloc(sizeof(int64_t) * ((size_t)v->pd.nrows + 1));
            int64_t *ci = malloc(sizeof(int64_t) * ((size_t)v->pd.nrows + 1));
            if (ri && ci) jg__patdict_triplets(&v->pd, ri, ci);
            if (!ri || !ci || ints(H, f, VAR[q], "_i", v->pd.nrows, ri) || ints(H, f, VAR[q], "_j", v->pd.nrows, ci) ||
                ints(H, f, VAR[q], "_pptr", v->pd.npat + 1, v->pd.npat ? v->pd.rstart : &zero) ||
                ints(H, f, VAR[q], "_pat", w->npoints, v->pat) || ints(H, f, VAR[q], "_ptr", w->npoints + 1, v->ptr) ||
                ints(H, f, VAR[q], "_size", 2, size))
                bad = VAR[q];
            free(ri);
            free(ci);
        }
    }
    hsize_t one[1] = {1}, vd[2] = {N, (hsize_t)w->nvals};
    jg_status_t vst = im->value >= 0 ? value_rows(w, w->npoints, err) : JG_OK;   /* the last rows */
    if (vst) return vst;
    if (!bad && whole(H, f, "Ts", ID(t_ieee_f64le), ID(t_native_double), 1, one, &w->Ts)) bad = "Ts";
    if (!bad && strings(H, f, "StateName", w->names[0], w->have_sys ? w->nx : 0)) bad = "StateName";
    if (!bad && strings(H, f, "InputName", w->names[1], w->have_sys ? w->nu : 0)) bad = "InputName";
    if (!bad && strings(H, f, "OutputName", w->names[2], w->have_sys ? w->ny : 0)) bad = "OutputName";
    if (!bad && strings(H, f, "ValueName", w->val_names, w->nvals)) bad = "ValueName";
    if (!bad && im->value < 0 && whole(H, f, "Value", ID(t_ieee_f64le), ID(t_native_double), 2, vd, w->values))
        bad = "Value";   /* no values, or no points: written empty */
    if (!bad) {
        unsigned char *ok = malloc(N + 1);
        for (hsize_t k = 0; ok && k < N; k++) ok[k] = w->state[k] == 1;
        if (!ok || whole(H, f, "Ok", ID(t_std_u8le), ID(t_native_uchar), 1, &N, ok)) bad = "Ok";
        free(ok);
    }
    if (!bad && strings(H, f, "Error", w->errors, w->npoints)) bad = "Error";
    if (!bad && w->have_sys && w->ndelays > 0) {
        hsize_t dd[2] = {N, (hsize_t)w->ndelays};
        if (whole(H, f, "InternalDelay", ID(t_ieee_f64le), ID(t_native_double), 2, dd, w->delays)) bad = "InternalDelay";
    }
    return bad ? jg_error_set(err, JG_IO, "%s: cannot write %s", w->path, bad) : JG_OK;
}

static jg_status_t finish(jg_io_batch_t *w, int commit, jg_error_t *err)
{
    h5_impl_t *im = w->impl;
    jg_status_t st = JG_OK;
    if (!im) return JG_OK;
    const jg__h5_t *H = im->H;
    QUIET_BEGIN;
    for (int q = 0; q < 4 && commit && !st; q++)
        if (!im->v[q].dense && im->v[q].npend > 0) st = flush_var(w, &im->v[q], q, err);
    if (commit && !st) st = finish_table(w, err);
    if (im->value >= 0 && H->H5Dclose(im->value) < 0 && commit && !st)
        st = jg_error_set(err, JG_IO, "%s: cannot write Value", w->path);
    for (int q = 0; q < 4; q++) {
        h5_var_t *v = &im->v[q];
        if (v->ds >= 0 && H->H5Dclose(v->ds) < 0 && commit && !st)
            st = jg_error_set(err, JG_IO, "%s: cannot write %s", w->path, VAR[q]);
        free(v->ptr);
        free(v->pat);
        free(v->buf);
        free(v->x);
        jg__patdict_free(&v->pd);
    }
    if (H->H5Fclose(im->file) < 0 && commit && !st) st = jg_error_set(err, JG_IO, "%s: write failed", w->path);
    QUIET_END;
    free(im);
    w->impl = NULL;
    return st;
}

const jg__io_batch_ops_t jg__io_batch_h5_ops = {create, start, put, finish};
