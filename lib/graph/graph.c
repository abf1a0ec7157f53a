/* Jacobian graph storage: vertices with adjacency lists, edges, edge matrices,
 * the replay tape, and the read-only queries. */
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

int64_t jg__gmat_new(jg_graph_t *g, int64_t m, int64_t n, const int64_t *p, const int64_t *i)
{
    if (g->nmat == g->capmat) {
        int64_t cap = g->capmat ? 2 * g->capmat : 1024;
        jg_gmat_t *nm = realloc(g->mat, sizeof *nm * (size_t)cap);
        if (!nm) return -1;
        g->mat = nm;
        g->capmat = cap;
    }
    int64_t nz = p[n];
    if (g->nx + nz > g->capx) {
        int64_t cap = g->capx ? 2 * g->capx : 4096;
        while (cap < g->nx + nz) cap *= 2;
        double *nx = realloc(g->x, sizeof(double) * (size_t)cap);
        if (!nx) return -1;
        g->x = nx;
        g->capx = cap;
    }
    jg_gmat_t *a = &g->mat[g->nmat];
    a->m = m;
    a->n = n;
    /* scalar edges dominate: they share one static pattern */
    static const int64_t p01[2] = {0, 1}, i0[1] = {0};
    if (m == 1 && n == 1 && nz == 1) {
        a->p = (int64_t *)p01;
        a->i = (int64_t *)i0;
    } else {
        a->p = jg_arena_alloc(&g->arena, sizeof(int64_t) * (size_t)(n + 1));
        a->i = jg_arena_alloc(&g->arena, sizeof(int64_t) * (size_t)(nz ? nz : 1));
        if (!a->p || !a->i) return -1;
        memcpy(a->p, p, sizeof(int64_t) * (size_t)(n + 1));
        memcpy(a->i, i, sizeof(int64_t) * (size_t)nz);
    }
    a->xoff = g->nx;
    a->ident = 0;
    memset(g->x + g->nx, 0, sizeof(double) * (size_t)nz);
    g->nx += nz;
    return g->nmat++;
}

static int push_id(jg_graph_t *g, int64_t **arr, int32_t *n, int32_t *cap, int64_t id)
{
    if (*n == *cap) {
        int32_t c = *cap ? 2 * *cap : 4;
        int64_t *na = jg_arena_alloc(&g->arena, sizeof(int64_t) * (size_t)c);
        if (!na) return -1;
        if (*n) memcpy(na, *arr, sizeof(int64_t) * (size_t)*n);
        *arr = na;   /* the old array stays in the arena: cheaper than freeing */
        *cap = c;
    }
    (*arr)[(*n)++] = id;
    return 0;
}

int64_t jg__gedge_add(jg_graph_t *g, int64_t src, int64_t dst, int64_t mat)
{
    if (g->ne == g->capne) {
        int64_t cap = g->capne ? 2 * g->capne : 1024;
        jg_gedge_t *ne = realloc(g->e, sizeof *ne * (size_t)cap);
        if (!ne) return -1;
        g->e = ne;
        g->capne = cap;
    }
    int64_t id = g->ne;
    g->e[id] = (jg_gedge_t){.src = src, .dst = dst, .mat = mat, .alive = 1};
    if (src == dst) {
        g->v[src].self = id;
    } else {
        jg_gvert_t *s = &g->v[src], *d = &g->v[dst];
        if (push_id(g, &s->out, &s->nout, &s->capout, id) ||
            push_id(g, &d->in, &d->nin, &d->capin, id))
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
    g->ops[g->ops_n++] = (jg_gop_t){code, a, b, c};
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
    info->i = m->i;
    info->identity = m->ident;
}

const char *jg_graph_vertex_label(const jg_graph_t *g, int64_t v)
{
    jg_gvert_t *a = &((jg_graph_t *)g)->v[v];
    if (a->label) return a->label;
    jg_arena_t *ar = &((jg_graph_t *)g)->arena;
    const jg_program_t *p = g->prog;
    switch (a->kind) {
    case JG_V_STATE: a->label = jg_arena_printf(ar, "x %s", p->blocks[a->block].path); break;
    case JG_V_INPUT:
        a->label = jg_arena_printf(ar, "u %s:%d", p->blocks[a->block].path, a->port + 1);
        break;
    case JG_V_OUTPUT:
        a->label = jg_arena_printf(ar, "y %s:%d", p->blocks[a->block].path, a->port + 1);
        break;
    case JG_V_LIN_IN: a->label = jg_arena_printf(ar, "in %s", g->io->in[a->port].name); break;
    case JG_V_LIN_OUT: a->label = jg_arena_printf(ar, "out %s", g->io->out[a->port].name); break;
    }
    return a->label ? a->label : "?";
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
    free(g->pe_mat);
    free(g->pe_part);
    free(g->ops);
    free(g->ws);
    free(g->ws_mark);
    free(g->live);
    free(g->order);
    free(g->inv_ipiv);
    free(g->inv_work);
    jg__elim_free(g);
    jg_arena_free(&g->arena);
    free(g);
}
