/* Sort the real blocks: strongly connected components (algebraic loops) in dependency order. */
#define _GNU_SOURCE   /* qsort_r */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <igraph.h>
#include "compile_impl.h"

/* Binary min-heap of component ids keyed by their rank. */
static void heap_push(int32_t *h, int32_t *n, int32_t v, const int32_t *key)
{
    int32_t i = (*n)++;
    h[i] = v;
    while (i > 0 && key[h[(i - 1) / 2]] > key[h[i]]) {
        int32_t t = h[i];
        h[i] = h[(i - 1) / 2];
        h[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

static int32_t heap_pop(int32_t *h, int32_t *n, const int32_t *key)
{
    int32_t top = h[0];
    h[0] = h[--(*n)];
    for (int32_t i = 0;;) {
        int32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < *n && key[h[l]] < key[h[m]]) m = l;
        if (r < *n && key[h[r]] < key[h[m]]) m = r;
        if (m == i) break;
        int32_t t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
    return top;
}

static int cmp_key(const void *a, const void *b, void *ctx)
{
    const uint64_t *key = ctx;
    uint64_t ka = key[*(const int32_t *)a], kb = key[*(const int32_t *)b];
    return ka < kb ? -1 : ka > kb;
}

/* The feedthrough edges between real blocks (real indices), pairs (from, to). */
typedef struct {
    int32_t *e;
    int64_t n, cap;   /* pairs */
} edges_t;

static int edge_add(edges_t *E, int32_t a, int32_t b)
{
    if (E->n == E->cap) {
        int64_t cap = E->cap ? 2 * E->cap : 1024;
        int32_t *e = realloc(E->e, sizeof *e * 2 * (size_t)cap);
        if (!e) return -1;
        E->e = e;
        E->cap = cap;
    }
    E->e[2 * E->n] = a;
    E->e[2 * E->n + 1] = b;
    E->n++;
    return 0;
}

/* The strongly connected components of the nr real blocks (igraph):
 * memb[r] and *nc.  -1: out of memory. */
static int scc_igraph(const edges_t *E, int32_t nr, int32_t *memb, int32_t *nc)
{
    igraph_vector_int_t edges, vm, csize;
    igraph_t g;
    int rc = -1, have_g = 0, have_m = 0, have_c = 0;
    if (igraph_vector_int_init(&edges, 2 * E->n)) return -1;
    for (int64_t k = 0; k < 2 * E->n; k++) VECTOR(edges)[k] = E->e[k];
    if (igraph_create(&g, &edges, nr, IGRAPH_DIRECTED)) goto done;
    have_g = 1;
    if (igraph_vector_int_init(&vm, 0)) goto done;
    have_m = 1;
    if (igraph_vector_int_init(&csize, 0)) goto done;
    have_c = 1;
    igraph_integer_t ncomp = 0;
    if (igraph_connected_components(&g, &vm, &csize, &ncomp, IGRAPH_STRONG)) goto done;
    for (int32_t r = 0; r < nr; r++) memb[r] = (int32_t)VECTOR(vm)[r];
    *nc = (int32_t)ncomp;
    rc = 0;
done:
    if (have_g) igraph_destroy(&g);
    if (have_m) igraph_vector_int_destroy(&vm);
    if (have_c) igraph_vector_int_destroy(&csize);
    igraph_vector_int_destroy(&edges);
    return rc;
}

/* The components memb[0..nr) (nc of them) in execution order: out[0..nc),
 * Kahn's algorithm on the condensation where, among the components ready to
 * run, the one of least rank goes first (rank: priority, then first block).
 * Ranks are a permutation of 0..nc-1: a scan in rank order finds the next
 * ready component, and only the components that become ready after the
 * scan passed them wait in a heap (in a model wired in file order, few).
 * Returns the number of components placed: fewer than nc when the
 * components given are not those of a graph without cycles.  -1: out of
 * memory. */
static int32_t kahn(const edges_t *E, const int32_t *memb, int32_t nc, const int32_t *rank,
                    int32_t *out)
{
    int32_t *adjp = calloc((size_t)nc + 2, sizeof *adjp), *adj = NULL, *indeg = NULL, *heap = NULL,
            *byrank = NULL;
    int32_t placed = -1;
    if (!adjp) goto done;
    for (int64_t e = 0; e < E->n; e++) {
        int32_t a = memb[E->e[2 * e]], b = memb[E->e[2 * e + 1]];
        if (a != b) adjp[a + 1]++;
    }
    for (int32_t q = 0; q < nc; q++) adjp[q + 1] += adjp[q];
    adj = malloc(sizeof *adj * (size_t)(adjp[nc] + 1));
    indeg = calloc((size_t)nc + 1, sizeof *indeg);
    heap = malloc(sizeof *heap * (size_t)(nc + 1));
    byrank = malloc(sizeof *byrank * (size_t)(nc + 1));
    if (!adj || !indeg || !heap || !byrank) goto done;
    /* condensation edges (with duplicates; Kahn's algorithm does not mind),
     * adjp[a] used as the fill position of a's list */
    for (int64_t e = 0; e < E->n; e++) {
        int32_t a = memb[E->e[2 * e]], b = memb[E->e[2 * e + 1]];
        if (a != b) {
            adj[adjp[a]++] = b;
            indeg[b]++;
        }
    }
    /* each fill ended at the next list's start: shift back */
    for (int32_t q = nc; q > 0; q--) adjp[q] = adjp[q - 1];
    adjp[0] = 0;
    for (int32_t q = 0; q < nc; q++) byrank[rank[q]] = q;
    int32_t nh = 0, cursor = 0;   /* ranks below cursor were passed by the scan */
    placed = 0;
    for (;;) {
        while (cursor < nc && indeg[byrank[cursor]] != 0) cursor++;   /* not ready: passed */
        int32_t q;
        if (nh > 0 && (cursor == nc || rank[heap[0]] < cursor)) q = heap_pop(heap, &nh, rank);
        else if (cursor < nc) q = byrank[cursor++];
        else break;
        out[placed++] = q;
        indeg[q] = -1;   /* placed */
        for (int32_t a = adjp[q]; a < adjp[q + 1]; a++)
            if (--indeg[adj[a]] == 0 && rank[adj[a]] < cursor) heap_push(heap, &nh, adj[a], rank);
    }
done:
    free(adjp);
    free(adj);
    free(indeg);
    free(heap);
    free(byrank);
    return placed;
}

jg_status_t jg__sort_blocks(jg__cctx_t *c)
{
    jg_program_t *p = c->p;
    jg_status_t st = JG_OK;
    int32_t nr = p->nreal;
    int32_t *real = malloc(sizeof(int32_t) * (size_t)(nr + 1));      /* real index -> block */
    int32_t *ridx = malloc(sizeof(int32_t) * (size_t)(p->nblocks + 1)); /* block -> real index */
    int32_t *sig_blk = malloc(sizeof(int32_t) * (size_t)(p->ny + 1));
    int32_t *memb = malloc(sizeof(int32_t) * (size_t)(nr + 1));
    int32_t *cptr = NULL, *cblk = NULL, *rank = NULL, *order = NULL;
    unsigned char *selfloop = NULL;
    edges_t E = {0};
    if (!real || !ridx || !sig_blk || !memb) goto nomem;
    int32_t k = 0;
    for (int32_t b = 0; b < p->nblocks; b++) {
        ridx[b] = -1;
        if (p->blocks[b].virt) continue;
        ridx[b] = k;
        real[k++] = b;
        for (int q = 0; q < p->blocks[b].nout; q++) {
            int64_t o = p->y_off[jg__outport(p, b, q)];
            for (int64_t e = 0; e < p->blocks[b].out_w[q]; e++) sig_blk[o + e] = b;
        }
    }
    selfloop = calloc((size_t)nr + 1, 1);
    if (!selfloop) goto nomem;
    int any_selfloop = 0;
    for (int32_t r = 0; r < nr; r++) {
        int32_t b = real[r];
        const jg_block_t *B = &p->blocks[b];
        for (int q = 0; q < B->nin; q++) {
            int64_t gi = jg__inport(p, b, q);
            if (!p->feedthrough[gi]) continue;
            int32_t last = -1;
            for (int64_t e = 0; e < B->in_w[q]; e++) {
                int64_t src = p->u_src[p->u_off[gi] + e];
                if (src < 0) continue;
                int32_t sb = sig_blk[src];
                if (sb == last) continue;   /* consecutive elements mostly share a source */
                last = sb;
                if (sb == b) selfloop[r] = any_selfloop = 1;
                if (edge_add(&E, ridx[sb], r)) goto nomem;
            }
        }
    }
    cptr = malloc(sizeof(int32_t) * ((size_t)nr + 2));
    cblk = malloc(sizeof(int32_t) * (size_t)(nr + 1));
    rank = malloc(sizeof(int32_t) * (size_t)(nr + 1));
    order = malloc(sizeof(int32_t) * (size_t)(nr + 1));
    if (!cptr || !cblk || !rank || !order) goto nomem;
    int have_prio = 0;
    for (int32_t r = 0; r < nr; r++) have_prio |= p->blocks[real[r]].priority != 0;
    /* A model without algebraic loops has one block per component: try that
     * first, as the components igraph would find; only when Kahn's algorithm
     * then stalls on a cycle are the components computed.  The order and the
     * loops do not depend on how the components are numbered. */
    int32_t nc = 0, placed = 0;
    for (int attempt = any_selfloop ? 1 : 0; attempt < 2; attempt++) {
        if (attempt == 0) {
            for (int32_t r = 0; r < nr; r++) memb[r] = r;
            nc = nr;
        } else if (scc_igraph(&E, nr, memb, &nc)) {
            goto nomem;
        }
        /* members of each component, in block order */
        memset(cptr, 0, sizeof(int32_t) * ((size_t)nc + 2));
        for (int32_t r = 0; r < nr; r++) cptr[memb[r] + 2]++;
        for (int32_t q = 0; q < nc; q++) cptr[q + 2] += cptr[q + 1];
        for (int32_t r = 0; r < nr; r++) cblk[cptr[memb[r] + 1]++] = r;   /* cptr[q + 1]: fill of q */
        /* rank: the first block, or (as in Simulink: lower runs first,
         * honoured where the data dependencies allow) the least priority
         * among the members, then the first block */
        for (int32_t q = 0; q < nc; q++) rank[q] = q;
        if (nc > 0) {
            uint64_t *key = malloc(sizeof(uint64_t) * (size_t)nc);
            if (!key) goto nomem;
            for (int32_t q = 0; q < nc; q++) {
                int prio = INT32_MAX;
                if (have_prio)
                    for (int32_t j = cptr[q]; j < cptr[q + 1]; j++)
                        if (p->blocks[real[cblk[j]]].priority < prio) prio = p->blocks[real[cblk[j]]].priority;
                key[q] = (have_prio ? (uint64_t)((uint32_t)prio ^ 0x80000000u) << 32 : 0) |
                         (uint32_t)cblk[cptr[q]];
                order[q] = q;
            }
            /* identity components without priorities are in rank order already */
            if (attempt || have_prio) qsort_r(order, (size_t)nc, sizeof(int32_t), cmp_key, key);
            for (int32_t j = 0; j < nc; j++) rank[order[j]] = j;
            free(key);
        }
        if ((placed = kahn(&E, memb, nc, rank, order)) < 0) goto nomem;
        if (placed == nc) break;
        if (attempt == 1) {
            st = jg_error_set(c->err, JG_INTERNAL, "sorted %d of %d components", placed, nc);
            goto done;
        }
    }
    p->sorted = jg_arena_alloc(&p->arena, sizeof(int32_t) * (size_t)(nr + 1));
    p->blk_loop = jg_arena_alloc(&p->arena, sizeof(int32_t) * (size_t)(p->nblocks + 1));
    if (!p->sorted || !p->blk_loop) goto nomem;
    for (int32_t b = 0; b < p->nblocks; b++) p->blk_loop[b] = -1;
    int32_t ns = 0, nloops = 0, nloopblk = 0;
    for (int32_t q = 0; q < nc; q++) {
        int32_t sz = cptr[q + 1] - cptr[q];
        if (sz > 1 || selfloop[cblk[cptr[q]]]) {
            nloops++;
            nloopblk += sz;
        }
    }
    p->loop_ptr = jg_arena_alloc(&p->arena, sizeof(int32_t) * (size_t)(nloops + 1));
    p->loop_blk = jg_arena_alloc(&p->arena, sizeof(int32_t) * (size_t)(nloopblk + 1));
    p->loop_names = jg_arena_alloc(&p->arena, sizeof(char *) * (size_t)(nloops + 1));
    if (!p->loop_ptr || !p->loop_blk || !p->loop_names) goto nomem;
    p->loop_ptr[0] = 0;
    for (int32_t j = 0; j < nc; j++) {
        int32_t q = order[j];
        int32_t sz = cptr[q + 1] - cptr[q];
        int is_loop = sz > 1 || selfloop[cblk[cptr[q]]];
        for (int32_t m = cptr[q]; m < cptr[q + 1]; m++) {
            int32_t b = real[cblk[m]];
            p->sorted[ns++] = b;
            if (is_loop) {
                p->blk_loop[b] = p->nloops;
                p->loop_blk[p->loop_ptr[p->nloops] + (m - cptr[q])] = b;
            }
        }
        if (is_loop) {
            p->nloops++;
            p->loop_ptr[p->nloops] = p->loop_ptr[p->nloops - 1] + sz;
        }
    }
    p->nsorted = ns;
    if (ns != nr) {
        st = jg_error_set(c->err, JG_INTERNAL, "sorted %d of %d blocks", ns, nr);
        goto done;
    }
    for (int l = 0; l < p->nloops; l++) {   /* "A, B, C" for messages */
        size_t len = 1;
        for (int32_t m = p->loop_ptr[l]; m < p->loop_ptr[l + 1]; m++)
            len += strlen(p->blocks[p->loop_blk[m]].path) + 2;
        char *s = jg_arena_alloc(&p->arena, len);
        if (!s) goto nomem;
        for (int32_t m = p->loop_ptr[l]; m < p->loop_ptr[l + 1]; m++) {
            if (m > p->loop_ptr[l]) strcat(s, ", ");
            strcat(s, p->blocks[p->loop_blk[m]].path);
        }
        p->loop_names[l] = s;
    }
    goto done;
nomem:
    st = jg_error_set(c->err, JG_NOMEM, "out of memory while sorting blocks");
done:
    free(E.e);
    free(real);
    free(ridx);
    free(sig_blk);
    free(memb);
    free(selfloop);
    free(cptr);
    free(cblk);
    free(rank);
    free(order);
    return st;
}
