/* fixture.h -- a model from a JSON string, compiled, with an evaluation work and
 * a linearizer: the set-up the C tests share, and what they read off it (a
 * matrix entry, a dense D, a one-block model).  Header-only, like tap.h. */
#ifndef JG_TESTS_FIXTURE_H
#define JG_TESTS_FIXTURE_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/jacgraph.h"

typedef struct {
    jg_model_t *m;
    jg_program_t *p;
    jg_work_t *w;
    jg_lin_t *l;
    jg_error_t err;
} fx_t;

/* Parse, compile, create the work and the linearizer (o may be NULL); stops at
 * the first failure and returns its status (message in f->err). */
__attribute__((unused)) static jg_status_t fx_load(fx_t *f, const char *json,
                                                   const jg_lin_opts_t *o)
{
    memset(f, 0, sizeof *f);
    jg_status_t st = jg_model_parse(json, "<test>", &f->m, &f->err);
    if (!st) st = jg_program_compile(f->m, &f->p, &f->err);
    if (!st) st = jg_work_create(f->p, &f->w, &f->err);
    if (!st) st = jg_lin_create(f->p, o, &f->l, &f->err);
    return st;
}

__attribute__((unused)) static void fx_unload(fx_t *f)
{
    jg_lin_free(f->l);
    jg_work_free(f->w);
    jg_program_free(f->p);
    jg_model_free(f->m);
}

/* A(i, j) of a compressed-column matrix (0 when not stored). */
__attribute__((unused)) static double fx_entry(const cs_dl *A, int64_t i, int64_t j)
{
    for (int64_t k = A->p[j]; k < A->p[j + 1]; k++)
        if (A->i[k] == i) return A->x[k];
    return 0;
}

/* A model around one block: root Inports In1..Ink (widths w[k]) drive the
 * inputs of block B (its JSON keys after the name, ' for "); B's output drives
 * the Integrator Y (so the derivatives are B's values) and Out1 (so D is B's
 * Jacobian).  The JSON lives in a static buffer that the next call overwrites. */
__attribute__((unused)) static const char *fx_blk_model(const char *blk, int nin, const int *w)
{
    static char buf[8192];
    int n = snprintf(buf, sizeof buf, "{'name':'blk','blocks':[");
    for (int k = 0; k < nin; k++)
        n += snprintf(buf + n, sizeof buf - n,
                      "{'name':'In%d','type':'Inport','Port':%d,'PortDimensions':%d},", k + 1,
                      k + 1, w[k]);
    n += snprintf(buf + n, sizeof buf - n,
                  "{'name':'B',%s},{'name':'Y','type':'Integrator'},"
                  "{'name':'Out1','type':'Outport','Port':1}],'lines':[",
                  blk);
    for (int k = 0; k < nin; k++)
        n += snprintf(buf + n, sizeof buf - n, "{'src':'In%d:1','dst':'B:%d'},", k + 1, k + 1);
    snprintf(buf + n, sizeof buf - n, "{'src':'B:1','dst':['Y:1','Out1:1']}]}");
    for (char *c = buf; *c; c++)
        if (*c == '\'') *c = '"';
    return buf;
}

/* D (ny x nu, row-major, dense) by method m at inputs u (Markowitz reduction). */
__attribute__((unused)) static jg_status_t fx_dmat(fx_t *f, jg_method_t m, const double *u, double *D,
                                                   int64_t *ny, int64_t *nu)
{
    double *in = jg_lin_inputs(f->l);
    for (int64_t k = 0; k < jg_work_ninput_elems(f->w); k++) in[k] = u[k];
    jg_linsys_t *s = NULL;
    jg_status_t st = jg_lin_run(f->l, m, JG_REDUCE_MARKOWITZ, &s, NULL, &f->err);
    if (st) return st;
    *ny = s->ny;
    *nu = s->nu;
    memset(D, 0, sizeof(double) * (size_t)(s->ny * s->nu));
    for (int64_t j = 0; j < s->D->n; j++)
        for (int64_t k = s->D->p[j]; k < s->D->p[j + 1]; k++) D[s->D->i[k] * s->nu + j] = s->D->x[k];
    jg_linsys_free(s);
    return JG_OK;
}

/* The random diagram of o (lib/gen, the caller frees it); a generator failure
 * ends the test with "Bail out!". */
__attribute__((unused)) static char *fx_gen_text(const jg_gen_random_opts_t *o, jg_gen_random_info_t *info)
{
    char *text = NULL;
    jg_error_t err;
    if (jg_gen_random(o, &text, info, &err)) {
        printf("Bail out! generator: %s\n", err.msg);
        exit(1);
    }
    return text;
}

/* Every linearization path, each to be held to the others. */
__attribute__((unused)) static const struct {
    jg_method_t m;
    jg_reduce_t r;
    const char *name;
} paths[] = {{JG_METHOD_GRAPH, JG_REDUCE_NONE, "graph/none"},
             {JG_METHOD_GRAPH, JG_REDUCE_MARKOWITZ, "graph/markowitz"},
             {JG_METHOD_GRAPH, JG_REDUCE_FULL, "graph/full"},
             {JG_METHOD_MATRIX, JG_REDUCE_NONE, "matrix"},
             {JG_METHOD_PERTURB, JG_REDUCE_NONE, "perturb"}};
#define NPATHS (int)(sizeof paths / sizeof *paths)

#endif
