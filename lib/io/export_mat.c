/* A linear model as a level-5 MAT-file through libmatio: A, B, C, D (dense
 * or sparse doubles), Ts and the name lists as cell arrays of char; with
 * exact delays also InternalDelay (A..D are then the delay-free H). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "jacgraph/io.h"
#include "export_impl.h"
#include "io_impl.h"
#include "h5load.h"

/* A level-5 element stores its byte count in 32 bits; keep well inside it. */
#define MAT5_MAX_BYTES 2147483647.0

typedef struct {
    const jg__h5_t *H;   /* libmatio, loaded (h5load.h) */
    mat_t *mat;
    const char *path;
    const char *sfx;
    jg_error_t *err;
} out_t;

static jg_status_t put_var(out_t *o, matvar_t *v, const char *name)
{
    if (!v) return jg_error_set(o->err, JG_NOMEM, "%s: out of memory for %s", o->path, name);
    int bad = o->H->Mat_VarWrite(o->mat, v, MAT_COMPRESSION_NONE);
    o->H->Mat_VarFree(v);
    if (bad) return jg_error_set(o->err, JG_IO, "%s: cannot write variable %s", o->path, name);
    return JG_OK;
}

static jg_status_t put_matrix(out_t *o, const char *var, const cs_dl *M, int mode)
{
    char name[64];
    snprintf(name, sizeof name, "%s%s", var, o->sfx);
    cs_dl *S = jg__io_sorted(M);
    double *dense = NULL;
    mat_uint32_t *ir = NULL, *jc = NULL;
    jg_status_t st = JG_OK;
    if (!S) return jg_error_set(o->err, JG_NOMEM, "%s: out of memory for %s", o->path, name);
    int64_t m = S->m, n = S->n, nz = S->p[n];
    size_t dims[2] = {(size_t)m, (size_t)n};
    if (jg__io_want_sparse(S, mode)) {
        if ((double)nz * 12 + (double)n * 4 > MAT5_MAX_BYTES || m > 0x7FFFFFFF || n > 0x7FFFFFFF) {
            st = jg_error_set(o->err, JG_ARG, "%s: %s (%lldx%lld, %lld nonzeros) is too large for "
                              "a level-5 MAT-file", o->path, name, (long long)m, (long long)n,
                              (long long)nz);
            goto done;
        }
        ir = malloc(sizeof *ir * (size_t)(nz + 1));
        jc = malloc(sizeof *jc * (size_t)(n + 1));
        if (!ir || !jc) {
            st = jg_error_set(o->err, JG_NOMEM, "%s: out of memory for %s", o->path, name);
            goto done;
        }
        for (int64_t k = 0; k < nz; k++) ir[k] = (mat_uint32_t)S->i[k];
        for (int64_t j = 0; j <= n; j++) jc[j] = (mat_uint32_t)S->p[j];
        mat_sparse_t sp = {.nzmax = (mat_uint32_t)nz, .ir = ir, .nir = (mat_uint32_t)nz, .jc = jc,
                           .njc = (mat_uint32_t)(n + 1), .ndata = (mat_uint32_t)nz, .data = S->x};
        st = put_var(o, o->H->Mat_VarCreate(name, MAT_C_SPARSE, MAT_T_DOUBLE, 2, dims, &sp,
                                      MAT_F_DONT_COPY_DATA), name);
        goto done;
    }
    if ((double)m * (double)n * 8 > MAT5_MAX_BYTES) {
        st = jg_error_set(o->err, JG_ARG, "%s: dense %s (%lldx%lld) is too large for a level-5 "
                          "MAT-file", o->path, name, (long long)m, (long long)n);
        goto done;
    }
    dense = calloc((size_t)(m * n + 1), sizeof(double));   /* column-major, as MATLAB */
    if (!dense) {
        st = jg_error_set(o->err, JG_NOMEM, "%s: out of memory for %s", o->path, name);
        goto done;
    }
    for (int64_t j = 0; j < n; j++)
        for (int64_t p = S->p[j]; p < S->p[j + 1]; p++) dense[j * m + S->i[p]] = S->x[p];
    st = put_var(o, o->H->Mat_VarCreate(name, MAT_C_DOUBLE, MAT_T_DOUBLE, 2, dims, dense,
                                  MAT_F_DONT_COPY_DATA), name);
done:
    free(dense);
    free(ir);
    free(jc);
    cs_dl_spfree(S);
    return st;
}

/* Characters of a (checked) UTF-8 string: the bytes that start one. */
static size_t code_points(const char *s)
{
    size_t n = 0;
    for (; *s; s++) n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* A column cell array of char row vectors.  The text is UTF-8 (miUTF8,
 * as scipy.io.savemat writes it and MATLAB reads it), the dimensions count
 * characters; matio sizes the data from the bytes itself. */
static jg_status_t put_names(out_t *o, const char *var, char *const *v, int64_t n, char pfx)
{
    char name[64];
    snprintf(name, sizeof name, "%s%s", var, o->sfx);
    size_t dims[2] = {(size_t)n, 1};
    char (*buf)[32] = calloc((size_t)n + 1, sizeof *buf);   /* default names x1, u2... */
    matvar_t *cell = buf ? o->H->Mat_VarCreate(name, MAT_C_CELL, MAT_T_CELL, 2, dims, NULL, 0) : NULL;
    if (!cell) {
        free(buf);
        return jg_error_set(o->err, JG_NOMEM, "%s: out of memory for %s", o->path, name);
    }
    for (int64_t k = 0; k < n; k++) {
        const char *text = jg__io_name(v, k, pfx, buf[k]);
        size_t len = code_points(text);
        size_t cd[2] = {len ? 1 : 0, len};   /* '' is 0x0 in MATLAB */
        matvar_t *e = o->H->Mat_VarCreate(NULL, MAT_C_CHAR, MAT_T_UTF8, 2, cd, (void *)text, MAT_F_DONT_COPY_DATA);
        if (!e) {
            o->H->Mat_VarFree(cell);
            free(buf);
            return jg_error_set(o->err, JG_NOMEM, "%s: out of memory for %s", o->path, name);
        }
        o->H->Mat_VarSetCell(cell, (int)k, e);
    }
    jg_status_t st = put_var(o, cell, name);   /* frees the cell and its elements, not the text */
    free(buf);
    return st;
}

jg_status_t jg_io_write_linsys_mat(const char *path, const jg_lin_sys_t *s,
                                   const jg_io_export_opts_t *opts, int append, jg_error_t *err)
{
    static const char what[] = "MAT-file output";
    const char *x;
    jg_status_t st;
    if (!path || !s) return jg_error_set(err, JG_ARG, "%s: no file or no model", what);
    if ((st = jg__io_export_check(s, what, err)) || (st = jg__io_suffix(opts, what, &x, err))) return st;
    if (s->nx > 0x7FFFFFFF || s->nu > 0x7FFFFFFF || s->ny > 0x7FFFFFFF)
        return jg_error_set(err, JG_ARG, "%s: too many names for a MAT-file cell array", what);
    int mode = opts ? (int)opts->sparse : JG_IO_SPARSE_AUTO;
    const jg__h5_t *H = jg__h5(err);
    if (!H) return JG_IO;
    out_t o = {H, NULL, path, x, err};
    if (append) {
        struct stat sb;
        if (stat(path, &sb))
            return jg_error_set(err, JG_IO, "%s: cannot add to it: %s", path, strerror(errno));
        if (!(o.mat = H->Mat_Open(path, MAT_ACC_RDWR)) || H->Mat_GetVersion(o.mat) != MAT_FT_MAT5) {
            if (o.mat) H->Mat_Close(o.mat);
            return jg_error_set(err, JG_IO, "%s: not a level-5 MAT-file to add to", path);
        }
    } else {
        char hdr[116];
        snprintf(hdr, sizeof hdr, "MATLAB 5.0 MAT-file, written by jacgraph: a linear model at t = %.9g",
                 s->t);
        errno = 0;
        if (!(o.mat = H->Mat_CreateVer(path, hdr, MAT_FT_MAT5)))
            return jg_error_set(err, JG_IO, "%s: cannot write: %s", path,
                                strerror(errno ? errno : EIO));
    }
    const cs_dl *mats[4] = {s->A, s->B, s->C, s->D};
    static const char *const var[4] = {"A", "B", "C", "D"};
    for (int k = 0; k < 4 && !st; k++) st = put_matrix(&o, var[k], mats[k], mode);
    if (!st) {
        char name[64];
        double ts = jg__io_sample_time(s);
        size_t one[2] = {1, 1};
        snprintf(name, sizeof name, "Ts%s", x);
        st = put_var(&o, H->Mat_VarCreate(name, MAT_C_DOUBLE, MAT_T_DOUBLE, 2, one, &ts,
                                       MAT_F_DONT_COPY_DATA), name);
    }
    if (!st) st = put_names(&o, "StateName", s->state_names, s->nx, 'x');
    if (!st) st = put_names(&o, "InputName", s->input_names, s->nu, 'u');
    if (!st) st = put_names(&o, "OutputName", s->output_names, s->ny, 'y');
    if (!st && s->ndelays) {   /* exact delays: A..D are H, as setDelayModel(H, InternalDelay) wants */
        char name[64];
        size_t dims[2] = {(size_t)s->ndelays, 1};
        snprintf(name, sizeof name, "InternalDelay%s", x);
        st = put_var(&o, H->Mat_VarCreate(name, MAT_C_DOUBLE, MAT_T_DOUBLE, 2, dims, s->delays,
                                       MAT_F_DONT_COPY_DATA), name);
    }
    if (H->Mat_Close(o.mat) && !st) st = jg_error_set(err, JG_IO, "%s: write failed", path);
    if (st && !append) jg__io_discard(path);   /* no half a model under the name */
    return st;
}
