/* Batch results as a MAT-file v7.3 through libmatio: A, B, C, D of every
 * point as one m x n x N array (dense, streamed in chunks of points) or
 * sparse: each distinct pattern once (1-based triplet indices), the values
 * of every point concatenated with offsets per point; then the point table
 * (values, ok flags, errors) and the names (char matrices). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include "jacgraph/io.h"
#include "batch_impl.h"
#include "io_impl.h"
#include "h5load.h"

/* Points are appended in chunks of about this many bytes (dense) or
 * triplets (sparse): the first append fixes the HDF5 chunk size, and one
 * HDF5 write per point would make tiny chunks. */
#define DENSE_CHUNK_BYTES 524288.0
#define SPARSE_CHUNK 65536

typedef struct {
    int dense;
    int64_t m, n;
    /* dense: up to cap points of m x n, column-major, NaN for failures */
    double *buf;
    int64_t cap, used;
    /* sparse: the patterns, values waiting for an append, per point the
     * offset of its values and its pattern (1-based, 0 failed) */
    jg__patdict_t pd;
    double *tx;
    int64_t tn;
    double *ptr;      /* npoints + 1 */
    double *pat;      /* npoints */
    int written;      /* the variable (or its _x) exists in the file */
} mat_var_t;

typedef struct {
    const jg__h5_t *H;   /* libmatio, loaded (h5load.h) */
    mat_t *mat;
    mat_var_t v[4];
} mat_impl_t;

/* w's matio */
#define MATIO(w) (((const mat_impl_t *)(w)->impl)->H)

static const char *const VAR[4] = {"A", "B", "C", "D"};

static jg_status_t create(jg_io_batch_t *w, jg_error_t *err)
{
    char hdr[116];
    snprintf(hdr, sizeof hdr, "MATLAB 7.3 MAT-file, written by jacgraph: %lld linear models (batch)",
             (long long)w->npoints);
    const jg__h5_t *H = jg__h5(err);
    if (!H) return JG_IO;
    mat_impl_t *im = calloc(1, sizeof *im);
    if (!im) return jg_error_set(err, JG_NOMEM, "%s: out of memory", w->path);
    im->H = H;
    errno = 0;
    if (!(im->mat = H->Mat_CreateVer(w->tmp, hdr, MAT_FT_MAT73))) {
        free(im);
        return jg_error_set(err, JG_IO, "%s: cannot create a MAT-file v7.3 (is libmatio built with HDF5?): %s",
                            w->tmp, strerror(errno ? errno : EIO));
    }
    w->impl = im;
    return JG_OK;
}

static jg_status_t write_var(jg_io_batch_t *w, matvar_t *v, const char *name, int append_dim,
                             jg_error_t *err)
{
    mat_impl_t *im = w->impl;
    if (!v) return jg_error_set(err, JG_NOMEM, "%s: out of memory for %s", w->path, name);
    int bad = append_dim ? MATIO(w)->Mat_VarWriteAppend(im->mat, v, MAT_COMPRESSION_NONE, append_dim)
                         : MATIO(w)->Mat_VarWrite(im->mat, v, MAT_COMPRESSION_NONE);
    MATIO(w)->Mat_VarFree(v);
    if (bad) return jg_error_set(err, JG_IO, "%s: cannot write variable %s", w->path, name);
    return JG_OK;
}

static jg_status_t put_doubles(jg_io_batch_t *w, const char *name, int rank, const size_t *dims,
                               double *data, int append_dim, jg_error_t *err)
{
    return write_var(w, MATIO(w)->Mat_VarCreate(name, MAT_C_DOUBLE, MAT_T_DOUBLE, rank, (size_t *)dims, data,
                                      MAT_F_DONT_COPY_DATA), name, append_dim, err);
}

static jg_status_t start(jg_io_batch_t *w, jg_error_t *err)
{
    mat_impl_t *im = w->impl;
    const cs_dl *m[4];
    int64_t d[4][2];
    jg__io_batch_mats(w, NULL, m, d);
    for (int q = 0; q < 4; q++) {
        mat_var_t *v = &im->v[q];
        v->m = d[q][0], v->n = d[q][1];
        v->dense = jg__io_batch_dense(w, q);
        if (v->dense) {
            double per = (double)(v->m * v->n) * 8;
            v->cap = per > 0 ? (int64_t)fmax(1, floor(DENSE_CHUNK_BYTES / per)) : 1;
            if (v->cap > w->npoints) v->cap = w->npoints > 0 ? w->npoints : 1;
            if (!(v->buf = malloc(sizeof(double) * (size_t)(v->cap * v->m * v->n + 1))))
                return jg_error_set(err, JG_NOMEM, "%s: out of memory", w->path);
        } else {
            jg__patdict_init(&v->pd, v->n);
            v->tx = malloc(sizeof(double) * SPARSE_CHUNK);
            v->ptr = calloc((size_t)w->npoints + 1, sizeof(double));
            v->pat = calloc((size_t)w->npoints + 1, sizeof(double));
            if (!v->tx || !v->ptr || !v->pat)
                return jg_error_set(err, JG_NOMEM, "%s: out of memory", w->path);
        }
    }
    return JG_OK;
}

static jg_status_t flush(jg_io_batch_t *w, mat_var_t *v, const char *var, jg_error_t *err)
{
    char name[32];
    jg_status_t st = JG_OK;
    if (v->dense) {
        if (v->used == 0 || v->m * v->n == 0) return JG_OK;   /* empty arrays: at the end */
        size_t dims[3] = {(size_t)v->m, (size_t)v->n, (size_t)v->used};
        st = put_doubles(w, var, 3, dims, v->buf, 3, err);
        v->used = 0;
    } else {
        if (v->tn == 0) return JG_OK;
        size_t dims[2] = {(size_t)v->tn, 1};
        snprintf(name, sizeof name, "%s_x", var);
        st = put_doubles(w, name, 2, dims, v->tx, 1, err);
        v->tn = 0;
    }
    if (!st) v->written = 1;
    return st;
}

static jg_status_t put(jg_io_batch_t *w, int64_t k, const jg_lin_sys_t *s, jg_error_t *err)
{
    mat_impl_t *im = w->impl;
    const cs_dl *mats[4];
    int64_t d[4][2];
    jg__io_batch_mats(w, s, mats, d);
    jg_status_t st = JG_OK;
    for (int q = 0; q < 4 && !st; q++) {
        mat_var_t *v = &im->v[q];
        cs_dl *own = NULL;
        const cs_dl *S = s ? jg__io_canonical(mats[q], &own) : NULL;
        if (s && !S) return jg_error_set(err, JG_NOMEM, "%s: out of memory", w->path);
        if (v->dense) {
            double *blk = v->buf + v->used * v->m * v->n;
            for (int64_t e = 0; e < v->m * v->n; e++) blk[e] = S ? 0.0 : NAN;
            for (int64_t j = 0; S && j < v->n; j++)
                for (int64_t p = S->p[j]; p < S->p[j + 1]; p++) blk[j * v->m + S->i[p]] = S->x[p];
            if (++v->used == v->cap) st = flush(w, v, VAR[q], err);
        } else {
            int64_t nz = S ? S->p[v->n] : 0, t = S ? jg__patdict_id(&v->pd, S) : -1;
            if (S && t < 0) st = jg_error_set(err, JG_NOMEM, "%s: out of memory", w->path);
            v->ptr[k + 1] = v->ptr[k] + (double)nz;
            v->pat[k] = (double)(t + 1);
            for (int64_t p = 0; p < nz && !st;) {   /* in appends of at most SPARSE_CHUNK */
                int64_t c = nz - p < SPARSE_CHUNK - v->tn ? nz - p : SPARSE_CHUNK - v->tn;
                memcpy(v->tx + v->tn, S->x + p, sizeof(double) * (size_t)c);
                p += c;
                if ((v->tn += c) == SPARSE_CHUNK) st = flush(w, v, VAR[q], err);
            }
        }
        cs_dl_spfree(own);
    }
    return st;
}

/* UTF-16 code units of the (checked) UTF-8 string t into out (NULL: only
 * count them); MATLAB's char is UTF-16. */
static size_t utf16(const char *t, uint16_t *out)
{
    size_t n = 0;
    for (const unsigned char *c = (const unsigned char *)t; *c;) {
        uint32_t cp;
        int len = *c < 0x80 ? 1 : *c < 0xE0 ? 2 : *c < 0xF0 ? 3 : 4;
        cp = len == 1 ? *c : len == 2 ? *c & 0x1F : len == 3 ? *c & 0x0F : *c & 0x07;
        for (int k = 1; k < len && c[k]; k++) cp = cp << 6 | (c[k] & 0x3F);
        c += len;
        if (cp >= 0x10000) {   /* a surrogate pair */
            if (out) out[n] = (uint16_t)(0xD800 + ((cp - 0x10000) >> 10)),
                     out[n + 1] = (uint16_t)(0xDC00 + ((cp - 0x10000) & 0x3FF));
            n += 2;
        } else {
            if (out) out[n] = (uint16_t)cp;
            n++;
        }
    }
    return n;
}

/* Texts as a char matrix, one per row, padded with blanks (cellstr() in
 * MATLAB gives the cell array).  Not a cell array: Octave reads no cells
 * from a v7.3 file (it reads this one as numbers: char() gives the text),
 * and one dataset costs far less than a cell's dataset per element. */
static jg_status_t put_chars(jg_io_batch_t *w, const char *name, char *const *v, int64_t n, jg_error_t *err)
{
    size_t width = 0;
    for (int64_t k = 0; k < n; k++) {
        size_t u = v && v[k] ? utf16(v[k], NULL) : 0;
        if (u > width) width = u;
    }
    if (n > 0 && width == 0) width = 1;   /* blanks: an empty array would lose its n rows in Octave */
    if ((double)n * (double)width > 1e9)
        return jg_error_set(err, JG_ARG, "%s: %s: too much text", w->path, name);
    uint16_t *data = malloc(sizeof(uint16_t) * ((size_t)n * width + 1)), *row = malloc(sizeof(uint16_t) * (width + 1));
    if (!data || !row) {
        free(data);
        free(row);
        return jg_error_set(err, JG_NOMEM, "%s: out of memory for %s", w->path, name);
    }
    for (int64_t k = 0; k < n; k++) {   /* column-major: character j of row k at k + n j */
        size_t u = v && v[k] ? utf16(v[k], row) : 0;
        for (size_t j = 0; j < width; j++) data[(size_t)k + (size_t)n * j] = j < u ? row[j] : ' ';
    }
    size_t dims[2] = {(size_t)n, width};
    jg_status_t st = write_var(w, MATIO(w)->Mat_VarCreate(name, MAT_C_CHAR, MAT_T_UINT16, 2, dims, data,
                                                MAT_F_DONT_COPY_DATA), name, 0, err);
    free(data);
    free(row);
    return st;
}

/* A..D that were never appended (no element, or no point), their sparse
 * offsets and sizes. */
static jg_status_t finish_matrix(jg_io_batch_t *w, mat_var_t *v, const char *var, jg_error_t *err)
{
    char name[32];
    jg_status_t st = flush(w, v, var, err);
    if (st) return st;
    if (v->dense) {
        if (v->written) return JG_OK;
        size_t dims[3] = {(size_t)v->m, (size_t)v->n, (size_t)w->npoints};
        return put_doubles(w, var, 3, dims, NULL, 0, err);
    }
    size_t z[2] = {0, 1};
    snprintf(name, sizeof name, "%s_x", var);
    if (!v->written) st = put_doubles(w, name, 2, z, NULL, 0, err);
    /* the patterns: 1-based rows and columns, pattern t at _pptr(t)+1 : _pptr(t+1) */
    size_t nr[2] = {(size_t)v->pd.nrows, 1}, np[2] = {(size_t)v->pd.npat + 1, 1};
    int64_t *ri = malloc(sizeof(int64_t) * ((size_t)v->pd.nrows + 1));
    int64_t *ci = malloc(sizeof(int64_t) * ((size_t)v->pd.nrows + 1));
    double *di = malloc(sizeof(double) * ((size_t)v->pd.nrows + v->pd.npat + 2));
    if (!ri || !ci || !di) st = st ? st : jg_error_set(err, JG_NOMEM, "%s: out of memory", w->path);
    if (!st) jg__patdict_triplets(&v->pd, ri, ci);
    for (int c = 0; c < 2 && !st; c++) {
        const int64_t *src = c ? ci : ri;
        for (int64_t e = 0; e < v->pd.nrows; e++) di[e] = (double)src[e] + 1;
        snprintf(name, sizeof name, "%s_%c", var, "ij"[c]);
        st = put_doubles(w, name, 2, nr, di, 0, err);
    }
    for (int64_t t = 0; !st && t <= v->pd.npat; t++) di[t] = v->pd.npat ? (double)v->pd.rstart[t] : 0;
    snprintf(name, sizeof name, "%s_pptr", var);
    if (!st) st = put_doubles(w, name, 2, np, di, 0, err);
    free(ri);
    free(ci);
    free(di);
    size_t pd[2] = {(size_t)w->npoints + 1, 1}, nd[2] = {(size_t)w->npoints, 1}, sd[2] = {1, 2};
    double size[2] = {(double)v->m, (double)v->n};
    snprintf(name, sizeof name, "%s_pat", var);
    if (!st) st = put_doubles(w, name, 2, nd, v->pat, 0, err);
    snprintf(name, sizeof name, "%s_ptr", var);
    if (!st) st = put_doubles(w, name, 2, pd, v->ptr, 0, err);
    snprintf(name, sizeof name, "%s_size", var);
    if (!st) st = put_doubles(w, name, 2, sd, size, 0, err);
    return st;
}

/* The point table and the names. */
static jg_status_t finish_table(jg_io_batch_t *w, jg_error_t *err)
{
    mat_impl_t *im = w->impl;
    jg_status_t st = JG_OK;
    int64_t N = w->npoints;
    for (int q = 0; q < 4 && !st; q++)   /* (no point succeeded: sizes 0, 0 x 0 x N) */
        st = finish_matrix(w, &im->v[q], VAR[q], err);
    size_t one[2] = {1, 1};
    double ts = w->Ts;
    if (!st) st = put_doubles(w, "Ts", 2, one, &ts, 0, err);
    if (!st) st = put_chars(w, "StateName", w->names[0], w->have_sys ? w->nx : 0, err);
    if (!st) st = put_chars(w, "InputName", w->names[1], w->have_sys ? w->nu : 0, err);
    if (!st) st = put_chars(w, "OutputName", w->names[2], w->have_sys ? w->ny : 0, err);
    if (!st) st = put_chars(w, "ValueName", w->val_names, w->nvals, err);
    size_t vd[2] = {(size_t)w->nvals, (size_t)N};   /* column k: point k's values */
    if (!st) st = put_doubles(w, "Value", 2, vd, w->values, 0, err);
    if (!st) {
        size_t od[2] = {(size_t)N, 1};
        unsigned char *ok = malloc((size_t)N + 1);
        if (!ok) return jg_error_set(err, JG_NOMEM, "%s: out of memory", w->path);
        for (int64_t k = 0; k < N; k++) ok[k] = w->state[k] == 1;
        st = write_var(w, MATIO(w)->Mat_VarCreate("Ok", MAT_C_UINT8, MAT_T_UINT8, 2, od, ok,
                                        MAT_F_DONT_COPY_DATA | MAT_F_LOGICAL), "Ok", 0, err);
        free(ok);
    }
    if (!st) st = put_chars(w, "Error", w->errors, N, err);
    if (!st && w->have_sys && w->ndelays > 0) {
        size_t dd[2] = {(size_t)w->ndelays, (size_t)N};
        st = put_doubles(w, "InternalDelay", 2, dd, w->delays, 0, err);
    }
    return st;
}

static jg_status_t finish(jg_io_batch_t *w, int commit, jg_error_t *err)
{
    mat_impl_t *im = w->impl;
    jg_status_t st = JG_OK;
    if (!im) return JG_OK;
    if (commit) st = finish_table(w, err);
    if (MATIO(w)->Mat_Close(im->mat) && commit && !st) st = jg_error_set(err, JG_IO, "%s: write failed", w->path);
    for (int q = 0; q < 4; q++) {
        mat_var_t *v = &im->v[q];
        free(v->buf);
        free(v->tx);
        free(v->ptr);
        free(v->pat);
        jg__patdict_free(&v->pd);
    }
    free(im);
    w->impl = NULL;
    return st;
}

const jg__io_batch_ops_t jg__io_batch_mat_ops = {create, start, put, finish};
