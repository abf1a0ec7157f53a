/* gen_impl.h -- internals shared by the model generators of lib/gen.
 *
 * Two builders live here.  The streamed one (gen_system.c) writes the kinds of
 * `jacgraph generate` (gen_aerospace.c, gen_power.c, gen_deep.c,
 * gen_brusselator.c) straight to a FILE: a system's blocks are printed as they
 * are made and only the lines of the systems on the current nesting path are
 * held in memory.  The random-diagram builder of the property tests
 * (gen_random.c) keeps its systems in memory.
 *
 * Both draw every choice from one splitmix64 stream and integer arithmetic, so
 * a seed gives the same bytes on every machine: changing the order of the
 * draws below changes every generated model.
 *
 * Allocation failures and internal errors leave the builders by longjmp
 * (jg__gen_fail) to the entry point's setjmp, which releases every block still
 * allocated through jg__gen_realloc: the builders need no error paths of their
 * own. */
#ifndef JG_GEN_IMPL_H
#define JG_GEN_IMPL_H
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "jacgraph/gen.h"

/* ------------------------------------------------- memory and failure */

typedef union jg__gen_hdr {
    struct {
        union jg__gen_hdr *prev, *next;
    } l;
    max_align_t align;   /* the user block after the header stays aligned */
} jg__gen_hdr_t;

typedef struct {
    jmp_buf fail;        /* set by the entry point; jg__gen_fail jumps here */
    jg__gen_hdr_t live;  /* sentinel of the list of live blocks */
    jg_error_t *err;     /* the caller's, may be NULL */
    jg_status_t st;      /* why the builder jumped */
} jg__gen_mem_t;

void jg__gen_mem_init(jg__gen_mem_t *m, jg_error_t *err);
/* realloc that records the block in m; jumps with JG_NOMEM on failure */
void *jg__gen_realloc(jg__gen_mem_t *m, void *p, size_t n);
void *jg__gen_calloc(jg__gen_mem_t *m, size_t n, size_t size);
void jg__gen_free(jg__gen_mem_t *m, void *p);   /* p from jg__gen_realloc, or NULL */
void jg__gen_free_all(jg__gen_mem_t *m);        /* after a jump */
/* Set the error and jump to the entry point. */
_Noreturn void jg__gen_fail(jg__gen_mem_t *m, jg_status_t st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Detach a block from m (the caller frees it with free()). */
void *jg__gen_release(jg__gen_mem_t *m, void *p);

/* ------------------------------------------------------ string builder */

typedef struct {
    char *s;             /* NUL-terminated once anything was added; NULL before */
    size_t n, cap;
    jg__gen_mem_t *m;
} jg__gen_sb_t;

void jg__gen_sb_init(jg__gen_sb_t *b, jg__gen_mem_t *m);
void jg__gen_sb_cat(jg__gen_sb_t *b, const char *s);
void jg__gen_sb_catn(jg__gen_sb_t *b, const char *s, size_t n);
void jg__gen_sb_printf(jg__gen_sb_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void jg__gen_sb_free(jg__gen_sb_t *b);

/* ----------------------------------------------------------- splitmix64 */

typedef struct {
    uint64_t s;
} jg__gen_rng_t;

static inline uint64_t jg__gen_rnext(jg__gen_rng_t *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* uniform in [lo, hi] */
static inline int jg__gen_rin(jg__gen_rng_t *r, int lo, int hi)
{
    if (hi <= lo) return lo;
    return lo + (int)(jg__gen_rnext(r) % (uint64_t)(hi - lo + 1));
}

static inline int jg__gen_rpct(jg__gen_rng_t *r, int pct) { return jg__gen_rin(r, 0, 99) < pct; }

/* nonzero hundredths in [lo, hi] with a random sign */
static inline int jg__gen_rsgn(jg__gen_rng_t *r, int lo, int hi)
{
    int v = jg__gen_rin(r, lo, hi);
    return jg__gen_rpct(r, 50) ? -v : v;
}

/* -------------------------------------------------- the streamed builder */

typedef struct {
    FILE *f;
    int ioerr;
    uint64_t bytes;
    jg__gen_rng_t r;
    jg__gen_mem_t mem;
    int kind;
    int64_t nblocks, nsub, nstates, nloops, ninputs, noutputs;
    int depth;
    int state_rate;   /* one state per this many blocks (aerospace, deep leaves) */
    int pw_full;      /* power: generator SubSystems, reference and measurement ports */
    uint64_t seed;    /* brusselator: 0 = the unperturbed initial values */
} jg__gen_t;

typedef struct {
    char src[24];     /* "Block:port" */
    int w;            /* width */
    int uses;
    int fb;           /* latest pending state block this signal depends on, -1 none */
    int64_t mag;      /* bound on the sum of |gains| from the sources, hundredths */
} jg__gen_sig_t;

typedef struct {
    char blk[16];     /* a state block whose input is closed at the end (feedback) */
    int w, after, id;
} jg__gen_pend_t;

typedef struct jg__gen_sys {
    jg__gen_t *g;
    int depth, id, nblk, nin, nout;
    jg__gen_sig_t *sig;
    int nsig, capsig;
    jg__gen_pend_t *pend;
    int npend, cappend;
    jg__gen_sb_t lines;
    int nlines;
} jg__gen_sys_t;

#define RNG (&s->g->r)
#define SG(i) (s->sig[i])

/* text */
const char *jg__gen_fh(char *buf, int v);
void jg__gen_out(jg__gen_t *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void jg__gen_outs(jg__gen_t *g, const char *s);
void jg__gen_out_vec(jg__gen_t *g, const int *v, int n);

/* systems and ports */
void jg__gen_sys_init(jg__gen_sys_t *s, jg__gen_t *g, int depth);
void jg__gen_sys_free(jg__gen_sys_t *s);
void jg__gen_blk_begin(jg__gen_sys_t *s, const char *name, const char *type);
void jg__gen_blk_end(jg__gen_sys_t *s);
void jg__gen_new_name(jg__gen_sys_t *s, const char *prefix, char *name);
void jg__gen_link(jg__gen_sys_t *s, const char *src, const char *dst, int port);
/* Sum block `name` with Inputs signs ("+-+"), input k fed by src[k] ("Blk:1"). */
void jg__gen_sum_of(jg__gen_sys_t *s, const char *name, const char *signs, const char *const *src);
void jg__gen_connect(jg__gen_sys_t *s, int sig, const char *blk, int port);
int jg__gen_add_sig(jg__gen_sys_t *s, const char *blk, int port, int w, int64_t mag, int fb);
void jg__gen_root_open(jg__gen_t *g, const char *name, const char *desc);
void jg__gen_root_close(jg__gen_sys_t *s);
void jg__gen_sub_open(jg__gen_sys_t *s, jg__gen_sys_t *c, const char *name);
void jg__gen_sub_close(jg__gen_sys_t *c);
int jg__gen_add_inport(jg__gen_sys_t *s, int w, int64_t mag);
void jg__gen_add_outport_src(jg__gen_sys_t *s, const char *src, int w);
void jg__gen_add_outport(jg__gen_sys_t *s, int sig);

/* blocks and generic actions */
int jg__gen_mk_gain(jg__gen_sys_t *s, int in, int k);
int jg__gen_mk_sum(jg__gen_sys_t *s, const int *in, const int *sg, int n);
int jg__gen_mk_integrator(jg__gen_sys_t *s, int in, int w);
int jg__gen_tame(jg__gen_sys_t *s, int i);
int jg__gen_pick(jg__gen_sys_t *s);
int jg__gen_adapt(jg__gen_sys_t *s, int in, int w);
int jg__gen_get_w(jg__gen_sys_t *s, int w);
void jg__gen_close_pending(jg__gen_sys_t *s);
extern const int jg__gen_vwidth[6];
void jg__gen_act_gain(jg__gen_sys_t *s);
void jg__gen_act_sum(jg__gen_sys_t *s);
void jg__gen_act_mux(jg__gen_sys_t *s);
void jg__gen_act_demux(jg__gen_sys_t *s);
void jg__gen_act_sel(jg__gen_sys_t *s);
void jg__gen_act_matrix(jg__gen_sys_t *s);
void jg__gen_act_state(jg__gen_sys_t *s);
int jg__gen_need_state(const jg__gen_sys_t *s);
int jg__gen_absorb(jg__gen_sys_t *s, int x, int max);
void jg__gen_finish_outports(jg__gen_sys_t *s, int nout, const int *ow, int64_t *om);
int jg__gen_iroot_ceil(int64_t x, int L);

/* the kinds (opts checked by the caller) */
void jg__gen_aerospace(jg__gen_t *g, int64_t N, const char *name);
void jg__gen_power(jg__gen_t *g, int64_t N, const char *name);
void jg__gen_deep(jg__gen_t *g, int64_t N, int depth, const char *name);
void jg__gen_brusselator(jg__gen_t *g, int64_t nx, int64_t ny, const char *name);

#endif
