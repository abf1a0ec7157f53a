/* test_strat_exact_bb.c -- the branch and bound searches exact:bb (fewest FMA)
 * and exact:nnz:bb (fewest nonzeros), against the dynamic programs of exact
 * and exact:nnz on random diagrams of at most 20 eliminable vertices: equal
 * optima when the search completes, and a lower bound never above the
 * optimum when the time limit cuts it -- both as the strategies run them
 * (forced moves and the dynamic program first) and the searches alone.  The
 * FMA bound itself (jg__fbound) is checked below the optimum of the rest
 * after random prefixes of eliminations, on scalar and vector diagrams with
 * algebraic loops, and so is the claim of the forced moves (free, and the
 * optimum of the rest after them unchanged).  Also: the time limit is
 * honored on the shipped models beyond 20 vertices, the bounds there are not
 * 0, both optima are proven on four of them, A, B, C, D after exact:nnz:bb
 * equal the matrix method's, and bad specs are refused naming what is
 * wrong. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "jacgraph/jacgraph.h"
#include "graph/strat_exact.h"   /* private: the bound, the subset dynamic program */
#include "testlib.h"

static int64_t n_eliminable(const jg_graph_t *g)
{
    int64_t n = 0;
    for (int64_t v = 0; v < jg_graph_nvertices(g); v++) n += jg__strat_eliminable(g, v);
    return n;
}

/* A random diagram of lib/gen (flat), vectors and loops as asked. */
static char *random_model(uint64_t seed, int nblocks, int vectors)
{
    jg_gen_random_opts_t o;
    jg_gen_random_defaults(&o, seed, nblocks);
    o.max_depth = 0;
    o.vectors = vectors;
    o.loops = 1;
    char *json = NULL;
    jg_error_t err;
    if (jg_gen_random(&o, &json, NULL, &err)) return NULL;
    return json;
}

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* ------------------------------------------------- the bound is a bound */

typedef struct {
    int cases, below, positive, tight;
    double ratio;   /* sum of bound / optimum where the optimum > 0 */
    int forced, forced_ok;   /* states with a forced vertex; its going first kept the optimum */
} bstat_t;

/* The graph of x after eliminating a random prefix of p vertices: the FMA
 * bound there against the dynamic program's optimum of the rest. */
static void bound_case(gx_t *x, uint64_t *rs, int p, bstat_t *bs)
{
    jg_graph_t *g = NULL;
    jg_error_t err;
    if (jg__graph_scratch(x->g, &g, &err)) return;
    for (int k = 0; k < p; k++) {
        int64_t cand[64], nc = 0;
        for (int64_t v = 0; v < jg_graph_nvertices(g) && nc < 64; v++)
            if (jg__strat_eliminable(g, v)) cand[nc++] = v;
        if (!nc) break;
        if (jg__graph_eliminate_one(g, cand[rng_next(rs) % (uint64_t)nc], NULL, &err)) break;
    }
    jg_pshape_t sh;
    jg_pg_t pg;
    if (jg__pg_from_graph(g, &sh, &pg, &err)) {
        jg_graph_free(g);
        return;
    }
    int64_t n = sh.nelim, h = -1, opt = -3;
    int64_t *fma = malloc(sizeof(int64_t) * (size_t)(2 * n + 2)), *lb = fma + n + 1;
    int64_t *sel = malloc(sizeof(int64_t) * (size_t)(n + 1)), *ord = malloc(sizeof(int64_t) * (size_t)(n + 1));
    jg_pwork_t w;
    jg_fbound_t *fb = jg__fbound_new(&sh, &pg);
    if (fb && fma && sel && ord && !jg__pwork_init(&w, &sh)) {
        if (!jg__pg_costs(&sh, &pg, fma, lb, &w) && !jg__fbound(fb, &sh, &pg, fma, lb, &h)) {
            for (int64_t k = 0; k < n; k++) sel[k] = k;
            opt = jg__exact_dp_subset(&sh, &pg, sel, (int)n, ord);
            /* a forced vertex: free now, and the optimum of the rest after
             * it is the optimum */
            int64_t *deg = malloc(sizeof(int64_t) * (size_t)(4 * n + 1));
            int64_t f = deg ? jg__exact_forced(&sh, &pg, NULL, deg) : -1;
            jg_pg_t pg2 = {0};
            if (f >= 0 && opt >= 0 && !jg__pg_copy(&pg2, &pg) &&
                !jg__pg_eliminate(&sh, &pg2, sh.elim[f], NULL, 0, &w)) {
                int64_t m = 0;
                for (int64_t k = 0; k < n; k++)
                    if (k != f) sel[m++] = k;
                int64_t opt2 = jg__exact_dp_subset(&sh, &pg2, sel, (int)m, ord);
                bs->forced++;
                bs->forced_ok += fma[f] == 0 && opt2 == opt;
                if (!(fma[f] == 0 && opt2 == opt))
                    printf("#   forced vertex %" PRId64 ": %" PRId64 " FMA now, optimum after it %" PRId64
                           " against %" PRId64 "\n", sh.elim[f], fma[f], opt2, opt);
            }
            jg__pg_free(&pg2);
            free(deg);
        }
        jg__pwork_free(&w);
    }
    if (opt >= 0 && h >= 0) {
        bs->cases++;
        bs->below += h <= opt;
        bs->positive += h > 0;
        bs->tight += h == opt;
        if (opt > 0) bs->ratio += (double)h / (double)opt;
        if (h > opt) printf("#   bound %" PRId64 " above the optimum %" PRId64 " (%" PRId64 " vertices left)\n", h, opt, n);
    }
    jg__fbound_free(fb);
    free(fma);
    free(sel);
    free(ord);
    jg__pshape_free(&sh);
    jg__pg_free(&pg);
    jg_graph_free(g);
}

static void bound_sound(int vectors, int want)
{
    bstat_t bs = {0};
    int graphs = 0;
    uint64_t rs = 12345 + (uint64_t)vectors;
    for (uint64_t seed = 1; seed < 600 && graphs < want; seed++) {
        char *json = random_model(seed, 6 + (int)(seed % 14), vectors);
        gx_t x;
        if (json && !gx_load(&x, json)) {
            int64_t n = n_eliminable(x.g);
            if (n >= 3 && n <= 14) {
                graphs++;
                for (int p = 0; p < 4; p++) bound_case(&x, &rs, (int)(p * n / 4), &bs);
            }
        }
        if (json) gx_unload(&x);
        free(json);
    }
    tap_ok(graphs == want && bs.cases >= 3 * want && bs.below == bs.cases,
           "%s diagrams: the FMA bound <= the optimum of the rest in %d of %d states (%d graphs)",
           vectors ? "vector" : "scalar", bs.below, bs.cases, graphs);
    printf("#   bound > 0 in %d states, equal to the optimum in %d, bound/optimum %.2f on average\n",
           bs.positive, bs.tight, bs.ratio / (bs.cases ? bs.cases : 1));
    tap_ok(bs.positive > bs.cases / 3, "the bound is not 0 in many states (%d of %d)", bs.positive, bs.cases);
    tap_ok(bs.forced >= bs.cases / 4 && bs.forced_ok == bs.forced,
           "a forced vertex (dead or absorbed) costs nothing and keeps the optimum (%d of %d states)", bs.forced_ok,
           bs.forced);
}

/* ------------------------------------- branch and bound = dynamic program */

/* The searches themselves (exact:bb and exact:nnz:bb first try the forced
 * moves and the dynamic program, which settle these small diagrams). */
static jg_status_t search(gx_t *x, int nnz, double secs, jg_exact_result_t *r)
{
    jg_pshape_t sh;
    jg_pg_t pg;
    jg_error_t err;
    memset(r, 0, sizeof *r);
    jg_status_t st = jg__pg_from_graph(x->g, &sh, &pg, &err);
    if (st) return st;
    st = nnz ? jg__exact_nnz_bb(x->g, &sh, &pg, secs, r, &err) : jg__exact_fma_bb(x->g, &sh, &pg, secs, r, &err);
    jg__pshape_free(&sh);
    jg__pg_free(&pg);
    return st;
}

static void bb_vs_dp(int vectors, int want)
{
    int got = 0, fma_ok = 0, nnz_ok = 0, cut_ok = 0, sfma_ok = 0, snnz_ok = 0, scut_ok = 0;
    for (uint64_t seed = 1; seed < 600 && got < want; seed++) {
        char *json = random_model(seed, 8 + (int)(seed % 20), vectors);
        gx_t x;
        int64_t n = -1;
        if (json && !gx_load(&x, json)) n = n_eliminable(x.g);
        if (n >= 6 && n <= 18) {
            jg_graph_cost_t d, b, dn, bn, cb, cbn;
            jg_error_t err;
            got++;
            int ok = !gx_run(&x, "exact", 0, &d, &err) && !gx_run(&x, "exact:bb", 60, &b, &err);
            fma_ok += ok && b.optimal && b.fma == d.fma && b.bound == (double)d.fma;
            if (!(ok && b.optimal && b.fma == d.fma))
                printf("#   seed %" PRIu64 ": exact %" PRId64 ", exact:bb %" PRId64 " (optimal %d)\n", seed, d.fma,
                       b.fma, b.optimal);
            ok = !gx_run(&x, "exact:nnz", 0, &dn, &err) && !gx_run(&x, "exact:nnz:bb", 60, &bn, &err);
            /* the same fewest nonzeros; the FMA of the set found no less than
             * the least over all sets of those nonzeros */
            nnz_ok += ok && bn.optimal && bn.nnz_after == dn.nnz_after && bn.bound == (double)dn.nnz_after &&
                      bn.fma >= dn.fma;
            if (!(ok && bn.optimal && bn.nnz_after == dn.nnz_after))
                printf("#   seed %" PRIu64 ": exact:nnz %" PRId64 ", exact:nnz:bb %" PRId64 " (optimal %d)\n", seed,
                       dn.nnz_after, bn.nnz_after, bn.optimal);
            /* cut short: bounds still below the optima */
            ok = !gx_run(&x, "exact:bb", 1e-6, &cb, &err) && !gx_run(&x, "exact:nnz:bb", 1e-6, &cbn, &err);
            cut_ok += ok && cb.bound <= (double)d.fma && cb.fma >= d.fma && cbn.bound <= (double)dn.nnz_after &&
                      cbn.nnz_after >= dn.nnz_after;
            printf("#   seed %" PRIu64 ", %" PRId64 " vertices: fma %" PRId64 " (cut: bound %.0f), nnz %" PRId64
                   " (cut: bound %.0f)\n", seed, n, d.fma, cb.bound, dn.nnz_after, cbn.bound);
            /* the searches alone: the same optima, proven; cut at once,
             * bounds below them */
            jg_exact_result_t r;
            if (!search(&x, 0, 60, &r))
                sfma_ok += r.optimal && r.value == d.fma && r.lower == d.fma && r.n == d.eliminated;
            else
                printf("#   seed %" PRIu64 ": the FMA search failed\n", seed);
            free(r.order);
            if (!search(&x, 1, 60, &r)) snnz_ok += r.optimal && r.value == dn.nnz_after && r.lower == r.value;
            free(r.order);
            int c1 = !search(&x, 0, 1e-6, &r) && r.lower <= d.fma && r.value >= d.fma;
            free(r.order);
            int c2 = !search(&x, 1, 1e-6, &r) && r.lower <= dn.nnz_after && r.value >= dn.nnz_after;
            free(r.order);
            scut_ok += c1 && c2;
        }
        if (json) gx_unload(&x);
        free(json);
    }
    const char *kind = vectors ? "vector" : "scalar";
    tap_ok(got == want && fma_ok == got, "%s: exact:bb = exact on %d of %d diagrams of 6-18 vertices", kind, fma_ok, got);
    tap_ok(got == want && nnz_ok == got, "%s: exact:nnz:bb = exact:nnz on %d of %d diagrams", kind, nnz_ok, got);
    tap_ok(got == want && cut_ok == got, "%s: cut at once, both bounds stay below the optima (%d of %d)", kind,
           cut_ok, got);
    tap_ok(got == want && sfma_ok == got, "%s: the A* search alone finds and proves exact's optimum (%d of %d)", kind,
           sfma_ok, got);
    tap_ok(got == want && snnz_ok == got, "%s: the depth-first search alone finds and proves exact:nnz's (%d of %d)",
           kind, snnz_ok, got);
    tap_ok(got == want && scut_ok == got, "%s: the searches cut at once: bounds below the optima (%d of %d)", kind,
           scut_ok, got);
}

/* ------------------------------------------------ the shipped models */

static double cpu(void) { return (double)clock() / CLOCKS_PER_SEC; }

static void shipped(void)
{
    static const char *const big[] = {"f14", "foucault", "hierarchy", "pipe", "vdp", "watertank"};
    for (int k = 0; k < 6; k++) {
        char path[64];
        snprintf(path, sizeof path, "graphs/%s.json", big[k]);
        char *json = tl_slurp(path, NULL);
        gx_t x;
        if (!json || gx_load(&x, json)) {
            tap_ok(0, "%s loads", path);
            free(json);
            continue;
        }
        jg_graph_cost_t c, cn, cm;
        jg_error_t err;
        double t0 = cpu();
        jg_status_t st = gx_run(&x, "exact:bb", 0.5, &c, &err);
        double t1 = cpu();
        jg_status_t st2 = gx_run(&x, "exact:nnz:bb", 0.5, &cn, &err);
        double t2 = cpu();
        jg_status_t st3 = gx_run(&x, "markowitz-nnz", 0, &cm, &err);
        tap_ok(!st && c.t_elim < 1.5 && t1 - t0 < 3 && c.bound > 0 && c.bound <= (double)c.fma &&
                   c.eliminated == n_eliminable(x.g),
               "%s: exact:bb within 0.5 s (%.2f s): %" PRId64 " FMA, bound %.0f", big[k], c.t_elim, c.fma, c.bound);
        tap_ok(!st2 && !st3 && cn.t_elim < 1.5 && t2 - t1 < 3 && cn.bound > 0 && cn.bound <= (double)cn.nnz_after &&
                   cn.nnz_after <= cm.nnz_after,
               "%s: exact:nnz:bb within 0.5 s (%.2f s): %" PRId64 " nnz (markowitz-nnz %" PRId64 "), bound %.0f, "
               "optimal %d", big[k], cn.t_elim, cn.nnz_after, cm.nnz_after, cn.bound, cn.optimal);
        gx_unload(&x);
        free(json);
    }
    /* the forced moves leave at most 20 vertices (or groups of at most 20):
     * both optima proven at once, and the search alone proves the same FMA
     * (more slowly) */
    static const char *const small[] = {"vdp", "hierarchy", "watertank", "foucault"};
    static const int64_t nnz_opt[] = {5, 29, 4, 8}, fma_opt[] = {10, 50, 15, 14};
    for (int k = 0; k < 4; k++) {
        char path[64];
        snprintf(path, sizeof path, "graphs/%s.json", small[k]);
        char *json = tl_slurp(path, NULL);
        gx_t x;
        jg_graph_cost_t c, cf;
        jg_error_t err;
        int ok = json && !gx_load(&x, json);
        int okn = ok && !gx_run(&x, "exact:nnz:bb", 60, &c, &err);
        tap_ok(okn && c.optimal && c.nnz_after == nnz_opt[k] && c.bound == (double)c.nnz_after && c.t_elim < 1,
               "%s: exact:nnz:bb proves %" PRId64 " nonzeros optimal (%.3f s)", small[k], nnz_opt[k], okn ? c.t_elim : 0);
        int okf = ok && !gx_run(&x, "exact:bb", 60, &cf, &err);
        tap_ok(okf && cf.optimal && cf.fma == fma_opt[k] && cf.bound == (double)cf.fma && cf.t_elim < 1,
               "%s: exact:bb proves %" PRId64 " FMA optimal (%.3f s)", small[k], fma_opt[k], okf ? cf.t_elim : 0);
        jg_exact_result_t r = {0};
        if (ok && k < 2) {
            int oks = !search(&x, 0, 60, &r);
            tap_ok(oks && r.optimal && r.value == fma_opt[k], "%s: the A* search alone proves it too", small[k]);
        }
        free(r.order);
        if (ok) gx_unload(&x);
        free(json);
    }
}

/* Bad spellings are refused naming the argument and the good ones. */
static void bad_specs(void)
{
    static const char *const bad[] = {"exact:nnz:fast", "exact:bb:nnz", "exact:nnz,bb", "exact:nnz:bb:"};
    char *json = tl_slurp("graphs/vdp.json", NULL);
    for (int k = 0; k < 4; k++) {
        gx_t x;
        jg_graph_cost_t c;
        jg_error_t err;
        jg_status_t st = JG_OK;
        if (json && !gx_load(&x, json)) {
            st = gx_run(&x, bad[k], 0.1, &c, &err);
            gx_unload(&x);
        }
        const char *arg = strchr(bad[k], ':') + 1;
        tap_ok(st == JG_ARG && (!*arg || strstr(err.msg, arg)) && strstr(err.msg, "exact:nnz:bb"),
               "'%s' refused: %s", bad[k], st ? err.msg : "(accepted)");
    }
    /* beyond the dynamic program, exact:nnz names its branch and bound */
    gx_t x;
    jg_graph_cost_t c;
    jg_error_t err;
    jg_status_t st = JG_OK;
    if (json && !gx_load(&x, json)) {
        st = gx_run(&x, "exact:nnz", 0, &c, &err);
        gx_unload(&x);
    }
    tap_ok(st == JG_ARG && strstr(err.msg, "21 eliminable") && strstr(err.msg, "exact:nnz:bb"),
           "exact:nnz on 21 vertices refused, naming exact:nnz:bb: %s", st ? err.msg : "(accepted)");
    free(json);
}

int main(void)
{
    bound_sound(0, 40);
    bound_sound(1, 30);
    bb_vs_dp(0, 16);
    bb_vs_dp(1, 10);
    shipped();
    char *f14 = tl_slurp("graphs/f14.json", NULL);
    if (f14) fx_matrix_agrees("f14", f14, "exact:nnz:bb", 0.5);
    free(f14);
    char *wt = tl_slurp("graphs/watertank.json", NULL);
    if (wt) fx_matrix_agrees("watertank", wt, "exact:nnz:bb", 0.5);
    free(wt);
    bad_specs();
    return tap_done();
}
