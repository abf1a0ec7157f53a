/* test_graph_strategies.c -- elimination strategies (jacgraph/graph.h): the
 * registry and the spec grammar (chains of criteria, bad names listing the
 * known ones), every strategy's A, B, C, D against the matrix method on the
 * shipped models and random diagrams, the pivot guard kept under every
 * strategy, and order files (a computed order replayed; bad lines refused
 * naming the line). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "jacgraph/jacgraph.h"
#include "testlib.h"

#define TOL 1e-10

static void registry(void)
{
    int n = jg_graph_strategy_count(), parsed = 0, unique = 1, crit = 0;
    for (int k = 0; k < n; k++) {
        const char *name = jg_graph_strategy_name(k);
        jg_graph_strategy_t *s = NULL;
        jg_error_t err;
        /* a strategy that needs arguments (order:FILE) still parses bare */
        if (!jg_graph_strategy_parse(name, &s, &err) && !strcmp(jg_graph_strategy_spec(s), name)) parsed++;
        jg_graph_strategy_free(s);
        for (int j = 0; j < k; j++) unique &= strcmp(name, jg_graph_strategy_name(j)) != 0;
        crit += jg_graph_strategy_is_criterion(k);
        if (!jg_graph_strategy_help(k) || !jg_graph_strategy_help(k)[0]) unique = 0;
    }
    tap_ok(n >= 13 && parsed == n && unique, "%d registered strategies, each parses back, names unique, help given", n);
    tap_ok(crit >= 8, "%d of them are criteria (chainable)", crit);
    tap_ok(jg_graph_strategy_name(n) == NULL && jg_graph_strategy_name(-1) == NULL, "out-of-range index: NULL");
    static const char *const must[] = {"none", "markowitz", "full", "markowitz-nnz", "forward", "reverse",
                                       "lm", "lrm", "minfill", "mincost", "lmmd", "momr", "order"};
    int all = 1;
    for (size_t k = 0; k < sizeof must / sizeof *must; k++) {
        int found = 0;
        for (int j = 0; j < n; j++) found |= !strcmp(must[k], jg_graph_strategy_name(j));
        if (!found) printf("# missing %s\n", must[k]);
        all &= found;
    }
    tap_ok(all, "the issue's strategies are registered");
    for (int r = 0; r < 3; r++) {
        jg_graph_strategy_t *s = jg_graph_strategy_from_reduce((jg_graph_reduce_t)r);
        tap_ok(s && !strcmp(jg_graph_strategy_spec(s), jg_graph_reduce_name((jg_graph_reduce_t)r)),
               "reduction %s is strategy '%s'", jg_graph_reduce_name((jg_graph_reduce_t)r),
               s ? jg_graph_strategy_spec(s) : "?");
        jg_graph_strategy_free(s);
    }
}

/* spec must be refused with JG_ARG and a message holding every needle. */
static void refused(const char *spec, const char *n1, const char *n2, const char *why)
{
    jg_graph_strategy_t *s = NULL;
    jg_error_t err;
    jg_error_clear(&err);
    jg_status_t st = jg_graph_strategy_parse(spec, &s, &err);
    int ok = st == JG_ARG && !s && (!n1 || strstr(err.msg, n1)) && (!n2 || strstr(err.msg, n2));
    if (!tap_ok(ok, "'%s' refused: %s", spec, why)) printf("#   status %d, message: %s\n", st, err.msg);
    jg_graph_strategy_free(s);
}

static void grammar(void)
{
    static const char *const good[] = {"momr>lm>reverse", "lm>reverse", "minfill>mincost>lm>forward",
                                       "lmmd>reverse", "order:some>file"};
    for (size_t k = 0; k < sizeof good / sizeof *good; k++) {
        jg_graph_strategy_t *s = NULL;
        jg_error_t err;
        jg_status_t st = jg_graph_strategy_parse(good[k], &s, &err);
        tap_ok(!st && s && !strcmp(jg_graph_strategy_spec(s), good[k]), "'%s' parses", good[k]);
        jg_graph_strategy_free(s);
    }
    refused("bogus", "unknown strategy 'bogus'", "known: none, markowitz", "unknown, the known ones listed");
    refused("lm>bogus", "unknown strategy 'bogus'", "minfill", "unknown in a chain");
    refused("", "empty", "lm", "empty");
    refused("lm>markowitz", "'markowitz' cannot break ties", "criteria", "a rule is no tie-break");
    refused("markowitz>lm", "not a criterion", "criteria: ", "a rule cannot start a chain");
    refused("lm:3", "takes no arguments", NULL, "a criterion takes no arguments");
    refused("exact:", "nothing after ':'", "exact:nnz|bb|nnz:bb", "an empty argument list is refused");
    refused("order:", "nothing after ':'", "order:FILE", "order without its file is refused");
    refused("lm>minfill>mincost>momr>lmmd", "at most 4", NULL, "chains are at most 4 long");
    refused("lm>", "unknown strategy ''", NULL, "a dangling '>'");
    refused("lm>reverse>lm", "'lm' twice", NULL, "a criterion repeated breaks no ties");
}

/* ---------------------------------------------------------------- results */

/* The specs run on every model: each registered strategy (order: not
 * without a file) and some chains. */
static int specs(const char **out, int cap)
{
    int n = 0;
    for (int k = 0; k < jg_graph_strategy_count() && n < cap; k++)
        if (strcmp(jg_graph_strategy_name(k), "order")) out[n++] = jg_graph_strategy_name(k);
    static const char *const chains[] = {"momr>lm>reverse", "lm>reverse", "lmmd>forward", "minfill>mincost"};
    for (size_t k = 0; k < sizeof chains / sizeof *chains && n < cap; k++) out[n++] = chains[k];
    return n;
}

/* Every spec on p against the matrix method.  Returns the number of specs
 * that disagree or fail; JG_ARG refusals (exact above its limit) are counted
 * in *skipped. */
static int check_program(const jg_program_t *p, char *why, size_t cap, int *skipped)
{
    const char *sp[64];
    int ns = specs(sp, 64), bad = 0;
    jg_lin_t *l = NULL;
    jg_lin_sys_t *ref = NULL;
    jg_error_t err;
    jg_error_clear(&err);
    why[0] = 0;
    if (jg_lin_create(p, NULL, &l, &err) || jg_lin_run(l, JG_LIN_MATRIX, JG_GRAPH_REDUCE_NONE, &ref, NULL, &err)) {
        snprintf(why, cap, "matrix: %.300s", err.msg);
        jg_lin_free(l);
        return 1;
    }
    for (int k = 0; k < ns; k++) {
        jg_graph_strategy_t *s = NULL;
        jg_lin_sys_t *a = NULL, *b = NULL;
        jg_status_t st = jg_graph_strategy_parse(sp[k], &s, &err);
        if (!st) jg_graph_strategy_set_time_limit(s, 0.2);
        if (!st) st = jg_lin_run_strategy(l, s, &a, NULL, &err);
        if (st == JG_ARG) {   /* not applicable here (exact beyond its limit) */
            (*skipped)++;
            jg_graph_strategy_free(s);
            continue;
        }
        if (!st) st = jg_lin_run_strategy(l, s, &b, NULL, &err);   /* the replay */
        const char *which = "?";
        double d1 = st ? 1 : jg_lin_sys_diff(a, ref, &which), d2 = st ? 1 : jg_lin_sys_diff(b, ref, &which);
        if (st || !(d1 <= TOL) || !(d2 <= TOL)) {
            if (!bad)
                snprintf(why, cap, "%s: %.300s (differences %.2e, %.2e in %s)", sp[k], st ? err.msg : "ok",
                         d1, d2, which);
            bad++;
        }
        jg_lin_sys_free(a);
        jg_lin_sys_free(b);
        jg_graph_strategy_free(s);
    }
    jg_lin_sys_free(ref);
    jg_lin_free(l);
    return bad;
}

static void shipped_model(const char *path, const jg_program_t *p, void *skipped)
{
    char why[1024];
    int bad = check_program(p, why, sizeof why, skipped);
    tap_ok(!bad, "%s: every strategy's A, B, C, D = the matrix method's (<= %g)%s%s", path, TOL,
           bad ? ": " : "", bad ? why : "");
}

static void shipped_models(void)
{
    int skipped = 0, nmodels = tl_each_shipped(shipped_model, &skipped);
    tap_ok(nmodels >= 10, "%d shipped models (%d runs not applicable)", nmodels, skipped);
}

static void random_models(int nseeds)
{
    int nbad = 0, skipped = 0;
    for (int seed = 1; seed <= nseeds; seed++) {
        jg_gen_random_opts_t o;
        jg_gen_random_defaults(&o, (uint64_t)seed + 500, 5 + (seed * 29) % 70);
        o.vectors = seed % 2 == 0;
        o.loops = seed % 4 != 3;
        o.max_depth = seed % 4;
        char why[1024];
        jg_model_t *m;
        jg_program_t *p;
        jg_error_t err;
        if (fx_gen_program(&o, &m, &p, &err)) {
            tap_ok(0, "seed %d compiles: %s", seed + 500, err.msg);
            nbad++;
        } else if (check_program(p, why, sizeof why, &skipped)) {
            tap_ok(0, "seed %d (%d blocks): %s", seed + 500, o.nblocks, why);
            nbad++;
        }
        jg_program_free(p);
        jg_model_free(m);
    }
    tap_ok(nbad == 0, "random diagrams: every strategy agrees with the matrix method on %d seeds "
                      "(%d runs not applicable)", nseeds, skipped);
}

/* ------------------------------------------------------------ pivot guard */

/* e = In1 + g e with g = 1 - 1e-8: the pivot 1 - g is ill-conditioned, so
 * every strategy leaves the loop to the LFT; the result is 1 / (1 - g). */
static void guard(void)
{
    fx_t f;
    const char *js = "{\"name\":\"near\",\"blocks\":[{\"name\":\"In1\",\"type\":\"Inport\",\"Port\":1},"
                     "{\"name\":\"Sum\",\"type\":\"Sum\",\"Inputs\":\"++\"},"
                     "{\"name\":\"G\",\"type\":\"Gain\",\"Gain\":0.99999999},"
                     "{\"name\":\"Out1\",\"type\":\"Outport\",\"Port\":1}],\"lines\":["
                     "{\"src\":\"In1:1\",\"dst\":\"Sum:1\"},{\"src\":\"Sum:1\",\"dst\":[\"G:1\",\"Out1:1\"]},"
                     "{\"src\":\"G:1\",\"dst\":\"Sum:2\"}]}";
    const char *sp[64];
    int ns = specs(sp, 64), nok = 0, nrun = 0;
    char fails[512] = "";
    size_t nf = 0;
    if (fx_load(&f, js, NULL)) {
        tap_ok(0, "guard model loads: %s", f.err.msg);
        return;
    }
    for (int k = 0; k < ns; k++) {
        jg_graph_strategy_t *s = NULL;
        jg_lin_sys_t *a = NULL;
        jg_lin_stats_t st;
        jg_status_t e = jg_graph_strategy_parse(sp[k], &s, &f.err);
        if (!e) e = jg_lin_run_strategy(f.l, s, &a, &st, &f.err);
        if (e == JG_ARG) {
            jg_graph_strategy_free(s);
            continue;
        }
        nrun++;
        double want = 1 / (1 - 0.99999999);
        int ok = !e && a->D && a->D->p[1] == 1 && fabs(a->D->x[0] - want) <= 1e-6 * want &&
                 (k == 0 || st.graph.refused >= 1 || st.graph.eliminated == 0);
        nok += ok;
        if (!ok) nf += (size_t)snprintf(fails + nf, sizeof fails - nf, " %s", sp[k]);
        jg_lin_sys_free(a);
        jg_graph_strategy_free(s);
    }
    tap_ok(nok == nrun && nrun > 10, "pivot guard: %d of %d strategies leave the ill-conditioned loop to the LFT "
                                    "and get 1 / (1 - g)%s", nok, nrun, fails);
    fx_unload(&f);
}

/* ------------------------------------------------------------ order files */

static int write_file(char *path, const char *text)
{
    strcpy(path, "jg_order_XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0) return -1;
    FILE *f = fdopen(fd, "w");
    if (!f) return -1;
    fputs(text, f);
    fclose(f);
    return 0;
}

/* The order file text refused at a line, the message holding `needle`. */
static void bad_order(jg_lin_t *l, const char *text, const char *needle, const char *why)
{
    char path[64], spec[96];
    jg_error_t err;
    jg_error_clear(&err);
    if (write_file(path, text)) {
        tap_ok(0, "temporary file");
        return;
    }
    snprintf(spec, sizeof spec, "order:%s", path);
    jg_graph_strategy_t *s = NULL;
    jg_lin_sys_t *a = NULL;
    jg_status_t st = jg_graph_strategy_parse(spec, &s, &err);
    if (!st) st = jg_lin_run_strategy(l, s, &a, NULL, &err);
    char loc[96];
    snprintf(loc, sizeof loc, "%s:", path);
    int ok = st != JG_OK && strstr(err.msg, loc) && strstr(err.msg, needle);
    if (!tap_ok(ok, "order file refused: %s", why)) printf("#   status %d: %s\n", st, err.msg);
    jg_lin_sys_free(a);
    jg_graph_strategy_free(s);
    unlink(path);
}

static void order_files(void)
{
    jg_model_t *m = NULL;
    jg_program_t *p = NULL;
    jg_lin_t *l = NULL;
    jg_error_t err;
    jg_error_clear(&err);
    const jg_graph_t *g = NULL;
    jg_graph_strategy_t *lm = NULL, *ord = NULL;
    jg_lin_sys_t *a = NULL, *b = NULL;
    char path[64] = "", spec[96];
    jg_status_t st = jg_model_read("graphs/f14.json", &m, &err);
    if (!st) st = jg_program_compile(m, &p, &err);
    if (!st) st = jg_lin_create(p, NULL, &l, &err);
    if (!st) st = jg_graph_strategy_parse("minfill>reverse", &lm, &err);
    if (!st) st = jg_lin_run_strategy(l, lm, &a, NULL, &err);
    if (!st) st = jg_lin_graph_strategy(l, lm, &g, &err);
    jg_graph_cost_t c1 = {0}, c2 = {0};
    jg_graph_stats_t s1 = {0}, s2 = {0};
    char *text = NULL;
    if (!st) {
        jg_graph_cost(g, &c1);
        jg_graph_stats(g, &s1);
        const int64_t *o;
        int64_t n = jg_graph_order(g, &o);
        text = calloc((size_t)n + 1, 24);
        size_t len = 0;
        len += (size_t)sprintf(text + len, "# minfill>reverse on f14\n\n");
        for (int64_t k = 0; k < n; k++) len += (size_t)sprintf(text + len, "%lld\n", (long long)o[k]);
        if (write_file(path, text)) st = jg_error_set(&err, JG_IO, "temporary file");
    }
    snprintf(spec, sizeof spec, "order:%s", path);
    if (!st) st = jg_graph_strategy_parse(spec, &ord, &err);
    if (!st) st = jg_lin_run_strategy(l, ord, &b, NULL, &err);
    if (!st) st = jg_lin_graph_strategy(l, ord, &g, &err);
    if (!st) {
        jg_graph_cost(g, &c2);
        jg_graph_stats(g, &s2);
    }
    tap_ok(!st && c1.eliminated > 10 && c1.eliminated == c2.eliminated && c1.fma == c2.fma &&
               c1.adds == c2.adds && c1.nnz_after == c2.nnz_after && s1.ops == s2.ops,
           "f14: minfill>reverse's order written to a file and replayed by order:FILE: the same "
           "elimination (%lld vertices, FMA %lld, %lld operations) (%s)",
           (long long)c2.eliminated, (long long)c2.fma, (long long)s2.ops, st ? err.msg : "ok");
    int same = !st && a && b && a->A->nzmax == b->A->nzmax;
    for (int64_t k = 0; same && k < a->A->p[a->A->n]; k++) same = a->A->x[k] == b->A->x[k];
    tap_ok(same, "f14: ... and the same bits of A");
    if (path[0]) unlink(path);
    free(text);
    if (!st) {
        /* a state vertex and an eliminable one, by kind */
        int64_t xs = -1, ev = -1;
        const jg_graph_t *g0;
        jg_lin_graph(l, JG_GRAPH_REDUCE_NONE, &g0, &err);
        for (int64_t v = 0; v < jg_graph_nvertices(g0); v++) {
            jg_vertex_info_t vi;
            jg_graph_vertex(g0, v, &vi);
            if (vi.kind == JG_V_STATE && xs < 0) xs = v;
            if ((vi.kind == JG_V_INPUT || vi.kind == JG_V_OUTPUT) && ev < 0) ev = v;
        }
        char t[128];
        snprintf(t, sizeof t, "%lld\n99999\n", (long long)ev);
        bad_order(l, t, ":2: unknown vertex 99999", "an unknown vertex, naming line 2");
        snprintf(t, sizeof t, "%lld\n", (long long)xs);
        bad_order(l, t, ":1: vertex", "a state vertex is not eliminable, naming line 1");
        snprintf(t, sizeof t, "%lld\n# again\n%lld\n", (long long)ev, (long long)ev);
        bad_order(l, t, ":3: vertex", "a repeated vertex, naming line 3");
        bad_order(l, "12x\n", ":1: '12x' is not a vertex id", "not a number");
        bad_order(l, "-1\n", ":1: unknown vertex -1", "a negative id");
    }
    jg_graph_strategy_t *s = NULL;
    jg_lin_sys_t *c = NULL;
    jg_error_clear(&err);
    jg_status_t e = jg_graph_strategy_parse("order:/nonexistent/order.txt", &s, &err);
    if (!e && l) e = jg_lin_run_strategy(l, s, &c, NULL, &err);
    tap_ok(e == JG_IO && strstr(err.msg, "/nonexistent/order.txt"), "a missing order file: JG_IO naming it");
    jg_graph_strategy_free(s);
    e = jg_graph_strategy_parse("order", &s, &err);
    if (!e && l) e = jg_lin_run_strategy(l, s, &c, NULL, &err);
    tap_ok(e == JG_ARG && strstr(err.msg, "order:FILE"), "'order' without a file: asks for order:FILE");
    jg_graph_strategy_free(s);
    jg_lin_sys_free(c);
    jg_lin_sys_free(a);
    jg_lin_sys_free(b);
    jg_graph_strategy_free(lm);
    jg_graph_strategy_free(ord);
    jg_lin_free(l);
    jg_program_free(p);
    jg_model_free(m);
}

/* Strategies differ where they should: forward and reverse orders are each
 * other's reverse on a loop-free chain of components; full is lm. */
static void orders_differ(void)
{
    jg_model_t *m = NULL;
    jg_program_t *p = NULL;
    jg_lin_t *l = NULL;
    jg_error_t err;
    jg_status_t st = jg_model_read("graphs/f14.json", &m, &err);
    if (!st) st = jg_program_compile(m, &p, &err);
    if (!st) st = jg_lin_create(p, NULL, &l, &err);
    static const char *const names[] = {"forward", "reverse", "lm", "full"};
    int64_t n[4] = {0}, first[4] = {-1, -1, -1, -1}, fma[4] = {0};
    int same_lm_full = 1;
    const int64_t *olm = NULL;
    for (int k = 0; !st && k < 4; k++) {
        jg_graph_strategy_t *s = NULL;
        const jg_graph_t *g;
        const int64_t *o;
        st = jg_graph_strategy_parse(names[k], &s, &err);
        if (!st) st = jg_lin_graph_strategy(l, s, &g, &err);
        if (!st) {
            n[k] = jg_graph_order(g, &o);
            first[k] = n[k] ? o[0] : -1;
            jg_graph_cost_t c;
            jg_graph_cost(g, &c);
            fma[k] = c.fma;
            if (k == 2) {   /* lm's graph is replaced by full's: keep its order */
                static int64_t keep[4096];
                for (int64_t i = 0; i < n[k] && i < 4096; i++) keep[i] = o[i];
                olm = keep;
            }
            if (k == 3)
                for (int64_t i = 0; i < n[3] && i < 4096; i++) same_lm_full &= olm && o[i] == olm[i];
        }
        jg_graph_strategy_free(s);
    }
    tap_ok(!st && first[0] != first[1] && n[0] == n[1], "f14: forward and reverse start at different vertices "
           "(%lld, %lld) and eliminate as many (%lld)", (long long)first[0], (long long)first[1], (long long)n[0]);
    tap_ok(!st && n[2] == n[3] && same_lm_full && fma[2] == fma[3], "f14: full is lm (the same order, FMA %lld)",
           (long long)fma[2]);
    jg_lin_free(l);
    jg_program_free(p);
    jg_model_free(m);
}

int main(int argc, char **argv)
{
    int nseeds = argc > 1 ? atoi(argv[1]) : 150;
    registry();
    grammar();
    shipped_models();
    random_models(nseeds);
    guard();
    order_files();
    orders_differ();
    return tap_done();
}
