/* fixture.h -- a model from a JSON string, compiled, with an evaluation work and
 * a linearizer: the set-up the C tests share, and what they read off it (a
 * matrix entry, a dense D, a one-block model).  Header-only, like tap.h. */
#ifndef JG_TESTS_FIXTURE_H
#define JG_TESTS_FIXTURE_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/jacgraph.h"
#include "tap.h"

typedef struct {
    jg_model_t *m;
    jg_program_t *p;
    jg_eval_work_t *w;
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
    if (!st) st = jg_eval_create(f->p, &f->w, &f->err);
    if (!st) st = jg_lin_create(f->p, o, &f->l, &f->err);
    return st;
}

__attribute__((unused)) static void fx_unload(fx_t *f)
{
    jg_lin_free(f->l);
    jg_eval_free(f->w);
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
__attribute__((unused)) static jg_status_t fx_dmat(fx_t *f, jg_lin_method_t m, const double *u, double *D,
                                                   int64_t *ny, int64_t *nu)
{
    double *in = jg_lin_inputs(f->l);
    for (int64_t k = 0; k < jg_eval_ninput_elems(f->w); k++) in[k] = u[k];
    jg_lin_sys_t *s = NULL;
    jg_status_t st = jg_lin_run(f->l, m, JG_GRAPH_REDUCE_MARKOWITZ, &s, NULL, &f->err);
    if (st) return st;
    *ny = s->ny;
    *nu = s->nu;
    memset(D, 0, sizeof(double) * (size_t)(s->ny * s->nu));
    for (int64_t j = 0; j < s->D->n; j++)
        for (int64_t k = s->D->p[j]; k < s->D->p[j + 1]; k++) D[s->D->i[k] * s->nu + j] = s->D->x[k];
    jg_lin_sys_free(s);
    return JG_OK;
}

/* B's output at time t and inputs u (all input elements, port after port):
 * the derivatives of the Integrator Y of fx_blk_model. */
__attribute__((unused)) static jg_status_t fx_value_at(fx_t *f, double t, const double *u, double *y)
{
    double *in = jg_eval_inputs(f->w);
    for (int64_t k = 0; k < jg_eval_ninput_elems(f->w); k++) in[k] = u[k];
    jg_status_t st = jg_eval_outputs(f->w, t, &f->err);
    if (!st) st = jg_eval_derivatives(f->w, y, &f->err);
    return st;
}

#define FX_MAXW 16

/* One block at one point (fx_check_case). */
typedef struct {
    const char *what;
    const char *blk;   /* block JSON keys, ' for " */
    int nin;
    int w[4];          /* input widths */
    double u[FX_MAXW]; /* input elements */
    int ny;
    double y[FX_MAXW]; /* expected output */
    double d[FX_MAXW * FX_MAXW];   /* expected D, ny x nu row-major */
    int smooth;        /* central differences and perturbation must match */
} fx_case_t;

/* Value and Jacobian of one block at one point (two TAP lines): the hand
 * value and D, the graph method against the matrix method, perturbation and
 * (at smooth points) central differences of the value.  rough: how the second
 * line names central differences at a point that is not smooth. */
__attribute__((unused)) static void fx_check_case(const fx_case_t *c, const char *rough)
{
    fx_t f;
    jg_status_t st = fx_load(&f, fx_blk_model(c->blk, c->nin, c->w), NULL);
    int nu = 0;
    for (int k = 0; k < c->nin; k++) nu += c->w[k];
    double y[FX_MAXW] = {0}, Dg[FX_MAXW * FX_MAXW], Dm[FX_MAXW * FX_MAXW], Dp[FX_MAXW * FX_MAXW],
           cd[FX_MAXW * FX_MAXW];
    int64_t ny = 0, nu2 = 0, ny2, nu3;
    if (!st) st = fx_value_at(&f, 0, c->u, y);
    if (!st && jg_program_nstates(f.p) != c->ny) {
        printf("#   output width %lld, expected %d\n", (long long)jg_program_nstates(f.p), c->ny);
        st = JG_INTERNAL;
    }
    double ev = 0;
    for (int i = 0; !st && i < c->ny; i++) ev = fmax(ev, fabs(y[i] - c->y[i]) / fmax(1, fabs(c->y[i])));
    if (!st && ev > 1e-14)
        for (int i = 0; i < c->ny; i++) printf("#   y[%d] = %.17g, expected %.17g\n", i, y[i], c->y[i]);
    tap_ok(!st && ev <= 1e-14, "%s: value (error %.1e)", c->what, ev);
    if (!st) st = fx_dmat(&f, JG_LIN_GRAPH, c->u, Dg, &ny, &nu2);
    if (!st) st = fx_dmat(&f, JG_LIN_MATRIX, c->u, Dm, &ny2, &nu3);
    if (!st) st = fx_dmat(&f, JG_LIN_PERTURB, c->u, Dp, &ny2, &nu3);
    /* central differences of the value, h relative to |u| */
    for (int k = 0; !st && k < nu; k++) {
        double u[FX_MAXW], yp[FX_MAXW], ym[FX_MAXW], h = 1e-6 * fmax(1, fabs(c->u[k]));
        memcpy(u, c->u, sizeof u);
        u[k] = c->u[k] + h;
        st = fx_value_at(&f, 0, u, yp);
        u[k] = c->u[k] - h;
        if (!st) st = fx_value_at(&f, 0, u, ym);
        for (int i = 0; i < c->ny; i++) cd[i * nu + k] = (yp[i] - ym[i]) / (2 * h);
    }
    double e_hand = 0, e_mat = 0, e_cd = 0, e_pert = 0;
    for (int i = 0; !st && i < c->ny * nu; i++) {
        e_hand = fmax(e_hand, fabs(Dg[i] - c->d[i]) / fmax(1, fabs(c->d[i])));
        e_mat = fmax(e_mat, fabs(Dm[i] - Dg[i]) / fmax(1, fabs(Dg[i])));
        e_cd = fmax(e_cd, fabs(cd[i] - Dg[i]) / fmax(1, fabs(Dg[i])));
        e_pert = fmax(e_pert, fabs(Dp[i] - Dg[i]) / fmax(1, fabs(Dg[i])));
    }
    if (st) printf("#   %s\n", f.err.msg);
    else if (e_hand > 1e-14)
        for (int i = 0; i < c->ny * nu; i++)
            printf("#   D[%d][%d] = %.17g, expected %.17g\n", i / nu, i % nu, Dg[i], c->d[i]);
    int ok = !st && ny == c->ny && nu2 == nu && e_hand <= 1e-14 && e_mat <= 1e-14 &&
             (!c->smooth || (e_cd <= 1e-8 && e_pert <= 1e-7));
    tap_ok(ok, "%s: D vs hand %.1e, vs matrix %.1e%s%.1e, vs perturbation %.1e", c->what, e_hand,
           e_mat, c->smooth ? ", vs central differences " : rough, e_cd, e_pert);
    fx_unload(&f);
}

/* One TAP line: the one-block model of fx_blk_model fails with status want and
 * exactly the message msg; named by what, or by msg without "block ". */
__attribute__((unused)) static void fx_expect_err(const char *blk, int nin, const int *w, jg_status_t want,
                                                  const char *msg, const char *what)
{
    fx_t f;
    jg_status_t st = fx_load(&f, fx_blk_model(blk, nin, w), NULL);
    if (st != want) printf("#   status %s: %s\n", jg_status_name(st), st ? f.err.msg : "");
    char name[240];
    snprintf(name, sizeof name, "%s: %.200s", jg_status_name(want), what ? what : msg + strlen("block "));
    tap_streq(st == want ? f.err.msg : "", msg, name);
    fx_unload(&f);
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
    jg_lin_method_t m;
    jg_graph_reduce_t r;
    const char *name;
} paths[] = {{JG_LIN_GRAPH, JG_GRAPH_REDUCE_NONE, "graph/none"},
             {JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ, "graph/markowitz"},
             {JG_LIN_GRAPH, JG_GRAPH_REDUCE_FULL, "graph/full"},
             {JG_LIN_MATRIX, JG_GRAPH_REDUCE_NONE, "matrix"},
             {JG_LIN_PERTURB, JG_GRAPH_REDUCE_NONE, "perturb"}};
#define NPATHS (int)(sizeof paths / sizeof *paths)

#endif
