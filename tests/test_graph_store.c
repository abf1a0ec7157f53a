/* test_graph_store.c -- the Jacobian graph's storage (lib/graph/graph.c):
 * interned edge patterns and recycled adjacency arrays.  On generated models
 * of every kind and the shipped f14, after eliminations by several
 * strategies:
 *  - every matrix's pattern is the one interned copy of its contents
 *    (jg__gmat_pattern finds the same pointer; i follows p), so equal
 *    patterns are shared and the elimination's memo of products is sound;
 *  - the adjacency lists are consistent (every live edge once in its
 *    source's out list and its destination's in list, nothing else), their
 *    capacities powers of two, and no two live lists share memory (a
 *    recycled array handed out twice would);
 *  - the same after every single elimination of a structural one in a
 *    scrambled order (lists grow, shrink and are recycled all along);
 *  - the linearization equals, bit for bit, the one of a graph built and
 *    eliminated again in a fresh linearizer (recycling leaves no trace). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/jacgraph.h"
#include "jacgraph/gen.h"
#include "testlib.h"
#include "graph/strategy_impl.h"   /* private: structural eliminations one at a time */

typedef struct {
    const int32_t *lo, *hi;
} span_t;

static int cmp_span(const void *a, const void *b)
{
    const span_t *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The storage invariants of g; a message in why when one fails. */
static int check_store(jg_graph_t *g, char *why, size_t n)
{
    for (int64_t k = 0; k < g->nmat; k++) {
        const jg_gmat_t *a = &g->mat[k];
        if (jg__gmat_pattern(g, a->m, a->n, a->p, jg__gmat_i(a)) != a->p) {
            snprintf(why, n, "matrix %lld (%lld x %lld): its pattern is not the interned copy",
                     (long long)k, (long long)a->m, (long long)a->n);
            return 0;
        }
    }
    span_t *sp = malloc(sizeof *sp * (size_t)(2 * g->nv + 1));
    int64_t ns = 0, *cnt = calloc((size_t)g->ne + 1, sizeof *cnt);
    int ok = sp && cnt;
    for (int64_t v = 0; ok && v < g->nv; v++) {
        const jg_gvert_t *V = &g->v[v];
        if (V->elig != jg__gvert_eligible(g, V)) {   /* the build sets it per vertex kind */
            snprintf(why, n, "vertex %lld: elig %d, eligible %d", (long long)v, V->elig,
                     jg__gvert_eligible(g, V));
            ok = 0;
            break;
        }
        if (!V->alive) {
            ok = V->nin == 0 && V->nout == 0 && !V->in && !V->out;
            if (!ok) snprintf(why, n, "eliminated vertex %lld keeps its lists", (long long)v);
            continue;
        }
        for (int d = 0; ok && d < 2; d++) {
            int32_t nn = d ? V->nout : V->nin, cap = jg__gvert_cap(d ? V->lgout : V->lgin);
            const int32_t *a = d ? V->out : V->in;
            if (nn > cap || (cap && (cap & (cap - 1))) || (cap && !a)) {
                snprintf(why, n, "vertex %lld: %d ids in room for %d", (long long)v, nn, cap);
                ok = 0;
                break;
            }
            if (cap) sp[ns++] = (span_t){a, a + cap};
            for (int32_t k = 0; k < nn; k++) {
                const jg_gedge_t *E = &g->e[a[k]];
                if (!E->alive || (d ? E->src : E->dst) != v || E->src == E->dst) {
                    snprintf(why, n, "vertex %lld lists edge %lld, not its own live edge", (long long)v,
                             (long long)a[k]);
                    ok = 0;
                    break;
                }
                cnt[a[k]]++;
            }
        }
    }
    for (int64_t e = 0; ok && e < g->ne; e++) {
        const jg_gedge_t *E = &g->e[e];
        int64_t want = E->alive && E->src != E->dst ? 2 : 0;
        if (cnt[e] != want) {
            snprintf(why, n, "edge %lld is listed %lld times, not %lld", (long long)e, (long long)cnt[e],
                     (long long)want);
            ok = 0;
        }
    }
    if (ok) {
        qsort(sp, (size_t)ns, sizeof *sp, cmp_span);
        for (int64_t k = 1; ok && k < ns; k++)
            if (sp[k].lo < sp[k - 1].hi) {
                snprintf(why, n, "two live adjacency lists share memory");
                ok = 0;
            }
    }
    if (!sp || !cnt) snprintf(why, n, "out of memory");
    free(sp);
    free(cnt);
    return ok;
}

/* A, B, C, D of two systems equal bit for bit. */
static int same_sys(const jg_lin_sys_t *a, const jg_lin_sys_t *b)
{
    const cs_dl *x[4] = {a->A, a->B, a->C, a->D}, *y[4] = {b->A, b->B, b->C, b->D};
    for (int k = 0; k < 4; k++) {
        if (x[k]->m != y[k]->m || x[k]->n != y[k]->n) return 0;
        int64_t nz = x[k]->p[x[k]->n];
        if (nz != y[k]->p[y[k]->n] ||
            memcmp(x[k]->p, y[k]->p, sizeof(int64_t) * (size_t)(x[k]->n + 1)) ||
            memcmp(x[k]->i, y[k]->i, sizeof(int64_t) * (size_t)nz) ||
            (nz && memcmp(x[k]->x, y[k]->x, sizeof(double) * (size_t)nz)))
            return 0;
    }
    return 1;
}

/* Eliminate g's eliminable vertices one at a time (structurally, in a
 * scrambled order), the invariants checked after each. */
static void check_steps(const char *name, const jg_graph_t *g0)
{
    jg_graph_t *g = NULL;
    jg_error_t err;
    char why[256] = "";
    jg_error_clear(&err);
    int64_t steps = 0;
    int ok = !jg__graph_scratch(g0, &g, &err);
    if (!ok) snprintf(why, sizeof why, "%.200s", err.msg);
    for (int64_t round = 0; ok && round < 8; round++) {
        int64_t nv = g->nv, stride = 7919 % nv ? 7919 : 7927;
        for (int64_t k = 0; ok && k < nv; k++) {
            int64_t v = (k * stride + round) % nv;
            if (!jg__strat_eliminable(g, v) || jg__elim_pivot_ok(g, v) != 1) continue;
            if (jg__graph_eliminate_one(g, v, NULL, &err)) {
                snprintf(why, sizeof why, "%.200s", err.msg);
                ok = 0;
            } else {
                steps++;
                ok = check_store(g, why, sizeof why);
            }
        }
    }
    tap_ok(ok && steps > 0, "%s: the storage after each of %lld structural eliminations%s%s", name,
           (long long)steps, why[0] ? ": " : "", why);
    jg_graph_free(g);
}

static void check_model(const char *name, const char *json)
{
    static const char *const specs[] = {"markowitz", "lm", "full", "minfill", "none"};
    for (size_t s = 0; s < sizeof specs / sizeof *specs; s++) {
        fx_t f, f2;
        jg_graph_strategy_t *st = NULL;
        const jg_graph_t *g = NULL;
        jg_lin_sys_t *a = NULL, *b = NULL;
        char why[256] = "";
        jg_status_t rc = fx_load(&f, json, NULL);
        if (!rc) rc = jg_graph_strategy_parse(specs[s], &st, &f.err);
        if (!rc) rc = jg_lin_graph_strategy(f.l, st, &g, &f.err);
        int ok = !rc && check_store((jg_graph_t *)g, why, sizeof why);
        if (!rc && s == 0) check_steps(name, g);
        if (!rc && ok) {
            /* a second run replays the tape over the same storage; a fresh
             * linearizer builds and eliminates again */
            rc = jg_lin_run_strategy(f.l, st, &a, NULL, &f.err);
            if (!rc) rc = fx_load(&f2, json, NULL);
            if (!rc) rc = jg_lin_run_strategy(f2.l, st, &b, NULL, &f2.err);
            ok = !rc && same_sys(a, b);
            if (!ok && !rc) snprintf(why, sizeof why, "the two linearizations differ");
            fx_unload(&f2);
        }
        tap_ok(ok, "%s, %s: patterns interned, adjacency lists consistent and disjoint%s%s", name,
               specs[s], rc ? ": " : why[0] ? ": " : "", rc ? f.err.msg : why);
        jg_lin_sys_free(a);
        jg_lin_sys_free(b);
        jg_graph_strategy_free(st);
        fx_unload(&f);
    }
}

int main(void)
{
    static const jg_gen_kind_t kinds[] = {JG_GEN_AEROSPACE, JG_GEN_POWER, JG_GEN_DEEP};
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
        jg_gen_opts_t o;
        jg_gen_opts_default(&o, kinds[k], 1500, 3);
        char *json = NULL;
        jg_error_t err;
        jg_error_clear(&err);
        if (jg_gen_model(&o, &json, NULL, NULL, &err)) {
            tap_ok(0, "generate %s: %s", jg_gen_kind_name(kinds[k]), err.msg);
            continue;
        }
        char name[64];
        snprintf(name, sizeof name, "%s (1500 blocks)", jg_gen_kind_name(kinds[k]));
        check_model(name, json);
        free(json);
    }
    char *f14 = NULL;
    size_t len = 0;
    FILE *fp = fopen("graphs/f14.json", "rb");
    if (fp) {
        f14 = malloc(1 << 20);
        len = f14 ? fread(f14, 1, (1 << 20) - 1, fp) : 0;
        fclose(fp);
    }
    if (f14 && len) {
        f14[len] = '\0';
        check_model("f14", f14);
    } else {
        tap_ok(0, "graphs/f14.json readable");
    }
    free(f14);
    return tap_done();
}
