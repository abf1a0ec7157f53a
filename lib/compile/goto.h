/* goto.h -- Goto / From / GotoTagVisibility: the data the block types
 * (lib/blocks/goto.c) share with the compiler's tag resolution
 * (lib/compile/goto.c).  Every block of a JG_BT_TAG_WRITE / TAG_READ /
 * TAG_SCOPE type keeps a jg_gototag_t in b->data; the compiler finds them by
 * those flags and links every From to its Goto right after the lines are
 * connected.  jg__trace then jumps from a From's output to the signal that
 * drives the Goto's input, so Goto/From routing is as free as a line: it
 * makes no vertex, no edge and no run-time work.  Part of compile's interface
 * to the block types (with block_impl.h). */
#ifndef JG_COMPILE_GOTO_H
#define JG_COMPILE_GOTO_H
#include "block_impl.h"

/* TagVisibility of a Goto: where Froms can see it. */
enum {
    JG_TAG_LOCAL = 0,    /* Froms in the Goto's own system */
    JG_TAG_SCOPED = 1,   /* Froms in the system of the nearest GotoTagVisibility
                            block with the tag, at or above the Goto, and below it */
    JG_TAG_GLOBAL = 2    /* Froms anywhere in the model */
};

typedef struct jg_gototag {
    const char *tag;        /* GotoTag */
    int vis;                /* Goto: JG_TAG_*; others: unused */
    int driven;             /* Goto: its input has a line (set by the resolver) */
    int32_t scope;          /* Goto: system it is visible in (-1 global); resolver */
    int32_t link;           /* From: its Goto block; Goto: its first From; -1 none */
    int32_t next;           /* From: the next From of the same Goto, -1 */
    const jg_block_t *gotob;/* From: its Goto (widths read its input width) */
} jg_gototag_t;

/* The Goto block a (resolved) From reads, and the Froms of a Goto. */
static inline int32_t jg__from_goto(const jg_block_t *from)
{
    return ((const jg_gototag_t *)from->data)->link;
}
static inline int32_t jg__goto_first_from(const jg_block_t *go)
{
    return ((const jg_gototag_t *)go->data)->link;
}
static inline int32_t jg__from_next(const jg_block_t *from)
{
    return ((const jg_gototag_t *)from->data)->next;
}

/* Link every From of the program to its Goto (lib/compile/goto.c): errors
 * for a From without a visible Goto, two Gotos of one tag in one scope, a
 * scoped Goto without its GotoTagVisibility.  Call after the lines are
 * connected, before width propagation.  p is a jg_program_t. */
struct jg_program;
jg_status_t jg__resolve_gotos(struct jg_program *p, jg_error_t *err);

#endif
