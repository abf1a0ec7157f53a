/* block_impl.h -- the block-type interface: one static const vtable per block type.
 * It is the compile stage's interface to the block types: the compiler calls
 * the vtables and implements the jg_setup_* helpers (lib/compile/setup.c);
 * lib/blocks implements the types and the registry and includes this header.
 *
 * Life cycle of a block instance inside a compiled program (lib/compile):
 *   1. setup(b, s)      parse parameters (jg_setup_num/str), declare ports
 *                       (jg_setup_ports), keep parsed data in b->data (arena).
 *   2. widths(b, s)     called repeatedly during width propagation with
 *                       b->in_w[p] / b->out_w[q] set to the known widths or -1.
 *                       Set what can be set (outputs, and inputs the block
 *                       dictates), return JG_BLOCK_DONE once every port width
 *                       is known and checked, JG_BLOCK_AGAIN to wait.  When
 *                       s->force is set no progress was possible anywhere: a
 *                       block with a natural default (Integrator: width of its
 *                       InitialCondition) sets it now.  States are declared here
 *                       with jg_setup_states().  Errors: jg_setup_error().
 *   3. pattern(b, s)    declare the sparsity pattern of the block Jacobian parts
 *                       a = df/dx, b_p = df/du_p, c_q = dg_q/dx, d_qp = dg_q/du_p
 *                       with jg_jac_*.  Part k is the k-th declaration, even
 *                       when its pattern is empty (jg_jac_from_value of a zero
 *                       matrix); empty parts make no edge.  Direct feedthrough of input p is derived: it
 *                       is true when some d_qp part exists.  (Optional: a block
 *                       without outputs or inputs needs none.)
 *   4. At run time, the same functions serve simulation and linearization:
 *      init(b, x0)      initial states (optional if nx == 0),
 *      outputs(b, e)    y = g(t, x, u),
 *      derivatives(b,e) dx = f(t, x, u) (optional if nx == 0),
 *      jacobian(b, e)   fill e->jac[k]->x for each declared part k, in
 *                       declaration order, keeping the declared pattern.
 *   Run-time callbacks return 0 on success, nonzero on a domain error (log of a
 *   negative number...) after calling jg_eval_error().
 *
 * Hybrid behaviour (Simulink's simulation loop), all optional:
 *   Sample time   every block may have a "SampleTime" parameter, read by the
 *                 compiler: -1 inherited, 0 continuous, T > 0 or [T, offset]
 *                 discrete, inf constant.  Defaults: what setup() put in
 *                 b->ts (DiscreteStateSpace: 1, as Simulink), else constant for
 *                 JG_BT_CONSTANT types, continuous for blocks with continuous
 *                 states or without inputs, inherited otherwise (a
 *                 JG_BT_DISCRETE type must resolve to a discrete one).  The
 *                 compiler resolves inherited ones from the drivers (b->ts).  A
 *                 block with a discrete sample time executes outputs() only at
 *                 its sample hits; between hits its outputs hold.
 *   Discrete states  jg_setup_dstates(b, s, nd) (in setup or widths): nd
 *                 doubles per block, e->xd.  init_discrete(b, xd0) sets them
 *                 (zeros when absent).  They also serve as modes (Relay on/off)
 *                 and buffers (Transport Delay).  Continuous linearization
 *                 holds them at their values; discrete linearization (a
 *                 block at a discrete rate) takes them as states through
 *                 djacobian().
 *   update(b, e)  at each major time step for a continuous-time block, at its
 *                 sample hits for a discrete one, after all outputs of the
 *                 step: write e->xd (x[k+1] = f(x[k], u[k])) and, for state
 *                 resets, e->xw (the block's continuous states, writable).
 *                 e->zc_fired tells which of the block's zero crossings fired
 *                 at this step.  e->first is 1 at the first major step (t0),
 *                 when update() is called once more, before anything else,
 *                 with e->init = 1: load external initial conditions into e->xw.
 *   Zero crossings  jg_setup_zc(b, s, n, dir) declares n signals with their
 *                 directions (JG_ZC_RISING / FALLING / EITHER); zc(b, e) writes
 *                 e->zc[0..n-1], a continuous function of t, x, u (and xd, held
 *                 between major steps).  The simulator locates their sign
 *                 changes and makes a major step there.
 *   guess(b, y)   initial output values (the starting point of an algebraic
 *                 loop: IC, Algebraic Constraint).
 *   Invariants    (projection, mdlProjection) jg_block_ninv(b) > 0 functions g(x, t) of
 *                 the block's own continuous states that the exact solution
 *                 keeps at zero, with jg_block_inv_pat(b) the pattern of dg/dx
 *                 (ninv x nx, compressed column, arena; set at compile
 *                 time, pattern() at the latest: lib/blocks/plugin_bridge.c does it
 *                 there).  invariants(b, e, g, dg) writes g[ninv] and, when
 *                 dg != NULL, dg->x in that pattern; e has t, x, xd, data and
 *                 err only.  lib/sim/project.c projects the states back onto
 *                 g = 0 after every accepted solver step.
 *   e->sim        1 in simulation, 0 in linearization: a block whose
 *                 simulation is not a smooth function of its inputs (Transport
 *                 Delay) linearizes an approximation (Pade) when it is 0; every
 *                 linearization path sees the same thing.
 *
 * Virtual blocks (SubSystem, Inport/Outport inside a subsystem, Mux, Demux,
 * Selector) have no run-time functions; they route signal elements:
 *   route(b, outport, elem, &inport, &inelem)  backward: which input element
 *   feeds output element elem.  SubSystem ports, inner Inport/Outport and
 *   From are resolved by the compiler itself, which knows them by their flags
 *   (JG_BT_SUBSYSTEM, JG_BT_PORT_IN/OUT, JG_BT_TAG_*).
 */
#ifndef JG_COMPILE_BLOCK_IMPL_H
#define JG_COMPILE_BLOCK_IMPL_H

#include <stdint.h>
#include <stddef.h>
#include <cs.h>
#include "jacgraph/status.h"
#include "jacgraph/model.h"

typedef struct jg_block jg_block_t;
typedef struct jg_setup jg_setup_t;
typedef struct jg_eval jg_eval_t;

enum {
    JG_BLOCK_DONE = 0,
    JG_BLOCK_AGAIN = 1,
    JG_BLOCK_FAIL = -1 /* jg_setup_error was called */
};

/* Flags of a block type. */
enum {
    JG_BT_VIRTUAL = 1 << 0,   /* routing only: no run-time functions */
    JG_BT_LINEAR = 1 << 1,    /* outputs affine in inputs and states (loop solve is exact) */
    JG_BT_SINK = 1 << 2,      /* Scope, ToWorkspace, Terminator, root Outport */
    JG_BT_SOURCE = 1 << 3,    /* no inputs (Constant, Ground, root Inport) */
    JG_BT_DISCRETE = 1 << 4,  /* needs a discrete sample time (Unit Delay, ZOH...) */
    JG_BT_CONSTANT = 1 << 5,  /* constant sample time by default (Constant, Ground) */
    JG_BT_SELFLOOP = 1 << 6,  /* last input port is wired by the compiler to output 1
                                 (Algebraic Constraint: y = y + u solves u = 0) */
    JG_BT_PURE_LINEAR = 1 << 7, /* outputs() is exactly y = D u with the d parts that
                                 jacobian() fills, constant: no states, discrete states,
                                 zero crossings, update, time or offset; each output
                                 element sums its d entries times u, ports in order,
                                 columns ascending, from +0 (a one-entry row may be the
                                 bare product).  lib/eval may compute such blocks itself
                                 (the evaluation plan; it checks the arithmetic first) */
    JG_BT_JAC_PERTURB = 1 << 8, /* jacobian() fills its parts by perturbing the block's
                                  own functions (a plugin without a Jacobian): not
                                  analytic for the solver-Jacobian 'auto' rule */
    /* Compiler constructs dressed as blocks: the compiler knows them by these
     * flags, never by their vtable, so it names no block type. */
    JG_BT_SUBSYSTEM = 1 << 9,  /* a container: its "blocks" are flattened after it and
                                  its ports are its inner JG_BT_PORT_* blocks */
    JG_BT_PORT_IN = 1 << 10,   /* Inport: setup() sets b->port; at the root a source
                                  (the model's input), inside a SubSystem the virtual
                                  output of that SubSystem's input b->port */
    JG_BT_PORT_OUT = 1 << 11,  /* Outport: the same for outputs (at the root a sink) */
    JG_BT_TAG_WRITE = 1 << 12, /* Goto: publishes its input under a tag; b->data is a
                                  jg_gototag_t (goto.h) with tag and visibility */
    JG_BT_TAG_READ = 1 << 13,  /* From: its output is the TAG_WRITE's input (jg_gototag_t) */
    JG_BT_TAG_SCOPE = 1 << 14, /* GotoTagVisibility: where a scoped tag is visible
                                  (jg_gototag_t: tag) */
    JG_BT_LOG = 1 << 15,       /* Scope, ToWorkspace: the simulator logs its inputs */
    JG_BT_STOP = 1 << 16       /* Stop: its one discrete state set ends the simulation */
};

/* Sample time [period, offset]: period -1 inherited, 0 continuous, > 0
 * discrete with 0 <= offset < period, INFINITY constant. */
typedef struct jg_ts {
    double period, offset;
} jg_ts_t;

/* Direction of a zero-crossing signal (as in Simulink). */
enum { JG_ZC_EITHER = 0, JG_ZC_RISING = 1, JG_ZC_FALLING = -1 };

/* The element-wise kernels a block instance may declare (kernel() below).
 *   outputs JG_KERNEL_STATE: outputs() is exactly y[0] = x (nout 1, out_w[0]
 *     = nx) and never fails.
 *   outputs JG_KERNEL_FN: outputs() is y[0][i] = fn(u[0][i]) bit for bit
 *     whenever it succeeds (nin 1, nout 1, in_w[0] = out_w[0]), and when it
 *     fails some fn(u[0][i]) is Inf or NaN (the plan then calls outputs() to
 *     word the error); no states, discrete states or update.
 *   derivatives JG_KERNEL_INPUT: derivatives() is exactly dx = u[0] (in_w[0]
 *     = nx) and never fails.
 *   no_update 1: update() does nothing for this instance, whatever e holds
 *     (the plan does not call it). */
enum { JG_KERNEL_NONE = 0, JG_KERNEL_STATE, JG_KERNEL_FN, JG_KERNEL_INPUT };
typedef struct jg_kernel {
    int outputs;              /* JG_KERNEL_NONE, _STATE or _FN */
    double (*fn)(double);     /* JG_KERNEL_FN */
    int derivatives;          /* JG_KERNEL_NONE or _INPUT */
    int no_update;            /* update() is a no-op */
} jg_kernel_t;

typedef struct jg_block_type {
    const char *name;          /* Simulink BlockType, e.g. "Gain" */
    unsigned flags;
    int (*setup)(jg_block_t *b, jg_setup_t *s);
    int (*widths)(jg_block_t *b, jg_setup_t *s);
    int (*pattern)(jg_block_t *b, jg_setup_t *s);
    int (*init)(const jg_block_t *b, double *x0);
    int (*outputs)(const jg_block_t *b, jg_eval_t *e);
    int (*derivatives)(const jg_block_t *b, jg_eval_t *e);
    int (*jacobian)(const jg_block_t *b, jg_eval_t *e);
    /* virtual blocks: backward routing of one output element */
    int (*route)(const jg_block_t *b, int outport, int64_t elem, int *inport, int64_t *inelem);
    /* hybrid behaviour (see the top of this file); all optional */
    int (*init_discrete)(const jg_block_t *b, double *xd0);
    int (*update)(const jg_block_t *b, jg_eval_t *e);
    int (*zc)(const jg_block_t *b, jg_eval_t *e);
    int (*guess)(const jg_block_t *b, double *const *y);
    /* invariant projection (see the top of this file); optional */
    int (*invariants)(const jg_block_t *b, jg_eval_t *e, double *g, cs_dl *dg);
    /* discrete linearization (optional): the Jacobians of the update
     * x[k+1] = F(x[k], u[k]) and of the outputs in the discrete states, at
     * e (as for jacobian(); e->xd the states), into dense row-major arrays
     * the caller zeroed: ad (nd x nd) = dF/dxd, bd[p] (nd x in_w[p]) =
     * dF/du_p, cd[q] (out_w[q] x nd) = dg_q/dxd.  The d parts of jacobian()
     * stay dg/du.  A block at a discrete rate whose discrete states are
     * dynamic states must have it: discrete linearization refuses a block
     * with discrete states and without it (no silent differences). */
    int (*djacobian)(const jg_block_t *b, jg_eval_t *e, double *ad, double *const *bd,
                     double *const *cd);
    /* optional: describe this instance's outputs() / derivatives() as one of
     * the element-wise kernels of jg_kernel_t, which lib/eval's evaluation
     * plan may then run for many blocks in one loop instead of calling them
     * (scalar blocks in long chains).  Fill *k (zeroed by the caller).  The
     * plan checks a JG_KERNEL_FN against outputs() on probe inputs before
     * using it. */
    void (*kernel)(const jg_block_t *b, jg_kernel_t *k);
} jg_block_type_t;

/* A linear discrete-time block type of a family of realizations that share
 * everything but the setup (DiscreteStateSpace and DiscreteTransferFcn; the
 * discrete filters): the functions P##_widths ... P##_update, P##_djacobian. */
#define JG_DISCRETE_LTI_TYPE(NAME, SETUP, P)                                                    \
    {.name = NAME, .flags = JG_BT_LINEAR | JG_BT_DISCRETE, .setup = SETUP,                    \
     .widths = P##_widths, .pattern = P##_pattern, .outputs = P##_outputs,                   \
     .jacobian = P##_jacobian, .init_discrete = P##_init_discrete, .update = P##_update,      \
     .djacobian = P##_djacobian}

/* Kinds of Jacobian parts. */
typedef enum { JG_JAC_A = 0, JG_JAC_B, JG_JAC_C, JG_JAC_D } jg_jac_kind_t;

typedef struct jg_jac_part {
    jg_jac_kind_t kind;
    int row_port;   /* output port q for C/D; -1 for A/B (rows are states) */
    int col_port;   /* input port p for B/D; -1 for A/C (cols are states) */
    cs_dl *m;       /* compressed-column pattern + values (x) */
} jg_jac_part_t;

/* What few blocks have (discrete states, zero crossings, invariants): apart
 * from the block, in the program's arena, so that the million blocks without
 * any of it do not carry it.  Read it through the accessors below. */
typedef struct jg_block_hyb {
    int64_t nd, d_off;        /* discrete states and their offset */
    int64_t nzc, zc_off;      /* zero-crossing signals and their offset */
    const signed char *zc_dir;/* per zero-crossing signal: JG_ZC_* */
    int64_t ninv;             /* invariants of its continuous states (projection), 0: none */
    const cs_dl *inv_pat;     /* their Jacobian's pattern, ninv x nx (arena) */
} jg_block_hyb_t;

/* A block instance after flattening.  Arrays live in the program's arena.
 * Two cache lines, aligned (the program's block array is): the first holds
 * what the compiler's passes and the evaluation read of every block (type,
 * ports, parts, data), the second the states, the sample time and the names,
 * so that a pass over a million blocks reads one or two lines of each rather
 * than the three a misaligned block spans.  States and their offsets are 32
 * bits (the compiler refuses a model with more than 2^31 - 1 states); the
 * rare hybrid fields are behind hyb. */
struct jg_block {
    _Alignas(64) const jg_block_type_t *type;
    int64_t *in_w, *out_w;    /* port widths; -1 while unknown */
    int nin, nout;
    unsigned char virt;       /* routing only (virtual type, or Inport/Outport inside a SubSystem) */
    unsigned char is_root_port;  /* root Inport/Outport: the model's inputs/outputs */
    int npart;
    jg_jac_part_t *part;      /* Jacobian parts (npart) in declaration order */
    void *data;               /* type-specific parsed parameters (arena) */
    int32_t parent;           /* id of the enclosing SubSystem block, -1 at root */
    int32_t port;             /* JG_BT_PORT_* blocks: their 1-based "Port" (setup); 0 */
    /* second line */
    jg_ts_t ts;               /* sample time: declared, then resolved by the compiler */
    int32_t nx;               /* number of continuous states */
    int32_t x_off;            /* offset of this block's states in the state vector */
    int32_t rate;             /* index in the program's discrete rates, -1 if not discrete */
    int priority;             /* "Priority" parameter (lower runs first), 0 default */
    int32_t id;               /* index in the program's block array */
    int32_t sys;              /* index of the system (subsystem scope) it belongs to */
    jg_block_hyb_t *hyb;      /* discrete states, zero crossings, invariants; NULL: none */
    const char *path;         /* "Plant/Sum1" (root blocks: "Sum1") */
    const char *name;         /* last path element */
};

/* two cache lines on a 64-bit machine (the million-block programs) */
_Static_assert(sizeof(void *) != 8 || sizeof(jg_block_t) == 128, "jg_block_t is two cache lines");

/* The hybrid fields of a block (0 / NULL when it has none).  O(1). */
static inline int64_t jg_block_nd(const jg_block_t *b) { return b->hyb ? b->hyb->nd : 0; }
static inline int64_t jg_block_d_off(const jg_block_t *b) { return b->hyb ? b->hyb->d_off : 0; }
static inline int64_t jg_block_nzc(const jg_block_t *b) { return b->hyb ? b->hyb->nzc : 0; }
static inline int64_t jg_block_zc_off(const jg_block_t *b) { return b->hyb ? b->hyb->zc_off : 0; }
static inline const signed char *jg_block_zc_dir(const jg_block_t *b)
{
    return b->hyb ? b->hyb->zc_dir : NULL;
}
static inline int64_t jg_block_ninv(const jg_block_t *b) { return b->hyb ? b->hyb->ninv : 0; }
static inline const cs_dl *jg_block_inv_pat(const jg_block_t *b)
{
    return b->hyb ? b->hyb->inv_pat : NULL;
}

/* Run-time evaluation context handed to outputs/derivatives/jacobian. */
struct jg_eval {
    double t;
    const double *x;          /* this block's states (nx) */
    const double *const *u;   /* u[p]: input port p, in_w[p] values */
    double *const *y;         /* y[q]: output port q, out_w[q] values */
    double *dx;               /* derivatives (nx) */
    cs_dl *const *jac;        /* jac[k]: part k, fill ->x */
    const double *ext;        /* root Inport: the external input value (out_w[0]) */
    jg_error_t *err;
    /* hybrid (see the top of this file) */
    const double *xd;         /* discrete states (nd), read-only except in update */
    double *xdw;              /* update(): the same, writable; NULL elsewhere */
    double *xw;               /* update(): continuous states (nx), writable; NULL elsewhere */
    double *zcv;              /* zc(): nzc values to write */
    const signed char *zc_fired; /* update(): per zc signal +1 rose / -1 fell at this step, 0; NULL: none */
    int sim;                  /* 1 in simulation, 0 in linearization */
    int major;                /* 1 at a major time step (outputs and update), 0 in minor steps */
    int first;                /* 1 at the first major step */
    int init;                 /* update() only: the initialisation call at t0 */
};

/* ---- setup helpers (lib/compile/setup.c) ---- */

struct jg_setup {
    int force;                /* width propagation stalled: apply defaults */
    jg_error_t *err;
    void *priv;               /* compiler's private context */
};

/* A numeric parameter value: row-major rows x cols, arena-owned. */
typedef struct jg_value {
    int64_t rows, cols;
    double *x;
} jg_value_t;

static inline int64_t jg_value_numel(const jg_value_t *v) { return v->rows * v->cols; }
/* Its nonzero entries (the pattern of a part declared from the value). */
static inline int64_t jg_value_nnz(const jg_value_t *v)
{
    int64_t nz = 0;
    for (int64_t k = 0; k < jg_value_numel(v); k++) nz += v->x[k] != 0;
    return nz;
}

/* x is an integer in [lo, hi] (checked before any cast: casting 1e300 is UB). */
static inline int jg_is_int(double x, double lo, double hi)
{
    return x >= lo && x <= hi && x == (double)(int64_t)x;
}

/* Numeric parameter `name`: a number, nested row-major array, or the name of a
 * workspace entry (SubSystem parameters shadow outer ones).  Returns 1 when
 * present, 0 when absent (out untouched), -1 on error (message set: block path,
 * parameter, what was expected). */
int jg_setup_num(jg_block_t *b, jg_setup_t *s, const char *name, jg_value_t *out);
/* A workspace entry by name (model or enclosing SubSystem "parameters"), for
 * blocks whose parameters are expressions (Fcn): 1 found, 0 not, -1 error. */
int jg_setup_workspace(jg_block_t *b, jg_setup_t *s, const char *name, jg_value_t *out);
/* Same as jg_setup_num, but an absent parameter takes the default (copied). */
int jg_setup_num_def(jg_block_t *b, jg_setup_t *s, const char *name, jg_value_t *out,
                     double def);
/* Literal string parameter (not resolved in the workspace): 1 present, 0 absent,
 * -1 present but not a string. */
int jg_setup_str(jg_block_t *b, jg_setup_t *s, const char *name, const char **out);
/* Parameter that may be either a count (number) or a string, e.g. Sum "Inputs".
 * Exactly one of *str / *num is set: returns 1 (string), 2 (number), 0 absent, -1. */
int jg_setup_str_or_num(jg_block_t *b, jg_setup_t *s, const char *name, const char **str,
                        jg_value_t *num);
int jg_setup_ports(jg_block_t *b, jg_setup_t *s, int nin, int nout);
int jg_setup_states(jg_block_t *b, jg_setup_t *s, int64_t nx);
/* Discrete states / zero-crossing signals (see the top of this file); dir has
 * n entries (copied), NULL: all JG_ZC_EITHER.  Call in setup or widths. */
int jg_setup_dstates(jg_block_t *b, jg_setup_t *s, int64_t nd);
int jg_setup_zc(jg_block_t *b, jg_setup_t *s, int64_t n, const signed char *dir);
/* Parse a direction string "rising" | "falling" | "either" (parameter name for
 * errors): JG_ZC_* or -2 after jg_setup_error. */
int jg_setup_zc_dir(jg_block_t *b, jg_setup_t *s, const char *param, const char *value);
void *jg_setup_alloc(jg_setup_t *s, size_t size);      /* arena, zeroed */
/* b's hybrid fields, writable: made (zeroed, arena) on the first call.  NULL
 * after an out-of-memory error (set, naming the block).  Setup, widths or
 * pattern only (lib/compile/setup.c). */
jg_block_hyb_t *jg__block_hyb(jg_block_t *b, jg_setup_t *s);
/* A size a block derives from its parameters (a buffer, a realization's
 * entries), n elements of `what`, against the model's element limit
 * (jacgraph/model.h jg_limits_t) before it is allocated: JG_BLOCK_DONE, or
 * JG_BLOCK_FAIL with a JG_MODEL error naming the block and param (lib/compile/
 * limits.c).  Compute n so that it cannot overflow (compare factors first). */
int jg_setup_check_size(jg_block_t *b, jg_setup_t *s, const char *param, int64_t n,
                        const char *what);
/* The model's limits (defaults applied): file_bytes for a file a block reads
 * at compile time (with jg__read_file of model/model_internal.h). */
jg_limits_t jg_setup_limits(const jg_setup_t *s);
/* Record an error naming the block (and parameter when param != NULL).
 * Returns JG_BLOCK_FAIL. */
int jg_setup_error(jg_block_t *b, jg_setup_t *s, jg_status_t st, const char *param,
                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Check a port width (after propagation): error names block, port and widths. */
int jg_setup_expect_width(jg_block_t *b, jg_setup_t *s, int inport, int64_t expected);

/* Jacobian pattern declaration (in pattern()).  rows/cols are taken from the
 * port widths / nx.  Each returns the part index, or -1 on error. */
int jg_jac_dense(jg_block_t *b, jg_setup_t *s, jg_jac_kind_t kind, int row_port, int col_port);
int jg_jac_diag(jg_block_t *b, jg_setup_t *s, jg_jac_kind_t kind, int row_port, int col_port);
/* Explicit pattern from (row, col) pairs, duplicates merged. */
int jg_jac_pattern(jg_block_t *b, jg_setup_t *s, jg_jac_kind_t kind, int row_port, int col_port,
                   int64_t nnz, const int64_t *ri, const int64_t *ci);
/* Pattern of a dense row-major matrix value: entries that are nonzero. */
int jg_jac_from_value(jg_block_t *b, jg_setup_t *s, jg_jac_kind_t kind, int row_port,
                      int col_port, const jg_value_t *v);

/* Widths of element-wise n-input blocks (Sum, Product): non-scalar inputs
 * share one width, scalars expand; one input reduces over its elements to a
 * scalar.  The output width is set as soon as one non-scalar input is known,
 * so vector widths flow around feedback loops.  (lib/blocks/math.c) */
int jg_widths_elementwise(jg_block_t *b, jg_setup_t *s);
/* Their Jacobian pattern: one d part per input, diagonal, column or row. */
int jg_pattern_elementwise(jg_block_t *b, jg_setup_t *s);

/* State-space matrices (StateSpace, DiscreteStateSpace; lib/blocks/lti.c):
 * "A", "B", "C", "D" (Simulink's default 1 where absent; with an empty A, B
 * and C must be empty and D gives the widths) and "InitialCondition" (scalar
 * or one per state), with n states, m inputs, p outputs.  Errors name the
 * parameter and the expected shape. */
typedef struct jg_ss_matrices {
    jg_value_t a, b, c, d, ic;
    int64_t n, m, p;
} jg_ss_matrices_t;
int jg_setup_ss_matrices(jg_block_t *b, jg_setup_t *s, jg_ss_matrices_t *d);
/* Input width of a state-space block with m inputs and n states (siso: a
 * transfer function): set when unknown, else checked (error names the
 * matrices).  JG_BLOCK_DONE or JG_BLOCK_FAIL. */
int jg_setup_ss_input(jg_block_t *b, jg_setup_t *s, int64_t m, int64_t n, int siso);
/* A SISO num/den (highest power first) realized in MATLAB's tf2ss
 * controllable canonical form into d (ic a zero scalar); errors name
 * num_param / den_param (zero leading denominator, improper). */
int jg_setup_tf_realize(jg_block_t *b, jg_setup_t *s, jg_ss_matrices_t *d, const double *num,
                        int64_t nnum, const double *den, int64_t nden, const char *num_param,
                        const char *den_param);
/* A SISO polynomial parameter (TransferFcn, DiscreteTransferFcn): a
 * non-empty row or column vector of coefficients, highest power first; the
 * ndef values def when absent. */
int jg_setup_poly_param(jg_block_t *b, jg_setup_t *s, const char *name, jg_value_t *v,
                        const double *def, int64_t ndef);
/* A numeric parameter with the ndef values def (a row, copied to the arena)
 * when absent.  JG_BLOCK_DONE or JG_BLOCK_FAIL. */
int jg_setup_num_vec_def(jg_block_t *b, jg_setup_t *s, const char *name, jg_value_t *v,
                         const double *def, int64_t ndef);
/* The same with a rows x cols default (row-major def). */
int jg_setup_num_mat_def(jg_block_t *b, jg_setup_t *s, const char *name, jg_value_t *v,
                         const double *def, int64_t rows, int64_t cols);
/* Zero-pole-gain to num/den (ZeroPole, DiscreteZeroPole): the monic
 * polynomials (highest power first, arena) with roots "Zeros" z and "Poles"
 * p, num times gain; nz <= np (a proper system) or an error naming "Zeros".
 * complex_ok: roots may also be k x 2 rows [re im] with conjugates present;
 * else only vectors of finite real roots.  Cost O(np^2). */
int jg_setup_zpk_poly(jg_block_t *b, jg_setup_t *s, const jg_value_t *z, const jg_value_t *p,
                      double gain, int complex_ok, double **num, int64_t *nz, double **den,
                      int64_t *np);
/* out = M1 v1 + M2 v2 for row-major M1 (rows x n1) and M2 (rows x n2). */
static inline void jg_affine(double *out, int64_t rows, const double *m1, const double *v1,
                             int64_t n1, const double *m2, const double *v2, int64_t n2)
{
    for (int64_t i = 0; i < rows; i++) {
        double acc = 0;
        for (int64_t j = 0; j < n1; j++) acc += m1[i * n1 + j] * v1[j];
        for (int64_t j = 0; j < n2; j++) acc += m2[i * n2 + j] * v2[j];
        out[i] = acc;
    }
}

/* Run-time error from a block function; returns -1. */
int jg_eval_error(const jg_block_t *b, jg_eval_t *e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Direct feedthrough with slope 0 (Rounding, a comparison, a logic gate):
 * the compiler derives feedthrough from a d part with entries, so such a
 * block declares the structural pattern (jg_pattern_zero_slope, one d part
 * per input: diagonal, or dense for expanded or reduced widths) and fills it
 * with zeros (jg_jac_zero).  An empty d part would mean "no feedthrough" and
 * let the block run before its driver.  (lib/blocks/math.c) */
int jg_pattern_zero_slope(jg_block_t *b, jg_setup_t *s);

/* The block's data (b->data): size zeroed bytes of the setup arena, or NULL
 * after an out-of-memory error (lib/blocks/params.c). */
void *jg__setup_data(jg_block_t *b, jg_setup_t *s, size_t size);

/* Parameter readers shared by block types (lib/blocks/params.c).  Each sets
 * the error (block path, parameter) and returns JG_BLOCK_FAIL on bad input.
 * jg__param_limit: numbers, a workspace name, or "inf"/"+inf"/"-inf"; absent:
 * def; non-empty, no NaN (out's storage is the setup arena).
 * jg__param_onoff: "on"/"off" or 1/0 into *out; absent: def.
 * jg__param_choice: index of a literal among opts[n]; absent: 0; -1 on error.
 * jg__param_ignore: read a parameter the block accepts and ignores.
 * jg__param_port_count: "Inputs" as a count (string or number) into *n (def
 * when absent, -1 when not one number); returns jg_setup_str_or_num's code,
 * and jg__param_port_count_error reports a count outside 1..1024.
 * jg__widths_same: one input, one output of the same width, from either side. */
int jg__param_limit(jg_block_t *b, jg_setup_t *s, const char *name, double def, jg_value_t *out);
int jg__param_onoff(jg_block_t *b, jg_setup_t *s, const char *name, int def, int *out);
int jg__param_choice(jg_block_t *b, jg_setup_t *s, const char *name, const char *const *opts, int n,
                     const char *expected);
int jg__param_ignore(jg_block_t *b, jg_setup_t *s, const char *name);
/* A literal parameter that may only be `want` (Simulink's other choices add
 * ports or modes the block does not have): absent or want, JG_BLOCK_DONE;
 * else the error "expected \"want\" (why), got ...", JG_BLOCK_FAIL. */
int jg__param_literal(jg_block_t *b, jg_setup_t *s, const char *name, const char *want,
                      const char *why);
/* lo(i) <= hi(i) for i < n (scalars expand), else an error naming lo_name. */
int jg__param_ordered(jg_block_t *b, jg_setup_t *s, const jg_value_t *lo, const jg_value_t *hi,
                      int64_t n, const char *lo_name, const char *hi_name);
int jg__param_port_count(jg_block_t *b, jg_setup_t *s, double def, double *n, const char **str);
int jg__param_port_count_error(jg_block_t *b, jg_setup_t *s, int r, const char *str);
int jg__widths_same(jg_block_t *b, jg_setup_t *s);
/* One input, one output of width max(input, np) for np-element parameters
 * (scalars expand; pname names them in the error).  pass_back: a width a
 * reader fixed flows back to the input, and np > 1 fixes the output at once
 * (the arithmetic blocks); off, only drivers decide (the discontinuities). */
int jg__widths_param(jg_block_t *b, jg_setup_t *s, int64_t np, const char *pname, int pass_back);
/* A delay's one input and one output (UnitDelay, Memory, DiscreteIntegrator,
 * Delay: the state holds the input): the width is a reader's, else the numel
 * of the first non-scalar parameter names[k] (sizes[k]), else the input's,
 * else 1 when stalled (a loop through the delay); the input must have it
 * (the error names the role, "state" or "output", and what it comes from)
 * and every non-scalar parameter as many elements.  Width in out_w[0]. */
int jg__widths_delay(jg_block_t *b, jg_setup_t *s, const char *const *names, const int64_t *sizes,
                     int np, const char *role, const char *from);
/* np scalar-or-vector parameters names[k] (defaults defs[k]) into out[np]:
 * finite, non-empty, the non-scalar ones of one length.  Returns that common
 * numel (1 when all are scalars) or -1 after an error. */
int64_t jg__param_vectors(jg_block_t *b, jg_setup_t *s, const char *const *names, const double *defs,
                          int np, jg_value_t *out);
/* Element i of a parameter that is a scalar (expanded) or a vector. */
static inline double jg__param_at(const jg_value_t *v, int64_t i)
{
    return jg_value_numel(v) == 1 ? v->x[0] : v->x[i];
}
int jg_jac_zero(const jg_block_t *b, jg_eval_t *e);

/* Fill the values of a part whose pattern was declared with jg_jac_from_value
 * (or jg_jac_dense) from the same row-major value. */
void jg_jac_fill_from_value(cs_dl *m, const jg_value_t *v);

/* ---- registry (lib/blocks/registry.c) ---- */
/* A model's plugin set (lib/blocks/plugin_load.c): the plugin files loaded
 * into one model and the block types they registered.  Reference counted: the
 * model holds one reference and every program compiled from it another, so a
 * program outlives its model safely (its blocks point at the set's types). */
typedef struct jg__plset jg__plset_t;
/* The block type called name: a built-in one, else one of ps (NULL: no
 * plugins); NULL when neither has it.  O(types). */
const jg_block_type_t *jg__block_type_find(const jg__plset_t *ps, const char *name);
/* "A, B, ...": the built-in type names and ps's, sorted, comma-separated,
 * for error messages; malloc'd (the caller frees it), NULL out of memory.
 * O(types log types). */
char *jg__block_type_names(const jg__plset_t *ps);
/* 1 when name is a built-in type. */
int jg__block_type_builtin(const char *name);
/* Another reference to ps (NULL is fine); returns ps.  Thread-safe. */
jg__plset_t *jg__plset_retain(jg__plset_t *ps);
/* Drop a reference; the last one frees the types and closes the files
 * (dlclose).  NULL is fine.  Thread-safe. */
void jg__plset_release(jg__plset_t *ps);

/* ---- TransportDelay (lib/blocks/delay.c) ---- */
/* The delay of element i of block b when b is a TransportDelay (what
 * linearization with exact delays cuts), else NAN.  O(1). */
double jg__transportdelay_time(const jg_block_t *b, int64_t i);
/* The normalized (n, n) Pade realization of exp(-σ) that a TransportDelay of
 * PadeOrder n uses (delay.c's opening comment): alpha[1..n] (the first row of
 * A' negated), cp[1..n] (C') and *dp (D = (-1)^n); the block's A = A'/T,
 * B = e1/T.  n is 0..JG__PADE_MAX.  O(n). */
#define JG__PADE_MAX 10
void jg__transportdelay_pade(int n, double *alpha, double *cp, double *dp);

#endif
