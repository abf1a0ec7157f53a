/* test_graph_replay.c -- the compiled replay of the elimination tape
 * (lib/graph/tape.c) against the interpreted one (replay.c, operation by
 * operation): every edge value the same bits, on the shipped models and on
 * generated ones, for several strategies, at several operating points, with
 * block Jacobians overwritten by signed zeros, subnormals, infinities and
 * NaN (a NaN matching any NaN), and on views (jg__graph_share) that share the program or compile
 * their own. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/jacgraph.h"
#include "jacgraph/gen.h"
#include "testlib.h"
#include "graph/graph_impl.h"
#include "linearize/lin_internal.h"

static const char *const specs[] = {"markowitz", "full", "lm", "forward", "reverse", "minfill",
                                    "momr>lm>reverse"};
#define NSPECS (int)(sizeof specs / sizeof *specs)

/* Tape operations met, by code (each must be exercised somewhere). */
static int64_t seen[OP_ADD + 1];
static int64_t n_compared, n_special, n_views;

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Replay g at w compiled, then interpreted; 1 when both end the same way
 * and, when they succeed, every value is the same bits (a NaN matches any
 * NaN: C leaves the sign and payload of a NaN result to the compiler, which
 * may order the operands of a sum either way; a NaN anywhere fails the
 * linearization).  why gets the first difference. */
static int same_replay(jg_graph_t *g, const jg_eval_work_t *w, char *why, size_t cap)
{
    jg_error_t e1, e2;
    jg_error_clear(&e1);
    jg_error_clear(&e2);
    jg_status_t s1 = jg__graph_replay(g, w, &e1);
    double c1;
    int64_t v1 = jg__graph_pivots(g, &c1);
    double *x = malloc(sizeof(double) * (size_t)(g->nx + 1));
    if (!x) return 0;
    memcpy(x, g->x, sizeof(double) * (size_t)g->nx);
    int64_t fma[3];
    jg_status_t s2 = jg__graph_replay_count(g, w, fma, &e2);
    double c2;
    int64_t v2 = jg__graph_pivots(g, &c2);
    int ok = s1 == s2 && (s1 || (v1 == v2 && memcmp(&c1, &c2, sizeof c1) == 0));
    if (!ok) snprintf(why, cap, "status %d vs %d, guard %lld vs %lld", s1, s2, (long long)v1, (long long)v2);
    for (int64_t i = 0; ok && !s1 && i < g->nx; i++)
        if (memcmp(&x[i], &g->x[i], sizeof(double)) && !(isnan(x[i]) && isnan(g->x[i]))) {
            ok = 0;
            snprintf(why, cap, "value %lld of %lld: %a (compiled) vs %a (interpreted)", (long long)i,
                     (long long)g->nx, x[i], g->x[i]);
        }
    if (ok && s1) ok = !strcmp(e1.msg, e2.msg);
    free(x);
    n_compared++;
    return ok;
}

/* Overwrite every block Jacobian value of w feeding g with a special value
 * now and then (signed zeros mostly: they are what an accumulator changes). */
static void specials(const jg_graph_t *g, const jg_eval_work_t *w, int wild)
{
    static const double tame[] = {-0.0, 0.0, -0.0, 1.0, -1.0, 4.9e-324, -2.5e-310, 0.5};
    static const double bad[] = {INFINITY, -INFINITY, NAN, -NAN, 1e308, -1e308};
    for (int64_t k = 0; k < g->npartedge; k++) {
        double *v = jg__eval_jac_values(w, g->pe_part[k]);
        int64_t nz = jg__nnz(&g->mat[g->pe_mat[k]]);
        for (int64_t q = 0; q < nz; q++) {
            uint64_t r = next();
            if (r % 3 == 0) v[q] = tame[(r >> 8) % 8];
            else if (wild && r % 17 == 1) v[q] = bad[(r >> 8) % 6];
        }
    }
    n_special++;
}

/* Every strategy on p at three operating points, plain and with special
 * values, on g and on views.  Returns the number of failed comparisons, the
 * first in why. */
static int check_program(const jg_program_t *p, char *why, size_t cap)
{
    int bad = 0;
    char w1[512];
    why[0] = 0;
    for (int k = 0; k < NSPECS; k++) {
        jg_lin_t *l = NULL;
        jg_error_t err;
        jg_error_clear(&err);
        jg_graph_strategy_t *s = NULL;
        const jg_graph_t *cg = NULL;
        if (jg_lin_create(p, NULL, &l, &err) || jg_graph_strategy_parse(specs[k], &s, &err) ||
            jg_lin_graph_strategy(l, s, &cg, &err)) {
            jg_graph_strategy_free(s);
            jg_lin_free(l);
            continue;   /* not linearizable this way: nothing to replay */
        }
        jg_graph_t *g = (jg_graph_t *)cg;
        const jg_eval_work_t *w = jg__lin_work(l);
        for (int64_t q = 0; q < g->ops_n; q++) seen[g->ops[q].code]++;
        /* a view made before g compiled: it compiles its own */
        jg_graph_t *v0 = jg__graph_share(g);
        int fails = 0;
        if (v0) {
            fails += !same_replay(v0, w, w1, sizeof w1);
            n_views++;
        }
        int64_t nx = jg_program_nstates(p);
        for (int pt = 0; pt < 3; pt++) {
            double *x = jg_lin_states(l);
            for (int64_t i = 0; i < nx; i++) x[i] += 0.1 * (pt + 1) * (double)((i % 5) - 2);
            jg_lin_set_time(l, 0.25 * pt);
            jg_lin_sys_t *sys = NULL;
            (void)jg_lin_run_strategy(l, s, &sys, NULL, &err);   /* the Jacobians at this point */
            jg_lin_sys_free(sys);
            fails += !same_replay(g, w, w1, sizeof w1);
        }
        fails += !jg__tape_current(g) || (v0 && !v0->tape_own);   /* the compiled path ran */
        /* views sharing g's program, at the last point */
        jg_graph_t *v1 = jg__graph_share(g);
        if (v1) {
            fails += !same_replay(v1, w, w1, sizeof w1) || v1->tape != g->tape;
            n_views++;
        }
        specials(g, w, 0);
        fails += !same_replay(g, w, w1, sizeof w1);
        if (v1) fails += !same_replay(v1, w, w1, sizeof w1);
        specials(g, w, 1);
        fails += !same_replay(g, w, w1, sizeof w1);
        if (fails && !bad) snprintf(why, cap, "%s: %s", specs[k], w1);
        bad += fails;
        jg__graph_share_free(v0);
        jg__graph_share_free(v1);
        jg_graph_strategy_free(s);
        jg_lin_free(l);
    }
    return bad;
}

static void shipped_model(const char *path, const jg_program_t *p, void *user)
{
    (void)user;
    char why[1024];
    int bad = check_program(p, why, sizeof why);
    tap_ok(!bad, "%s: compiled replay == interpreted, bit for bit (%d strategies)%s%s", path, NSPECS,
           bad ? ": " : "", why);
}

static void shipped_models(void)
{
    int nmodels = tl_each_shipped(shipped_model, NULL);
    tap_ok(nmodels >= 10, "%d shipped models checked", nmodels);
}

static void generated_models(void)
{
    static const struct {
        jg_gen_kind_t kind;
        int64_t size;
    } gens[] = {{JG_GEN_AEROSPACE, 400}, {JG_GEN_AEROSPACE, 60}, {JG_GEN_POWER, 120},
                {JG_GEN_DEEP, 80},       {JG_GEN_BRUSSELATOR, 18}};
    for (size_t k = 0; k < sizeof gens / sizeof *gens; k++) {
        jg_gen_opts_t o;
        jg_gen_opts_default(&o, gens[k].kind, gens[k].size, 1 + k);
        char *text = NULL, why[1024];
        size_t len = 0;
        jg_model_t *m = NULL;
        jg_program_t *p = NULL;
        jg_error_t err;
        jg_error_clear(&err);
        if (jg_gen_model(&o, &text, &len, NULL, &err) || jg_model_parse(text, "<gen>", &m, &err) ||
            jg_program_compile(m, &p, &err)) {
            tap_ok(0, "%s %lld: generated and compiled (%s)", jg_gen_kind_name(gens[k].kind),
                   (long long)gens[k].size, err.msg);
        } else {
            int bad = check_program(p, why, sizeof why);
            tap_ok(!bad, "generated %s, %lld: compiled replay == interpreted%s%s",
                   jg_gen_kind_name(gens[k].kind), (long long)gens[k].size, bad ? ": " : "", why);
        }
        jg_program_free(p);
        jg_model_free(m);
        free(text);
    }
}

static void random_models(int nseeds)
{
    int nbad = 0;
    char first[1200] = "";
    for (int seed = 1; seed <= nseeds; seed++) {
        jg_gen_random_opts_t o;
        fx_random_opts(&o, seed);
        char why[1024];
        jg_model_t *m;
        jg_program_t *p;
        jg_error_t err;
        if (fx_gen_program(&o, &m, &p, &err)) {
            if (!nbad++) snprintf(first, sizeof first, "seed %d: %.200s", seed, err.msg);
        } else if (check_program(p, why, sizeof why)) {
            if (!nbad++) snprintf(first, sizeof first, "seed %d: %.1000s", seed, why);
        }
        jg_program_free(p);
        jg_model_free(m);
    }
    tap_ok(nbad == 0, "random diagrams (loops, vectors, nesting): compiled replay == interpreted on "
                      "%d of %d seeds%s%s", nseeds - nbad, nseeds, nbad ? "; first: " : "", first);
}

int main(int argc, char **argv)
{
    int nseeds = argc > 1 ? atoi(argv[1]) : 60;
    shipped_models();
    generated_models();
    random_models(nseeds);
    static const char *const names[] = {"INV", "SCALE", "MULADD", "EXPAND", "INVD", "SCALED", "ADD"};
    for (int c = 0; c <= OP_ADD; c++)
        tap_ok(seen[c] > 0, "tape operation %s exercised (%lld recorded)", names[c], (long long)seen[c]);
    tap_ok(n_special > 0 && n_views > 0, "%lld replays compared, %lld with special values, %lld on views",
           (long long)n_compared, (long long)n_special, (long long)n_views);
    return tap_done();
}
