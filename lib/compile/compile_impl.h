/* Compiler context shared by compile.c and setup.c. */
#ifndef JG_COMPILE_IMPL_H
#define JG_COMPILE_IMPL_H
#include "program_impl.h"

typedef struct jg__cctx {
    jg_program_t *p;
    jg_error_t *err;
    int part_cap_blk;     /* capacity of the current block's part array */
    const char *seen[64]; /* parameters the current block's setup asked for */
    int nseen;
    struct jg__wscache *wsc;  /* evaluated workspace entries (setup.c; in the arena) */
} jg__cctx_t;

/* Remember that the block being set up read parameter `name`. */
static inline void jg__seen(jg__cctx_t *c, const char *name)
{
    if (c->nseen < 64) c->seen[c->nseen++] = name;
}

/* sampletime.c: read "SampleTime" and "Priority" of a real block after its
 * setup; resolve inherited sample times and list the discrete rates (after
 * the sort). */
int jg__setup_sample_time(jg_block_t *b, jg_setup_t *s);
jg_status_t jg__resolve_sample_times(jg__cctx_t *c);

#endif
