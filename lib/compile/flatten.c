/* Flatten the model's hierarchy into depth-first block ids and systems, with the path hash table. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "compile_impl.h"

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

/* (system, name): the key of the lines' lookups */
static uint64_t hash_local(int32_t sy, const char *name, size_t len)
{
    uint64_t h = 1469598103934665603ull ^ ((uint64_t)(uint32_t)sy * 0x9E3779B97F4A7C15ull);
    for (size_t k = 0; k < len; k++) h = (h ^ (unsigned char)name[k]) * 1099511628211ull;
    return h ^ (h >> 29);
}

int32_t jg__find_local(const jg__cctx_t *c, int32_t sy, const char *name, size_t len)
{
    const jg_program_t *p = c->p;
    uint64_t mask = (uint64_t)(c->ltab_cap - 1);
    for (uint64_t k = hash_local(sy, name, len) & mask;; k = (k + 1) & mask) {
        int32_t b = c->ltab[k];
        if (b < 0) return -1;
        const jg_block_t *B = &p->blocks[b];
        if (B->sys == sy && !strncmp(B->name, name, len) && !B->name[len]) return b;
    }
}

/* After the path's insertion: names are unique in their system */
static void local_insert(jg__cctx_t *c, int32_t b)
{
    const jg_block_t *B = &c->p->blocks[b];
    uint64_t mask = (uint64_t)(c->ltab_cap - 1);
    uint64_t k = hash_local(B->sys, B->name, strlen(B->name)) & mask;
    while (c->ltab[k] >= 0) k = (k + 1) & mask;
    c->ltab[k] = b;
}

/* ------------------------------------------------------------- flatten */

/* Upper bounds of the blocks and systems jg__flatten() makes, to size its arrays:
 * it descends into the blocks of JG_BT_SUBSYSTEM types, whose "blocks" array
 * the model's reader has checked; counting every "blocks" array found here
 * spares a type lookup per block and only over-counts odd models. */
void jg__count_blocks(const jg__jv_t *sys, int32_t *nb, int32_t *ns)
{
    size_t i;
    const jg__jv_t *b;
    if (*ns < INT32_MAX) (*ns)++;   /* saturating: the caller refuses such counts */
    jg__jv_foreach(jg__jv_get(sys, "blocks"), i, b) {
        if (*nb < INT32_MAX) (*nb)++;
        if (jg__jv_is_arr(jg__jv_get(b, "blocks"))) jg__count_blocks(b, nb, ns);
    }
}

/* Copy name[0..len) to d with every '/' doubled; returns the bytes written. */
size_t jg__put_escaped(char *d, const char *name, size_t len)
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
    if (nslash) ls += jg__put_escaped(d + ls, name, len);
    else {
        memcpy(d + ls, name, len);
        ls += len;
    }
    d[ls] = '\0';
    return d;
}

/* Depth first: a SubSystem's blocks follow it directly (the state layout). */
jg_status_t jg__flatten(jg__cctx_t *c, const jg__jv_t *sysj, int32_t parent_sys,
                           int32_t sys_block, jg_error_t *err)
{
    jg_program_t *p = c->p;
    int32_t si = p->nsys++;
    struct jg_sys *sy = &p->sys[si];
    sy->parent = parent_sys;
    sy->block = sys_block;
    sy->path = sys_block >= 0 ? p->blocks[sys_block].path : "";
    sy->params = jg__jv_get(sysj, "parameters");
    sy->json = sysj;
    sy->first = p->nblocks;
    size_t i;
    const jg__jv_t *bj;
    jg__jv_foreach(jg__jv_get(sysj, "blocks"), i, bj) {
        int32_t id = p->nblocks++;
        jg_block_t *b = &p->blocks[id];
        const char *name = jg__jv_str(jg__jv_get(bj, "name"));
        const char *type = jg__jv_str(jg__jv_get(bj, "type"));
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
        b->type = jg__block_type_find(c->plugins, type);
        if (!b->type) {
            char *known = jg__block_type_names(c->plugins);
            jg_error_set(err, JG_MODEL, "block '%s': unknown block type '%s'; known types: %s", b->path,
                         type, known ? known : "(out of memory listing them)");
            free(known);
            return JG_MODEL;
        }
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
        local_insert(c, id);
        /* a port block is the model's input or output at the root, and its
         * SubSystem's port inside one: virtual there, like the SubSystem */
        int port_blk = (b->type->flags & (JG_BT_PORT_IN | JG_BT_PORT_OUT)) != 0;
        b->is_root_port = port_blk && sys_block < 0;
        b->virt = (b->type->flags & JG_BT_VIRTUAL) || (port_blk && sys_block >= 0);
        if (b->type->flags & JG_BT_SUBSYSTEM) {
            jg_status_t st = jg__flatten(c, bj, si, id, err);
            if (st) return st;
        }
    }
    sy->n = p->nblocks - sy->first;
    return JG_OK;
}
