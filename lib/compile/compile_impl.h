/* Compiler context and stages shared by the files of lib/compile. */
#ifndef JG_COMPILE_IMPL_H
#define JG_COMPILE_IMPL_H
#include "program_impl.h"

/* Compiler-private data of a SubSystem block: its inner port blocks. */
typedef struct {
    int32_t *in_blk;    /* inner Inport block for each input port */
    int32_t *out_blk;   /* inner Outport block for each output port */
} jg__subsys_t;

typedef struct {
    int64_t *ptr, *idx;   /* consumers of each global output port (global input ports) */
} jg__consumers_t;

#define JG__TYPE_CACHE 64

typedef struct jg__cctx {
    jg_program_t *p;
    jg_error_t *err;
    const jg__plset_t *plugins;  /* the model's plugin types (p->plugins), NULL: none */
    jg_jac_part_t *parts; /* the parts of the block in pattern() (setup.c add_part), malloc'd */
    int part_cap_blk;     /* their capacity */
    /* the distinct part matrices so far (setup.c add_part): a pattern
     * declared again is shared, open addressing, pcap slots, malloc'd */
    cs_dl **ptab;
    int64_t pcap, pn;
    const char *seen[64]; /* parameters the current block's setup asked for */
    jg__jkey_t seen_key[64]; /* the same as keys of the document (0: it has none) */
    int nseen;
    /* the document's keys (jg__jdoc_key: member lookups compare integers),
     * valid until the document is dropped after the lines */
    const jg__jdoc_t *doc;
    const jg__jv_t **src; /* per block: its JSON object; malloc'd, dropped with the document */
    char *strp;           /* the block paths, packed without the arena's alignment (flatten.c) */
    int32_t ntag;         /* Goto, From and GotoTagVisibility blocks (compile.c) */
    int32_t nselfloop;    /* blocks of JG_BT_SELFLOOP types (compile.c) */
    int64_t nin_total, nout_total;   /* the blocks' ports, once set up (compile.c) */
    double *dblp;         /* parameter values, packed 8-byte aligned (setup.c) */
    size_t dblleft;
    size_t strleft;
    jg__jkey_t k_name, k_type, k_blocks, k_lines, k_src, k_dst, k_params;
    jg__jkey_t k_structural[6];   /* the keys every block may have (compile.c) */
    struct jg__wscache *wsc;  /* evaluated workspace entries (setup.c; in the arena) */
    jg_limits_t lim;      /* the model's limits, defaults applied (limits.c) */
    int threads;          /* 1: JG__COMPILE_THREAD_MIN blocks or more and two or more cores:
                             the lines' ends and the path index on threads of their own */
    struct {
        const char *name;
        const jg_block_type_t *type;
    } tcache[JG__TYPE_CACHE];   /* block types by name (flatten.c), a cache of the registry */
} jg__cctx_t;

/* The JSON object of block b, NULL once the document is dropped. */
static inline const jg__jv_t *jg__block_src(const jg__cctx_t *c, const jg_block_t *b)
{
    return c->src ? c->src[b->id] : NULL;
}

/* Remember that the block being set up read parameter `name`; its value
 * in block object src, NULL when absent. */
static inline const jg__jv_t *jg__seen(jg__cctx_t *c, const void *src, const char *name)
{
    jg__jkey_t k = jg__jdoc_key(c->doc, name);
    if (c->nseen < 64) {
        c->seen[c->nseen] = name;
        c->seen_key[c->nseen++] = k;
    }
    return jg__jv_get_key((const jg__jv_t *)src, k);
}

/* sampletime.c: read "SampleTime" and "Priority" of a real block after its
 * setup; resolve inherited sample times and list the discrete rates (after
 * the sort). */
int jg__setup_sample_time(jg_block_t *b, jg_setup_t *s);
jg_status_t jg__resolve_sample_times(jg__cctx_t *c);

/* limits.c: the element limit (c->lim.elements).  The block count; the known
 * port widths of b before its widths() runs (JG_BLOCK_DONE or JG_BLOCK_FAIL
 * with the error set); after propagation every width and the model's total
 * of signal elements, states, discrete states and zero crossings.  Errors
 * are JG_MODEL naming the block and the option --max-elements. */
jg_status_t jg__check_block_count(jg__cctx_t *c, int32_t nb);
int jg__check_widths_known(jg__cctx_t *c, jg_setup_t *s, jg_block_t *b);
jg_status_t jg__check_totals(jg__cctx_t *c, jg_setup_t *s);

/* The stages of jg_program_compile (compile.c), in their order; each returns
 * JG_OK or an error set in c->err (or err). */
/* flatten.c: upper bounds of the blocks and systems jg__flatten makes */
void jg__count_blocks(const jg__cctx_t *c, const jg__jv_t *sys, int32_t *nb, int32_t *ns);
/* flatten.c: copy name[0..len) to d with every '/' doubled; returns the bytes written */
size_t jg__put_escaped(char *d, const char *name, size_t len);
/* flatten.c: depth-first blocks and systems of sysj, paths in the hash table */
jg_status_t jg__flatten(jg__cctx_t *c, const jg__jv_t *sysj, int32_t parent_sys,
                        int32_t sys_block, jg_error_t *err);
/* From this many blocks on two or more cores (jg__cctx_t.threads) the lines'
 * ends are resolved while the blocks are set up, and the path index is built
 * while the passes after the lines run (a million-block model spends about
 * as long in the lines' ends as in the blocks' setup, and 30 ms in the
 * index). */
#define JG__COMPILE_THREAD_MIN 50000
/* flatten.c: the path table p->htab of the flattened blocks; a path twice
 * is the JG_MODEL error naming both blocks */
jg_status_t jg__index_paths(jg__cctx_t *c, jg_error_t *err);
/* The same on a thread of its own (NULL when it cannot start: index them
 * yourself).  It reads only the blocks' and systems' paths, which no pass
 * after flatten changes, and writes only p->htab, which no pass reads.
 * _end waits for it and gives jg__index_paths' outcome, and frees. */
typedef struct jg__index_job jg__index_job_t;
jg__index_job_t *jg__index_paths_start(jg__cctx_t *c);
jg_status_t jg__index_paths_end(jg__index_job_t *j, jg_error_t *err);
/* lines.c: global ports, each input's driver, signal names */
/* The lines' ends ("BLOCK:N") resolved to block ids on a thread of its own
 * while the blocks are set up: started after flatten for a large model on
 * more than one core (jg__cctx_t.threads) (NULL otherwise, or when the thread
 * cannot start: connect_lines then resolves them itself); the thread reads
 * only the document, the systems and the blocks' names.  connect_lines
 * waits for it; _end (also on failure) waits and frees. */
typedef struct jg__lines_pre jg__lines_pre_t;
jg__lines_pre_t *jg__lines_resolve_start(const jg__cctx_t *c);
void jg__lines_resolve_end(jg__lines_pre_t *pre);   /* NULL is fine */
/* Connect the lines (pre: the ends resolved by jg__lines_resolve_start, or NULL). */
jg_status_t jg__connect_lines(jg__cctx_t *c, jg__lines_pre_t *pre);
/* widths.c: the consumers of each output port (cs->ptr, cs->idx: malloc'd, the
 * caller frees them), then the widths of every port */
jg_status_t jg__build_consumers(jg_program_t *p, jg__consumers_t *cs, jg_error_t *err);
jg_status_t jg__propagate_widths(jg__cctx_t *c, jg_setup_t *s, const jg__consumers_t *cs);
/* trace.c: signal vector offsets and every real input element's source */
jg_status_t jg__layout(jg__cctx_t *c);
/* patterns.c: Jacobian patterns and direct feedthrough per input port */
jg_status_t jg__patterns(jg__cctx_t *c, jg_setup_t *s);
/* sort.c: sorted order and algebraic loops (igraph; the caller installs
 * igraph's ignoring error handlers around it) */
jg_status_t jg__sort_blocks(jg__cctx_t *c);

#endif
