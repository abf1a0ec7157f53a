/* Goto/From tag resolution (compile phase, right after the lines): link every
 * From to the Goto it reads.  Goto, From and GotoTagVisibility are the blocks
 * of the JG_BT_TAG_WRITE, TAG_READ and TAG_SCOPE types (data: goto.h).
 *
 * Visibility (Simulink's TagVisibility): a "local" Goto is seen by the Froms
 * of its own system; a "scoped" Goto by the Froms of the system holding the
 * nearest GotoTagVisibility block of its tag, at or above the Goto, and of
 * every system below it; a "global" Goto by every From.  A From looks for, in
 * this order, a local Goto in its own system, a scoped Goto whose
 * GotoTagVisibility system is its own or the nearest such above it, and a
 * global Goto: an inner scope shadows an outer one.  Two Gotos of one tag in
 * one scope are an error, as in Simulink.
 *
 * Gotos are sorted by (tag, visibility, scope system), so duplicates are
 * neighbours and each From costs one binary search per enclosing system:
 * O((G + F depth) log G) for G Gotos and F Froms. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "program_impl.h"
#include "goto.h"

typedef struct {
    const char *tag;
    int vis;
    int32_t scope;   /* system; -1 for global */
    int32_t blk;
} gkey_t;

static int gkey_cmp(const void *a, const void *b)
{
    const gkey_t *x = a, *y = b;
    int c = strcmp(x->tag, y->tag);
    if (c) return c;
    if (x->vis != y->vis) return x->vis < y->vis ? -1 : 1;
    if (x->scope != y->scope) return x->scope < y->scope ? -1 : 1;
    return (x->blk > y->blk) - (x->blk < y->blk);
}

/* the same without the block: lookups */
static int gkey_cmp_scope(const void *a, const void *b)
{
    const gkey_t *x = a, *y = b;
    int c = strcmp(x->tag, y->tag);
    if (c) return c;
    if (x->vis != y->vis) return x->vis < y->vis ? -1 : 1;
    return (x->scope > y->scope) - (x->scope < y->scope);
}

static const gkey_t *find(const gkey_t *k, size_t n, const char *tag, int vis, int32_t scope)
{
    gkey_t key = {tag, vis, scope, -1};
    return n ? bsearch(&key, k, n, sizeof *k, gkey_cmp_scope) : NULL;
}

static const char *sys_name(const jg_program_t *p, int32_t sy)
{
    return *p->sys[sy].path ? p->sys[sy].path : "<root>";
}

static jg_gototag_t *tagdata(const jg_program_t *p, int32_t b)
{
    return p->blocks[b].data;
}

/* A From without a visible Goto: say why, naming the nearest candidate. */
static jg_status_t no_goto(const jg_program_t *p, const jg_block_t *F, const gkey_t *g, size_t ng,
                           jg_error_t *err)
{
    const char *tag = tagdata(p, F->id)->tag;
    const gkey_t *other = NULL;
    for (size_t k = 0; k < ng; k++)   /* first Goto of the tag (sorted: local first) */
        if (!strcmp(g[k].tag, tag)) {
            other = &g[k];
            break;
        }
    if (!other)
        return jg_error_set(err, JG_MODEL, "block '%s' (From): no Goto block has GotoTag '%s'",
                            F->path, tag);
    const jg_block_t *G = &p->blocks[other->blk];
    if (other->vis == JG_TAG_LOCAL)
        return jg_error_set(err, JG_MODEL,
                            "block '%s' (From): GotoTag '%s' belongs to the local Goto '%s' in "
                            "system '%s', which Froms in system '%s' cannot see (move the From "
                            "there, or set the Goto's TagVisibility to \"scoped\" or \"global\")",
                            F->path, tag, G->path, sys_name(p, G->sys), sys_name(p, F->sys));
    return jg_error_set(err, JG_MODEL,
                        "block '%s' (From): GotoTag '%s' belongs to the scoped Goto '%s', which "
                        "is visible only in system '%s' and below (where its GotoTagVisibility "
                        "is)",
                        F->path, tag, G->path, sys_name(p, other->scope));
}

jg_status_t jg__resolve_gotos(jg_program_t *p, jg_error_t *err)
{
    size_t ng = 0, nv = 0;
    for (int32_t b = 0; b < p->nblocks; b++) {
        ng += !!(p->blocks[b].type->flags & JG_BT_TAG_WRITE);
        nv += !!(p->blocks[b].type->flags & JG_BT_TAG_SCOPE);
    }
    gkey_t *g = malloc(sizeof *g * (ng + 1)), *v = malloc(sizeof *v * (nv + 1));
    jg_status_t st = JG_OK;
    if (!g || !v) {
        st = jg_error_set(err, JG_NOMEM, "out of memory");
        goto done;
    }
    ng = nv = 0;
    for (int32_t b = 0; b < p->nblocks; b++) {
        const jg_block_t *B = &p->blocks[b];
        if (B->type->flags & JG_BT_TAG_SCOPE)
            v[nv++] = (gkey_t){tagdata(p, b)->tag, 0, B->sys, b};
    }
    qsort(v, nv, sizeof *v, gkey_cmp);
    /* each Goto's scope */
    for (int32_t b = 0; b < p->nblocks; b++) {
        const jg_block_t *B = &p->blocks[b];
        if (!(B->type->flags & JG_BT_TAG_WRITE)) continue;
        jg_gototag_t *d = tagdata(p, b);
        d->driven = p->in_drv[jg__inport(p, b, 0)] >= 0;
        d->link = -1;
        if (d->vis == JG_TAG_LOCAL) {
            d->scope = B->sys;
        } else if (d->vis == JG_TAG_GLOBAL) {
            d->scope = -1;
        } else {
            d->scope = -1;
            for (int32_t sy = B->sys; sy >= 0 && d->scope < 0; sy = p->sys[sy].parent)
                if (find(v, nv, d->tag, 0, sy)) d->scope = sy;
            if (d->scope < 0) {
                st = jg_error_set(err, JG_MODEL,
                                  "block '%s' (Goto): TagVisibility \"scoped\" needs a "
                                  "GotoTagVisibility block with GotoTag '%s' in system '%s' or "
                                  "above it, and there is none",
                                  B->path, d->tag, sys_name(p, B->sys));
                goto done;
            }
        }
        g[ng++] = (gkey_t){d->tag, d->vis, d->scope, b};
    }
    qsort(g, ng, sizeof *g, gkey_cmp);
    for (size_t k = 1; k < ng; k++) {
        if (gkey_cmp_scope(&g[k - 1], &g[k])) continue;
        const jg_block_t *A = &p->blocks[g[k - 1].blk], *B = &p->blocks[g[k].blk];
        char where[600];
        if (g[k].vis == JG_TAG_LOCAL)
            snprintf(where, sizeof where, "local Gotos in system '%s'", sys_name(p, g[k].scope));
        else if (g[k].vis == JG_TAG_SCOPED)
            snprintf(where, sizeof where, "scoped Gotos visible in system '%s'",
                     sys_name(p, g[k].scope));
        else
            snprintf(where, sizeof where, "global Gotos");
        st = jg_error_set(err, JG_MODEL,
                          "blocks '%s' and '%s' (Goto) are both %s with GotoTag '%s': a From "
                          "could not tell which one it reads",
                          A->path, B->path, where, g[k].tag);
        goto done;
    }
    /* each From: its own system's local Goto, the nearest scoped one, a global one */
    for (int32_t b = 0; b < p->nblocks; b++) {
        const jg_block_t *F = &p->blocks[b];
        if (!(F->type->flags & JG_BT_TAG_READ)) continue;
        jg_gototag_t *d = tagdata(p, b);
        const gkey_t *hit = find(g, ng, d->tag, JG_TAG_LOCAL, F->sys);
        for (int32_t sy = F->sys; !hit && sy >= 0; sy = p->sys[sy].parent)
            hit = find(g, ng, d->tag, JG_TAG_SCOPED, sy);
        if (!hit) hit = find(g, ng, d->tag, JG_TAG_GLOBAL, -1);
        if (!hit) {
            st = no_goto(p, F, g, ng, err);
            goto done;
        }
        jg_gototag_t *gd = tagdata(p, hit->blk);
        d->link = hit->blk;
        d->gotob = &p->blocks[hit->blk];
        d->next = gd->link;
        gd->link = b;
    }
done:
    free(g);
    free(v);
    return st;
}
