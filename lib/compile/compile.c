/* Compile a model: the driver (flatten, set up blocks, connect lines, propagate
 * widths, trace, patterns, sort, sample times; Simulink, "How Simulink Works":
 * "compilation" and "link") and the block setup loop. */
#define _GNU_SOURCE 1   /* sched_getaffinity, CPU_COUNT */
#include <ctype.h>
#include <sched.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <igraph.h>
#include "compile_impl.h"
#include "../model/model_internal.h"
#include "goto.h"

void jg__warn(jg_program_t *p, const char *fmt, ...)
{
    if (p->nwarn == p->capwarn) {
        int cap = p->capwarn ? 2 * p->capwarn : 16;
        char **w = realloc(p->warn, sizeof *w * (size_t)cap);
        if (!w) return;   /* a lost warning is not worth failing the compile */
        p->warn = w;
        p->capwarn = cap;
    }
    va_list ap;
    va_start(ap, fmt);
    char buf[512];
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    p->warn[p->nwarn] = jg_arena_strdup(&p->arena, buf);
    if (p->warn[p->nwarn]) p->nwarn++;
}

/* ------------------------------------------------------------- set up */

/* Edit distance of two short names, case-insensitive (for "did you mean"). */
static int name_distance(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    if (na > 63 || nb > 63) return 99;
    int d[64][64];
    for (size_t i = 0; i <= na; i++) d[i][0] = (int)i;
    for (size_t j = 0; j <= nb; j++) d[0][j] = (int)j;
    for (size_t i = 1; i <= na; i++)
        for (size_t j = 1; j <= nb; j++) {
            int cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
            int v = d[i - 1][j - 1] + cost;
            if (d[i - 1][j] + 1 < v) v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
            d[i][j] = v;
        }
    return d[na][nb];
}

/* A misspelt parameter silently taking its default is the worst kind of wrong
 * number: every key the block's setup did not read is an error, with the
 * nearest parameter it does read. */
static jg_status_t check_unknown_params(jg__cctx_t *c, const jg_block_t *b)
{
    jg__jkey_t dkey;
    const jg__jv_t *v;
    size_t i;
    /* the keys are the document's: integers compare (jg__jdoc_key) */
    const jg__jv_t *src = jg__block_src(c, b);
    jg__jv_obj_foreach(src, i, dkey, v) {
        (void)v;
        int known = 0;
        for (size_t k = 0; !known && k < sizeof c->k_structural / sizeof *c->k_structural; k++)
            known = dkey == c->k_structural[k];
        for (int k = 0; !known && k < c->nseen; k++) known = dkey == c->seen_key[k];
        if (known) continue;
        const char *key = jg__jdoc_keytext(c->doc, dkey);
        const char *best = NULL;
        int bd = 99;
        for (int k = 0; k < c->nseen; k++) {
            int dd = name_distance(key, c->seen[k]);
            if (dd < bd) bd = dd, best = c->seen[k];
        }
        int len = (int)strlen(key);
        if (best && bd <= (len > 6 ? len / 3 : 2))
            return jg_error_set(c->err, JG_PARAM,
                                "block '%s' (%s): unknown parameter '%s' (did you mean '%s'?)",
                                b->path, b->type->name, key, best);
        char list[512] = "";
        size_t n = 0;
        for (int k = 0; k < c->nseen && n < sizeof list - 1; k++)
            n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", k ? ", " : "", c->seen[k]);
        return jg_error_set(c->err, JG_PARAM, "block '%s' (%s): unknown parameter '%s'%s%s%s",
                            b->path, b->type->name, key, c->nseen ? " (it reads " : "", list,
                            c->nseen ? ")" : "");
    }
    return JG_OK;
}

/* The block after k and its descendants (depth-first ids: a SubSystem's
 * blocks follow it): k's next sibling, or the end of k's system. */
static int32_t next_sibling(const jg_program_t *p, int32_t k)
{
    if (k + 1 < p->nblocks && p->blocks[k + 1].parent == k) {
        const struct jg_sys *in = &p->sys[p->blocks[k + 1].sys];
        return in->first + in->n;
    }
    return k + 1;
}

static jg_status_t setup_blocks(jg__cctx_t *c, jg_setup_t *s)
{
    jg_program_t *p = c->p;
    for (int32_t id = 0; id < p->nblocks; id++) {
        jg_block_t *b = &p->blocks[id];
        if (b->type->flags & JG_BT_SUBSYSTEM) continue;   /* ports from its inner blocks, below */
        c->ntag += (b->type->flags & (JG_BT_TAG_WRITE | JG_BT_TAG_READ | JG_BT_TAG_SCOPE)) != 0;
        c->nselfloop += (b->type->flags & JG_BT_SELFLOOP) != 0;
        c->nseen = 0;
        b->ts = (jg_ts_t){NAN, 0};   /* setup may set a type default */
        if (b->type->setup(b, s) != JG_BLOCK_DONE) return c->err ? c->err->status : JG_PARAM;
        if (!b->virt && jg__setup_sample_time(b, s) != JG_BLOCK_DONE)
            return c->err ? c->err->status : JG_PARAM;
        jg_status_t ust = check_unknown_params(c, b);
        if (ust) return ust;
        if (b->virt && (b->type->flags & (JG_BT_PORT_IN | JG_BT_PORT_OUT))) {
            /* inner port blocks: Inport has one output, Outport one input */
            int in = (b->type->flags & JG_BT_PORT_IN) != 0;
            if (jg_setup_ports(b, s, !in, in) != JG_BLOCK_DONE)
                return c->err ? c->err->status : JG_NOMEM;
        }
    }
    /* SubSystem ports come from the Inport/Outport blocks inside (and the
     * ports of every block are known, summed for the lines) */
    for (int32_t id = 0; id < p->nblocks; id++) {
        jg_block_t *b = &p->blocks[id];
        if (!(b->type->flags & JG_BT_SUBSYSTEM)) {
            c->nin_total += b->nin;
            c->nout_total += b->nout;
            continue;
        }
        int nin = 0, nout = 0;
        /* depth-first ids: the SubSystem's descendants are id+1 .. end-1 */
        int32_t end = id + 1;
        if (id + 1 < p->nblocks && p->blocks[id + 1].parent == id) {
            const struct jg_sys *in_sys = &p->sys[p->blocks[id + 1].sys];
            end = in_sys->first + in_sys->n;
        }
        for (int32_t k = id + 1; k < end; k = next_sibling(p, k)) {   /* its own blocks */
            const jg_block_t *in = &p->blocks[k];
            if ((in->type->flags & JG_BT_PORT_IN) && in->port > nin) nin = in->port;
            if ((in->type->flags & JG_BT_PORT_OUT) && in->port > nout) nout = in->port;
        }
        if (jg_setup_ports(b, s, nin, nout) != JG_BLOCK_DONE) return JG_NOMEM;
        c->nin_total += nin;
        c->nout_total += nout;
        jg__subsys_t *d = jg_arena_alloc(&p->arena, sizeof *d);
        if (!d) return jg_error_set(c->err, JG_NOMEM, "out of memory");
        d->in_blk = jg_arena_alloc(&p->arena, sizeof(int32_t) * (size_t)(nin + 1));
        d->out_blk = jg_arena_alloc(&p->arena, sizeof(int32_t) * (size_t)(nout + 1));
        if (!d->in_blk || !d->out_blk) return jg_error_set(c->err, JG_NOMEM, "out of memory");
        for (int i = 0; i < nin; i++) d->in_blk[i] = -1;
        for (int i = 0; i < nout; i++) d->out_blk[i] = -1;
        for (int32_t k = id + 1; k < end; k = next_sibling(p, k)) {
            const jg_block_t *in = &p->blocks[k];
            if (!(in->type->flags & (JG_BT_PORT_IN | JG_BT_PORT_OUT))) continue;
            int n = in->port - 1, is_in = (in->type->flags & JG_BT_PORT_IN) != 0;
            int32_t *slot = is_in ? &d->in_blk[n] : &d->out_blk[n];
            if (*slot >= 0)
                return jg_error_set(c->err, JG_MODEL,
                                    "blocks '%s' and '%s' both claim %s %d of SubSystem '%s'",
                                    p->blocks[*slot].path, in->path, is_in ? "input" : "output",
                                    n + 1, b->path);
            *slot = k;
        }
        for (int i = 0; i < nin; i++)
            if (d->in_blk[i] < 0)
                return jg_error_set(c->err, JG_MODEL,
                                    "SubSystem '%s': Inport numbers must be 1..%d, but there is "
                                    "no Inport with Port %d",
                                    b->path, nin, i + 1);
        for (int i = 0; i < nout; i++)
            if (d->out_blk[i] < 0)
                return jg_error_set(c->err, JG_MODEL,
                                    "SubSystem '%s': Outport numbers must be 1..%d, but there is "
                                    "no Outport with Port %d",
                                    b->path, nout, i + 1);
        b->data = d;
    }
    /* root ports by number */
    for (int32_t id = 0; id < p->nblocks; id++) {
        const jg_block_t *b = &p->blocks[id];
        if (!b->is_root_port) continue;
        if ((b->type->flags & JG_BT_PORT_IN) && b->port > p->nin_root) p->nin_root = b->port;
        if ((b->type->flags & JG_BT_PORT_OUT) && b->port > p->nout_root) p->nout_root = b->port;
    }
    p->in_root = jg_arena_alloc(&p->arena, sizeof(int32_t) * (size_t)(p->nin_root + 1));
    p->out_root = jg_arena_alloc(&p->arena, sizeof(int32_t) * (size_t)(p->nout_root + 1));
    if (!p->in_root || !p->out_root) return jg_error_set(c->err, JG_NOMEM, "out of memory");
    for (int i = 0; i < p->nin_root; i++) p->in_root[i] = -1;
    for (int i = 0; i < p->nout_root; i++) p->out_root[i] = -1;
    for (int32_t id = 0; id < p->nblocks; id++) {
        const jg_block_t *b = &p->blocks[id];
        if (!b->is_root_port) continue;
        int n = b->port - 1, is_in = (b->type->flags & JG_BT_PORT_IN) != 0;
        int32_t *slot = is_in ? &p->in_root[n] : &p->out_root[n];
        if (*slot >= 0)
            return jg_error_set(c->err, JG_MODEL, "root blocks '%s' and '%s' both claim %s %d",
                                p->blocks[*slot].path, b->path, is_in ? "Inport" : "Outport",
                                n + 1);
        *slot = id;
    }
    for (int i = 0; i < p->nin_root; i++)
        if (p->in_root[i] < 0)
            return jg_error_set(c->err, JG_MODEL,
                                "root Inport numbers must be 1..%d, but Port %d is missing",
                                p->nin_root, i + 1);
    for (int i = 0; i < p->nout_root; i++)
        if (p->out_root[i] < 0)
            return jg_error_set(c->err, JG_MODEL,
                                "root Outport numbers must be 1..%d, but Port %d is missing",
                                p->nout_root, i + 1);
    return JG_OK;
}

/* --------------------------------------------------------------- lines */

/* -------------------------------------------------------------- driver */

/* After the lines nothing reads the model's document (the block types read
 * their parameters in setup(); widths() and pattern() work on what setup()
 * kept): the program forgets its pointers into it and, when the caller gave
 * the model away, frees it. */
static void drop_document(jg__cctx_t *c, jg_program_t *p, jg_model_t **take)
{
    c->doc = NULL;
    free(c->src);
    c->src = NULL;
    for (int32_t k = 0; k < p->nsys; k++) p->sys[k].params = p->sys[k].json = NULL;
    jg_model_free(*take);
    *take = NULL;
}

/* jg_program_compile of m; take: m itself, freed once its document has been
 * read (and on every return), or NULL. */
static jg_status_t compile(const jg_model_t *m, jg_model_t *take, jg_program_t **out, jg_error_t *err)
{
    jg_status_t st;
    jg_error_t local;
    if (!err) err = &local;
    jg_error_clear(err);
    *out = NULL;
    jg_program_t *p = calloc(1, sizeof *p);
    jg__consumers_t cs = {NULL, NULL};
    jg__lines_pre_t *pre = NULL;
    jg__index_job_t *ij = NULL;   /* the path index on its thread */
    int flat = 0, indexed = 0;    /* flatten done; the index built or under way */
    if (!p) {
        jg_model_free(take);
        return jg_error_set(err, JG_NOMEM, "out of memory");
    }
    jg_arena_init(&p->arena, 1 << 16);
    /* the program shares the model's plugin types: it may outlive the model */
    p->plugins = jg__plset_retain(jg__model_plugins(m));
    jg__cctx_t c = {.p = p, .err = err, .plugins = p->plugins, .lim = jg_model_limits(m)};
    jg_setup_t s = {.force = 0, .err = err, .priv = &c};
    static const char *const structural[] = {"name", "type", "blocks", "lines", "parameters",
                                             "description"};
    c.doc = jg__model_doc(m);
    for (size_t k = 0; k < sizeof structural / sizeof *structural; k++)
        c.k_structural[k] = jg__jdoc_key(c.doc, structural[k]);
    c.k_name = c.k_structural[0];
    c.k_type = c.k_structural[1];
    c.k_blocks = c.k_structural[2];
    c.k_lines = c.k_structural[3];
    c.k_params = c.k_structural[4];
    c.k_src = jg__jdoc_key(c.doc, "src");
    c.k_dst = jg__jdoc_key(c.doc, "dst");
    int32_t nb = 0, ns = 0;
    int64_t nb64, ns64;
    if (jg__model_counts(m, &nb64, &ns64)) {   /* the shape check counted them (saturating as below) */
        nb = nb64 > INT32_MAX ? INT32_MAX : (int32_t)nb64;
        ns = ns64 > INT32_MAX ? INT32_MAX : (int32_t)ns64;
    } else {
        jg__count_blocks(&c, jg__model_root(m), &nb, &ns);
    }
    if ((st = jg__check_block_count(&c, nb))) goto fail;
    p->name = jg_arena_strdup(&p->arena, jg_model_name(m));
    /* the blocks aligned as their type says (block_impl.h: cache lines) */
    char *ba = jg_arena_alloc(&p->arena, sizeof(jg_block_t) * (size_t)(nb + 1) + _Alignof(jg_block_t));
    p->blocks = ba ? (jg_block_t *)(ba + (-(uintptr_t)ba & (_Alignof(jg_block_t) - 1))) : NULL;
    p->sys = jg_arena_alloc(&p->arena, sizeof(struct jg_sys) * (size_t)(ns + 1));
    c.src = malloc(sizeof *c.src * (size_t)(nb + 1));
    for (p->hcap = 16; p->hcap < 2 * (int64_t)nb + 2; p->hcap *= 2) {}
    p->htab = jg_arena_alloc(&p->arena, sizeof(int32_t) * (size_t)p->hcap);
    if (!p->name || !p->blocks || !p->sys || !p->htab || !c.src) {
        st = jg_error_set(err, JG_NOMEM, "out of memory");
        goto fail;
    }
    if ((st = jg__flatten(&c, jg__model_root(m), -1, -1, err))) goto fail;
    flat = 1;
    cpu_set_t cpus;
    c.threads = p->nblocks >= JG__COMPILE_THREAD_MIN &&
                !(sched_getaffinity(0, sizeof cpus, &cpus) == 0 && CPU_COUNT(&cpus) < 2);
    /* the path index: here, or on a thread beside the passes after the lines
     * (its error still comes first: see fail) */
    if (!c.threads) {
        indexed = 1;
        if ((st = jg__index_paths(&c, err))) goto fail;
    }
    pre = jg__lines_resolve_start(&c);   /* beside the setup */
    if ((st = setup_blocks(&c, &s))) goto fail;
    if ((st = jg__connect_lines(&c, pre))) goto fail;
    jg__lines_resolve_end(pre);
    pre = NULL;
    if (!indexed) {
        indexed = 1;
        if (!(ij = jg__index_paths_start(&c)) && (st = jg__index_paths(&c, err))) goto fail;
    }
    drop_document(&c, p, &take);
    /* From -> Goto (goto.c); a model without tags has nothing to link */
    if (c.ntag && (st = jg__resolve_gotos(p, err))) goto fail;
    if ((st = jg__build_consumers(p, &cs, err))) goto fail;
    if ((st = jg__propagate_widths(&c, &s, &cs))) goto fail;
    if ((st = jg__check_totals(&c, &s))) goto fail;
    if ((st = jg__layout(&c))) goto fail;
    if ((st = jg__patterns(&c, &s))) goto fail;
    /* igraph's default handlers print and abort: ignore them around our igraph
     * calls (jg__sort_blocks converts the codes) and hand the embedding program's
     * own handlers back, so compiling leaves no process-wide state behind */
    igraph_error_handler_t *old_eh = igraph_set_error_handler(igraph_error_handler_ignore);
    igraph_warning_handler_t *old_wh = igraph_set_warning_handler(igraph_warning_handler_ignore);
    st = jg__sort_blocks(&c);
    igraph_set_error_handler(old_eh);
    igraph_set_warning_handler(old_wh);
    if (st) goto fail;
    if ((st = jg__resolve_sample_times(&c))) goto fail;
    if (ij) {
        st = jg__index_paths_end(ij, err);
        ij = NULL;
        if (st) goto fail;
    }
    free(cs.ptr);
    free(cs.idx);
    free(c.parts);
    free(c.ptab);
    free(c.src);
    *out = p;
    return JG_OK;
fail:
    jg__lines_resolve_end(pre);   /* (before the program it reads is freed) */
    /* the path index, due right after flatten, reports a path twice before
     * any error of the passes after it, as when it ran there */
    if (ij || (flat && !indexed)) {
        jg_error_t ie;
        jg_status_t si = ij ? jg__index_paths_end(ij, &ie) : jg__index_paths(&c, &ie);
        if (si) {
            st = si;
            if (err) *err = ie;
        }
    }
    free(cs.ptr);
    free(cs.idx);
    free(c.parts);
    free(c.ptab);
    free(c.src);
    jg_program_free(p);
    jg_model_free(take);
    return st ? st : JG_INTERNAL;
}

jg_status_t jg_program_compile(const jg_model_t *m, jg_program_t **out, jg_error_t *err)
{
    return compile(m, NULL, out, err);
}

jg_status_t jg_program_compile_free_model(jg_model_t *m, jg_program_t **out, jg_error_t *err)
{
    return compile(m, m, out, err);
}

void jg_program_free(jg_program_t *p)
{
    if (!p) return;
    free(p->warn);
    jg_arena_free(&p->arena);
    jg__plset_release(p->plugins);   /* last: the blocks pointed into it */
    free(p);
}
