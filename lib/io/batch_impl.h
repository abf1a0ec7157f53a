/* The batch writers' shared state and the interface each format implements
 * (lib/io/batch*.c, internal). */
#ifndef JG_IO_BATCH_IMPL_H
#define JG_IO_BATCH_IMPL_H
#include <stdint.h>
#include <stdio.h>
#include "jacgraph/io.h"
#include "../core/patdict.h"

/* What a format does; the common layer (batch.c) checks the calls, keeps
 * the point table and holds back failed points until the first model has
 * fixed the names and sizes. */
typedef struct jg__io_batch_ops {
    /* create the file at w->tmp (or w->path when w->direct) */
    jg_status_t (*create)(jg_io_batch_t *w, jg_error_t *err);
    /* names and sizes are known (w->have_sys; none when no point succeeded,
     * called at the latest from close) */
    jg_status_t (*start)(jg_io_batch_t *w, jg_error_t *err);
    /* point k: sys, or NULL when it failed (w->errors[k] says why) */
    jg_status_t (*put)(jg_io_batch_t *w, int64_t k, const jg_lin_sys_t *sys, jg_error_t *err);
    /* commit: write the rest and close the file; otherwise just close it
     * (the caller removes it).  Releases w->impl either way. */
    jg_status_t (*finish)(jg_io_batch_t *w, int commit, jg_error_t *err);
} jg__io_batch_ops_t;

struct jg_io_batch {
    const jg__io_batch_ops_t *ops;
    jg_io_batch_format_t fmt;
    char *path, *tmp;          /* tmp: the file written (== path when direct) */
    int direct;                /* JSONL to a pipe or device: no rename */
    int wb_fd;                 /* tmp opened to hand its pages to the disk early, or -1 */
    int64_t wb_done;           /* bytes of tmp handed over so far */
    int created, started, broken;
    int64_t npoints, next;     /* next: the lowest k not yet put */
    int nvals;
    char **val_names;          /* nvals, owned */
    double *values;            /* npoints x nvals, row k = point k */
    unsigned char *state;      /* per point: 0 missing, 1 ok, 2 failed */
    char **errors;             /* per point: the failure text (owned), NULL when ok */
    int64_t pending;           /* failed points held back before the first model */
    /* from the first model (have_sys) */
    int have_sys;
    jg_io_batch_layout_t layout;   /* asked for (jg_io_batch_set_layout) */
    int dense[4];              /* A..D stored dense: decided on the first model */
    int64_t nx, nu, ny, ndelays;
    double Ts;
    char **names[3];           /* states, inputs, outputs: owned copies, default names filled */
    double *delays;            /* npoints x ndelays (NaN for failed points) */
    void *impl;                /* the format's state */
};

extern const jg__io_batch_ops_t jg__io_batch_jsonl_ops, jg__io_batch_mat_ops, jg__io_batch_h5_ops;

/* The four matrices of s and their sizes, in the order A, B, C, D. */
void jg__io_batch_mats(const jg_io_batch_t *w, const jg_lin_sys_t *s, const cs_dl *mats[4],
                       int64_t dims[4][2]);
/* 1 when matrix q (0..3 for A..D) of w's models is stored dense. */
int jg__io_batch_dense(const jg_io_batch_t *w, int q);


#endif
