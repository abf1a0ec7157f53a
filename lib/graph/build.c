/* Build the Jacobian graph of a compiled program: the sum (Def. 2) of every
 * block's graph (Fig. 3) and of the connection graphs y -> u (Eqn 3), plus the
 * linearization I/O points. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "graph_impl.h"

typedef struct {
    int64_t v, col, row;   /* source vertex, column (source element), row (target element) */
} trip_t;

static int cmp_trip(const void *a, const void *b)
{
    const trip_t *x = a, *y = b;
    if (x->v != y->v) return x->v < y->v ? -1 : 1;
    if (x->col != y->col) return x->col < y->col ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

/* Scratch for the connection triplets of one destination vertex. */
typedef struct {
    trip_t *t;
    int64_t *rowi;
    double *cnt;
    int64_t cap;
    int64_t *colp;   /* maxw + 2 */
} scratch_t;

static int scratch_reserve(scratch_t *s, int64_t n)
{
    if (n <= s->cap) return 0;
    int64_t cap = 2 * n + 16;
    trip_t *t = realloc(s->t, sizeof *t * (size_t)cap);
    if (t) s->t = t;
    int64_t *r = realloc(s->rowi, sizeof *r * (size_t)cap);
    if (r) s->rowi = r;
    double *c = realloc(s->cnt, sizeof *c * (size_t)cap);
    if (c) s->cnt = c;
    if (!t || !r || !c) return -1;
    s->cap = cap;
    return 0;
}

/* The graph's interned pattern of each part matrix of the program: the
 * compiler keeps one matrix per distinct pattern (a handful over a million
 * blocks), so its address finds the copy without hashing the pattern again
 * for every part.  An open-addressing table, grown at half full. */
typedef struct {
    const cs_dl *m;
    const int64_t *q;
} partpat_t;

typedef struct {
    partpat_t *t;
    int64_t n, cap;
} partpats_t;

static uint64_t ptr_slot(const cs_dl *m, int64_t cap)
{
    return ((uint64_t)(uintptr_t)m >> 4) * 0x9e3779b97f4a7c15ull >> 20 & (uint64_t)(cap - 1);
}

/* jg__gmat_pattern of part matrix M, remembered in pp (up to 2^16 matrices:
 * a program whose parts do not share theirs is only hashed as before, the
 * table stays at 2 MB); NULL: out of memory. */
static const int64_t *part_pattern(jg_graph_t *g, partpats_t *pp, const cs_dl *M)
{
    if (pp->n >= (int64_t)1 << 16) {   /* full: look it up, else intern without remembering */
        for (uint64_t h = ptr_slot(M, pp->cap); pp->t[h].m; h = (h + 1) & (uint64_t)(pp->cap - 1))
            if (pp->t[h].m == M) return pp->t[h].q;
        return jg__gmat_pattern(g, M->m, M->n, M->p, M->i);
    }
    if (2 * (pp->n + 1) > pp->cap) {
        int64_t cap = pp->cap ? 2 * pp->cap : 64;
        partpat_t *t = calloc((size_t)cap, sizeof *t);
        if (!t) return NULL;
        for (int64_t k = 0; k < pp->cap; k++)
            if (pp->t[k].m) {
                uint64_t h = ptr_slot(pp->t[k].m, cap);
                while (t[h].m) h = (h + 1) & (uint64_t)(cap - 1);
                t[h] = pp->t[k];
            }
        free(pp->t);
        pp->t = t;
        pp->cap = cap;
    }
    uint64_t h = ptr_slot(M, pp->cap);
    for (; pp->t[h].m; h = (h + 1) & (uint64_t)(pp->cap - 1))
        if (pp->t[h].m == M) return pp->t[h].q;
    const int64_t *q = jg__gmat_pattern(g, M->m, M->n, M->p, M->i);
    if (!q) return NULL;
    pp->t[h] = (partpat_t){M, q};
    pp->n++;
    return q;
}

/* Turn the n triplets in s->t into one edge per source vertex into `dst`;
 * entry values count duplicate connections (a Mux taking one signal twice
 * sums, Def. 2). */
static jg_status_t connect(jg_graph_t *g, int64_t dst, scratch_t *s, int64_t n)
{
    trip_t *t = s->t;
    if (n > 16) {
        qsort(t, (size_t)n, sizeof *t, cmp_trip);
    } else {   /* the common port of a few elements: insertion, no calls */
        for (int64_t a = 1; a < n; a++) {
            trip_t x = t[a];
            int64_t b = a;
            for (; b > 0 && cmp_trip(&t[b - 1], &x) > 0; b--) t[b] = t[b - 1];
            t[b] = x;
        }
    }
    for (int64_t a = 0; a < n;) {
        int64_t b = a;
        while (b < n && t[b].v == t[a].v) b++;
        int64_t src = t[a].v, m = g->v[dst].width, nc = g->v[src].width, nz = 0;
        int64_t *colp = s->colp, *rowi = s->rowi;
        double *cnt = s->cnt;
        for (int64_t j = 0; j <= nc; j++) colp[j] = 0;
        for (int64_t k = a; k < b; k++) {
            if (nz && k > a && t[k].col == t[k - 1].col && t[k].row == t[k - 1].row) {
                cnt[nz - 1] += 1;
                continue;
            }
            rowi[nz] = t[k].row;
            cnt[nz++] = 1;
            colp[t[k].col + 1]++;
        }
        for (int64_t j = 0; j < nc; j++) colp[j + 1] += colp[j];
        int64_t mat = jg__gmat_new(g, m, nc, colp, rowi);
        if (mat < 0 || jg__gedge_add(g, src, dst, mat) < 0) return JG_NOMEM;
        memcpy(g->x + g->mat[mat].xoff, cnt, sizeof(double) * (size_t)nz);
        /* a connection identity (the cost model's phi = 0): a signal passed
         * element by element, each once */
        int ident = m == nc && nz == nc;
        for (int64_t j = 0; ident && j < nc; j++)
            ident = colp[j + 1] - colp[j] == 1 && rowi[colp[j]] == j && cnt[colp[j]] == 1;
        g->mat[mat].ident = ident;
        a = b;
    }
    return JG_OK;
}

/* Edges into vertex dst from what its elements o..o+w-1 read (io->src and the
 * injected input points). */
static jg_status_t connect_elems(jg_graph_t *g, const jg_iospec_t *io, int64_t o, int64_t w,
                                 int64_t dst, scratch_t *sc, const int32_t *sig_port,
                                 const int32_t *yv, int64_t wv0)
{
    const jg_program_t *p = g->prog;
    int64_t n = 0;
    for (int64_t e = 0; e < w; e++) {
        int64_t s = io->src[o + e], ninj = io->inj_ptr[o + e + 1] - io->inj_ptr[o + e];
        if (scratch_reserve(sc, n + 1 + ninj)) return JG_NOMEM;
        trip_t *t = sc->t;
        if (s >= 0) {
            int64_t go = sig_port[s];
            t[n++] = (trip_t){yv[go], s - p->y_off[go], e};
        }
        for (int64_t j = 0; j < ninj; j++) {
            int64_t wi = io->inj_idx[io->inj_ptr[o + e] + j];
            int pt = 0;
            while (pt + 1 < io->nin && io->in[pt + 1].off <= wi) pt++;
            t[n++] = (trip_t){wv0 + pt, wi - io->in[pt].off, e};
        }
    }
    return connect(g, dst, sc, n);
}

jg_status_t jg__graph_build(const jg_program_t *p, const jg_iospec_t *io, jg_graph_t **out,
                            jg_error_t *err)
{
    jg_status_t st = JG_OK;
    *out = NULL;
    jg_graph_t *g = calloc(1, sizeof *g);
    /* vertex ids per block, port and signal: 32 bits (nv below 2^31, checked
     * before they are filled), half the bytes to touch */
    int32_t *xv = NULL, *uv = NULL, *yv = NULL, *sig_port = NULL;
    scratch_t sc = {0};
    partpats_t pp = {0};   /* part matrices seen: their interned patterns */
    if (!g) return jg_error_set(err, JG_NOMEM, "out of memory");
    jg_arena_init(&g->arena, 1 << 16);
    g->prog = p;
    g->io = io;
    g->piv_cond = 1;
    g->guard_v = -1;
    /* ---- vertices; the parts and their values counted in the same pass
     * (each pass over a million blocks and their parts is cache misses) */
    int64_t nv = io->nin + io->nout, nparts = 0, nvals = p->nu + io->nz + io->inj_ptr[p->nu + io->nz];
    for (int32_t b = 0; b < p->nblocks; b++) {
        const jg_block_t *B = &p->blocks[b];
        nparts += B->npart;
        for (int k = 0; k < B->npart; k++) nvals += B->part[k].m->nzmax;
        if (B->virt) continue;
        nv += (B->nx > 0) + B->nin + B->nout;
    }
    if (nv >= INT32_MAX || nparts >= INT32_MAX) {   /* jg_gedge_t's vertex ids, pe_part */
        st = jg_error_set(err, JG_ARG, "%lld vertices, %lld Jacobian parts: the Jacobian graph holds below 2^31 of each",
                          (long long)nv, (long long)nparts);
        goto fail_set;
    }
    g->v = calloc((size_t)nv + 1, sizeof *g->v);
    xv = malloc(sizeof(int32_t) * (size_t)(p->nblocks + 1));
    uv = malloc(sizeof(int32_t) * (size_t)(p->nin_ports + 1));
    yv = malloc(sizeof(int32_t) * (size_t)(p->nout_ports + 1));
    sig_port = malloc(sizeof(int32_t) * (size_t)(p->ny + 1));
    if (!g->v || !xv || !uv || !yv || !sig_port) goto nomem;
    int64_t maxw = 1;
    for (int32_t b = 0; b < p->nblocks; b++) {
        const jg_block_t *B = &p->blocks[b];
        xv[b] = -1;
        if (B->virt) continue;
        if (B->nx > 0) {
            xv[b] = (int32_t)g->nv;
            g->v[g->nv++] = (jg_gvert_t){.kind = JG_V_STATE, .block = b, .port = 0,
                                          .width = B->nx, .off = B->x_off, .alive = 1, .self = -1};
            if (B->nx > maxw) maxw = B->nx;
        }
        for (int k = 0; k < B->nin; k++) {
            int64_t gi = jg__inport(p, b, k);
            uv[gi] = (int32_t)g->nv;
            g->v[g->nv++] = (jg_gvert_t){.kind = JG_V_INPUT, .block = b, .port = k,
                                          .width = B->in_w[k], .off = p->u_off[gi], .alive = 1,
                                          .self = -1, .elig = 1};
            if (B->in_w[k] > maxw) maxw = B->in_w[k];
        }
        /* elig as jg__gvert_eligible says, set here (a pass over the
         * vertices less): inputs, and outputs of blocks without their own
         * self-loop */
        unsigned char oelig = !(B->type->flags & JG_BT_SELFLOOP);
        for (int q = 0; q < B->nout; q++) {
            int64_t go = jg__outport(p, b, q);
            yv[go] = (int32_t)g->nv;
            g->v[g->nv++] = (jg_gvert_t){.kind = JG_V_OUTPUT, .block = b, .port = q,
                                          .width = B->out_w[q], .off = p->y_off[go], .alive = 1,
                                          .self = -1, .elig = oelig};
            for (int64_t e = 0; e < B->out_w[q]; e++) sig_port[p->y_off[go] + e] = (int32_t)go;
            if (B->out_w[q] > maxw) maxw = B->out_w[q];
        }
    }
    int64_t wv0 = g->nv;
    for (int k = 0; k < io->nin; k++) {
        g->v[g->nv++] = (jg_gvert_t){.kind = JG_V_LIN_IN, .block = -1, .port = k,
                                      .width = io->in[k].width, .off = io->in[k].off, .alive = 1,
                                      .self = -1};
        if (io->in[k].width > maxw) maxw = io->in[k].width;
    }
    int64_t zv0 = g->nv;
    for (int k = 0; k < io->nout; k++) {
        g->v[g->nv++] = (jg_gvert_t){.kind = JG_V_LIN_OUT, .block = -1, .port = k,
                                      .width = io->out[k].width, .off = io->out[k].off,
                                      .alive = 1, .self = -1};
        if (io->out[k].width > maxw) maxw = io->out[k].width;
    }
    if (maxw > INT32_MAX) {   /* jg_gvert_t's width; beyond any model's element limit */
        st = jg_error_set(err, JG_ARG, "a signal of %lld elements: too wide for the Jacobian graph",
                          (long long)maxw);
        goto fail_set;
    }
    g->maxw = maxw;
    g->ws = calloc((size_t)maxw + 1, sizeof(double));
    g->ws_mark = malloc(sizeof(int64_t) * (size_t)(maxw + 1));
    sc.colp = malloc(sizeof(int64_t) * (size_t)(maxw + 2));
    if (!g->ws || !g->ws_mark || !sc.colp) goto nomem;
    for (int64_t k = 0; k <= maxw; k++) g->ws_mark[k] = -1;

    /* ---- block Jacobian edges (Fig. 3) */
    g->pe_mat = malloc(sizeof(int32_t) * (size_t)(nparts + 1));
    g->pe_part = malloc(sizeof(int32_t) * (size_t)(nparts + 1));
    if (!g->pe_mat || !g->pe_part) goto nomem;
    int64_t pidx = 0;
    /* original edges: parts, plus at most one connection per source of each
     * destination port; the elimination fill then grows from there */
    if (jg__graph_reserve(g, 2 * (nparts + p->nin_ports + io->nout + 16), 2 * nvals + 64))
        goto nomem;
    for (int32_t b = 0; b < p->nblocks; b++) {
        const jg_block_t *B = &p->blocks[b];
        for (int k = 0; k < B->npart; k++, pidx++) {
            const jg_jac_part_t *pt = &B->part[k];
            if (B->virt || pt->m->p[pt->m->n] == 0) continue;
            int64_t src = -1, dst = -1;
            switch (pt->kind) {
            case JG_JAC_A: src = xv[b]; dst = xv[b]; break;
            case JG_JAC_B: src = uv[jg__inport(p, b, pt->col_port)]; dst = xv[b]; break;
            case JG_JAC_C: src = xv[b]; dst = yv[jg__outport(p, b, pt->row_port)]; break;
            case JG_JAC_D:
                src = uv[jg__inport(p, b, pt->col_port)];
                dst = yv[jg__outport(p, b, pt->row_port)];
                break;
            }
            const int64_t *q = part_pattern(g, &pp, pt->m);
            int64_t mat = q ? jg__gmat_new_pat(g, pt->m->m, pt->m->n, q) : -1;
            if (mat < 0 || jg__gedge_add(g, src, dst, mat) < 0) goto nomem;
            g->pe_mat[g->npartedge] = (int32_t)mat;
            g->pe_part[g->npartedge++] = (int32_t)pidx;
        }
    }
    /* ---- connection edges y -> u and w -> u (M of Fig. 1), y -> z and w -> z */
    for (int32_t b = 0; b < p->nblocks; b++) {
        const jg_block_t *B = &p->blocks[b];
        if (B->virt) continue;
        for (int k = 0; k < B->nin; k++) {
            int64_t gi = jg__inport(p, b, k);
            if ((st = connect_elems(g, io, p->u_off[gi], B->in_w[k], uv[gi], &sc, sig_port, yv,
                                    wv0)))
                goto fail;
        }
    }
    for (int k = 0; k < io->nout; k++)
        if ((st = connect_elems(g, io, p->nu + io->out[k].off, io->out[k].width, zv0 + k, &sc,
                                sig_port, yv, wv0)))
            goto fail;
    g->x_orig = g->nx;
    /* the connection values are counts: a byte each when they fit (an eighth
     * of the copy, 24 MB less at 10^6 blocks), else the doubles */
    int small = 1;
    for (int64_t k = 0; small && k < g->nx; k++) small = g->x[k] == (double)(unsigned char)g->x[k];
    if (small) {
        g->x_init8 = malloc((size_t)g->nx + 1);
        if (!g->x_init8) goto nomem;
        for (int64_t k = 0; k < g->nx; k++) g->x_init8[k] = (unsigned char)g->x[k];
    } else {
        g->x_init = malloc(sizeof(double) * (size_t)(g->nx + 1));
        if (!g->x_init) goto nomem;
        memcpy(g->x_init, g->x, sizeof(double) * (size_t)g->nx);
    }
    g->st.v_before = g->nv;
    g->st.e_before = g->ne;
    g->st.v_after = g->nv;
    g->st.e_after = g->ne;
    goto done;
nomem:
    st = JG_NOMEM;
fail:
    jg_error_set(err, st, "out of memory while building the Jacobian graph");
fail_set:
    jg_graph_free(g);
    g = NULL;
done:
    free(xv);
    free(uv);
    free(yv);
    free(sig_port);
    free(sc.colp);
    free(sc.t);
    free(sc.rowi);
    free(sc.cnt);
    free(pp.t);
    *out = g;
    return st;
}
