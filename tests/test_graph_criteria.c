/* test_graph_criteria.c -- the greedy criteria whose keys depend on more
 * than a vertex's own edges (minfill, lmmd, momr and chains of them): the
 * engine refreshes only the keys an elimination can change (strategy.c), so
 * its order is held to a naive reference that computes every eliminable
 * vertex's key again before every step and takes the lowest (ties by the
 * next criterion, then vertex id).  A key left stale by the engine makes the
 * two orders differ.  Models: the shipped ones (f14 has new edges between
 * two kept vertices, the case a refresh through eliminable neighbors alone
 * misses), generated aerospace, power and deep models, and random diagrams
 * with vectors and algebraic loops.  Structural eliminations (no values),
 * so no pivot is refused for being ill-conditioned. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/jacgraph.h"
#include "graph/strategy_impl.h"   /* private: the criteria's key callbacks, one-vertex eliminations */
#include "testlib.h"

typedef struct {
    const char *spec;
    const jg_strategy_def_t *def[3];
    int n;
} chain_t;

static const chain_t chains[] = {
    {"minfill", {&jg__strat_minfill}, 1},
    {"lmmd", {&jg__strat_lmmd}, 1},
    {"momr", {&jg__strat_momr}, 1},
    {"minfill>lmmd", {&jg__strat_minfill, &jg__strat_lmmd}, 2},
    {"momr>minfill>lm", {&jg__strat_momr, &jg__strat_minfill, &jg__strat_lm}, 3},
};
#define NCHAINS ((int)(sizeof chains / sizeof chains[0]))

/* The engine's order of spec on a fresh graph of (p, io), malloc'd into *ord. */
static jg_status_t engine_order(const jg_program_t *p, const jg_iospec_t *io, const char *spec, int64_t **ord,
                                int64_t *n, jg_error_t *err)
{
    jg_graph_strategy_t *s = NULL;
    jg_graph_t *g = NULL;
    *ord = NULL;
    *n = 0;
    jg_status_t st = jg_graph_strategy_parse(spec, &s, err);
    if (!st) st = jg__graph_build(p, io, &g, err);
    if (!st) st = jg__graph_eliminate_strategy(g, s, NULL, err);
    if (!st) {
        const int64_t *o;
        *n = jg_graph_order(g, &o);
        *ord = malloc(sizeof(int64_t) * (size_t)(*n + 1));
        if (!*ord) st = jg_error_set(err, JG_NOMEM, "out of memory");
        else if (*n) memcpy(*ord, o, sizeof(int64_t) * (size_t)*n);
    }
    jg_graph_free(g);
    jg_graph_strategy_free(s);
    return st;
}

/* The naive greedy: every key computed again before every step.  Returns
 * JG_ARG when a vertex's pivot is refused (the model is not used then). */
static jg_status_t naive_order(const jg_program_t *p, const jg_iospec_t *io, const chain_t *c, int64_t **ord,
                               int64_t *n, jg_error_t *err)
{
    jg_graph_t *g = NULL;
    void *states[3] = {0};
    int ninit = 0;
    *ord = NULL;
    *n = 0;
    jg_status_t st = jg__graph_build(p, io, &g, err);
    if (st) return st;
    jg_strat_run_t r = {.g = g, .args = "", .cost = &g->cost};
    int64_t nv = jg_graph_nvertices(g);
    if (!(*ord = malloc(sizeof(int64_t) * (size_t)(nv + 1)))) {
        st = jg_error_set(err, JG_NOMEM, "out of memory");
        goto done;
    }
    for (; ninit < c->n; ninit++)
        if (c->def[ninit]->init && (st = c->def[ninit]->init(&r, &states[ninit], err))) goto done;
    for (;;) {
        int64_t best = -1;
        double bk[3] = {0, 0, 0}, k[3] = {0, 0, 0};
        for (int64_t v = 0; v < nv; v++) {
            if (!jg__strat_eliminable(g, v)) continue;
            for (int q = 0; q < c->n; q++)
                if ((st = c->def[q]->key(&r, states[q], v, &k[q]))) goto done;
            int less = best < 0;
            for (int q = 0; q < c->n && best >= 0; q++)
                if (k[q] != bk[q]) {
                    less = k[q] < bk[q];
                    break;
                }
            if (less) {   /* equal tuples: the lower id, seen first, stays */
                best = v;
                memcpy(bk, k, sizeof bk);
            }
        }
        if (best < 0) break;
        if ((st = jg__graph_eliminate_one(g, best, NULL, err))) goto done;
        (*ord)[(*n)++] = best;
    }
done:
    for (int q = 0; q < ninit; q++)
        if (c->def[q]->fini) c->def[q]->fini(states[q]);
    jg_graph_free(g);
    return st;
}

typedef struct {
    int models, runs, bad, skipped;
} tally_t;

/* Every chain on the program of json (or of the file path): engine against
 * naive.  A failure prints the first step where the orders part. */
static void check_model(const char *label, const char *json, const char *path, tally_t *t)
{
    jg_model_t *m = NULL;
    jg_program_t *p = NULL;
    jg_iospec_t *io = NULL;
    jg_error_t err;
    jg_error_clear(&err);
    jg_status_t st = json ? jg_model_parse(json, label, &m, &err) : jg_model_read(path, &m, &err);
    if (!st) st = jg_program_compile(m, &p, &err);
    if (!st) st = jg__iospec_create(p, 0, NULL, 0, NULL, 0, NULL, 1, &io, &err);
    if (st) {
        if (!path) tap_ok(0, "%s loads: %s", label, err.msg);   /* a shipped one may need a plugin */
        t->skipped += path != NULL;
        goto done;
    }
    t->models++;
    for (int k = 0; k < NCHAINS; k++) {
        int64_t *a = NULL, *b = NULL, na = 0, nb = 0;
        jg_status_t sa = engine_order(p, io, chains[k].spec, &a, &na, &err);
        jg_status_t sb = sa ? sa : naive_order(p, io, &chains[k], &b, &nb, &err);
        if (sb == JG_ARG) {
            t->skipped++;
        } else if (sa || sb) {
            tap_ok(0, "%s, %s: %s", label, chains[k].spec, err.msg);
            t->bad++;
        } else {
            int64_t d = 0;
            while (d < na && d < nb && a[d] == b[d]) d++;
            t->runs++;
            if (d < na || d < nb) {
                tap_ok(0, "%s, %s: the engine's order equals the naive greedy's", label, chains[k].spec);
                printf("#   they part at step %lld of %lld/%lld: engine %lld, naive %lld\n", (long long)d,
                       (long long)na, (long long)nb, d < na ? (long long)a[d] : -1LL,
                       d < nb ? (long long)b[d] : -1LL);
                t->bad++;
            }
        }
        free(a);
        free(b);
    }
done:
    jg__iospec_free(io);
    jg_program_free(p);
    jg_model_free(m);
}

static void shipped(void)
{
    tally_t t = {0};
    DIR *d = opendir("graphs");
    struct dirent *de;
    int f14 = 0;
    while (d && (de = readdir(d))) {
        size_t len = strlen(de->d_name);
        if (len < 6 || strcmp(de->d_name + len - 5, ".json")) continue;
        char path[512];
        snprintf(path, sizeof path, "graphs/%s", de->d_name);
        int before = t.models;
        check_model(path, NULL, path, &t);
        f14 |= !strcmp(de->d_name, "f14.json") && t.models > before;
    }
    if (d) closedir(d);
    tap_ok(t.bad == 0 && t.models >= 10 && f14,
           "shipped models: %d, f14 among them: %s; %d runs, engine = naive greedy in all (%d not applicable)",
           t.models, f14 ? "yes" : "no", t.runs, t.skipped);
}

static void generated(void)
{
    static const jg_gen_kind_t kinds[] = {JG_GEN_AEROSPACE, JG_GEN_POWER, JG_GEN_DEEP};
    tally_t t = {0};
    for (int k = 0; k < 3; k++)
        for (uint64_t seed = 1; seed <= 3; seed++) {
            jg_gen_opts_t o;
            char *json = NULL, label[64];
            jg_error_t err;
            jg_gen_opts_default(&o, kinds[k], 150 + 150 * (int64_t)seed, seed);
            snprintf(label, sizeof label, "%s %lld blocks, seed %llu", jg_gen_kind_name(kinds[k]),
                     (long long)o.size, (unsigned long long)seed);
            if (jg_gen_model(&o, &json, NULL, NULL, &err)) {
                tap_ok(0, "%s: %s", label, err.msg);
                continue;
            }
            check_model(label, json, NULL, &t);
            free(json);
        }
    tap_ok(t.bad == 0 && t.models == 9, "generated models: %d, %d runs, engine = naive greedy in all (%d not applicable)",
           t.models, t.runs, t.skipped);
}

static void random_diagrams(int nseeds)
{
    tally_t t = {0};
    for (int seed = 1; seed <= nseeds; seed++) {
        jg_gen_random_opts_t o;
        jg_gen_random_defaults(&o, (uint64_t)seed + 900, 10 + (seed * 37) % 80);
        o.vectors = seed % 2 == 0;
        o.loops = seed % 3 != 2;
        o.max_depth = seed % 3;
        char *text = fx_gen_text(&o, NULL), label[64];
        snprintf(label, sizeof label, "random diagram %d (%d blocks)", seed + 900, o.nblocks);
        check_model(label, text, NULL, &t);
        free(text);
    }
    tap_ok(t.bad == 0 && t.models == nseeds,
           "random diagrams: %d, %d runs, engine = naive greedy in all (%d not applicable)", t.models, t.runs,
           t.skipped);
}

int main(int argc, char **argv)
{
    int nseeds = argc > 1 ? atoi(argv[1]) : 40;
    shipped();
    generated();
    random_diagrams(nseeds > 0 ? nseeds : 40);
    return tap_done();
}
