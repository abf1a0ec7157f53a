/* Private structure of jg_program, shared by compile/, eval/, graph/ and linearize/. */
#ifndef JG_PROGRAM_IMPL_H
#define JG_PROGRAM_IMPL_H
#include "../model/model_internal.h"
#include "jacgraph/program.h"
#include "../core/arena.h"
#include "block_impl.h"

struct jg_program {
    jg_arena_t arena;
    jg__plset_t *plugins;       /* a reference to the model's plugin set: blocks point at its types */
    char *name;
    int32_t nblocks;
    jg_block_t *blocks;         /* all blocks, file order, depth first */
    int32_t nreal;

    /* ports: global numbering; block b's input p is in_base[b] + p */
    int64_t *in_base, *out_base;  /* per block */
    int64_t nin_ports, nout_ports;
    int64_t *in_drv;            /* per global input port: driving global output port, -1 */
    int32_t *out_blk;           /* per global output port: owning block */
    int32_t *in_blk;            /* per global input port: owning block */
    int *in_port_of;            /* per global input port: port index within its block */
    int *out_port_of;           /* per global output port: port index within its block */
    const char **sig_name;      /* per global output port: its line's "name", NULL; the
                                   array itself NULL when no line names a signal */
    int64_t *u_off;             /* per global input port: element offset in u (real blocks) */
    int64_t *y_off;             /* per global output port: element offset in y (real blocks) */
    unsigned char *feedthrough; /* per global input port */

    int64_t nu;                 /* input elements of real blocks */
    int64_t ny;                 /* output elements of real blocks (signals) */
    int64_t nx;                 /* continuous states */
    int64_t nd;                 /* discrete states */
    int64_t nzc;                /* zero-crossing signals */
    int32_t nrates;             /* distinct discrete sample times, fastest first */
    jg_ts_t *rates;
    int32_t *rate_blk;          /* per rate: a block of that rate (for messages) */
    int64_t *u_src;             /* per input element: driving signal element, -1 unconnected */
    int64_t *x_blk;             /* per state: owning block (for names) */
    const char **x_name;        /* per state, built lazily */

    int32_t nsorted;
    int32_t *sorted;            /* real blocks in sorted order */
    int nloops;
    int32_t *loop_ptr;          /* loop k: sorted[...]-like list loop_blk[loop_ptr[k]..] */
    int32_t *loop_blk;
    int32_t *blk_loop;          /* per block: loop index or -1 */
    char **loop_names;

    int nin_root, nout_root;
    int32_t *in_root, *out_root;

    int nwarn, capwarn;
    char **warn;

    /* more invariants than this: the projection (lib/sim/project.c) uses
     * CHOLMOD, else dense LAPACK; 0 is the default, 20.  A field of the
     * program rather than a global so that tests can force either path on
     * one program without touching any other. */
    int64_t proj_dense_max;

    /* systems (root = 0, one per SubSystem); used for name lookup and workspaces */
    int32_t nsys;
    struct jg_sys {
        const char *path;       /* "" for root */
        int32_t parent;         /* parent system, -1 for root */
        int32_t block;          /* the SubSystem block, -1 for root */
        const jg__jv_t *params;   /* "parameters" object or NULL */
        const jg__jv_t *json;     /* the system object */
        int32_t first, n;       /* its own blocks: ids first..first+n-1 */
    } *sys;
    /* path lookup: open addressing table of block ids */
    int64_t hcap;
    int32_t *htab;
};

/* Global output port of block b, port q. */
static inline int64_t jg__outport(const jg_program_t *p, int32_t b, int q)
{
    return p->out_base[b] + q;
}
static inline int64_t jg__inport(const jg_program_t *p, int32_t b, int q)
{
    return p->in_base[b] + q;
}

/* Trace output element (global output port gp, element e) back through virtual
 * blocks to the real signal element that drives it.  Each global output port
 * passed (including gp itself) is offered to visit(ctx, port, elem); visit
 * returns 1 to cut the trace there (a loop opening).  Returns the signal
 * index (>= 0), -1 when undriven or cut, -2 on a routing cycle. */
int64_t jg__trace(const jg_program_t *p, int64_t gp, int64_t e,
                  int (*visit)(void *ctx, int64_t gport, int64_t elem), void *ctx);


/* Add a warning (printf-style) to the program. */
void jg__warn(jg_program_t *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
