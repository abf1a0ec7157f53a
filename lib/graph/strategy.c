/* Elimination strategies: the registry, the spec grammar (NAME, NAME:ARGS,
 * A>B>C), and the engine that runs a strategy's callback under the pivot
 * guard (strategy_impl.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "strategy_impl.h"

/* Every strategy a spec may name, in listing order.  A new strategy adds
 * its line here (and its file to lib/meson.build). */
static const jg_strategy_def_t *const registry[] = {
    &jg__strat_none,     &jg__strat_markowitz, &jg__strat_full,    &jg__strat_markowitz_nnz,
    &jg__strat_forward,  &jg__strat_reverse,   &jg__strat_lm,      &jg__strat_lrm,
    &jg__strat_minfill,  &jg__strat_mincost,   &jg__strat_lmmd,    &jg__strat_momr,
    &jg__strat_order,    &jg__strat_exact,     &jg__strat_anneal,  &jg__strat_camd,
    &jg__strat_metis,
};
#define NREG ((int)(sizeof registry / sizeof registry[0]))

/* The longest tie-break chain (criteria in a row). */
#define CHAIN_MAX 4

struct jg_graph_strategy {
    char *spec;
    int n;                                   /* criteria in the chain, or 1 */
    const jg_strategy_def_t *def[CHAIN_MAX];
    char *args;                              /* a single strategy's ":ARGS", "" when none */
    double time_limit;
};

int jg_graph_strategy_count(void) { return NREG; }
const char *jg_graph_strategy_name(int k) { return k >= 0 && k < NREG ? registry[k]->name : NULL; }
const char *jg_graph_strategy_help(int k) { return k >= 0 && k < NREG ? registry[k]->help : NULL; }
int jg_graph_strategy_is_criterion(int k) { return k >= 0 && k < NREG && registry[k]->key; }

static const jg_strategy_def_t *lookup(const char *name, size_t len)
{
    for (int k = 0; k < NREG; k++)
        if (strlen(registry[k]->name) == len && !strncmp(registry[k]->name, name, len))
            return registry[k];
    return NULL;
}

/* "a, b, c" of the registered names (criteria only when crit) into buf. */
static const char *names(char *buf, size_t cap, int crit)
{
    size_t n = 0;
    buf[0] = 0;
    for (int k = 0; k < NREG && n < cap; k++)
        if (!crit || registry[k]->key)
            n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", registry[k]->name);
    return buf;
}

jg_status_t jg_graph_strategy_parse(const char *spec, jg_graph_strategy_t **out, jg_error_t *err)
{
    char known[512];
    *out = NULL;
    if (!spec || !*spec)
        return jg_error_set(err, JG_ARG, "empty strategy (known: %s)", names(known, sizeof known, 0));
    jg_graph_strategy_t *s = calloc(1, sizeof *s);
    if (!s || !(s->spec = strdup(spec))) goto nomem;
    jg_status_t st = JG_OK;
    const char *p = spec;
    for (;;) {
        size_t len = strcspn(p, ":>");
        const jg_strategy_def_t *d = lookup(p, len);
        if (!d) {
            st = jg_error_set(err, JG_ARG, "unknown strategy '%.*s' (known: %s)", (int)len, p,
                              names(known, sizeof known, 0));
            goto fail;
        }
        if (s->n > 0 && !d->key) {
            st = jg_error_set(err, JG_ARG,
                              "'%s' cannot break ties in '%s': a chain A>B>C takes criteria only (%s)",
                              d->name, spec, names(known, sizeof known, 1));
            goto fail;
        }
        for (int c = 0; c < s->n; c++)
            if (s->def[c] == d) {
                st = jg_error_set(err, JG_ARG, "'%s' twice in '%s': a criterion breaks no ties of its own",
                                  d->name, spec);
                goto fail;
            }
        if (s->n == CHAIN_MAX) {
            st = jg_error_set(err, JG_ARG, "'%s': at most %d criteria in a chain", spec, CHAIN_MAX);
            goto fail;
        }
        s->def[s->n++] = d;
        p += len;
        if (*p == ':') {
            /* arguments run to the end of the spec (a file name may hold '>') */
            if (!d->args_help || s->n > 1) {
                st = jg_error_set(err, JG_ARG, "strategy '%s' takes no arguments (in '%s')", d->name,
                                  spec);
                goto fail;
            }
            if (!p[1]) {   /* "exact:" is a typo, not plain exact */
                st = jg_error_set(err, JG_ARG, "'%s': nothing after ':' (expected %s:%s)", spec, d->name,
                                  d->args_help);
                goto fail;
            }
            if (!(s->args = strdup(p + 1))) goto nomem;
            break;
        }
        if (!*p) break;
        /* '>' */
        if (!d->key) {
            st = jg_error_set(err, JG_ARG,
                              "'%s' is not a criterion and cannot start a chain (in '%s'; criteria: %s)",
                              d->name, spec, names(known, sizeof known, 1));
            goto fail;
        }
        p++;
    }
    if (!s->args && !(s->args = strdup(""))) goto nomem;
    *out = s;
    return JG_OK;
nomem:
    st = jg_error_set(err, JG_NOMEM, "out of memory");
fail:
    jg_graph_strategy_free(s);
    return st;
}

jg_graph_strategy_t *jg_graph_strategy_from_reduce(jg_graph_reduce_t r)
{
    jg_graph_strategy_t *s = NULL;
    const char *name = jg_graph_reduce_name(r);
    jg_graph_strategy_parse(!strcmp(name, "?") ? "none" : name, &s, NULL);
    return s;
}

jg_graph_strategy_t *jg__graph_strategy_dup(const jg_graph_strategy_t *s)
{
    jg_graph_strategy_t *d = NULL;
    if (jg_graph_strategy_parse(s->spec, &d, NULL)) return NULL;
    d->time_limit = s->time_limit;
    return d;
}

int jg__graph_strategy_same(const jg_graph_strategy_t *a, const jg_graph_strategy_t *b)
{
    return !strcmp(a->spec, b->spec) && a->time_limit == b->time_limit;
}

int jg__graph_strategy_reduce(const jg_graph_strategy_t *s)
{
    if (s->n != 1 || s->args[0]) return -1;
    if (s->def[0] == &jg__strat_none) return JG_GRAPH_REDUCE_NONE;
    if (s->def[0] == &jg__strat_markowitz) return JG_GRAPH_REDUCE_MARKOWITZ;
    if (s->def[0] == &jg__strat_full) return JG_GRAPH_REDUCE_FULL;
    return -1;
}

const char *jg_graph_strategy_spec(const jg_graph_strategy_t *s) { return s->spec; }
void jg_graph_strategy_set_time_limit(jg_graph_strategy_t *s, double seconds)
{
    s->time_limit = seconds > 0 ? seconds : 0;
}

void jg_graph_strategy_free(jg_graph_strategy_t *s)
{
    if (!s) return;
    free(s->spec);
    free(s->args);
    free(s);
}

/* ------------------------------------------------------------ the engine */

double jg__strat_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The eliminations timed one by one before the engine samples them (two
 * clock reads per elimination were ~70 ms of a million-block model, about a
 * tenth of its elimination). */
#define TIMED_ALL 4096
/* After TIMED_ALL: one elimination in TIME_EVERY is timed, standing for the
 * TIME_EVERY around it (t_strategy then is an estimate). */
#define TIME_EVERY 16

/* Eliminate v unless the pivot guard refuses it: 1 eliminated, 0 refused,
 * or a status < 0 ... (JG_NOMEM as -JG_NOMEM).  *t_ops gets the time: of
 * every call among the first TIMED_ALL, then of one call in TIME_EVERY,
 * counted TIME_EVERY times (r->ntry counts the calls). */
static int try_eliminate(jg_strat_run_t *r, int64_t v, double *t_ops)
{
    int64_t k = r->ntry++;
    int timed = k < TIMED_ALL || k % TIME_EVERY == 0;
    double t0 = timed ? jg__strat_now() : 0;
    int ok = jg__elim_pivot_ok(r->g, v);
    if (ok > 0) {
        const int64_t *nb;
        int64_t nnb;
        if (jg__elim_vertex(r->g, v, &nb, &nnb)) ok = -1;
        r->changed = nb;
        r->nchanged = nnb;
    } else {
        r->nchanged = 0;
    }
    if (timed) *t_ops += (k < TIMED_ALL ? 1 : TIME_EVERY) * (jg__strat_now() - t0);
    return ok;
}

/* Min-heap of (key tuple, vertex) with lazy deletion: lowest first by the
 * chain's keys, then by vertex id. */
typedef struct {
    double k[CHAIN_MAX];
    int64_t v, ver;   /* ver: the vertex's entry count when pushed (older: stale) */
} hent_t;

typedef struct {
    hent_t *a;
    int64_t n, cap;
    int nk;
} heap_t;

static int hless(const heap_t *h, const hent_t *x, const hent_t *y)
{
    for (int c = 0; c < h->nk; c++)
        if (x->k[c] != y->k[c]) return x->k[c] < y->k[c];
    return x->v < y->v;
}

static int heap_push(heap_t *h, const hent_t *e)
{
    if (h->n == h->cap) {
        int64_t c = h->cap ? 2 * h->cap : 256;
        hent_t *na = realloc(h->a, sizeof *na * (size_t)c);
        if (!na) return -1;
        h->a = na;
        h->cap = c;
    }
    int64_t i = h->n++;
    h->a[i] = *e;
    while (i > 0) {
        int64_t par = (i - 1) / 2;
        if (!hless(h, &h->a[i], &h->a[par])) break;
        hent_t t = h->a[par];
        h->a[par] = h->a[i];
        h->a[i] = t;
        i = par;
    }
    return 0;
}

static hent_t heap_pop(heap_t *h)
{
    hent_t top = h->a[0];
    h->a[0] = h->a[--h->n];
    for (int64_t i = 0;;) {
        int64_t l = 2 * i + 1, rr = l + 1, m = i;
        if (l < h->n && hless(h, &h->a[l], &h->a[m])) m = l;
        if (rr < h->n && hless(h, &h->a[rr], &h->a[m])) m = rr;
        if (m == i) break;
        hent_t t = h->a[i];
        h->a[i] = h->a[m];
        h->a[m] = t;
        i = m;
    }
    return top;
}

static jg_status_t keys(jg_strat_run_t *r, const jg_graph_strategy_t *s, void **states, int64_t v,
                        hent_t *e)
{
    e->v = v;
    for (int c = 0; c < s->n; c++) {
        jg_status_t st = s->def[c]->key(r, states[c], v, &e->k[c]);
        if (st) return st;
    }
    for (int c = s->n; c < CHAIN_MAX; c++) e->k[c] = 0;
    return JG_OK;
}

/* Criteria (a chain of them): every eliminable vertex, greedily by key.
 * The keys an elimination may change are computed again, exactly those
 * (strategy_impl.h's hops): its neighbors'; for 2-hop criteria the
 * neighbors of its eliminable neighbors (a kept neighbor's edges do not
 * enter a key, and walking them would scan a state's or an I/O point's
 * thousands of edges at every elimination next to it); for kept_pairs
 * criteria the vertices between the two ends of each new edge joining two
 * kept vertices (the only other way a key can change).  So every heap
 * entry that is current holds its vertex's key in the graph as it is, and
 * the lowest is the greedy choice.  A vertex whose key changed gets a new
 * heap entry and its older ones go stale (ver).  A refused vertex leaves
 * the heap until a neighbor's elimination, the only thing that changes its
 * pivot, pushes it again. */
typedef struct {
    heap_t h;
    int64_t *ver;      /* per vertex: entries pushed so far */
    double *kv;        /* per vertex: its current key tuple (nk doubles) */
    unsigned char *in; /* per vertex: 1 while it has a current entry */
} crit_t;

static jg_status_t refresh(jg_strat_run_t *r, const jg_graph_strategy_t *s, void **states, crit_t *c,
                           int64_t u)
{
    hent_t e;
    int nk = s->n;
    jg_status_t st = keys(r, s, states, u, &e);
    if (st) return st;
    if (c->in[u] && !memcmp(e.k, c->kv + (size_t)u * (size_t)nk, sizeof(double) * (size_t)nk))
        return JG_OK;   /* its entry is current */
    memcpy(c->kv + (size_t)u * (size_t)nk, e.k, sizeof(double) * (size_t)nk);
    e.ver = ++c->ver[u];
    c->in[u] = 1;
    return heap_push(&c->h, &e) ? JG_NOMEM : JG_OK;
}

/* kept_pairs criteria: the keys of the vertices w with p -> w -> q for each
 * new edge p -> q (p = q: a new self-loop) between two kept vertices, the
 * edges from id ne0 on (jg__gedge_add appends).  An edge with an eliminable
 * end was seen by the walk through that end's neighbors; vertices stamped
 * at epoch were refreshed already.  Cost per new edge: the shorter of p's
 * out-list and q's in-list, times an edge look-up. */
static jg_status_t refresh_between(jg_strat_run_t *r, const jg_graph_strategy_t *s, void **states,
                                   crit_t *c, int64_t ne0, int64_t *stamp, int64_t epoch)
{
    jg_graph_t *g = r->g;
    for (int64_t k = ne0; k < g->ne; k++) {
        int64_t p = g->e[k].src, q = g->e[k].dst;
        if (!g->e[k].alive || jg__strat_eliminable(g, p) || jg__strat_eliminable(g, q)) continue;
        const jg_gvert_t *P = &g->v[p], *Q = &g->v[q];
        int fromp = P->nout <= Q->nin;
        int32_t n = fromp ? P->nout : Q->nin;
        for (int32_t a = 0; a < n; a++) {
            int64_t w = fromp ? g->e[P->out[a]].dst : g->e[Q->in[a]].src;
            if (stamp[w] == epoch || !c->in[w] || !jg__strat_eliminable(g, w)) continue;
            if ((fromp ? jg__gedge_find(g, w, q) : jg__gedge_find(g, p, w)) < 0) continue;
            stamp[w] = epoch;
            jg_status_t st = refresh(r, s, states, c, w);
            if (st) return st;
        }
    }
    return JG_OK;
}

static jg_status_t run_criteria(jg_strat_run_t *r, const jg_graph_strategy_t *s, void **states,
                                double *t_ops, jg_error_t *err)
{
    jg_graph_t *g = r->g;
    crit_t c = {.h = {.nk = s->n}};
    int hops = 0, pairs = 0;
    for (int k = 0; k < s->n; k++) {
        if (s->def[k]->hops > hops) hops = s->def[k]->hops;
        pairs |= s->def[k]->kept_pairs;
    }
    int64_t *stamp = calloc((size_t)g->nv + 1, sizeof *stamp), epoch = 0;
    int64_t *nbc = NULL, cap = 0;
    c.ver = calloc((size_t)g->nv + 1, sizeof *c.ver);
    c.kv = calloc(((size_t)g->nv + 1) * (size_t)s->n, sizeof *c.kv);
    c.in = calloc((size_t)g->nv + 1, 1);
    jg_status_t st = JG_OK;
    if (!stamp || !c.ver || !c.kv || !c.in) goto nomem;
    for (int64_t v = 0; v < g->nv; v++)
        if (jg__strat_eliminable(g, v) && (st = refresh(r, s, states, &c, v))) goto fail;
    while (c.h.n > 0) {
        hent_t e = heap_pop(&c.h);
        if (e.ver != c.ver[e.v] || !jg__strat_eliminable(g, e.v)) continue;   /* stale */
        c.in[e.v] = 0;
        int64_t ne0 = g->ne;   /* the edges the elimination adds come after */
        int ok = try_eliminate(r, e.v, t_ops);
        if (ok < 0) goto nomem;
        if (!ok) continue;
        /* the neighbors (a copy: keys may use the engine's buffers) */
        if (r->nchanged > cap) {
            int64_t *n2 = realloc(nbc, sizeof *n2 * (size_t)r->nchanged);
            if (!n2) goto nomem;
            nbc = n2;
            cap = r->nchanged;
        }
        int64_t nn = r->nchanged;
        if (nn) memcpy(nbc, r->changed, sizeof *nbc * (size_t)nn);
        epoch++;
        stamp[e.v] = epoch;
        for (int64_t k = 0; k < nn; k++) {
            int64_t u = nbc[k];
            if (stamp[u] == epoch) continue;
            stamp[u] = epoch;
            if (jg__strat_eliminable(g, u)) {
                /* a refused neighbor is tried again: its pivot may have changed */
                if (hops == 0 && c.in[u]) continue;
                if ((st = refresh(r, s, states, &c, u))) goto fail;
            }
        }
        if (hops < 2) continue;
        for (int64_t k = 0; k < nn; k++) {
            /* through the eliminable neighbors only (a kept one's edges
             * enter no key); new edges between kept vertices below */
            if (!jg__strat_eliminable(g, nbc[k])) continue;
            const jg_gvert_t *U = &g->v[nbc[k]];
            for (int32_t q = 0; q < U->nin + U->nout; q++) {
                int64_t w = q < U->nin ? g->e[U->in[q]].src : g->e[U->out[q - U->nin]].dst;
                if (stamp[w] == epoch) continue;
                stamp[w] = epoch;
                if (jg__strat_eliminable(g, w) && c.in[w] && (st = refresh(r, s, states, &c, w)))
                    goto fail;
            }
        }
        if (pairs && (st = refresh_between(r, s, states, &c, ne0, stamp, epoch))) goto fail;
    }
    goto done;
nomem:
    st = JG_NOMEM;
fail:
    if (st == JG_NOMEM) jg_error_set(err, st, "out of memory while eliminating vertices");
done:
    free(c.h.a);
    free(c.ver);
    free(c.kv);
    free(c.in);
    free(stamp);
    free(nbc);
    return st;
}

/* next: the strategy chooses, the engine eliminates or refuses. */
static jg_status_t run_next(jg_strat_run_t *r, const jg_strategy_def_t *d, void *state,
                            double *t_ops, jg_error_t *err)
{
    jg_graph_t *g = r->g;
    int64_t refused = 0;
    r->changed = NULL;
    r->nchanged = 0;
    for (;;) {
        int64_t v = -1;
        jg_status_t st = d->next(r, state, &v, err);
        if (st) return st;
        if (v < 0) return JG_OK;
        if (v >= g->nv || !jg__strat_eliminable(g, v))
            return jg_error_set(err, JG_ARG, "strategy '%s' chose vertex %lld, which is not eliminable",
                                d->name, (long long)v);
        int ok = try_eliminate(r, v, t_ops);
        if (ok < 0) return jg_error_set(err, JG_NOMEM, "out of memory while eliminating vertices");
        /* a strategy that keeps proposing refused vertices makes no progress */
        refused = ok ? 0 : refused + 1;
        if (refused > g->nv) return JG_OK;
    }
}

/* order: eliminate in turn; a refused vertex is retried after each later
 * elimination (its pivot changes only then). */
static jg_status_t run_order(jg_strat_run_t *r, const jg_strategy_def_t *d, double *t_ops,
                             jg_error_t *err)
{
    jg_graph_t *g = r->g;
    int64_t *ord = NULL, n = 0, *pend = NULL, np = 0;
    jg_status_t st = d->order(r, &ord, &n, err);
    if (st) return st;
    pend = malloc(sizeof *pend * (size_t)(n + 1));
    if (!pend) goto nomem;
    for (int64_t k = 0; k < n; k++) {
        int64_t v = ord[k];
        if (v < 0 || v >= g->nv || !jg__strat_eliminable(g, v)) {
            st = jg_error_set(err, JG_ARG,
                              "strategy '%s' ordered vertex %lld, which is not eliminable (or twice)",
                              d->name, (long long)v);
            goto done;
        }
        int ok = try_eliminate(r, v, t_ops);
        if (ok < 0) goto nomem;
        if (!ok) {
            pend[np++] = v;
            continue;
        }
        for (int64_t q = 0; q < np;) {
            ok = try_eliminate(r, pend[q], t_ops);
            if (ok < 0) goto nomem;
            if (ok) {
                memmove(pend + q, pend + q + 1, sizeof *pend * (size_t)(np - q - 1));
                np--;
                q = 0;   /* another change: try the earlier ones again */
            } else {
                q++;
            }
        }
    }
    goto done;
nomem:
    st = jg_error_set(err, JG_NOMEM, "out of memory while eliminating vertices");
done:
    free(ord);
    free(pend);
    return st;
}

jg_status_t jg__graph_eliminate_strategy(jg_graph_t *g, const jg_graph_strategy_t *s,
                                         const jg_eval_work_t *w, jg_error_t *err)
{
    double t0 = jg__strat_now(), t_ops = 0;
    void *states[CHAIN_MAX] = {0};
    int ninit = 0;
    jg_status_t st = jg__elim_begin(g, w);
    jg_strat_run_t r = {.g = g, .args = s->args, .time_limit = s->time_limit, .cost = &g->cost};
    if (st) {
        st = jg_error_set(err, st, "out of memory while eliminating vertices");
        goto done;
    }
    for (; ninit < s->n; ninit++)
        if (s->def[ninit]->init && (st = s->def[ninit]->init(&r, &states[ninit], err))) goto done;
    const jg_strategy_def_t *d = s->def[0];
    if (d->key)
        st = run_criteria(&r, s, states, &t_ops, err);
    else if (d->next)
        st = run_next(&r, d, states[0], &t_ops, err);
    else
        st = run_order(&r, d, &t_ops, err);
done:
    for (int c = 0; c < ninit; c++)
        if (s->def[c]->fini) s->def[c]->fini(states[c]);
    double t1 = jg__strat_now();
    st = jg__elim_end(g, st, err);
    g->cost.t_elim = jg__strat_now() - t0;
    g->cost.t_strategy = (t1 - t0) - t_ops;
    if (g->cost.t_strategy < 0) g->cost.t_strategy = 0;
    return st;
}
