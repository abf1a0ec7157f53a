/* Sort the real blocks: strongly connected components (algebraic loops) in dependency order. */
#define _GNU_SOURCE   /* qsort_r */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <igraph.h>
#include "compile_impl.h"

/* Binary min-heap of component ids keyed by their first block. */
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

jg_status_t jg__sort_blocks(jg__cctx_t *c)
{
    jg_program_t *p = c->p;
    jg_status_t st = JG_OK;
    int32_t nr = p->nreal;
    int32_t *real = malloc(sizeof(int32_t) * (size_t)(nr + 1));      /* real index -> block */
    int32_t *ridx = malloc(sizeof(int32_t) * (size_t)(p->nblocks + 1)); /* block -> real index */
    int32_t *sig_blk = malloc(sizeof(int32_t) * (size_t)(p->ny + 1));
    igraph_vector_int_t edges, memb, csize;
    int have_edges = 0, have_memb = 0, have_csize = 0;
    igraph_t g;
    int have_g = 0;
    int32_t *cptr = NULL, *cblk = NULL, *indeg = NULL, *first = NULL, *heap = NULL, *adjp = NULL,
            *adj = NULL;
    unsigned char *selfloop = NULL;
    if (!real || !ridx || !sig_blk) goto nomem;
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
    if (igraph_vector_int_init(&edges, 0)) goto nomem;
    have_edges = 1;
    selfloop = calloc((size_t)nr + 1, 1);
    if (!selfloop) goto nomem;
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
                if (sb == b) selfloop[r] = 1;
                if (igraph_vector_int_push_back(&edges, ridx[sb]) ||
                    igraph_vector_int_push_back(&edges, r))
                    goto nomem;
            }
        }
    }
    if (igraph_create(&g, &edges, nr, IGRAPH_DIRECTED)) goto nomem;
    have_g = 1;
    if (igraph_vector_int_init(&memb, 0)) goto nomem;
    have_memb = 1;
    if (igraph_vector_int_init(&csize, 0)) goto nomem;
    have_csize = 1;
    igraph_integer_t ncomp = 0;
    if (igraph_connected_components(&g, &memb, &csize, &ncomp, IGRAPH_STRONG)) goto nomem;
    int32_t nc = (int32_t)ncomp;
    /* members of each component, in block order */
    cptr = calloc((size_t)nc + 1, sizeof(int32_t));
    cblk = malloc(sizeof(int32_t) * (size_t)(nr + 1));
    first = malloc(sizeof(int32_t) * (size_t)(nc + 1));
    indeg = calloc((size_t)nc + 1, sizeof(int32_t));
    heap = malloc(sizeof(int32_t) * (size_t)(nc + 1));
    adjp = calloc((size_t)nc + 2, sizeof(int32_t));
    if (!cptr || !cblk || !first || !indeg || !heap || !adjp) goto nomem;
    for (int32_t r = 0; r < nr; r++) cptr[VECTOR(memb)[r] + 1]++;
    for (int32_t q = 0; q < nc; q++) cptr[q + 1] += cptr[q];
    {
        int32_t *fill = malloc(sizeof(int32_t) * (size_t)(nc + 1));
        if (!fill) goto nomem;
        memcpy(fill, cptr, sizeof(int32_t) * (size_t)(nc + 1));
        for (int32_t r = 0; r < nr; r++) cblk[fill[VECTOR(memb)[r]]++] = r;
        free(fill);
    }
    for (int32_t q = 0; q < nc; q++) first[q] = cblk[cptr[q]];
    /* block priorities (as in Simulink: lower runs first, honoured where the data
     * dependencies allow): among the components ready to run, the heap takes
     * the one of least priority, then the one first in the file */
    int have_prio = 0;
    for (int32_t r = 0; r < nr; r++) have_prio |= p->blocks[real[r]].priority != 0;
    if (have_prio && nc > 0) {
        uint64_t *order = malloc(sizeof(uint64_t) * (size_t)nc);
        if (!order) goto nomem;
        for (int32_t q = 0; q < nc; q++) {
            int prio = INT32_MAX;
            for (int32_t j = cptr[q]; j < cptr[q + 1]; j++)
                if (p->blocks[real[cblk[j]]].priority < prio) prio = p->blocks[real[cblk[j]]].priority;
            /* sort key: priority (offset to be non-negative), then first block, then q */
            order[q] = ((uint64_t)((uint32_t)prio ^ 0x80000000u) << 32) | (uint32_t)first[q];
        }
        int32_t *idx = malloc(sizeof(int32_t) * (size_t)nc);
        if (!idx) {
            free(order);
            goto nomem;
        }
        for (int32_t q = 0; q < nc; q++) idx[q] = q;
        /* insertion sort would be quadratic on large models: sort the keys */
        qsort_r(idx, (size_t)nc, sizeof(int32_t), cmp_key, order);
        for (int32_t k = 0; k < nc; k++) first[idx[k]] = k;
        free(idx);
        free(order);
    }
    /* condensation edges (with duplicates; Kahn's algorithm does not mind) */
    igraph_integer_t ne = igraph_vector_int_size(&edges) / 2;
    for (igraph_integer_t e = 0; e < ne; e++) {
        int32_t a = VECTOR(memb)[VECTOR(edges)[2 * e]], b = VECTOR(memb)[VECTOR(edges)[2 * e + 1]];
        if (a != b) adjp[a + 1]++;
    }
    for (int32_t q = 0; q < nc; q++) adjp[q + 1] += adjp[q];
    adj = malloc(sizeof(int32_t) * (size_t)(adjp[nc] + 1));
    if (!adj) goto nomem;
    {
        int32_t *fill = malloc(sizeof(int32_t) * (size_t)(nc + 1));
        if (!fill) goto nomem;
        memcpy(fill, adjp, sizeof(int32_t) * (size_t)(nc + 1));
        for (igraph_integer_t e = 0; e < ne; e++) {
            int32_t a = VECTOR(memb)[VECTOR(edges)[2 * e]],
                    b = VECTOR(memb)[VECTOR(edges)[2 * e + 1]];
            if (a != b) {
                adj[fill[a]++] = b;
                indeg[b]++;
            }
        }
        free(fill);
    }
    p->sorted = jg_arena_alloc(&p->arena, sizeof(int32_t) * (size_t)(nr + 1));
    p->blk_loop = jg_arena_alloc(&p->arena, sizeof(int32_t) * (size_t)(p->nblocks + 1));
    if (!p->sorted || !p->blk_loop) goto nomem;
    for (int32_t b = 0; b < p->nblocks; b++) p->blk_loop[b] = -1;
    int32_t nh = 0, ns = 0, nloops = 0, nloopblk = 0;
    for (int32_t q = 0; q < nc; q++) {
        int32_t sz = cptr[q + 1] - cptr[q];
        if (sz > 1 || selfloop[cblk[cptr[q]]]) {
            nloops++;
            nloopblk += sz;
        }
        if (!indeg[q]) heap_push(heap, &nh, q, first);
    }
    p->loop_ptr = jg_arena_alloc(&p->arena, sizeof(int32_t) * (size_t)(nloops + 1));
    p->loop_blk = jg_arena_alloc(&p->arena, sizeof(int32_t) * (size_t)(nloopblk + 1));
    p->loop_names = jg_arena_alloc(&p->arena, sizeof(char *) * (size_t)(nloops + 1));
    if (!p->loop_ptr || !p->loop_blk || !p->loop_names) goto nomem;
    p->loop_ptr[0] = 0;
    while (nh > 0) {
        int32_t q = heap_pop(heap, &nh, first);
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
        for (int32_t a = adjp[q]; a < adjp[q + 1]; a++)
            if (--indeg[adj[a]] == 0) heap_push(heap, &nh, adj[a], first);
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
    if (have_g) igraph_destroy(&g);
    if (have_edges) igraph_vector_int_destroy(&edges);
    if (have_memb) igraph_vector_int_destroy(&memb);
    if (have_csize) igraph_vector_int_destroy(&csize);
    free(real);
    free(ridx);
    free(sig_blk);
    free(selfloop);
    free(cptr);
    free(cblk);
    free(first);
    free(indeg);
    free(heap);
    free(adjp);
    free(adj);
    return st;
}
