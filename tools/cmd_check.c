/* jacgraph check: every linearization method against every other, the one
 * that disagrees named, and on small models an extended-precision reference
 * saying which is right. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

static const char help[] =
    "usage: jacgraph check MODEL [--tol-graph T] [--tol-perturb T] [--reduce S] [io options]\n"
    "\n"
    "Linearize MODEL with the Jacobian graph (reductions none, markowitz, full), the\n"
    "matrix-based block-by-block algorithm and central-difference perturbation of the\n"
    "whole model, and compare every method with every other: no method is trusted as\n"
    "the reference.  A difference is max|X - Y| / max(1, max|Y|) over each of A, B, C,\n"
    "D (the larger of the two directions); two methods agree when it is within the sum\n"
    "of their tolerances.  A method that disagrees with the largest agreeing group is\n"
    "named.  When the methods disagree and I - D*M has at most 200 rows, the matrix\n"
    "method's LFT is evaluated again in quadruple precision (every sum and product;\n"
    "the block Jacobians are the same doubles) and each method is compared with it:\n"
    "those within their tolerance (plus the reference's own error, its condition\n"
    "times 2^-112) are right.\n"
    "\n"
    "  --tol-graph T     tolerance of the graph and matrix methods (default 1e-10)\n"
    "  --tol-perturb T   tolerance of perturbation (default: 10 times its own error\n"
    "                    estimate, at least 1e-8)\n"
    "  --reduce S        one more method: the graph method with elimination strategy\n"
    "                    S (any of 'jacgraph strategies --list'; --order FILE: the\n"
    "                    order of FILE), compared like the others\n"
    "  --input/--output/--open BLOCK:N|SIGNAL, --no-default-io, --op FILE as for linearize\n"
    "\n"
    "The last line is PASS or FAIL.  Exit status 0 when all agree, 1 when one differs\n"
    "beyond its tolerance, fails, or gives NaN or Inf.\n";

enum { NM = 6 };   /* graph/none, graph/markowitz, graph/full, matrix, perturb[, graph/--reduce] */

static int parse_tol(const char *s, double *t)
{
    char *end;
    double v = strtod(s, &end);
    if (*end || !(v > 0)) return -1;
    *t = v;
    return 0;
}

/* 1 when every entry of A, B, C, D is finite. */
static int finite_sys(const jg_lin_sys_t *s)
{
    const cs_dl *m[4] = {s->A, s->B, s->C, s->D};
    for (int k = 0; k < 4; k++)
        for (int64_t q = 0; m[k] && q < m[k]->p[m[k]->n]; q++)
            if (!isfinite(m[k]->x[q])) return 0;
    return 1;
}

/* The difference of a and b in both directions (the measure is relative to
 * the second); NaN never hides in a max. */
static double sym_diff(const jg_lin_sys_t *a, const jg_lin_sys_t *b, const char **which)
{
    const char *w1 = "A", *w2 = "A";
    double d1 = jg_lin_sys_diff(a, b, &w1), d2 = jg_lin_sys_diff(b, a, &w2);
    if (isnan(d1) || isnan(d2)) {
        *which = isnan(d1) ? w1 : w2;
        return NAN;
    }
    *which = d1 >= d2 ? w1 : w2;
    return fmax(d1, d2);
}

int cmd_check(int argc, char **argv)
{
    cli_args_t a = {argc, 1, argv, "check"};
    cli_io_t io = {0};
    const char *model = NULL, *tg = NULL, *tp = NULL, *reduce = NULL, *order = NULL;
    double tol_graph = 1e-10, tol_perturb = 0;
    int r;
    while (a.i < argc) {
        if (cli_help(&a, help)) return 0;
        if ((r = cli_io_opt(&a, &io)) || (r = cli_opt(&a, "--tol-graph", &tg)) ||
            (r = cli_opt(&a, "--tol-perturb", &tp)) || (r = cli_opt(&a, "--reduce", &reduce)) ||
            (r = cli_opt(&a, "--order", &order))) {
            if (r < 0) return EXIT_USAGE;
            continue;
        }
        if ((r = cli_operand(&a, "MODEL", &model))) return r;
    }
    if (!model) return cli_usage(a.cmd, "missing MODEL");
    if (tg && parse_tol(tg, &tol_graph)) return cli_usage(a.cmd, "--tol-graph must be a positive number");
    if (tp && parse_tol(tp, &tol_perturb)) return cli_usage(a.cmd, "--tol-perturb must be a positive number");
    const jg_graph_strategy_t *strat = NULL;
    if ((reduce || order) && (r = cli_strategy(a.cmd, reduce, order, NULL, &strat))) return r;
    const int nm = strat ? NM : NM - 1;
    jg_model_t *md;
    jg_program_t *p;
    jg_lin_t *l = NULL;
    jg_lin_sys_t *s[NM] = {0}, *ref = NULL;
    char name[NM][32], why[NM][JG_ERROR_MSG_MAX + 16];
    double tol[NM], perr = 0, cond = 0;
    int usable[NM] = {0};
    jg_error_t err;
    jg_error_clear(&err);
    int rc = cli_load(model, &md, &p);
    if (rc) return rc;
    if ((rc = cli_lin(p, &io, &l))) goto done;
    /* every method; one that fails or gives NaN/Inf is reported, not fatal */
    for (int k = 0; k < nm; k++) {
        jg_lin_method_t m = k < 3 || k == 5 ? JG_LIN_GRAPH : k == 3 ? JG_LIN_MATRIX : JG_LIN_PERTURB;
        jg_graph_reduce_t red = k < 3 ? (jg_graph_reduce_t)k : JG_GRAPH_REDUCE_NONE;
        if (k < 3) snprintf(name[k], sizeof name[k], "graph/%s", jg_graph_reduce_name(red));
        else if (k == 5) snprintf(name[k], sizeof name[k], "graph/%.24s", jg_graph_strategy_spec(strat));
        else snprintf(name[k], sizeof name[k], "%s", jg_lin_method_name(m));
        jg_lin_stats_t st;
        why[k][0] = 0;
        jg_error_clear(&err);
        if (k == 5 ? jg_lin_run_strategy(l, strat, &s[k], &st, &err) : jg_lin_run(l, m, red, &s[k], &st, &err)) {
            if (err.status == JG_NOMEM) {   /* no verdict without memory: exit 70 */
                rc = cli_fail(&err);
                goto done;
            }
            snprintf(why[k], sizeof why[k], "failed: %s", err.msg);
            continue;
        }
        if (!finite_sys(s[k])) {
            snprintf(why[k], sizeof why[k], "NaN or Inf in its result");
            continue;
        }
        usable[k] = 1;
        if (k == 4) perr = st.perturb_err;
        if (k == 3) cond = st.cond;
    }
    int nusable = 0;
    for (int k = 0; k < nm; k++) nusable += usable[k];
    if (nusable == 0 && err.status) {   /* nothing linearizes: the model's error, its exit code */
        rc = cli_fail(&err);
        goto done;
    }
    for (int k = 0; k < nm; k++) tol[k] = tol_graph;
    tol[4] = tp ? tol_perturb : fmax(10 * perr, 1e-8);
    printf("check %s: %lld states, %lld inputs, %lld outputs; every method against every other\n",
           jg_program_name(p), (long long)(s[3] ? s[3]->nx : 0), (long long)(s[3] ? s[3]->nu : 0),
           (long long)(s[3] ? s[3]->ny : 0));
    /* pairwise agreement; a method's agreeing partners */
    double d[NM][NM] = {{0}};
    const char *in[NM][NM];
    int agree[NM][NM] = {{0}}, na[NM] = {0}, best = 0;
    for (int i = 0; i < nm; i++)
        for (int j = 0; j < nm; j++) {
            in[i][j] = "A";
            if (i == j || !usable[i] || !usable[j]) continue;
            d[i][j] = sym_diff(s[i], s[j], &in[i][j]);
            agree[i][j] = d[i][j] <= tol[i] + tol[j];
            na[i] += agree[i][j];
        }
    for (int i = 0; i < nm; i++)
        if (usable[i] && na[i] > best) best = na[i];
    int all = nusable == nm && best == nm - 1;
    for (int i = 0; i < nm; i++)
        for (int j = 0; j < nm; j++) all &= i == j || agree[i][j];
    for (int i = 0; i < nm; i++) {
        if (!usable[i]) {
            printf("  %-16s %s\n", name[i], why[i]);
            continue;
        }
        /* the largest difference to another method, and to whom */
        int jw = -1;
        for (int j = 0; j < nm; j++)
            if (j != i && usable[j] && (jw < 0 || !(d[i][j] <= d[i][jw]))) jw = j;
        char tolbuf[64];
        if (i == 4 && !tp)
            snprintf(tolbuf, sizeof tolbuf, "%.0e (its error estimate %.1e)", tol[i], perr);
        else
            snprintf(tolbuf, sizeof tolbuf, "%.0e", tol[i]);
        if (jw < 0)
            printf("  %-16s no other method to compare with (tolerance %s)\n", name[i], tolbuf);
        else
            printf("  %-16s largest difference %.3e (in %s, to %s)  %s (tolerance %s)\n", name[i],
                   d[i][jw], in[i][jw], name[jw],
                   all ? "ok" : na[i] == best && best > 0 ? "agrees with the most" : "DISAGREES",
                   tolbuf);
    }
    if (all) {
        printf("PASS\n");
        rc = 0;
        goto done;
    }
    /* who disagrees with the largest agreeing group */
    char odd[512] = "";
    size_t no = 0;
    for (int i = 0; i < nm; i++)
        if (!usable[i] || na[i] < best || best == 0)
            no += (size_t)snprintf(odd + no, sizeof odd - no, "%s%s", no ? ", " : "", name[i]);
    if (no) printf("odd one out: %s\n", odd);
    /* which is right: the extended-precision reference, on small models */
    jg_error_clear(&err);
    if (jg_lin_run_extended(l, &ref, &err)) {
        printf("no extended-precision reference: %s\n", err.msg);
    } else {
        /* the reference is itself only as good as its precision allows: about
         * condition x its round-off, with a margin */
        double racc = isfinite(cond) ? 10 * fmax(cond, 1.0) * jg_lin_extended_eps() : INFINITY;
        printf("extended-precision reference (round-off %.1e; condition of I - D*M %.1e, so the "
               "reference is good to about %.1e):\n", jg_lin_extended_eps(), cond, racc);
        char right[512] = "";
        size_t nr = 0;
        for (int i = 0; i < nm; i++) {
            if (!usable[i]) continue;
            const char *w = "A";
            double e = sym_diff(s[i], ref, &w);
            int ok = e <= tol[i] + racc;
            printf("  %-16s differs by %.3e (in %s)  %s\n", name[i], e, w, ok ? "right" : "WRONG");
            if (ok) nr += (size_t)snprintf(right + nr, sizeof right - nr, "%s%s", nr ? ", " : "", name[i]);
        }
        printf("right: %s\n", nr ? right : "none of them");
    }
    printf("FAIL\n");
    rc = EXIT_MISMATCH;
done:
    for (int k = 0; k < nm; k++) jg_lin_sys_free(s[k]);
    jg_lin_sys_free(ref);
    jg_lin_free(l);
    jg_program_free(p);
    jg_model_free(md);
    return rc;
}
