/* test_linearize_refactor.c -- linearizing at many operating points with the
 * LFT refactorized numerically on the first run's analysis (lib/lft
 * refactor.c through jg_lin_run): on generated models (aerospace, power with
 * its algebraic loops, deep) and every shipped model, at random operating
 * points, the result equals bit for bit the one of a linearizer that extracts
 * the LFT operands and factorizes them afresh (jg_lft) at that very point
 * (same elimination tape), with the
 * fallbacks counted (the shipped models with nonlinear loops make some); clones
 * share the analysis and give the same bits. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include "jacgraph/jacgraph.h"
#include "linearize/lin_impl.h"
#include "testlib.h"

static uint64_t rng = 99;
static double unif(void)   /* U(-1, 1) */
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-52 - 1.0;
}

/* Drop l's LFT analyses and operand recipes: its next run extracts the
 * operands from the graph and solves them by jg_lft, as a first run does. */
static void forget(jg_lin_t *l)
{
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < 5; k++) {
            jg__lft_gather_free(l->lgat[r][k]);
            cs_dl_spfree(l->lops[r][k]);
            l->lgat[r][k] = NULL;
            l->lops[r][k] = NULL;
        }
    for (int r = 0; r < 4; r++) {
        jg_lft_num_free(l->lnum[r]);
        if (l->lsym_own[r]) jg_lft_sym_free(l->lsym[r]);
        l->lnum[r] = NULL;
        l->lsym[r] = NULL;
        l->lsym_own[r] = 0;
        l->lruns[r] = 0;   /* and the LFT by jg_lft, as a single run */
    }
}

static int same_mat(const cs_dl *a, const cs_dl *b)
{
    if (!a || !b) return a == b;
    if (a->m != b->m || a->n != b->n) return 0;
    int64_t nz = a->p[a->n];
    return nz == b->p[b->n] && !memcmp(a->p, b->p, sizeof(int64_t) * (size_t)(a->n + 1)) &&
           !memcmp(a->i, b->i, sizeof(int64_t) * (size_t)nz) &&
           !memcmp(a->x, b->x, sizeof(double) * (size_t)nz);
}

static int same_sys(const jg_lin_sys_t *a, const jg_lin_sys_t *b)
{
    return a && b && same_mat(a->A, b->A) && same_mat(a->B, b->B) && same_mat(a->C, b->C) &&
           same_mat(a->D, b->D);
}

typedef struct {
    int points, equal, failed_both, fallbacks, replays, clone_equal;
} tally_t;

/* p at npts random points around its initial states, reduction red. */
static void check_program(const jg_program_t *p, jg_graph_reduce_t red, int npts, tally_t *t)
{
    jg_error_t err;
    jg_lin_t *l = NULL, *f = NULL, *c = NULL;
    jg_lin_sys_t *s0 = NULL;
    if (jg_lin_create(p, NULL, &l, &err) || jg_lin_create(p, NULL, &f, &err)) goto done;
    int64_t nx = jg_program_nstates(p);
    double *x0 = malloc(sizeof(double) * (size_t)(nx + 1));
    memcpy(x0, jg_lin_states(l), sizeof(double) * (size_t)nx);
    /* the first runs: the same elimination tape for both */
    if (jg_lin_run(l, JG_LIN_GRAPH, red, &s0, NULL, &err) || (jg_lin_sys_free(s0), 0) ||
        jg_lin_run(f, JG_LIN_GRAPH, red, &s0, NULL, &err)) {
        jg_lin_sys_free(s0);
        free(x0);
        goto done;
    }
    jg_lin_sys_free(s0);
    jg_lin_freeze(l);
    if (jg_lin_clone(l, p, &c, &err)) c = NULL;
    for (int k = 0; k < npts; k++) {
        double spread = k % 7 == 6 ? 2.0 : 0.3;
        for (int64_t i = 0; i < nx; i++) {
            double v = x0[i] + spread * (1 + fabs(x0[i])) * unif();
            jg_lin_states(l)[i] = v;
            jg_lin_states(f)[i] = v;
            if (c) jg_lin_states(c)[i] = v;
        }
        jg_lin_sys_t *a = NULL, *b = NULL, *d = NULL;
        jg_lin_stats_t sa, sb;
        jg_error_t ea, eb;
        forget(f);
        jg_status_t ra = jg_lin_run(l, JG_LIN_GRAPH, red, &a, &sa, &ea);
        jg_status_t rb = jg_lin_run(f, JG_LIN_GRAPH, red, &b, &sb, &eb);
        t->points++;
        if (ra && rb && ra == rb && !strcmp(ea.msg, eb.msg)) t->failed_both++;
        else if (!ra && !rb && same_sys(a, b)) t->equal++;
        if (!ra) {
            t->fallbacks += sa.lft_fallback != 0;
            t->replays += sa.lft_fallback == 0;
        }
        if (c) {
            jg_status_t rc = jg_lin_run(c, JG_LIN_GRAPH, red, &d, NULL, &eb);
            if (rc == ra && (ra || same_sys(a, d))) t->clone_equal++;
        } else {
            t->clone_equal++;
        }
        jg_lin_sys_free(a);
        jg_lin_sys_free(b);
        jg_lin_sys_free(d);
    }
    free(x0);
done:
    jg_lin_free(c);
    jg_lin_free(f);
    jg_lin_free(l);
}

static void test_generated(void)
{
    const jg_gen_kind_t kinds[] = {JG_GEN_AEROSPACE, JG_GEN_POWER, JG_GEN_DEEP};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        for (int red = 0; red <= 2; red++) {
            tally_t t = {0};
            int models = 0;
            for (uint64_t seed = 1; seed <= 3; seed++) {
                jg_gen_opts_t o;
                jg_gen_opts_default(&o, kinds[k], 400, seed);
                char *json = NULL;
                size_t len = 0;
                jg_error_t err;
                jg_model_t *m = NULL;
                jg_program_t *p = NULL;
                if (!jg_gen_model(&o, &json, &len, NULL, &err) && !jg_model_parse(json, "<gen>", &m, &err) &&
                    !jg_program_compile(m, &p, &err)) {
                    check_program(p, (jg_graph_reduce_t)red, 15, &t);
                    models++;
                }
                jg_program_free(p);
                jg_model_free(m);
                free(json);
            }
            tap_ok(models == 3 && t.points == 45 && t.equal + t.failed_both == t.points &&
                       t.clone_equal == t.points && t.replays > 0,
                   "%s, reduction %s: %d points, %d equal bit for bit to a fresh LFT, %d failing alike; "
                   "%d replayed, %d LFT fallbacks; clones equal",
                   jg_gen_kind_name(kinds[k]), red == 0 ? "none" : red == 1 ? "markowitz" : "full", t.points,
                   t.equal, t.failed_both, t.replays, t.fallbacks);
        }
    }
}

static void test_shipped(void)
{
    DIR *d = opendir("graphs");
    if (!d) {
        tap_ok(0, "graphs/ not found (tests run from the repository root)");
        return;
    }
    struct dirent *e;
    tally_t t = {0};
    int models = 0;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".json")) continue;
        char path[1024];
        snprintf(path, sizeof path, "graphs/%s", e->d_name);
        jg_error_t err;
        jg_model_t *m = NULL;
        jg_program_t *p = NULL;
        if (!jg_model_read(path, &m, &err) && !jg_program_compile(m, &p, &err)) {
            for (int red = 0; red <= 2; red++) check_program(p, (jg_graph_reduce_t)red, 10, &t);
            models++;
        }
        jg_program_free(p);
        jg_model_free(m);
    }
    closedir(d);
    /* vdp, rober and pipe have nonlinear algebraic loops whose pivots move
     * (reduction none): the fallback is exercised, and the re-analysis after
     * three of them in a row retires analyses the clone still uses */
    tap_ok(models >= 10 && t.points > 0 && t.equal + t.failed_both == t.points && t.clone_equal == t.points &&
               t.fallbacks > 0,
           "%d shipped models, 3 reductions: %d points, %d equal bit for bit to a fresh LFT, %d failing "
           "alike; %d replayed, %d LFT fallbacks; clones equal",
           models, t.points, t.equal, t.failed_both, t.replays, t.fallbacks);
}

int main(void)
{
    test_generated();
    test_shipped();
    return tap_done();
}
