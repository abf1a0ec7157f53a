/* Private structures of the Jacobian graph (lib/graph); later modules use
 * graph_internal.h. */
#ifndef JG_GRAPH_IMPL_H
#define JG_GRAPH_IMPL_H
#include "graph_internal.h"
#include "../compile/program_impl.h"

/* A matrix on an edge: CSC pattern in the graph arena, values at g->x + xoff. */
typedef struct jg_gmat {
    int64_t *p;              /* p[0..n], then the row indices (jg__gmat_i): interned
                                (graph.c), shared with equal patterns, never written */
    int64_t xoff;
    uint32_t m : 31;         /* vertex widths: below 2^31 (jg__gmat_new refuses more); m
                                packed with ident keeps a matrix at 24 bytes */
    uint32_t ident : 1;      /* a connection identity (jacgraph/graph.h's cost model): the
                                product with it is a copy, never multiplied */
    int32_t n;
} jg_gmat_t;

static inline int64_t jg__nnz(const jg_gmat_t *a) { return a->p[a->n]; }
/* The row indices of a: they follow its column pointers (no field of their
 * own: 8 bytes a matrix, 22 MB at 10^6 blocks). */
static inline int64_t *jg__gmat_i(const jg_gmat_t *a) { return a->p + a->n + 1; }

/* Vertex and edge ids and matrix indices are below 2^31 (jg__graph_build,
 * jg__gedge_add and jg__gmat_new refuse more): the structs below hold them
 * in 32 bits, which at 10^6 blocks saves 70 MB (and its page faults). */
typedef struct jg_gedge {
    int32_t src, dst;
    int32_t mat;             /* index into g->mat */
    int32_t alive;
} jg_gedge_t;

typedef struct jg_gvert {
    int64_t off;             /* state / u / y / w / z element offset */
    int32_t *in, *out;       /* edge ids (self-loop excluded; below 2^31, jg__gedge_add) */
    int32_t block;
    int32_t port;
    int32_t width;           /* below 2^31: a model's elements are (jacgraph/model.h) */
    int32_t self;            /* self-loop edge, -1 */
    int32_t nin, nout;
    unsigned char lgin, lgout;   /* room of in / out: 2^(lg - 1) ids, 0: no array (jg__gvert_cap) */
    unsigned char kind;      /* jg_vkind_t */
    unsigned char elig;      /* eliminable while alive (kind and block type: build.c) */
    unsigned char alive;
} jg_gvert_t;

/* The ids an adjacency array of room lg (jg_gvert_t's lgin, lgout) holds. */
static inline int32_t jg__gvert_cap(unsigned char lg) { return lg ? (int32_t)1 << (lg - 1) : 0; }

typedef enum { OP_INV, OP_SCALE, OP_MULADD, OP_EXPAND, OP_INVD, OP_SCALED, OP_ADD } jg_opcode_t;

/* One step of the numeric replay. */
typedef struct jg_gop {
    jg_opcode_t code;
    int32_t a, b, c;         /* matrices: INV c=(I-a)^-1 [b = vertex]; SCALE c=a*b;
                                MULADD c+=a*b; EXPAND c=scatter(a); INVD, SCALED:
                                INV, SCALE for a diagonal a (c diagonal, c = b's
                                pattern); ADD c+=a (a product with an identity) */
} jg_gop_t;

struct jg_graph {
    jg_arena_t arena;
    const jg_program_t *prog;
    const jg_iospec_t *io;
    int64_t nv, ne, capne, nmat, capmat;
    jg_gvert_t *v;
    jg_gedge_t *e;
    jg_gmat_t *mat;
    double *x;               /* all edge values */
    int64_t nx, capx;
    int64_t x_orig;          /* values below this belong to original edges */
    /* connection values (0/1 counts) of original edges: as bytes when every
     * one is an integer 0..255 (x_init8; x_init NULL), else x_init */
    double *x_init;
    unsigned char *x_init8;
    int64_t npartedge;       /* original edges from block parts: (mat, part) */
    int32_t *pe_mat, *pe_part;   /* below 2^31 (jg__graph_build refuses more) */
    int64_t ops_n, ops_cap;
    jg_gop_t *ops;
    double *ws;              /* dense workspace (max width) for MULADD */
    int64_t maxw;
    jg_graph_stats_t st;
    int replayed;
    int64_t *ws_mark;        /* symbolic workspace */
    int64_t *live, nlive;    /* live edges after elimination (extraction scans only these) */
    /* pivots of the last replay (or numeric elimination): the largest
     * condition of an INV and the first vertex whose condition exceeded
     * JG__GRAPH_PIVOT_COND_MAX (-1: none) */
    double piv_cond;
    int64_t guard_v;
    double guard_cond;
    /* the elimination's cost (jacgraph/graph.h) and order, and the scratch
     * of the elimination in progress (eliminate.c; freed with g) */
    jg_graph_cost_t cost;
    int64_t *order, norder;
    int64_t live_nnz;
    struct jg_elim *el;      /* eliminate.c */
    /* the replay's dense inverse without allocating: pivot indices and
     * LAPACK work for the widest dense pivot of the tape */
    void *inv_ipiv;          /* lapack_int[inv_cap] */
    double *inv_work;
    int64_t inv_cap;
    int64_t *fma_count;      /* non-NULL: the replay counts its FMA here (inv, scale, prod) */
    /* edge patterns interned (graph.c): a hash set of the distinct patterns
     * in the arena, which the matrices with equal patterns share */
    struct jg_gpat *pat;
    int64_t npat, cappat;
    /* adjacency arrays of 2^k ids given back (an eliminated vertex's, a
     * grown list's old one) for reuse: a list through their first 8 bytes
     * (a one-id array has two ids' room: in adj_free[1]) */
    int32_t *adj_free[32];
    /* one- and two-id adjacency arrays (most ports have one edge each way)
     * carved from arena blocks, 8 bytes each, not the arena's 16 */
    int32_t *adj2;
    int64_t nadj2;           /* ids left at adj2 */
    const char **labels;     /* per vertex, built lazily (jg_graph_vertex_label); NULL: none yet */
    /* the tape compiled for the replay (tape.c): read-only once built, shared
     * by the views made after it (tape_own 0 there) */
    struct jg_tape *tape;
    int tape_own;
    int64_t tape_failed;     /* ops_n + 1 of a tape that could not be compiled (0: none) */
    /* this graph's or view's own: for the work tape_w, whether each run of
     * Jacobian parts the program loads lies in one piece there (tape.c) */
    const jg_eval_work_t *tape_w;
    unsigned char *tape_whole;
};

/* The largest condition max(1, |D|) |(I - D)^-1| (1-norms) of an eliminated
 * vertex's pivot block that the elimination accepts.  It bounds what one
 * elimination adds to the rounding error of the result (about this many
 * units in the last place); a worse pivot is left to the pivoted LU of the
 * LFT.  1e3 is UMFPACK's default threshold for preferring a diagonal pivot
 * (its SYM_PIVOT_TOLERANCE 0.001). */
#define JG__GRAPH_PIVOT_COND_MAX 1e3

/* The condition above of the pivot block I - D for D = g->mat[dmat] (dmat
 * -1: D = 0) at the current values, with (I - D)^-1 written into s (n x n
 * dense, column-major, n the vertex width); INFINITY when I - D is singular
 * to working precision (a pivot below 1e-14 of its scale). */
double jg__graph_pivot(jg_graph_t *g, int64_t dmat, int64_t n, double *s);
/* The same for a diagonal pattern of D (every entry on the diagonal): s gets
 * the n diagonal entries 1 / (1 - d_j) of (I - D)^-1, and the condition is
 * the largest of the scalar pivots' max(1, |d_j|) / |1 - d_j|. */
double jg__graph_pivot_diag(jg_graph_t *g, int64_t dmat, int64_t n, double *s);
/* The widest vertex whose pivot block I - Dv, when not diagonal, the
 * elimination inverts densely ((I - Dv)^-1 costs w^2 values and fills every
 * column it scales).  A wider one stays in the graph for the LFT's sparse LU:
 * a 64-wide dense inverse is 32 KiB, about what the scaled edges of a
 * vertex of this width with sparse neighbors cost anyway. */
#define JG__GRAPH_DENSE_PIVOT_MAX 64
/* 1 when every entry of g->mat[dmat] is on its diagonal (dmat -1: D = 0). */
int jg__gmat_diagonal(const jg_graph_t *g, int64_t dmat);
/* The connection value of original edge value k (k < g->x_orig). */
static inline double jg__graph_x_init(const jg_graph_t *g, int64_t k)
{
    return g->x_init8 ? (double)g->x_init8[k] : g->x_init[k];
}
/* Load the values of the block Jacobians of w and the connections into the
 * original edges, zero the rest (the start of a replay). */
void jg__graph_load(jg_graph_t *g, const jg_eval_work_t *w);
/* Execute tape operation k on the current values.  Returns 0, or 1 when an
 * INV met a singular pivot block (g->guard_* updated as in a replay). */
int jg__gop_exec(jg_graph_t *g, int64_t k);

/* Make room for nedges edges and matrices and nvals values (a build knows its
 * sizes; growing by doubling would copy and fault the pages twice). */
int jg__graph_reserve(jg_graph_t *g, int64_t nedges, int64_t nvals);
/* Create a matrix with the given pattern (interned: jg__gmat_pattern); returns its
 * index or -1 (out of memory).  Values are appended to g->x, zeroed. */
int64_t jg__gmat_new(jg_graph_t *g, int64_t m, int64_t n, const int64_t *p, const int64_t *i);
/* The interned copy of a pattern (graph.c): p[0..n], then i[0..p[n]); equal
 * patterns get the same pointer (valid while g lives).  NULL: out of memory. */
const int64_t *jg__gmat_pattern(jg_graph_t *g, int64_t m, int64_t n, const int64_t *p,
                                const int64_t *i);
/* jg__gmat_new for an interned pattern q (jg__gmat_pattern, or another
 * matrix's p): no copy, no hashing. */
int64_t jg__gmat_new_pat(jg_graph_t *g, int64_t m, int64_t n, const int64_t *q);
/* Add edge src->dst with matrix mat (self-loops become v.self). -1 on NOMEM. */
int64_t jg__gedge_add(jg_graph_t *g, int64_t src, int64_t dst, int64_t mat);
/* 1 when a vertex like V may be eliminated (an algebraic vertex, not the
 * output of a block that keeps its self-loop): build.c caches it in V->elig. */
int jg__gvert_eligible(const jg_graph_t *g, const jg_gvert_t *V);
/* Give v's adjacency arrays back for reuse (v eliminated: its lists empty). */
void jg__gvert_release(jg_graph_t *g, int64_t v);
/* Find the live edge src->dst, -1 when there is none. */
int64_t jg__gedge_find(const jg_graph_t *g, int64_t src, int64_t dst);
/* Free the scratch of an elimination in progress (eliminate.c). */
void jg__elim_free(jg_graph_t *g);
/* Make the replay's dense-inverse workspace fit pivots of width n (replay.c);
 * -1 out of memory. */
int jg__graph_inverse_reserve(jg_graph_t *g, int64_t n);
int jg__gop_push(jg_graph_t *g, jg_opcode_t code, int64_t a, int64_t b, int64_t c);

/* ---- the compiled replay (tape.c) */

/* Values past g->nx that the compiled replay keeps in g->x (its constants,
 * one accumulator and one temporary): g->x has room for nx + JG__TAPE_CELLS
 * values. */
#define JG__TAPE_CELLS 5
/* Compile g's tape into a flat program of scalar steps (g->tape, owned); 0,
 * or -1 when out of memory or when the values do not fit 32-bit indices (the
 * replay then interprets the tape).  Cost: O(the tape's multiply-adds). */
int jg__tape_compile(jg_graph_t *g);
/* 1 when g->tape is a program of g's current tape. */
int jg__tape_current(const jg_graph_t *g);
/* Run the program on g's values at the block Jacobians of w (the load
 * included).  Returns -1, or the tape operation whose pivot block was
 * singular (g->guard_* updated as in the interpreted replay). */
int64_t jg__tape_run(jg_graph_t *g, const jg_eval_work_t *w);
/* Bytes of the program (jacgraph/graph.h's statistics); NULL is fine. */
size_t jg__tape_bytes(const struct jg_tape *t);
/* NULL is fine. */
void jg__tape_free(struct jg_tape *t);

#endif
