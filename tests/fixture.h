/* fixture.h -- a model from a JSON string, compiled, with an evaluation work and
 * a linearizer: the set-up the C tests share.  Header-only, like tap.h. */
#ifndef JG_TESTS_FIXTURE_H
#define JG_TESTS_FIXTURE_H
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
