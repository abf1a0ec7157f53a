/* Goto, From and GotoTagVisibility: wireless connections by tag.
 *
 * All three are virtual.  A Goto (one input, no output) publishes the signal
 * on its input under GotoTag; a From (no input, one output) with the same tag
 * reads it.  The compiler links each From to its Goto (lib/compile/goto.c,
 * where the visibility rules are) and jg__trace jumps from the From's output
 * to the Goto's driver, so a Goto/From pair is exactly a line: identical
 * graph, sorted order and linearization.  GotoTagVisibility (no ports) marks
 * the system in which a "scoped" Goto of its tag is visible.
 */
#include <string.h>
#include "goto.h"

/* GotoTag (literal, default "A" as Simulink saves it) into the arena: the
 * model's strings may be freed after compilation. */
static int tag_setup(jg_block_t *b, jg_setup_t *s, jg_gototag_t **out)
{
    jg_gototag_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    d->link = d->next = d->scope = -1;
    const char *tag = "A";
    if (jg_setup_str(b, s, "GotoTag", &tag) < 0) return JG_BLOCK_FAIL;
    if (!*tag) return jg_setup_error(b, s, JG_PARAM, "GotoTag", "expected a non-empty tag");
    size_t n = strlen(tag) + 1;
    char *t = jg_setup_alloc(s, n);
    if (!t) return jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
    memcpy(t, tag, n);
    d->tag = t;
    *out = d;
    return JG_BLOCK_DONE;
}

/* ------------------------------------------------------------------ Goto */

static int goto_setup(jg_block_t *b, jg_setup_t *s)
{
    jg_gototag_t *d;
    if (tag_setup(b, s, &d) != JG_BLOCK_DONE) return JG_BLOCK_FAIL;
    const char *vis = "local";
    if (jg_setup_str(b, s, "TagVisibility", &vis) < 0) return JG_BLOCK_FAIL;
    if (!strcmp(vis, "local"))
        d->vis = JG_TAG_LOCAL;
    else if (!strcmp(vis, "scoped"))
        d->vis = JG_TAG_SCOPED;
    else if (!strcmp(vis, "global"))
        d->vis = JG_TAG_GLOBAL;
    else
        return jg_setup_error(b, s, JG_PARAM, "TagVisibility",
                              "expected \"local\", \"scoped\" or \"global\", got \"%s\"", vis);
    return jg_setup_ports(b, s, 1, 0);
}

/* The input takes its driver's width (set by the compiler); an unconnected
 * Goto is scalar, like an unconnected Outport. */
static int goto_widths(jg_block_t *b, jg_setup_t *s)
{
    const jg_gototag_t *d = b->data;
    if (b->in_w[0] < 0) {
        if (!s->force || d->driven) return JG_BLOCK_AGAIN;
        b->in_w[0] = 1;
    }
    return JG_BLOCK_DONE;
}

const jg_block_type_t jg_block_goto = {
    .name = "Goto", .flags = JG_BT_VIRTUAL | JG_BT_LINEAR | JG_BT_TAG_WRITE,
    .setup = goto_setup, .widths = goto_widths,
};

/* ------------------------------------------------------------------ From */

static int from_setup(jg_block_t *b, jg_setup_t *s)
{
    jg_gototag_t *d;
    if (tag_setup(b, s, &d) != JG_BLOCK_DONE) return JG_BLOCK_FAIL;
    return jg_setup_ports(b, s, 0, 1);
}

/* The width of the Goto's input (the compiler wakes the From when its Goto
 * is complete). */
static int from_widths(jg_block_t *b, jg_setup_t *s)
{
    (void)s;
    const jg_gototag_t *d = b->data;
    if (b->out_w[0] < 0) {
        if (!d->gotob || d->gotob->in_w[0] < 0) return JG_BLOCK_AGAIN;
        b->out_w[0] = d->gotob->in_w[0];
    }
    return JG_BLOCK_DONE;
}

const jg_block_type_t jg_block_from = {
    .name = "From", .flags = JG_BT_VIRTUAL | JG_BT_LINEAR | JG_BT_TAG_READ,
    .setup = from_setup, .widths = from_widths,   /* no route(): jg__trace follows TAG_READ */
};

/* ----------------------------------------------------- GotoTagVisibility */

static int vis_setup(jg_block_t *b, jg_setup_t *s)
{
    jg_gototag_t *d;
    if (tag_setup(b, s, &d) != JG_BLOCK_DONE) return JG_BLOCK_FAIL;
    return jg_setup_ports(b, s, 0, 0);
}

static int vis_widths(jg_block_t *b, jg_setup_t *s)
{
    (void)b;
    (void)s;
    return JG_BLOCK_DONE;
}

const jg_block_type_t jg_block_gototagvisibility = {
    .name = "GotoTagVisibility", .flags = JG_BT_VIRTUAL | JG_BT_LINEAR | JG_BT_TAG_SCOPE,
    .setup = vis_setup, .widths = vis_widths,
};
