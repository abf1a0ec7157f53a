/* Compile a model: flatten, set up blocks, connect lines, propagate widths,
 * trace signal elements through virtual routing, declare Jacobian patterns,
 * sort (Simulink, "How Simulink Works": "compilation" and "link"). */
#define _GNU_SOURCE   /* qsort_r */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <igraph.h>
#include "compile_impl.h"
#include "../model/model_internal.h"
#include "goto.h"

/* Compiler-private data of a SubSystem block: its inner port blocks. */
typedef struct {
    int32_t *in_blk;    /* inner Inport block for each input port */
    int32_t *out_blk;   /* inner Outport block for each output port */
} subsys_t;

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

/* ---------------------------------------------------------------- paths */

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

int32_t jg_program_find_block(const jg_program_t *p, const char *path)
{
    if (!p->hcap) return -1;
    for (uint64_t k = hash_str(path) & (uint64_t)(p->hcap - 1);; k = (k + 1) & (uint64_t)(p->hcap - 1)) {
        int32_t b = p->htab[k];
        if (b < 0) return -1;
        if (!strcmp(p->blocks[b].path, path)) return b;
    }
}

static int hash_insert(jg_program_t *p, int32_t b)
{
    for (uint64_t k = hash_str(p->blocks[b].path) & (uint64_t)(p->hcap - 1);;
         k = (k + 1) & (uint64_t)(p->hcap - 1)) {
        int32_t o = p->htab[k];
        if (o < 0) {
            p->htab[k] = b;
            return 0;
        }
        if (!strcmp(p->blocks[o].path, p->blocks[b].path)) return -1;
    }
}

/* ------------------------------------------------------------- flatten */

/* Upper bounds of the blocks and systems flatten() makes, to size its arrays:
 * it descends into the blocks of JG_BT_SUBSYSTEM types, whose "blocks" array
 * the model's reader has checked; counting every "blocks" array found here
 * spares a type lookup per block and only over-counts odd models. */
static void count_blocks(const json_t *sys, int32_t *nb, int32_t *ns)
{
    size_t i;
    const json_t *b;
    (*ns)++;
    json_array_foreach(json_object_get(sys, "blocks"), i, b) {
        (*nb)++;
        if (json_is_array(json_object_get(b, "blocks"))) count_blocks(b, nb, ns);
    }
}

/* Copy name[0..len) to d with every '/' doubled; returns the bytes written. */
static size_t put_escaped(char *d, const char *name, size_t len)
{
    size_t o = 0;
    for (size_t k = 0; k < len; k++) {
        if (name[k] == '/') d[o++] = '/';
        d[o++] = name[k];
    }
    return o;
}

/* "sys/name" ("name" at the root) in the arena.  A '/' inside the name is
 * doubled, as Simulink's getfullname writes block "a/b" of "sys" as
 * "sys/a//b", so a path still splits at its single slashes.  printf is too
 * slow for a million paths. */
static char *join_path(jg_arena_t *a, const char *sys, const char *name, size_t len)
{
    size_t ls = strlen(sys), nslash = 0;
    for (const char *c = memchr(name, '/', len); c; c = memchr(c + 1, '/', len - (size_t)(c + 1 - name)))
        nslash++;
    char *d = jg_arena_alloc(a, ls + len + nslash + 2);
    if (!d) return NULL;
    if (ls) {
        memcpy(d, sys, ls);
        d[ls++] = '/';
    }
    if (nslash) ls += put_escaped(d + ls, name, len);
    else {
        memcpy(d + ls, name, len);
        ls += len;
    }
    d[ls] = '\0';
    return d;
}

/* Depth first: a SubSystem's blocks follow it directly (the state layout). */
static jg_status_t flatten(jg__cctx_t *c, const json_t *sysj, int32_t parent_sys,
                           int32_t sys_block, jg_error_t *err)
{
    jg_program_t *p = c->p;
    int32_t si = p->nsys++;
    struct jg_sys *sy = &p->sys[si];
    sy->parent = parent_sys;
    sy->block = sys_block;
    sy->path = sys_block >= 0 ? p->blocks[sys_block].path : "";
    sy->params = json_object_get(sysj, "parameters");
    sy->json = sysj;
    sy->first = p->nblocks;
    size_t i;
    const json_t *bj;
    json_array_foreach(json_object_get(sysj, "blocks"), i, bj) {
        int32_t id = p->nblocks++;
        jg_block_t *b = &p->blocks[id];
        const char *name = json_string_value(json_object_get(bj, "name"));
        const char *type = json_string_value(json_object_get(bj, "type"));
        b->id = id;
        b->parent = sys_block;
        b->sys = si;
        b->src = bj;
        size_t len = strlen(name);
        b->path = join_path(&p->arena, sy->path, name, len);
        if (!b->path) return jg_error_set(err, JG_NOMEM, "out of memory");
        /* the name itself, unescaped: the path's tail unless it holds a '/' */
        b->name = memchr(name, '/', len) ? jg_arena_strdup(&p->arena, name)
                                         : b->path + strlen(b->path) - len;
        if (!b->name) return jg_error_set(err, JG_NOMEM, "out of memory");
        b->type = jg_block_type_find(type);
        if (!b->type)
            return jg_error_set(err, JG_MODEL,
                                "block '%s': unknown block type '%s'; known types: %s", b->path,
                                type, jg_block_type_names());
        if (hash_insert(p, id)) {
            int32_t o = jg_program_find_block(p, b->path);
            if (p->blocks[o].sys == si)
                return jg_error_set(err, JG_MODEL, "block '%s': duplicate block name in system '%s'",
                                    b->path, *sy->path ? sy->path : "<root>");
            /* "S/" holding "x" and "S" holding "/x" are both "S///x" */
            const char *os = p->sys[p->blocks[o].sys].path;
            return jg_error_set(err, JG_MODEL,
                                "block '%s' of system '%s' and block '%s' of system '%s' have the "
                                "same path '%s' (a name starts or ends with '/'): rename one",
                                p->blocks[o].name, *os ? os : "<root>", name,
                                *sy->path ? sy->path : "<root>", b->path);
        }
        /* a port block is the model's input or output at the root, and its
         * SubSystem's port inside one: virtual there, like the SubSystem */
        int port_blk = (b->type->flags & (JG_BT_PORT_IN | JG_BT_PORT_OUT)) != 0;
        b->is_root_port = port_blk && sys_block < 0;
        b->virt = (b->type->flags & JG_BT_VIRTUAL) || (port_blk && sys_block >= 0);
        if (b->type->flags & JG_BT_SUBSYSTEM) {
            jg_status_t st = flatten(c, bj, si, id, err);
            if (st) return st;
        }
    }
    sy->n = p->nblocks - sy->first;
    return JG_OK;
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
    static const char *const structural[] = {"name", "type", "blocks", "lines", "parameters",
                                             "description"};
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)b->src, key, v) {
        int known = 0;
        for (size_t k = 0; !known && k < sizeof structural / sizeof *structural; k++)
            known = !strcmp(key, structural[k]);
        for (int k = 0; !known && k < c->nseen; k++) known = !strcmp(key, c->seen[k]);
        if (known) continue;
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

static jg_status_t setup_blocks(jg__cctx_t *c, jg_setup_t *s)
{
    jg_program_t *p = c->p;
    for (int32_t id = 0; id < p->nblocks; id++) {
        jg_block_t *b = &p->blocks[id];
        if (b->type->flags & JG_BT_SUBSYSTEM) continue;   /* ports from its inner blocks, below */
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
    /* SubSystem ports come from the Inport/Outport blocks inside */
    for (int32_t id = 0; id < p->nblocks; id++) {
        jg_block_t *b = &p->blocks[id];
        if (!(b->type->flags & JG_BT_SUBSYSTEM)) continue;
        int nin = 0, nout = 0;
        /* depth-first ids: the SubSystem's descendants are id+1 .. end-1 */
        int32_t end = id + 1;
        if (id + 1 < p->nblocks && p->blocks[id + 1].parent == id) {
            const struct jg_sys *in_sys = &p->sys[p->blocks[id + 1].sys];
            end = in_sys->first + in_sys->n;
        }
        for (int32_t k = id + 1; k < end; k++) {
            const jg_block_t *in = &p->blocks[k];
            if (in->parent != id) continue;
            if ((in->type->flags & JG_BT_PORT_IN) && in->port > nin) nin = in->port;
            if ((in->type->flags & JG_BT_PORT_OUT) && in->port > nout) nout = in->port;
        }
        if (jg_setup_ports(b, s, nin, nout) != JG_BLOCK_DONE) return JG_NOMEM;
        subsys_t *d = jg_arena_alloc(&p->arena, sizeof *d);
        if (!d) return jg_error_set(c->err, JG_NOMEM, "out of memory");
        d->in_blk = jg_arena_alloc(&p->arena, sizeof(int32_t) * (size_t)(nin + 1));
        d->out_blk = jg_arena_alloc(&p->arena, sizeof(int32_t) * (size_t)(nout + 1));
        if (!d->in_blk || !d->out_blk) return jg_error_set(c->err, JG_NOMEM, "out of memory");
        for (int i = 0; i < nin; i++) d->in_blk[i] = -1;
        for (int i = 0; i < nout; i++) d->out_blk[i] = -1;
        for (int32_t k = id + 1; k < end; k++) {
            const jg_block_t *in = &p->blocks[k];
            if (in->parent != id || !(in->type->flags & (JG_BT_PORT_IN | JG_BT_PORT_OUT))) continue;
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

/* Parse "BLOCK:N" inside system sy: block id and 0-based port. */
static jg_status_t parse_ref(jg__cctx_t *c, int32_t sy, const char *ref, int is_src,
                             int32_t *blk, int *port)
{
    jg_program_t *p = c->p;
    const char *colon = strrchr(ref, ':');
    const char *where = *p->sys[sy].path ? p->sys[sy].path : "<root>";
    char *end = NULL;
    long n = colon ? strtol(colon + 1, &end, 10) : 0;
    if (!colon || colon == ref || !end || *end || end == colon + 1 || n < 1)
        return jg_error_set(c->err, JG_MODEL,
                            "system '%s': bad port reference \"%s\": expected \"BLOCK:N\" with N "
                            ">= 1",
                            where, ref);
    /* the line names a block of its own system: its path is the system's
     * path and the name with '/' doubled (join_path) */
    size_t len = (size_t)(colon - ref), ls = strlen(p->sys[sy].path), need = ls + 2 * len + 2;
    char local[512], *path = need <= sizeof local ? local : malloc(need);
    if (!path) return jg_error_set(c->err, JG_NOMEM, "out of memory");
    if (ls) {
        memcpy(path, p->sys[sy].path, ls);
        path[ls++] = '/';
    }
    ls += put_escaped(path + ls, ref, len);
    path[ls] = '\0';
    int32_t b = jg_program_find_block(p, path);
    if (path != local) free(path);
    if (b < 0 || p->blocks[b].sys != sy)
        return jg_error_set(c->err, JG_MODEL, "system '%s': line %s \"%s\": no block named '%.*s' here",
                            where, is_src ? "source" : "destination", ref, (int)len, ref);
    const jg_block_t *B = &p->blocks[b];
    int np = is_src ? B->nout : B->nin;
    if (!is_src && (B->type->flags & JG_BT_SELFLOOP)) np--;   /* the last input is internal */
    if (n > np)
        return jg_error_set(c->err, JG_MODEL,
                            "system '%s': line %s \"%s\": block '%s' (%s) has %d %s port%s",
                            where, is_src ? "source" : "destination", ref, B->path,
                            B->type->name, np, is_src ? "output" : "input", np == 1 ? "" : "s");
    *blk = b;
    *port = (int)n - 1;
    return JG_OK;
}

/* A line's "name" names the signal of its source port.  Several lines (the
 * branches of one signal) may repeat it; a second, different name is a
 * warning and the first one stays, as a port has one signal.  "" is no name
 * (Simulink writes Name "" for an unnamed line). */
static jg_status_t name_signal(jg__cctx_t *c, const json_t *line, int32_t sb, int sp)
{
    jg_program_t *p = c->p;
    const char *nm = json_string_value(json_object_get(line, "name"));
    if (!nm || !*nm) return JG_OK;
    const char **slot = &p->sig_name[jg__outport(p, sb, sp)];
    if (!*slot) {
        if (!(*slot = jg_arena_strdup(&p->arena, nm)))
            return jg_error_set(c->err, JG_NOMEM, "out of memory");
    } else if (strcmp(*slot, nm)) {
        jg__warn(p, "output %d of block '%s': its lines name the signal both '%s' and '%s'; "
                    "'%s' is kept", sp + 1, p->blocks[sb].path, *slot, nm, *slot);
    }
    return JG_OK;
}

static jg_status_t connect_lines(jg__cctx_t *c)
{
    jg_program_t *p = c->p;
    int64_t nin = 0, nout = 0;
    p->in_base = jg_arena_alloc(&p->arena, sizeof(int64_t) * (size_t)(p->nblocks + 1));
    p->out_base = jg_arena_alloc(&p->arena, sizeof(int64_t) * (size_t)(p->nblocks + 1));
    if (!p->in_base || !p->out_base) return jg_error_set(c->err, JG_NOMEM, "out of memory");
    for (int32_t b = 0; b < p->nblocks; b++) {
        p->in_base[b] = nin;
        p->out_base[b] = nout;
        nin += p->blocks[b].nin;
        nout += p->blocks[b].nout;
    }
    p->nin_ports = nin;
    p->nout_ports = nout;
    p->in_drv = jg_arena_alloc(&p->arena, sizeof(int64_t) * (size_t)(nin + 1));
    p->in_blk = jg_arena_alloc(&p->arena, sizeof(int32_t) * (size_t)(nin + 1));
    p->in_port_of = jg_arena_alloc(&p->arena, sizeof(int) * (size_t)(nin + 1));
    p->out_blk = jg_arena_alloc(&p->arena, sizeof(int32_t) * (size_t)(nout + 1));
    p->out_port_of = jg_arena_alloc(&p->arena, sizeof(int) * (size_t)(nout + 1));
    p->sig_name = jg_arena_alloc(&p->arena, sizeof(char *) * (size_t)(nout + 1));   /* zeroed */
    if (!p->in_drv || !p->in_blk || !p->out_blk || !p->in_port_of || !p->out_port_of || !p->sig_name)
        return jg_error_set(c->err, JG_NOMEM, "out of memory");
    for (int32_t b = 0; b < p->nblocks; b++) {
        for (int k = 0; k < p->blocks[b].nin; k++) {
            p->in_blk[p->in_base[b] + k] = b;
            p->in_port_of[p->in_base[b] + k] = k;
            p->in_drv[p->in_base[b] + k] = -1;
        }
        for (int k = 0; k < p->blocks[b].nout; k++) {
            p->out_blk[p->out_base[b] + k] = b;
            p->out_port_of[p->out_base[b] + k] = k;
        }
    }
    for (int32_t sy = 0; sy < p->nsys; sy++) {
        const json_t *lines = json_object_get(p->sys[sy].json, "lines");
        size_t i;
        const json_t *l;
        json_array_foreach(lines, i, l) {
            int32_t sb, db;
            int sp, dp;
            jg_status_t st =
                parse_ref(c, sy, json_string_value(json_object_get(l, "src")), 1, &sb, &sp);
            if (st) return st;
            if ((st = name_signal(c, l, sb, sp))) return st;
            const json_t *dst = json_object_get(l, "dst");
            size_t nd = json_is_array(dst) ? json_array_size(dst) : 1;
            for (size_t k = 0; k < nd; k++) {
                const char *ref = json_string_value(json_is_array(dst) ? json_array_get(dst, k) : dst);
                if ((st = parse_ref(c, sy, ref, 0, &db, &dp))) return st;
                int64_t gi = jg__inport(p, db, dp);
                if (p->in_drv[gi] >= 0) {
                    int64_t o = p->in_drv[gi];
                    return jg_error_set(c->err, JG_MODEL,
                                        "input %d of block '%s' has two drivers: '%s:%d' and "
                                        "'%s:%d'",
                                        dp + 1, p->blocks[db].path, p->blocks[p->out_blk[o]].path,
                                        p->out_port_of[o] + 1, p->blocks[sb].path, sp + 1);
                }
                p->in_drv[gi] = jg__outport(p, sb, sp);
            }
        }
    }
    /* Algebraic Constraint: its last input reads its own output, y = y + u,
     * so that the loop solver's fixed point is u = 0 */
    for (int32_t b = 0; b < p->nblocks; b++)
        if ((p->blocks[b].type->flags & JG_BT_SELFLOOP) && p->blocks[b].nin > 0 && p->blocks[b].nout > 0)
            p->in_drv[jg__inport(p, b, p->blocks[b].nin - 1)] = jg__outport(p, b, 0);
    return JG_OK;
}

/* -------------------------------------------------------------- widths */

typedef struct {
    int64_t *ptr, *idx;   /* consumers of each global output port (global input ports) */
} consumers_t;

static jg_status_t build_consumers(jg_program_t *p, consumers_t *cs, jg_error_t *err)
{
    cs->ptr = calloc((size_t)p->nout_ports + 1, sizeof(int64_t));
    cs->idx = malloc(sizeof(int64_t) * (size_t)(p->nin_ports + 1));
    if (!cs->ptr || !cs->idx) return jg_error_set(err, JG_NOMEM, "out of memory");
    for (int64_t i = 0; i < p->nin_ports; i++)
        if (p->in_drv[i] >= 0) cs->ptr[p->in_drv[i] + 1]++;
    for (int64_t k = 0; k < p->nout_ports; k++) cs->ptr[k + 1] += cs->ptr[k];
    int64_t *fill = malloc(sizeof(int64_t) * (size_t)(p->nout_ports + 1));
    if (!fill) return jg_error_set(err, JG_NOMEM, "out of memory");
    memcpy(fill, cs->ptr, sizeof(int64_t) * (size_t)(p->nout_ports + 1));
    for (int64_t i = 0; i < p->nin_ports; i++)
        if (p->in_drv[i] >= 0) cs->idx[fill[p->in_drv[i]]++] = i;
    free(fill);
    return JG_OK;
}

/* Try to complete the widths of block b; returns JG_BLOCK_DONE/AGAIN/FAIL. */
static int64_t driver_width(const jg_program_t *p, int64_t gin)
{
    int64_t d = p->in_drv[gin];
    return d >= 0 ? p->blocks[p->out_blk[d]].out_w[p->out_port_of[d]] : -1;
}

static int try_widths(jg__cctx_t *c, jg_setup_t *s, const consumers_t *cs, int32_t id)
{
    jg_program_t *p = c->p;
    jg_block_t *b = &p->blocks[id];
    for (int k = 0; k < b->nin; k++)
        if (b->in_w[k] < 0) b->in_w[k] = driver_width(p, jg__inport(p, id, k));
    /* sources without a width of their own (Ground, a root Inport without
     * PortDimensions) take the width a reader has fixed for itself */
    if (b->type->flags & JG_BT_SOURCE)
        for (int q = 0; q < b->nout; q++) {
            int64_t g = jg__outport(p, id, q);
            for (int64_t k = cs->ptr[g]; b->out_w[q] < 0 && k < cs->ptr[g + 1]; k++) {
                int64_t gi = cs->idx[k];
                b->out_w[q] = p->blocks[p->in_blk[gi]].in_w[p->in_port_of[gi]];
            }
        }
    if (b->type->flags & JG_BT_SUBSYSTEM) {
        const subsys_t *d = b->data;
        int done = 1;
        for (int k = 0; k < b->nin; k++)
            if (b->in_w[k] < 0) {
                if (s->force && p->in_drv[p->in_base[id] + k] < 0)
                    b->in_w[k] = 1;   /* unconnected subsystem input: scalar */
                else
                    done = 0;
            }
        for (int q = 0; q < b->nout; q++) {
            if (b->out_w[q] < 0) b->out_w[q] = p->blocks[d->out_blk[q]].in_w[0];
            if (b->out_w[q] < 0) done = 0;
        }
        return done ? JG_BLOCK_DONE : JG_BLOCK_AGAIN;
    }
    if (b->virt && (b->type->flags & JG_BT_PORT_IN)) {   /* its SubSystem's input n */
        const jg_block_t *S = &p->blocks[b->parent];
        int n = b->port - 1;
        int64_t gin = jg__inport(p, b->parent, n);
        if (b->out_w[0] < 0) b->out_w[0] = S->in_w[n] >= 0 ? S->in_w[n] : driver_width(p, gin);
        if (b->out_w[0] < 0 && s->force && p->in_drv[gin] < 0) b->out_w[0] = 1;   /* unconnected */
        return b->out_w[0] >= 0 ? b->type->widths(b, s) : JG_BLOCK_AGAIN;
    }
    if (b->virt && (b->type->flags & JG_BT_PORT_OUT)) {
        if (b->in_w[0] < 0 && s->force && p->in_drv[p->in_base[id]] < 0) b->in_w[0] = 1;
        if (b->in_w[0] < 0) return JG_BLOCK_AGAIN;
        return b->type->widths(b, s);
    }
    if (!b->type->widths) return JG_BLOCK_DONE;
    return b->type->widths(b, s);
}

static jg_status_t propagate_widths(jg__cctx_t *c, jg_setup_t *s, const consumers_t *cs)
{
    jg_program_t *p = c->p;
    jg_status_t st = JG_OK;
    int32_t n = p->nblocks, head = 0, tail = 0, cursor = 0, ndone = 0;
    int32_t *queue = malloc(sizeof(int32_t) * (size_t)(n + 1));
    unsigned char *state = calloc((size_t)n + 1, 1);   /* 0 idle, 1 queued, 2 done */
    if (!queue || !state) {
        st = jg_error_set(c->err, JG_NOMEM, "out of memory");
        goto done;
    }
    /* the queue is a ring of at most n entries: each block is in it at most once */
    for (int32_t b = 0; b < n; b++) {
        queue[tail++] = b;
        state[b] = 1;
    }
    tail %= n + 1;
    int32_t cap = n + 1;
    while (ndone < n) {
        if (head == tail) {
            /* stalled: let the first open block that can apply a default (an
             * Integrator's IC width, a scalar for an unconnected port) do so */
            while (cursor < n && state[cursor] == 2) cursor++;
            int32_t k = cursor;
            int r = JG_BLOCK_AGAIN;
            s->force = 1;
            for (; k < n; k++) {
                if (state[k] == 2) continue;
                if ((r = try_widths(c, s, cs, k)) != JG_BLOCK_AGAIN) break;
            }
            s->force = 0;
            if (r == JG_BLOCK_FAIL) {
                st = c->err->status;
                goto done;
            }
            if (k == n) {
                st = jg_error_set(c->err, JG_WIDTH,
                                  "block '%s' (%s): the signal widths around it cannot be "
                                  "determined (set PortDimensions on an Inport or a width "
                                  "parameter)",
                                  p->blocks[cursor].path, p->blocks[cursor].type->name);
                goto done;
            }
            queue[tail] = k;   /* finish it through the normal path below */
            tail = (tail + 1) % cap;
            state[k] = 1;
        }
        int32_t b = queue[head];
        head = (head + 1) % cap;
        if (state[b] == 2) continue;
        state[b] = 0;
        const jg_block_t *B = &p->blocks[b];
        int known = 0, known_after = 0;
        for (int q = 0; q < B->nout; q++) known += B->out_w[q] >= 0;
        int r = try_widths(c, s, cs, b);
        if (r == JG_BLOCK_FAIL) {
            st = c->err->status;
            goto done;
        }
        for (int q = 0; q < B->nout; q++) known_after += B->out_w[q] >= 0;
        if (r == JG_BLOCK_AGAIN && known_after == known) continue;
        if (r == JG_BLOCK_DONE) {
            state[b] = 2;
            ndone++;
        }
        /* wake the blocks that can use what b now knows (some output widths
         * may be known before b is complete: Sum in a vector loop) */
#define WAKE(t)                            \
    do {                                   \
        int32_t t_ = (t);                  \
        if (state[t_] == 0) {              \
            state[t_] = 1;                 \
            queue[tail] = t_;              \
            tail = (tail + 1) % cap;       \
        }                                  \
    } while (0)
        for (int q = 0; q < B->nout; q++) {
            int64_t g = jg__outport(p, b, q);
            for (int64_t k = cs->ptr[g]; k < cs->ptr[g + 1]; k++) {
                int32_t t = p->in_blk[cs->idx[k]];
                WAKE(t);
                if (p->blocks[t].type->flags & JG_BT_SUBSYSTEM)   /* the Inport inside */
                    WAKE(((const subsys_t *)p->blocks[t].data)->in_blk[p->in_port_of[cs->idx[k]]]);
            }
        }
        for (int k = 0; k < B->nin; k++) {   /* a source may take b's input width */
            int64_t d = p->in_drv[jg__inport(p, b, k)];
            if (d >= 0) WAKE(p->out_blk[d]);
        }
        if (B->type->flags & JG_BT_TAG_WRITE)   /* its Froms take its input width */
            for (int32_t f = jg__goto_first_from(B); f >= 0; f = jg__from_next(&p->blocks[f])) WAKE(f);
#undef WAKE
        int32_t wake[2] = {-1, -1};
        if (B->virt && (B->type->flags & JG_BT_PORT_OUT)) wake[0] = B->parent;
        if (B->type->flags & JG_BT_SUBSYSTEM) {   /* its inner Inports */
            const subsys_t *d = B->data;
            for (int k = 0; k < B->nin; k++)
                if (state[d->in_blk[k]] == 0) {
                    state[d->in_blk[k]] = 1;
                    queue[tail] = d->in_blk[k];
                    tail = (tail + 1) % cap;
                }
        }
        for (int k = 0; k < 2; k++)
            if (wake[k] >= 0 && state[wake[k]] == 0) {
                state[wake[k]] = 1;
                queue[tail] = wake[k];
                tail = (tail + 1) % cap;
            }
    }
    /* every connection must agree (a block may have fixed its own input width) */
    for (int64_t gi = 0; gi < p->nin_ports; gi++) {
        int64_t d = p->in_drv[gi];
        if (d < 0) continue;
        const jg_block_t *B = &p->blocks[p->in_blk[gi]], *S = &p->blocks[p->out_blk[d]];
        int64_t wi = B->in_w[p->in_port_of[gi]], wo = S->out_w[p->out_port_of[d]];
        if (wi != wo) {
            st = jg_error_set(c->err, JG_WIDTH,
                              "block '%s' (%s): input %d expects width %lld but '%s:%d' drives "
                              "width %lld",
                              B->path, B->type->name, p->in_port_of[gi] + 1, (long long)wi,
                              S->path, p->out_port_of[d] + 1, (long long)wo);
            goto done;
        }
    }
done:
    free(queue);
    free(state);
    return st;
}

/* --------------------------------------------------------------- trace */

int64_t jg__trace(const jg_program_t *p, int64_t gp, int64_t e,
                  int (*visit)(void *ctx, int64_t gport, int64_t elem), void *ctx)
{
    for (int32_t steps = 0; steps <= p->nblocks; steps++) {
        if (visit && visit(ctx, gp, e)) return -1;
        int32_t b = p->out_blk[gp];
        int q = p->out_port_of[gp];
        const jg_block_t *B = &p->blocks[b];
        int64_t gin;
        if (!B->virt) return p->y_off[gp] + e;
        if (B->type->flags & JG_BT_SUBSYSTEM) {   /* to its inner Outport's input */
            gin = jg__inport(p, ((const subsys_t *)B->data)->out_blk[q], 0);
        } else if (B->type->flags & JG_BT_PORT_IN) {   /* inner Inport: to its SubSystem's input */
            gin = jg__inport(p, B->parent, B->port - 1);
        } else if (B->type->flags & JG_BT_TAG_READ) {   /* to its Goto's input (goto.c) */
            gin = jg__inport(p, jg__from_goto(B), 0);
        } else {
            int ip;
            int64_t ie;
            B->type->route(B, q, e, &ip, &ie);
            gin = jg__inport(p, b, ip);
            e = ie;
        }
        gp = p->in_drv[gin];
        if (gp < 0) return -1;
    }
    return -2;
}

static jg_status_t layout(jg__cctx_t *c)
{
    jg_program_t *p = c->p;
    p->u_off = jg_arena_alloc(&p->arena, sizeof(int64_t) * (size_t)(p->nin_ports + 1));
    p->y_off = jg_arena_alloc(&p->arena, sizeof(int64_t) * (size_t)(p->nout_ports + 1));
    if (!p->u_off || !p->y_off) return jg_error_set(c->err, JG_NOMEM, "out of memory");
    int64_t nu = 0, ny = 0, nx = 0;
    for (int32_t b = 0; b < p->nblocks; b++) {
        jg_block_t *B = &p->blocks[b];
        for (int k = 0; k < B->nin; k++) {
            p->u_off[p->in_base[b] + k] = B->virt ? -1 : nu;
            if (!B->virt) nu += B->in_w[k];
        }
        for (int k = 0; k < B->nout; k++) {
            p->y_off[p->out_base[b] + k] = B->virt ? -1 : ny;
            if (!B->virt) ny += B->out_w[k];
        }
        if (B->virt) continue;
        p->nreal++;
        B->x_off = nx;
        nx += B->nx;
        B->d_off = p->nd;
        p->nd += B->nd;
        B->zc_off = p->nzc;
        p->nzc += B->nzc;
    }
    p->nu = nu;
    p->ny = ny;
    p->nx = nx;
    p->u_src = jg_arena_alloc(&p->arena, sizeof(int64_t) * (size_t)(nu + 1));
    p->x_blk = jg_arena_alloc(&p->arena, sizeof(int64_t) * (size_t)(nx + 1));
    p->x_name = jg_arena_alloc(&p->arena, sizeof(char *) * (size_t)(nx + 1));
    if (!p->u_src || !p->x_blk || !p->x_name) return jg_error_set(c->err, JG_NOMEM, "out of memory");
    for (int32_t b = 0; b < p->nblocks; b++) {
        const jg_block_t *B = &p->blocks[b];
        if (B->virt) continue;
        for (int64_t k = 0; k < B->nx; k++) p->x_blk[B->x_off + k] = b;
        for (int k = 0; k < B->nin; k++) {
            int64_t gi = jg__inport(p, b, k), d = p->in_drv[gi];
            int unconnected = 0;
            for (int64_t e = 0; e < B->in_w[k]; e++) {
                int64_t src = d >= 0 ? jg__trace(p, d, e, NULL, NULL) : -1;
                if (src == -2)
                    return jg_error_set(c->err, JG_MODEL,
                                        "input %d of block '%s' is routed through virtual blocks "
                                        "in a cycle (Mux/Demux/Selector/SubSystem ports)",
                                        k + 1, B->path);
                if (src < 0) unconnected++;
                p->u_src[p->u_off[gi] + e] = src;
            }
            if (unconnected == B->in_w[k] && unconnected)
                jg__warn(p, "input %d of block '%s' is unconnected; it reads zero", k + 1, B->path);
            else if (unconnected)
                jg__warn(p, "input %d of block '%s' has %lld unconnected element%s; they read zero",
                         k + 1, B->path, (long long)unconnected, unconnected == 1 ? "" : "s");
        }
    }
    return JG_OK;
}

/* ------------------------------------------------------------ patterns */

static jg_status_t patterns(jg__cctx_t *c, jg_setup_t *s)
{
    jg_program_t *p = c->p;
    p->feedthrough = jg_arena_alloc(&p->arena, (size_t)p->nin_ports + 1);
    if (!p->feedthrough) return jg_error_set(c->err, JG_NOMEM, "out of memory");
    for (int32_t b = 0; b < p->nblocks; b++) {
        jg_block_t *B = &p->blocks[b];
        if (B->virt) continue;
        c->part_cap_blk = 0;
        if (B->type->pattern && B->type->pattern(B, s) < 0) return c->err->status;
        for (int k = 0; k < B->npart; k++)
            if (B->part[k].kind == JG_JAC_D && B->part[k].m->p[B->part[k].m->n] > 0)
                p->feedthrough[jg__inport(p, b, B->part[k].col_port)] = 1;
    }
    return JG_OK;
}

/* ---------------------------------------------------------------- sort */

/* Binary min-heap of component ids keyed by their first block. */
static void heap_push(int32_t *h, int32_t *n, int32_t v, const int32_t *key)
{
    int32_t i = (*n)++;
    h[i] = v;
    while (i > 0 && key[h[(i - 1) / 2]] > key[h[i]]) {
        int32_t t = h[i];
        h[i] = h[(i - 1) / 2];
        h[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

static int32_t heap_pop(int32_t *h, int32_t *n, const int32_t *key)
{
    int32_t top = h[0];
    h[0] = h[--(*n)];
    for (int32_t i = 0;;) {
        int32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < *n && key[h[l]] < key[h[m]]) m = l;
        if (r < *n && key[h[r]] < key[h[m]]) m = r;
        if (m == i) break;
        int32_t t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
    return top;
}

static int cmp_key(const void *a, const void *b, void *ctx)
{
    const uint64_t *key = ctx;
    uint64_t ka = key[*(const int32_t *)a], kb = key[*(const int32_t *)b];
    return ka < kb ? -1 : ka > kb;
}

static jg_status_t sort_blocks(jg__cctx_t *c)
{
    jg_program_t *p = c->p;
    jg_status_t st = JG_OK;
    int32_t nr = p->nreal;
    int32_t *real = malloc(sizeof(int32_t) * (size_t)(nr + 1));      /* real index -> block */
    int32_t *ridx = malloc(sizeof(int32_t) * (size_t)(p->nblocks + 1)); /* block -> real index */
    int32_t *sig_blk = malloc(sizeof(int32_t) * (size_t)(p->ny + 1));
    igraph_vector_int_t edges, memb, csize;
    int have_edges = 0, have_memb = 0, have_csize = 0;
    igraph_t g;
    int have_g = 0;
    int32_t *cptr = NULL, *cblk = NULL, *indeg = NULL, *first = NULL, *heap = NULL, *adjp = NULL,
            *adj = NULL;
    unsigned char *selfloop = NULL;
    if (!real || !ridx || !sig_blk) goto nomem;
    int32_t k = 0;
    for (int32_t b = 0; b < p->nblocks; b++) {
        ridx[b] = -1;
        if (p->blocks[b].virt) continue;
        ridx[b] = k;
        real[k++] = b;
        for (int q = 0; q < p->blocks[b].nout; q++) {
            int64_t o = p->y_off[jg__outport(p, b, q)];
            for (int64_t e = 0; e < p->blocks[b].out_w[q]; e++) sig_blk[o + e] = b;
        }
    }
    if (igraph_vector_int_init(&edges, 0)) goto nomem;
    have_edges = 1;
    selfloop = calloc((size_t)nr + 1, 1);
    if (!selfloop) goto nomem;
    for (int32_t r = 0; r < nr; r++) {
        int32_t b = real[r];
        const jg_block_t *B = &p->blocks[b];
        for (int q = 0; q < B->nin; q++) {
            int64_t gi = jg__inport(p, b, q);
            if (!p->feedthrough[gi]) continue;
            int32_t last = -1;
            for (int64_t e = 0; e < B->in_w[q]; e++) {
                int64_t src = p->u_src[p->u_off[gi] + e];
                if (src < 0) continue;
                int32_t sb = sig_blk[src];
                if (sb == last) continue;   /* consecutive elements mostly share a source */
                last = sb;
                if (sb == b) selfloop[r] = 1;
                if (igraph_vector_int_push_back(&edges, ridx[sb]) ||
                    igraph_vector_int_push_back(&edges, r))
                    goto nomem;
            }
        }
    }
    if (igraph_create(&g, &edges, nr, IGRAPH_DIRECTED)) goto nomem;
    have_g = 1;
    if (igraph_vector_int_init(&memb, 0)) goto nomem;
    have_memb = 1;
    if (igraph_vector_int_init(&csize, 0)) goto nomem;
    have_csize = 1;
    igraph_integer_t ncomp = 0;
    if (igraph_connected_components(&g, &memb, &csize, &ncomp, IGRAPH_STRONG)) goto nomem;
    int32_t nc = (int32_t)ncomp;
    /* members of each component, in block order */
    cptr = calloc((size_t)nc + 1, sizeof(int32_t));
    cblk = malloc(sizeof(int32_t) * (size_t)(nr + 1));
    first = malloc(sizeof(int32_t) * (size_t)(nc + 1));
    indeg = calloc((size_t)nc + 1, sizeof(int32_t));
    heap = malloc(sizeof(int32_t) * (size_t)(nc + 1));
    adjp = calloc((size_t)nc + 2, sizeof(int32_t));
    if (!cptr || !cblk || !first || !indeg || !heap || !adjp) goto nomem;
    for (int32_t r = 0; r < nr; r++) cptr[VECTOR(memb)[r] + 1]++;
    for (int32_t q = 0; q < nc; q++) cptr[q + 1] += cptr[q];
    {
        int32_t *fill = malloc(sizeof(int32_t) * (size_t)(nc + 1));
        if (!fill) goto nomem;
        memcpy(fill, cptr, sizeof(int32_t) * (size_t)(nc + 1));
        for (int32_t r = 0; r < nr; r++) cblk[fill[VECTOR(memb)[r]]++] = r;
        free(fill);
    }
    for (int32_t q = 0; q < nc; q++) first[q] = cblk[cptr[q]];
    /* block priorities (as in Simulink: lower runs first, honoured where the data
     * dependencies allow): among the components ready to run, the heap takes
     * the one of least priority, then the one first in the file */
    int have_prio = 0;
    for (int32_t r = 0; r < nr; r++) have_prio |= p->blocks[real[r]].priority != 0;
    if (have_prio && nc > 0) {
        uint64_t *order = malloc(sizeof(uint64_t) * (size_t)nc);
        if (!order) goto nomem;
        for (int32_t q = 0; q < nc; q++) {
            int prio = INT32_MAX;
            for (int32_t j = cptr[q]; j < cptr[q + 1]; j++)
                if (p->blocks[real[cblk[j]]].priority < prio) prio = p->blocks[real[cblk[j]]].priority;
            /* sort key: priority (offset to be non-negative), then first block, then q */
            order[q] = ((uint64_t)((uint32_t)prio ^ 0x80000000u) << 32) | (uint32_t)first[q];
        }
        int32_t *idx = malloc(sizeof(int32_t) * (size_t)nc);
        if (!idx) {
            free(order);
            goto nomem;
        }
        for (int32_t q = 0; q < nc; q++) idx[q] = q;
        /* insertion sort would be quadratic on large models: sort the keys */
        qsort_r(idx, (size_t)nc, sizeof(int32_t), cmp_key, order);
        for (int32_t k = 0; k < nc; k++) first[idx[k]] = k;
        free(idx);
        free(order);
    }
    /* condensation edges (with duplicates; Kahn's algorithm does not mind) */
    igraph_integer_t ne = igraph_vector_int_size(&edges) / 2;
    for (igraph_integer_t e = 0; e < ne; e++) {
        int32_t a = VECTOR(memb)[VECTOR(edges)[2 * e]], b = VECTOR(memb)[VECTOR(edges)[2 * e + 1]];
        if (a != b) adjp[a + 1]++;
    }
    for (int32_t q = 0; q < nc; q++) adjp[q + 1] += adjp[q];
    adj = malloc(sizeof(int32_t) * (size_t)(adjp[nc] + 1));
    if (!adj) goto nomem;
    {
        int32_t *fill = malloc(sizeof(int32_t) * (size_t)(nc + 1));
        if (!fill) goto nomem;
        memcpy(fill, adjp, sizeof(int32_t) * (size_t)(nc + 1));
        for (igraph_integer_t e = 0; e < ne; e++) {
            int32_t a = VECTOR(memb)[VECTOR(edges)[2 * e]],
                    b = VECTOR(memb)[VECTOR(edges)[2 * e + 1]];
            if (a != b) {
                adj[fill[a]++] = b;
                indeg[b]++;
            }
        }
        free(fill);
    }
    p->sorted = jg_arena_alloc(&p->arena, sizeof(int32_t) * (size_t)(nr + 1));
    p->blk_loop = jg_arena_alloc(&p->arena, sizeof(int32_t) * (size_t)(p->nblocks + 1));
    if (!p->sorted || !p->blk_loop) goto nomem;
    for (int32_t b = 0; b < p->nblocks; b++) p->blk_loop[b] = -1;
    int32_t nh = 0, ns = 0, nloops = 0, nloopblk = 0;
    for (int32_t q = 0; q < nc; q++) {
        int32_t sz = cptr[q + 1] - cptr[q];
        if (sz > 1 || selfloop[cblk[cptr[q]]]) {
            nloops++;
            nloopblk += sz;
        }
        if (!indeg[q]) heap_push(heap, &nh, q, first);
    }
    p->loop_ptr = jg_arena_alloc(&p->arena, sizeof(int32_t) * (size_t)(nloops + 1));
    p->loop_blk = jg_arena_alloc(&p->arena, sizeof(int32_t) * (size_t)(nloopblk + 1));
    p->loop_names = jg_arena_alloc(&p->arena, sizeof(char *) * (size_t)(nloops + 1));
    if (!p->loop_ptr || !p->loop_blk || !p->loop_names) goto nomem;
    p->loop_ptr[0] = 0;
    while (nh > 0) {
        int32_t q = heap_pop(heap, &nh, first);
        int32_t sz = cptr[q + 1] - cptr[q];
        int is_loop = sz > 1 || selfloop[cblk[cptr[q]]];
        for (int32_t m = cptr[q]; m < cptr[q + 1]; m++) {
            int32_t b = real[cblk[m]];
            p->sorted[ns++] = b;
            if (is_loop) {
                p->blk_loop[b] = p->nloops;
                p->loop_blk[p->loop_ptr[p->nloops] + (m - cptr[q])] = b;
            }
        }
        if (is_loop) {
            p->nloops++;
            p->loop_ptr[p->nloops] = p->loop_ptr[p->nloops - 1] + sz;
        }
        for (int32_t a = adjp[q]; a < adjp[q + 1]; a++)
            if (--indeg[adj[a]] == 0) heap_push(heap, &nh, adj[a], first);
    }
    p->nsorted = ns;
    if (ns != nr) {
        st = jg_error_set(c->err, JG_INTERNAL, "sorted %d of %d blocks", ns, nr);
        goto done;
    }
    for (int l = 0; l < p->nloops; l++) {   /* "A, B, C" for messages */
        size_t len = 1;
        for (int32_t m = p->loop_ptr[l]; m < p->loop_ptr[l + 1]; m++)
            len += strlen(p->blocks[p->loop_blk[m]].path) + 2;
        char *s = jg_arena_alloc(&p->arena, len);
        if (!s) goto nomem;
        for (int32_t m = p->loop_ptr[l]; m < p->loop_ptr[l + 1]; m++) {
            if (m > p->loop_ptr[l]) strcat(s, ", ");
            strcat(s, p->blocks[p->loop_blk[m]].path);
        }
        p->loop_names[l] = s;
    }
    goto done;
nomem:
    st = jg_error_set(c->err, JG_NOMEM, "out of memory while sorting blocks");
done:
    if (have_g) igraph_destroy(&g);
    if (have_edges) igraph_vector_int_destroy(&edges);
    if (have_memb) igraph_vector_int_destroy(&memb);
    if (have_csize) igraph_vector_int_destroy(&csize);
    free(real);
    free(ridx);
    free(sig_blk);
    free(selfloop);
    free(cptr);
    free(cblk);
    free(first);
    free(indeg);
    free(heap);
    free(adjp);
    free(adj);
    return st;
}

/* -------------------------------------------------------------- driver */

jg_status_t jg_program_compile(const jg_model_t *m, jg_program_t **out, jg_error_t *err)
{
    jg_status_t st;
    jg_error_t local;
    if (!err) err = &local;
    jg_error_clear(err);
    *out = NULL;
    jg_program_t *p = calloc(1, sizeof *p);
    consumers_t cs = {NULL, NULL};
    if (!p) return jg_error_set(err, JG_NOMEM, "out of memory");
    jg_arena_init(&p->arena, 1 << 16);
    jg__cctx_t c = {.p = p, .err = err};
    jg_setup_t s = {.force = 0, .err = err, .priv = &c};
    int32_t nb = 0, ns = 0;
    count_blocks(jg__model_root(m), &nb, &ns);
    p->name = jg_arena_strdup(&p->arena, jg_model_name(m));
    p->blocks = jg_arena_alloc(&p->arena, sizeof(jg_block_t) * (size_t)(nb + 1));
    p->sys = jg_arena_alloc(&p->arena, sizeof(struct jg_sys) * (size_t)(ns + 1));
    for (p->hcap = 16; p->hcap < 2 * (int64_t)nb + 2; p->hcap *= 2) {}
    p->htab = jg_arena_alloc(&p->arena, sizeof(int32_t) * (size_t)p->hcap);
    if (!p->name || !p->blocks || !p->sys || !p->htab) {
        st = jg_error_set(err, JG_NOMEM, "out of memory");
        goto fail;
    }
    for (int64_t k = 0; k < p->hcap; k++) p->htab[k] = -1;
    if ((st = flatten(&c, jg__model_root(m), -1, -1, err))) goto fail;
    if ((st = setup_blocks(&c, &s))) goto fail;
    if ((st = connect_lines(&c))) goto fail;
    if ((st = jg__resolve_gotos(p, err))) goto fail;   /* From -> Goto (goto.c) */
    if ((st = build_consumers(p, &cs, err))) goto fail;
    if ((st = propagate_widths(&c, &s, &cs))) goto fail;
    if ((st = layout(&c))) goto fail;
    if ((st = patterns(&c, &s))) goto fail;
    /* igraph's default handlers print and abort: ignore them around our igraph
     * calls (sort_blocks converts the codes) and hand the embedding program's
     * own handlers back, so compiling leaves no process-wide state behind */
    igraph_error_handler_t *old_eh = igraph_set_error_handler(igraph_error_handler_ignore);
    igraph_warning_handler_t *old_wh = igraph_set_warning_handler(igraph_warning_handler_ignore);
    st = sort_blocks(&c);
    igraph_set_error_handler(old_eh);
    igraph_set_warning_handler(old_wh);
    if (st) goto fail;
    if ((st = jg__resolve_sample_times(&c))) goto fail;
    for (int32_t b = 0; b < p->nblocks; b++) p->blocks[b].src = NULL;  /* the model may go */
    free(cs.ptr);
    free(cs.idx);
    *out = p;
    return JG_OK;
fail:
    free(cs.ptr);
    free(cs.idx);
    jg_program_free(p);
    return st ? st : JG_INTERNAL;
}

void jg_program_free(jg_program_t *p)
{
    if (!p) return;
    free(p->warn);
    jg_arena_free(&p->arena);
    free(p);
}
