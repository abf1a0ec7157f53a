/* Jacobian graph storage: vertices with adjacency lists, edges, edge matrices,
 * the replay tape, and the read-only queries. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "strategy_impl.h"

static const char *const reduce_names[] = {"none", "markowitz", "full"};

const char *jg_graph_reduce_name(jg_graph_reduce_t r)
{
    return (unsigned)r < 3 ? reduce_names[r] : "?";
}

int jg_graph_reduce_parse(const char *s)
{
    for (int k = 0; k < 3; k++)
        if (!strcmp(s, reduce_names[k])) return k;
    return -1;
}

int jg__graph_replayed(const jg_graph_t *g) { return g->replayed; }

int64_t jg__graph_pivots(const jg_graph_t *g, double *cond)
{
    if (cond) *cond = g->piv_cond;
    return g->guard_v;
}

int jg__graph_reserve(jg_graph_t *g, int64_t nedges, int64_t nvals)
{
    if (nedges > g->capne) {
        jg_gedge_t *e = realloc(g->e, sizeof *e * (size_t)nedges);
        if (!e) return -1;
        g->e = e;
        g->capne = nedges;
    }
    if (nedges > g->capmat) {
        jg_gmat_t *m = realloc(g->mat, sizeof *m * (size_t)nedges);
        if (!m) return -1;
        g->mat = m;
        g->capmat = nedges;
    }
    if (nvals > g->capx) {
        double *x = realloc(g->x, sizeof *x * (size_t)nvals);
        if (!x) return -1;
        g->x = x;
        g->capx = nvals;
    }
    return 0;
}

/* ---- interned patterns: most matrices of a large graph repeat a few
 * shapes (a diagonal, a dense column, ...); one copy each saves the arena
 * most of its bytes and the page faults of writing them */

struct jg_gpat {
    uint64_t hash;
    int64_t m, n;
    int64_t *p;              /* p[0..n], then i[0..p[n]) */
};

static uint64_t pat_hash(int64_t m, int64_t n, const int64_t *p, const int64_t *i)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)m * 0xff51afd7ed558ccdull ^ (uint64_t)n;
    for (int64_t k = 0; k <= n; k++) h = (h ^ (uint64_t)p[k]) * 0x100000001b3ull;
    for (int64_t k = 0; k < p[n]; k++) h = (h ^ (uint64_t)i[k]) * 0x100000001b3ull;
    return h ^ (h >> 29);
}

/* The interned copy of pattern (m, n, p, i): its p (i follows p[n]); NULL
 * when out of memory. */
static int64_t *pat_intern(jg_graph_t *g, int64_t m, int64_t n, const int64_t *p, const int64_t *i)
{
    if (2 * (g->npat + 1) > g->cappat) {   /* grow (and rehash) at half full */
        int64_t cap = g->cappat ? 2 * g->cappat : 1024;
        struct jg_gpat *t = calloc((size_t)cap, sizeof *t);
        if (!t) return NULL;
        for (int64_t k = 0; k < g->cappat; k++)
            if (g->pat[k].p) {
                int64_t h = (int64_t)(g->pat[k].hash & (uint64_t)(cap - 1));
                while (t[h].p) h = (h + 1) & (cap - 1);
                t[h] = g->pat[k];
            }
        free(g->pat);
        g->pat = t;
        g->cappat = cap;
    }
    uint64_t hash = pat_hash(m, n, p, i);
    int64_t nz = p[n], h = (int64_t)(hash & (uint64_t)(g->cappat - 1));
    for (; g->pat[h].p; h = (h + 1) & (g->cappat - 1)) {
        const struct jg_gpat *e = &g->pat[h];
        if (e->hash == hash && e->m == m && e->n == n && e->p[n] == nz &&
            !memcmp(e->p, p, sizeof(int64_t) * (size_t)(n + 1)) &&
            (nz == 0 || !memcmp(e->p + n + 1, i, sizeof(int64_t) * (size_t)nz)))   /* i may be NULL */
            return e->p;
    }
    int64_t *q = jg_arena_alloc(&g->arena, sizeof(int64_t) * (size_t)(n + 1 + nz));
    if (!q) return NULL;
    memcpy(q, p, sizeof(int64_t) * (size_t)(n + 1));
    if (nz > 0) memcpy(q + n + 1, i, sizeof(int64_t) * (size_t)nz);
    g->pat[h] = (struct jg_gpat){hash, m, n, q};
    g->npat++;
    return q;
}

/* The pattern of every 1 x 1 matrix with its entry: p = {0, 1}, i = {0}. */
static const int64_t scalar_pat[3] = {0, 1, 0};

const int64_t *jg__gmat_pattern(jg_graph_t *g, int64_t m, int64_t n, const int64_t *p,
                                const int64_t *i)
{
    if (m == 1 && n == 1 && p[1] == 1) return scalar_pat;   /* the most common one */
    return pat_intern(g, m, n, p, i);
}

int64_t jg__gmat_new_pat(jg_graph_t *g, int64_t m, int64_t n, const int64_t *q)
{
    /* 2^31 elements or matrices: beyond any memory (jg_gmat_t, jg_gedge_t) */
    if (m > INT32_MAX || n > INT32_MAX || g->nmat >= INT32_MAX) return -1;
    /* Growth by half, not double: at a million blocks these arrays are tens
     * of megabytes, and what a doubling leaves unused becomes resident once
     * the CLI populates the heap ahead of use (tools/heap.c). */
    if (g->nmat == g->capmat) {
        int64_t cap = g->capmat + g->capmat / 2 + 1024;
        jg_gmat_t *nm = realloc(g->mat, sizeof *nm * (size_t)cap);
        if (!nm) return -1;
        g->mat = nm;
        g->capmat = cap;
    }
    int64_t nz = q[n];
    if (g->nx + nz > g->capx) {
        int64_t cap = g->capx + g->capx / 2 + 4096;
        if (cap < g->nx + nz) cap = g->nx + nz + (g->nx + nz) / 2;
        double *nx = realloc(g->x, sizeof(double) * (size_t)cap);
        if (!nx) return -1;
        g->x = nx;
        g->capx = cap;
    }
    jg_gmat_t *a = &g->mat[g->nmat];
    a->m = (uint32_t)m;
    a->n = (int32_t)n;
    a->p = (int64_t *)q;   /* shared, never written */
    a->xoff = g->nx;
    a->ident = 0;
    memset(g->x + g->nx, 0, sizeof(double) * (size_t)nz);
    g->nx += nz;
    return g->nmat++;
}

int64_t jg__gmat_new(jg_graph_t *g, int64_t m, int64_t n, const int64_t *p, const int64_t *i)
{
    const int64_t *q = jg__gmat_pattern(g, m, n, p, i);
    return q ? jg__gmat_new_pat(g, m, n, q) : -1;
}

/* An adjacency array of 2^lg ids: a recycled one, or new in the arena (one
 * or two ids: 8 bytes from a block of them, where the arena rounds to 16).
 * A one-id array takes two ids' room, so that it can be reused: the free
 * list's link is 8 bytes. */
static int32_t *adj_alloc(jg_graph_t *g, int lg)
{
    if (lg == 0) lg = 1;
    int32_t *a = g->adj_free[lg];
    if (a) {
        memcpy(&g->adj_free[lg], a, sizeof a);
        return a;
    }
    if (lg == 1) {
        if (g->nadj2 == 0) {
            g->adj2 = jg_arena_alloc(&g->arena, sizeof(int32_t) * 8192);
            if (!g->adj2) return NULL;
            g->nadj2 = 8192;
        }
        g->nadj2 -= 2;
        a = g->adj2;
        g->adj2 += 2;
        return a;
    }
    return jg_arena_alloc(&g->arena, sizeof(int32_t) << lg);
}

/* Give back an adjacency array of cap (a power of two) ids. */
static void adj_release(jg_graph_t *g, int32_t *a, int32_t cap)
{
    if (!a || cap < 1) return;
    int lg = cap < 2 ? 1 : 31 - __builtin_clz((unsigned)cap);
    memcpy(a, &g->adj_free[lg], sizeof a);
    g->adj_free[lg] = a;
}

void jg__gvert_release(jg_graph_t *g, int64_t v)
{
    jg_gvert_t *V = &g->v[v];
    adj_release(g, V->in, jg__gvert_cap(V->lgin));
    adj_release(g, V->out, jg__gvert_cap(V->lgout));
    V->in = V->out = NULL;
    V->nin = V->nout = 0;
    V->lgin = V->lgout = 0;
}

static int push_id(jg_graph_t *g, int32_t **arr, int32_t *n, unsigned char *lg, int32_t id)
{
    int32_t cap = jg__gvert_cap(*lg);
    if (*n == cap) {
        /* most vertices have one edge each way: 1 id first (lg 0) */
        int32_t *na = adj_alloc(g, *lg);
        if (!na) return -1;
        if (*n) memcpy(na, *arr, sizeof(int32_t) * (size_t)*n);
        adj_release(g, *arr, cap);   /* reused by the next list that grows to it */
        *arr = na;
        (*lg)++;
    }
    (*arr)[(*n)++] = id;
    return 0;
}

int64_t jg__gedge_add(jg_graph_t *g, int64_t src, int64_t dst, int64_t mat)
{
    if (g->ne >= INT32_MAX) return -1;   /* 32-bit edge ids (jg_gvert_t's self) */
    if (g->ne == g->capne) {   /* by half, as the matrices */
        int64_t cap = g->capne + g->capne / 2 + 1024;
        jg_gedge_t *ne = realloc(g->e, sizeof *ne * (size_t)cap);
        if (!ne) return -1;
        g->e = ne;
        g->capne = cap;
    }
    int64_t id = g->ne;
    g->e[id] = (jg_gedge_t){.src = (int32_t)src, .dst = (int32_t)dst, .mat = (int32_t)mat, .alive = 1};
    if (src == dst) {
        g->v[src].self = (int32_t)id;
    } else {
        jg_gvert_t *s = &g->v[src], *d = &g->v[dst];
        if (push_id(g, &s->out, &s->nout, &s->lgout, (int32_t)id) ||
            push_id(g, &d->in, &d->nin, &d->lgin, (int32_t)id))
            return -1;
    }
    g->ne++;
    return id;
}

int64_t jg__gedge_find(const jg_graph_t *g, int64_t src, int64_t dst)
{
    if (src == dst) return g->v[src].self;
    const jg_gvert_t *s = &g->v[src], *d = &g->v[dst];
    if (s->nout <= d->nin) {
        for (int32_t k = 0; k < s->nout; k++)
            if (g->e[s->out[k]].dst == dst) return s->out[k];
    } else {
        for (int32_t k = 0; k < d->nin; k++)
            if (g->e[d->in[k]].src == src) return d->in[k];
    }
    return -1;
}

int jg__gop_push(jg_graph_t *g, jg_opcode_t code, int64_t a, int64_t b, int64_t c)
{
    if (g->ops_n == g->ops_cap) {
        int64_t cap = g->ops_cap ? 2 * g->ops_cap : 1024;
        jg_gop_t *no = realloc(g->ops, sizeof *no * (size_t)cap);
        if (!no) return -1;
        g->ops = no;
        g->ops_cap = cap;
    }
    g->ops[g->ops_n++] = (jg_gop_t){code, (int32_t)a, (int32_t)b, (int32_t)c};
    return 0;
}

int64_t jg_graph_nvertices(const jg_graph_t *g) { return g->nv; }
int64_t jg_graph_nedges(const jg_graph_t *g) { return g->ne; }

void jg_graph_vertex(const jg_graph_t *g, int64_t v, jg_vertex_info_t *info)
{
    const jg_gvert_t *a = &g->v[v];
    info->kind = a->kind;
    info->block = a->block;
    info->port = a->port;
    info->width = a->width;
    info->alive = a->alive;
    info->self_loop = a->self >= 0 && g->e[a->self].alive ? a->self : -1;
    info->eliminable = jg__strat_eliminable(g, v);
}

void jg_graph_edge(const jg_graph_t *g, int64_t e, jg_edge_info_t *info)
{
    const jg_gedge_t *a = &g->e[e];
    const jg_gmat_t *m = &g->mat[a->mat];
    info->src = a->src;
    info->dst = a->dst;
    info->rows = m->m;
    info->cols = m->n;
    info->nnz = jg__nnz(m);
    info->alive = a->alive;
    info->x = g->replayed ? g->x + m->xoff : NULL;
    info->p = m->p;
    info->i = jg__gmat_i(m);
    info->identity = m->ident;
}

const char *jg_graph_vertex_label(const jg_graph_t *g, int64_t v)
{
    jg_graph_t *gm = (jg_graph_t *)g;   /* the labels are a cache */
    if (!gm->labels && !(gm->labels = calloc((size_t)g->nv + 1, sizeof *gm->labels))) return "?";
    const jg_gvert_t *a = &g->v[v];
    const char **lab = &gm->labels[v];
    if (*lab) return *lab;
    jg_arena_t *ar = &gm->arena;
    const jg_program_t *p = g->prog;
    switch (a->kind) {
    case JG_V_STATE: *lab = jg_arena_printf(ar, "x %s", p->blocks[a->block].path); break;
    case JG_V_INPUT: *lab = jg_arena_printf(ar, "u %s:%d", p->blocks[a->block].path, a->port + 1); break;
    case JG_V_OUTPUT: *lab = jg_arena_printf(ar, "y %s:%d", p->blocks[a->block].path, a->port + 1); break;
    case JG_V_LIN_IN: *lab = jg_arena_printf(ar, "in %s", g->io->in[a->port].name); break;
    case JG_V_LIN_OUT: *lab = jg_arena_printf(ar, "out %s", g->io->out[a->port].name); break;
    }
    return *lab ? *lab : "?";
}

void jg_graph_count(const jg_graph_t *g, int64_t *nv, int64_t *ne)
{
    int64_t v = 0, e = 0;
    for (int64_t k = 0; k < g->nv; k++) v += g->v[k].alive;
    for (int64_t k = 0; k < g->ne; k++) e += g->e[k].alive;
    *nv = v;
    *ne = e;
}

void jg_graph_stats(const jg_graph_t *g, jg_graph_stats_t *st) { *st = g->st; }

void jg_graph_cost(const jg_graph_t *g, jg_graph_cost_t *c)
{
    *c = g->cost;
    if (!g->order) {   /* nothing eliminated yet: the graph as built */
        c->bound = -1;
        c->v_after = g->st.v_after;
        c->e_after = g->st.e_after;
        c->nnz_before = c->nnz_after = c->peak_nnz = jg__graph_live_nnz(g);
        c->bytes = g->st.bytes_graph;
    }
}

int64_t jg_graph_order(const jg_graph_t *g, const int64_t **order)
{
    *order = g->norder ? g->order : NULL;
    return g->norder;
}

void jg_graph_free(jg_graph_t *g)
{
    if (!g) return;
    free(g->v);
    free(g->e);
    free(g->mat);
    free(g->x);
    free(g->x_init);
    free(g->x_init8);
    free(g->pe_mat);
    free(g->pe_part);
    free(g->ops);
    free(g->ws);
    free(g->ws_mark);
    free(g->live);
    free(g->order);
    free(g->inv_ipiv);
    free(g->inv_work);
    free(g->pat);
    free(g->labels);
    if (g->tape_own) jg__tape_free(g->tape);
    free(g->tape_whole);
    jg__elim_free(g);
    jg_arena_free(&g->arena);
    free(g);
}
