/* A lower bound of the FMA that eliminating the rest of a pattern graph costs,
 * in any order: the heuristic of the fewest-FMA branch and bound (exact:bb).
 *
 * The argument works on the scalar graph: node (v, k) for component k of
 * vertex v, an arc (u, c) -> (v, k) for every entry K_{u->v}(k, c).  The
 * products of eliminating v are, by the definition of phi, one FMA per
 * "triple" (u, c) -> (v, k) -> (t, r) made of an entry of K^_e (e: u -> v)
 * and one of K_f (f: v -> t), unless e or f is a connection identity (e only
 * when v has no self-loop).  Distinct triples are distinct FMA, and a triple
 * is charged to its middle node (v, k).  Three facts about the future hold
 * whatever the order:
 *   (a) An edge between two vertices that stay until the end of the
 *       elimination of one of them keeps existing and its pattern only grows
 *       (the edge after a set S is the union over the paths through S).  An
 *       edge that is not an identity never becomes one; a self-loop never
 *       goes, and a non-diagonal one stays non-diagonal.  A vertex the model
 *       refuses now (a dense pivot wider than JG__GRAPH_DENSE_PIVOT_MAX) is
 *       refused for good: it stays, like the fixed vertices.
 *   (b) An edge into v from an eliminable p is, once p is gone, replaced by
 *       the products through p's predecessors: the entry (p, c) -> (v, k)
 *       becomes entries (q, c') -> (v, k) for the scalar paths into (p, c).
 *       So if (p, c) is reachable from a node that stays (a fixed node), some
 *       entry into (v, k) remains when v is eliminated, and it carries the
 *       path through p -> v: an identity only if every edge of that path is
 *       one (identities compose only with identities; a sum is none).
 *   (c) An identity edge at any time stands for exactly one path of the
 *       graph it was made from, all of whose edges are identities.
 * Per node (v, k): by (a) the entries from fixed vertices on non-identity
 * edges (any edge when v has a self-loop now) stay, Fin of them; by (b) one
 * more such entry is certain (Rin = 1) when one of its in-arcs is not an
 * identity and starts at a node reachable from a fixed one (should that path
 * come back through another component of v, the entry reaches row k through
 * the self-loop it makes, S dense: still row k).  Out-arcs alike (Fout, Rout;
 * an identity out-edge is free even with a self-loop), except that a path
 * out of (v, k) that comes back to v would leave it from another component,
 * another middle node: Rout is 0 on a vertex of a cycle of vertices that may
 * be eliminated.  So
 * eliminating v costs at least max(Fin, Rin) * max(Fout, Rout) triples with
 * middle (v, k), and, when v has a self-loop now, inv (w^3 when it is not
 * diagonal, w when it is) and scale over the same certain entries.
 *
 * Most eliminations of block diagrams are free by these counts (a block
 * input fed by a connection identity), and the cost is in chains: a path
 * In -> G1 -> G2 -> Out costs one FMA whatever the order, while every vertex
 * on it can be eliminated for free.  So, on the nodes the count above
 * charges nothing, a packing of out-trees: each tree is rooted at a fixed
 * node, its leaves are fixed nodes (distinct within the tree), its inner
 * nodes belong to no other tree, and every root-to-leaf path visits each
 * vertex at most once (the paths only cross between strongly connected
 * components of the eliminable vertices).  Call an arc of a tree heavy when
 * it is not an identity, and contract the tree as its inner nodes are
 * eliminated: each contracted arc carries a segment, heavy when the segment
 * holds a heavy arc, and then, by (c), carried by a non-identity edge.  Let
 * P be the number of heavy contracted arcs.  Eliminating inner node z (parent
 * arc a -> z, child arcs z -> b_i, of which h heavy and l light) replaces
 * them by a -> b_i (no two coincide: it is a tree).  If a -> z is heavy, the
 * h triples (a, z, b_i) with z -> b_i heavy cost one FMA each, and P changes
 * by l - 1 >= -h (l = 0 means h >= 1); if it is light, P does not change.
 * So every step costs at least the drop of P, and the tree costs at least
 * P at the start (its heavy arcs) minus P at the end (at most its leaves).
 * Built greedily as branches: a branch from a node already in the tree (or
 * the root) to a new leaf through new inner nodes adds its H heavy arcs and
 * one leaf, H - 1; only branches with H >= 2 are added.  In-trees (a fixed
 * root fed from fixed leaves) are the same argument on the reversed graph;
 * out-trees then in-trees on the nodes left, and the other way round, the
 * larger is kept.  Triples of different trees, and of tree nodes and charged
 * nodes, have different middle nodes, so all the terms add.
 *
 * Refused vertices count as fixed (a); an eliminable vertex wider than
 * JG__GRAPH_DENSE_PIVOT_MAX that the model accepts now may be refused later
 * and then cost nothing: it is charged nothing and no tree enters it. */
#include <stdlib.h>
#include <string.h>
#include "strat_exact.h"

/* The packing stops after this many passes of its dynamic program (each
 * O(nodes + arcs)); what it packed so far is a valid bound. */
#define JG__FBOUND_PASSES 512

enum { V_NONE, V_FIX, V_ELIM, V_BLOCK };

struct jg_fbound {
    int64_t nv, nnode;
    int64_t *base;            /* per vertex: its first node, -1 when never in the graph */
    int32_t *vert;            /* per node: its vertex */
    /* the scalar graph of the current pattern graph, both directions; heavy:
     * the arc is not an identity */
    int64_t *op, *ip, *oadj, *iadj;
    unsigned char *oheavy, *iheavy;
    int64_t capadj;
    /* per node */
    unsigned char *reachf, *reachb, *avail;
    int64_t *stack, *hbest, *hlen, *hnext, *tree, *leaf, *tnodes;
    /* per vertex */
    unsigned char *cls, *self;    /* self: 0 none, 1 diagonal, 2 dense */
    int64_t *lscale, *vp, *vadj, *scc, *tidx, *tlow, *tstk, *cstk, *vorder, *varc;
    int64_t capvadj;
    unsigned char *onstk, *cyc;
};

void jg__fbound_free(jg_fbound_t *b)
{
    if (!b) return;
    free(b->base);
    free(b->vert);
    free(b->op);
    free(b->ip);
    free(b->oadj);
    free(b->iadj);
    free(b->oheavy);
    free(b->iheavy);
    free(b->reachf);
    free(b->reachb);
    free(b->avail);
    free(b->stack);
    free(b->hbest);
    free(b->hlen);
    free(b->hnext);
    free(b->tree);
    free(b->leaf);
    free(b->tnodes);
    free(b->cls);
    free(b->self);
    free(b->lscale);
    free(b->vp);
    free(b->vadj);
    free(b->scc);
    free(b->tidx);
    free(b->tlow);
    free(b->tstk);
    free(b->cstk);
    free(b->vorder);
    free(b->onstk);
    free(b->varc);
    free(b->cyc);
    free(b);
}

jg_fbound_t *jg__fbound_new(const jg_pshape_t *sh, const jg_pg_t *root)
{
    jg_fbound_t *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    int64_t nv = sh->nv;
    b->nv = nv;
    b->base = malloc(sizeof(int64_t) * (size_t)(nv + 1));
    if (!b->base) goto fail;
    for (int64_t v = 0; v < nv; v++) b->base[v] = -1;
    /* the vertices with an edge now are the only ones that ever have one:
     * an elimination joins neighbors of the vertex it removes */
    for (int64_t k = 0; k < root->ne; k++) b->base[root->e[k].src] = b->base[root->e[k].dst] = 0;
    int64_t nn = 0;
    for (int64_t v = 0; v < nv; v++)
        if (b->base[v] >= 0) {
            b->base[v] = nn;
            nn += sh->width[v];
        }
    b->nnode = nn;
    size_t N = (size_t)nn + 1, V = (size_t)nv + 1;
    b->vert = malloc(sizeof(int32_t) * N);
    b->op = malloc(sizeof(int64_t) * (N + 1));
    b->ip = malloc(sizeof(int64_t) * (N + 1));
    b->reachf = malloc(N);
    b->reachb = malloc(N);
    b->avail = malloc(N);
    b->stack = malloc(sizeof(int64_t) * N);
    b->hbest = malloc(sizeof(int64_t) * N);
    b->hlen = malloc(sizeof(int64_t) * N);
    b->hnext = malloc(sizeof(int64_t) * N);
    b->tree = malloc(sizeof(int64_t) * N);
    b->leaf = malloc(sizeof(int64_t) * N);
    b->tnodes = malloc(sizeof(int64_t) * N);
    b->cls = malloc(V);
    b->self = malloc(V);
    b->onstk = malloc(V);
    b->lscale = malloc(sizeof(int64_t) * V);
    b->vp = malloc(sizeof(int64_t) * (V + 1));
    b->scc = malloc(sizeof(int64_t) * V);
    b->tidx = malloc(sizeof(int64_t) * V);
    b->tlow = malloc(sizeof(int64_t) * V);
    b->tstk = malloc(sizeof(int64_t) * V);
    b->cstk = malloc(sizeof(int64_t) * V);
    b->vorder = malloc(sizeof(int64_t) * V);
    b->varc = malloc(sizeof(int64_t) * V);
    b->cyc = malloc(V);
    if (!b->vert || !b->op || !b->ip || !b->reachf || !b->reachb || !b->avail || !b->stack || !b->hbest ||
        !b->hlen || !b->hnext || !b->tree || !b->leaf || !b->tnodes || !b->cls || !b->self || !b->onstk ||
        !b->lscale || !b->vp || !b->scc || !b->tidx || !b->tlow || !b->tstk || !b->cstk || !b->vorder || !b->varc || !b->cyc)
        goto fail;
    for (int64_t v = 0; v < nv; v++)
        if (b->base[v] >= 0)
            for (int32_t k = 0; k < sh->width[v]; k++) b->vert[b->base[v] + k] = (int32_t)v;
    return b;
fail:
    jg__fbound_free(b);
    return NULL;
}

/* The scalar graph of pg into b (arcs of self-loops left out). */
static int scalar_graph(jg_fbound_t *b, const jg_pg_t *pg)
{
    int64_t nn = b->nnode, na = 0;
    for (int64_t k = 0; k < pg->ne; k++)
        if (pg->e[k].src != pg->e[k].dst) na += pg->e[k].nnz;
    if (na + 1 > b->capadj) {
        int64_t c = b->capadj;
        if (JG__PGROW(b->oadj, c, na + 1)) return -1;
        c = b->capadj;
        if (JG__PGROW(b->iadj, c, na + 1)) return -1;
        c = b->capadj;
        if (JG__PGROW(b->oheavy, c, na + 1)) return -1;
        c = b->capadj;
        if (JG__PGROW(b->iheavy, c, na + 1)) return -1;
        b->capadj = c;
    }
    memset(b->op, 0, sizeof(int64_t) * (size_t)(nn + 2));
    memset(b->ip, 0, sizeof(int64_t) * (size_t)(nn + 2));
    for (int64_t k = 0; k < pg->ne; k++) {
        const jg_pedge_t *E = &pg->e[k];
        if (E->src == E->dst) continue;
        const int32_t *p = pg->pool + E->off, *i = p + E->n + 1;
        for (int32_t j = 0; j < E->n; j++)
            for (int32_t q = p[j]; q < p[j + 1]; q++) {
                b->op[b->base[E->src] + j + 2]++;
                b->ip[b->base[E->dst] + i[q] + 2]++;
            }
    }
    for (int64_t z = 0; z < nn; z++) {
        b->op[z + 2] += b->op[z + 1];
        b->ip[z + 2] += b->ip[z + 1];
    }
    for (int64_t k = 0; k < pg->ne; k++) {
        const jg_pedge_t *E = &pg->e[k];
        if (E->src == E->dst) continue;
        const int32_t *p = pg->pool + E->off, *i = p + E->n + 1;
        for (int32_t j = 0; j < E->n; j++)
            for (int32_t q = p[j]; q < p[j + 1]; q++) {
                int64_t s = b->base[E->src] + j, d = b->base[E->dst] + i[q];
                int64_t a = b->op[s + 1]++, c = b->ip[d + 1]++;
                b->oadj[a] = d;
                b->oheavy[a] = !E->ident;
                b->iadj[c] = s;
                b->iheavy[c] = !E->ident;
            }
    }
    return 0;
}

/* Mark in reach every node reachable from a fixed node along adj. */
static void reach(jg_fbound_t *b, const int64_t *p, const int64_t *adj, unsigned char *reach)
{
    int64_t ns = 0;
    for (int64_t z = 0; z < b->nnode; z++) {
        reach[z] = b->cls[b->vert[z]] == V_FIX;
        if (reach[z]) b->stack[ns++] = z;
    }
    while (ns > 0) {
        int64_t z = b->stack[--ns];
        for (int64_t a = p[z]; a < p[z + 1]; a++)
            if (!reach[adj[a]]) {
                reach[adj[a]] = 1;
                b->stack[ns++] = adj[a];
            }
    }
}

/* A vertex that may be eliminated (V_ELIM, V_BLOCK). */
static int movable(const jg_fbound_t *b, int64_t v) { return b->cls[v] == V_ELIM || b->cls[v] == V_BLOCK; }

/* Strongly connected components of the vertex graph of the vertices that may
 * be eliminated (Tarjan, iteratively): b->scc numbered sinks first (an edge
 * between two components goes from a higher number to a lower), b->vorder
 * those vertices in that numbering, b->cyc 1 for a vertex of a component of
 * two or more.  Returns their number, -1 out of memory. */
static int64_t components(jg_fbound_t *b, const jg_pg_t *pg)
{
    int64_t nv = b->nv, nvo = 0;
    memset(b->vp, 0, sizeof(int64_t) * (size_t)(nv + 2));
    for (int64_t k = 0; k < pg->ne; k++) {
        const jg_pedge_t *E = &pg->e[k];
        if (E->src != E->dst && movable(b, E->src) && movable(b, E->dst)) b->vp[E->src + 2]++;
    }
    for (int64_t v = 0; v < nv; v++) b->vp[v + 2] += b->vp[v + 1];
    if (JG__PGROW(b->vadj, b->capvadj, b->vp[nv + 1] + 1)) return -1;
    for (int64_t k = 0; k < pg->ne; k++) {
        const jg_pedge_t *E = &pg->e[k];
        if (E->src != E->dst && movable(b, E->src) && movable(b, E->dst))
            b->vadj[b->vp[E->src + 1]++] = E->dst;
    }
    int64_t idx = 0, nscc = 0;
    for (int64_t v = 0; v < nv; v++) {
        b->tidx[v] = -1;
        b->onstk[v] = 0;
    }
    for (int64_t r = 0; r < nv; r++) {
        if (!movable(b, r) || b->tidx[r] >= 0) continue;
        /* cstk: the DFS path (vertex, next arc in tstk), tstk also the Tarjan stack */
        int64_t nc = 0, nt = 0;
        int64_t *arc = b->varc;
        b->cstk[nc++] = r;
        arc[r] = b->vp[r];
        b->tidx[r] = b->tlow[r] = idx++;
        b->tstk[nt++] = r;
        b->onstk[r] = 1;
        while (nc > 0) {
            int64_t v = b->cstk[nc - 1];
            if (arc[v] < b->vp[v + 1]) {
                int64_t w = b->vadj[arc[v]++];
                if (b->tidx[w] < 0) {
                    b->tidx[w] = b->tlow[w] = idx++;
                    b->tstk[nt++] = w;
                    b->onstk[w] = 1;
                    arc[w] = b->vp[w];
                    b->cstk[nc++] = w;
                } else if (b->onstk[w] && b->tidx[w] < b->tlow[v]) {
                    b->tlow[v] = b->tidx[w];
                }
                continue;
            }
            nc--;
            if (nc > 0 && b->tlow[v] < b->tlow[b->cstk[nc - 1]]) b->tlow[b->cstk[nc - 1]] = b->tlow[v];
            if (b->tlow[v] == b->tidx[v]) {
                int64_t w;
                int64_t first = nvo;
                do {
                    w = b->tstk[--nt];
                    b->onstk[w] = 0;
                    b->scc[w] = nscc;
                    b->vorder[nvo++] = w;
                } while (w != v);
                for (int64_t q = first; q < nvo; q++) b->cyc[b->vorder[q]] = nvo - first > 1;
                nscc++;
            }
        }
    }
    return nvo;
}

/* The dynamic program of the packing along the arcs p, adj, heavy (rev: in
 * their order reversed), for tree tid (-2: a tree without leaves yet). */
static void dp_pass(jg_fbound_t *b, const jg_pshape_t *sh, int64_t nvo, const int64_t *p, const int64_t *adj,
                    const unsigned char *heavy, int rev, int64_t tid)
{
    /* hbest[z]: most heavy arcs on a path from available z to a leaf tree
     * tid has not used, across components (components are numbered sinks
     * first: out-arcs between them go down, in-arcs up); -1: none */
    for (int64_t q0 = 0; q0 < nvo; q0++) {
        int64_t v = b->vorder[rev ? nvo - 1 - q0 : q0];
        if (b->cls[v] != V_ELIM) continue;
        for (int64_t z = b->base[v]; z < b->base[v] + sh->width[v]; z++) {
            int64_t hb = -1, hl = 0, hn = -1;
            if (b->avail[z] && b->tree[z] < 0)
                for (int64_t a = p[z]; a < p[z + 1]; a++) {
                    int64_t y = adj[a], h, l;
                    if (b->cls[b->vert[y]] == V_FIX) {
                        if (b->leaf[y] == tid) continue;
                        h = heavy[a];
                        l = 1;
                    } else if (b->avail[y] && b->tree[y] < 0 && b->hbest[y] >= 0 &&
                               b->scc[b->vert[y]] != b->scc[v]) {
                        h = heavy[a] + b->hbest[y];
                        l = b->hlen[y] + 1;
                    } else {
                        continue;
                    }
                    if (h > hb || (h == hb && l < hl)) {
                        hb = h;
                        hl = l;
                        hn = y;
                    }
                }
            b->hbest[z] = hb;
            b->hlen[z] = hl;
            b->hnext[z] = hn;
        }
    }
}

/* A packing of trees (see the top of the file) along the arcs p, adj, heavy:
 * out-trees along the out-arcs, in-trees along the in-arcs (rev 1: the same
 * argument on the reversed graph), on the nodes b->avail marks and no tree
 * holds yet; adds to b->tree and b->leaf (tree ids: the root, plus nnode for
 * in-trees).  Returns the sum of H - 1 over its branches; *passes counts the
 * passes of its dynamic program. */
static int64_t trees(jg_fbound_t *b, const jg_pshape_t *sh, int64_t nvo, const int64_t *p, const int64_t *adj,
                     const unsigned char *heavy, int rev, int64_t *passes)
{
    int64_t nn = b->nnode, total = 0;
    int fresh = 0;   /* hbest is the pass of no tree's leaves on the nodes free now */
    for (int64_t root = 0; root < nn && *passes < JG__FBOUND_PASSES; root++) {
        if (b->cls[b->vert[root]] != V_FIX) continue;
        int any = 0;
        for (int64_t a = p[root]; a < p[root + 1] && !any; a++) any = b->avail[adj[a]] && b->tree[adj[a]] < 0;
        if (!any) continue;
        /* a new tree has no leaves: that pass bounds its branches, and a
         * root without a branch of H >= 2 there gets none */
        if (!fresh) {
            dp_pass(b, sh, nvo, p, adj, heavy, rev, -2);
            ++*passes;
            fresh = 1;
        }
        int64_t tid = root + (rev ? nn : 0), nt = 0;   /* tnodes[0..nt-1]: the tree's inner nodes */
        for (int first = 1; *passes < JG__FBOUND_PASSES; first = 0) {
            if (!first) {
                dp_pass(b, sh, nvo, p, adj, heavy, rev, tid);
                ++*passes;
                fresh = 0;
            }
            /* the best branch from the root or an inner node of the tree */
            int64_t bh = 1, bl = 0, bfrom = -1, bto = -1;
            for (int64_t s = -1; s < nt; s++) {
                int64_t x = s < 0 ? root : b->tnodes[s];
                int64_t xs = s < 0 ? -1 : b->scc[b->vert[x]];
                for (int64_t a = p[x]; a < p[x + 1]; a++) {
                    int64_t y = adj[a];
                    if (b->cls[b->vert[y]] != V_ELIM || !b->avail[y] || b->tree[y] >= 0 || b->hbest[y] < 0 ||
                        b->scc[b->vert[y]] == xs)
                        continue;
                    int64_t h = heavy[a] + b->hbest[y], l = b->hlen[y];
                    if (h > bh || (h == bh && bfrom >= 0 && l < bl)) {
                        bh = h;
                        bl = l;
                        bfrom = x;
                        bto = y;
                    }
                }
            }
            if (bfrom < 0) break;
            total += bh - 1;
            fresh = 0;
            int64_t z = bto;
            while (b->cls[b->vert[z]] != V_FIX) {
                b->tree[z] = tid;
                b->tnodes[nt++] = z;
                z = b->hnext[z];
            }
            b->leaf[z] = tid;
        }
    }
    return total;
}

/* Out-trees then in-trees on what is left, and the other way round: the
 * larger packing. */
static int64_t packing(jg_fbound_t *b, const jg_pshape_t *sh, int64_t nvo)
{
    int64_t best = 0, passes = 0;
    for (int first = 0; first < 2; first++) {
        for (int64_t z = 0; z < b->nnode; z++) b->tree[z] = b->leaf[z] = -1;
        int64_t t = 0;
        for (int k = 0; k < 2; k++) {
            int rev = k ^ first;
            t += rev ? trees(b, sh, nvo, b->ip, b->iadj, b->iheavy, 1, &passes)
                     : trees(b, sh, nvo, b->op, b->oadj, b->oheavy, 0, &passes);
        }
        if (t > best) best = t;
    }
    return best;
}

int jg__fbound(jg_fbound_t *b, const jg_pshape_t *sh, const jg_pg_t *pg, const int64_t *fma,
               const int64_t *lb, int64_t *h)
{
    int64_t nv = b->nv, total = 0;
    *h = 0;
    /* the classes of the vertices, their self-loops, their fixed in-scale */
    for (int64_t v = 0; v < nv; v++) {
        b->self[v] = 0;
        b->lscale[v] = 0;
        int32_t l = sh->loc[v];
        if (b->base[v] < 0)
            b->cls[v] = V_NONE;
        else if (l < 0 || fma[l] < 0)
            b->cls[v] = V_FIX;
        else
            b->cls[v] = sh->width[v] > JG__GRAPH_DENSE_PIVOT_MAX ? V_BLOCK : V_ELIM;
    }
    for (int64_t k = 0; k < pg->ne; k++) {
        const jg_pedge_t *E = &pg->e[k];
        if (E->src == E->dst)
            b->self[E->src] = sh->width[E->src] > 1 && jg__pat_diagonal(pg->pool + E->off, E->n) ? 1 : 2;
    }
    for (int64_t k = 0; k < pg->ne; k++) {
        const jg_pedge_t *E = &pg->e[k];
        if (E->src != E->dst && b->self[E->dst] && sh->loc[E->src] < 0)
            b->lscale[E->dst] += (b->self[E->dst] == 2 ? sh->width[E->dst] : 1) * (int64_t)E->nnz;
    }
    if (scalar_graph(b, pg)) return -1;
    int64_t nvo = components(b, pg);
    if (nvo < 0) return -1;
    reach(b, b->op, b->oadj, b->reachf);
    reach(b, b->ip, b->iadj, b->reachb);
    /* the charged counts, per vertex: inv + scale + the triples per node
     * (or jg__pg_costs' count on its fixed edges when larger: it sees the
     * dense K^_e of a dense self-loop) */
    for (int64_t v = 0; v < nv; v++) {
        if (b->cls[v] != V_ELIM) continue;
        int32_t w = sh->width[v];
        int S = b->self[v] != 0;
        int64_t z0 = b->base[v], inv = 0, scale = 0, prod = 0;
        if (S) inv = b->self[v] == 2 ? (int64_t)w * w * w : w;
        for (int64_t z = z0; z < z0 + w; z++) {
            int64_t fin = 0, fina = 0, fout = 0;
            int rin = 0, rina = 0, rout = 0;
            for (int64_t a = b->ip[z]; a < b->ip[z + 1]; a++) {
                int64_t y = b->iadj[a];
                int fx = b->cls[b->vert[y]] == V_FIX, hv = b->iheavy[a] || S;
                fina += fx;
                rina |= b->reachf[y];
                if (hv) {
                    fin += fx;
                    rin |= b->reachf[y];
                }
            }
            for (int64_t a = b->op[z]; a < b->op[z + 1]; a++) {
                int64_t y = b->oadj[a];
                if (!b->oheavy[a]) continue;
                fout += b->cls[b->vert[y]] == V_FIX;
                rout |= b->reachb[y] && !b->cyc[v];
            }
            int64_t t = (fin > rin ? fin : rin) * (fout > rout ? fout : rout);
            prod += t;
            b->avail[z] = t == 0;
            if (S) scale += (b->self[v] == 2 ? w : 1) * (fina > rina ? fina : rina);
        }
        int64_t lprod = lb[sh->loc[v]] - inv - b->lscale[v];
        if (lprod > prod) {
            prod = lprod;
            for (int64_t z = z0; z < z0 + w; z++) b->avail[z] = 0;
        }
        total += inv + scale + prod;
    }
    for (int64_t z = 0; z < b->nnode; z++)
        if (b->cls[b->vert[z]] != V_ELIM) b->avail[z] = 0;
    total += packing(b, sh, nvo);
    *h = total;
    return 0;
}
