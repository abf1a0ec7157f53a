/* Flatten the model's hierarchy into depth-first block ids and systems, with the path hash table. */
#include <pthread.h>
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

/* The path table, built after flattening.  Inserting a million paths one by
 * one into a table of 2^21 slots is a cache miss per block (and another per
 * probe that compares a path): the paths are bucketed by their home slot's
 * top bits first, so that the insertions of a bucket stay within a few
 * kilobytes of the table and of the hashes kept beside it.  Any insertion
 * order gives a valid linear-probing table; lookups are unchanged.
 * Blocks 0..n-1; equal paths: *dup_b the first block (by id) whose path an
 * earlier block has, *dup_o that block, else -1.  -1: out of memory. */
static int index_paths(jg_program_t *p, int32_t n, int32_t *dup_b, int32_t *dup_o)
{
    int bits = 0;
    while (((int64_t)1 << bits) < p->hcap) bits++;
    int B = bits < 10 ? bits : 10, shift = bits - B;
    uint64_t mask = (uint64_t)(p->hcap - 1);
    uint64_t *h = malloc(sizeof *h * (size_t)(n + 1));
    uint64_t *th = malloc(sizeof *th * (size_t)p->hcap);   /* hash of each slot's block */
    int32_t *order = malloc(sizeof *order * (size_t)(n + 1));
    int32_t *cnt = calloc(((size_t)1 << B) + 1, sizeof *cnt);
    int rc = -1;
    *dup_b = *dup_o = -1;
    if (!h || !th || !order || !cnt) goto done;
    for (int64_t k = 0; k < p->hcap; k++) p->htab[k] = -1;
    for (int32_t b = 0; b < n; b++) {
        h[b] = hash_str(p->blocks[b].path);
        cnt[((h[b] & mask) >> shift) + 1]++;
    }
    for (int32_t k = 0; k < (1 << B); k++) cnt[k + 1] += cnt[k];
    for (int32_t b = 0; b < n; b++) order[cnt[(h[b] & mask) >> shift]++] = b;   /* stable */
    /* equal paths have one home slot, hence one bucket, met in id order */
    for (int32_t r = 0; r < n; r++) {
        int32_t b = order[r];
        uint64_t k = h[b] & mask;
        for (;; k = (k + 1) & mask) {
            int32_t o = p->htab[k];
            if (o < 0) {
                p->htab[k] = b;
                th[k] = h[b];
                break;
            }
            if (th[k] == h[b] && !strcmp(p->blocks[o].path, p->blocks[b].path)) {
                if (*dup_b < 0 || b < *dup_b) *dup_b = b, *dup_o = o;
                break;
            }
        }
    }
    rc = 0;
done:
    free(h);
    free(th);
    free(order);
    free(cnt);
    return rc;
}

/* The error of two blocks b (later) and o with one path. */
static jg_status_t dup_error(const jg_program_t *p, int32_t b, int32_t o, jg_error_t *err)
{
    const jg_block_t *B = &p->blocks[b], *O = &p->blocks[o];
    const char *sp = p->sys[B->sys].path;
    if (O->sys == B->sys)
        return jg_error_set(err, JG_MODEL, "block '%s': duplicate block name in system '%s'", B->path,
                            *sp ? sp : "<root>");
    /* "S/" holding "x" and "S" holding "/x" are both "S///x" */
    const char *os = p->sys[O->sys].path;
    return jg_error_set(err, JG_MODEL,
                        "block '%s' of system '%s' and block '%s' of system '%s' have the "
                        "same path '%s' (a name starts or ends with '/'): rename one",
                        O->name, *os ? os : "<root>", B->name, *sp ? sp : "<root>", B->path);
}

/* index_paths' outcome as the compiler reports it */
static jg_status_t index_outcome(const jg_program_t *p, int rc, int32_t b, int32_t o, jg_error_t *err)
{
    if (rc) return jg_error_set(err, JG_NOMEM, "out of memory");
    return b >= 0 ? dup_error(p, b, o, err) : JG_OK;
}

jg_status_t jg__index_paths(jg__cctx_t *c, jg_error_t *err)
{
    int32_t b, o;
    int rc = index_paths(c->p, c->p->nblocks, &b, &o);
    return index_outcome(c->p, rc, b, o, err);
}

struct jg__index_job {
    pthread_t th;
    jg_program_t *p;
    int rc;
    int32_t b, o;
};

static void *index_main(void *arg)
{
    jg__index_job_t *j = arg;
    j->rc = index_paths(j->p, j->p->nblocks, &j->b, &j->o);
    return NULL;
}

jg__index_job_t *jg__index_paths_start(jg__cctx_t *c)
{
    jg__index_job_t *j = calloc(1, sizeof *j);
    if (!j) return NULL;
    j->p = c->p;
    if (pthread_create(&j->th, NULL, index_main, j)) {
        free(j);
        return NULL;
    }
    return j;
}

jg_status_t jg__index_paths_end(jg__index_job_t *j, jg_error_t *err)
{
    pthread_join(j->th, NULL);
    jg_status_t st = index_outcome(j->p, j->rc, j->b, j->o, err);
    free(j);
    return st;
}

/* The type named type: a small cache in front of the registry's linear
 * search, as a model names few types a million times. */
static const jg_block_type_t *find_type(jg__cctx_t *c, const char *type)
{
    unsigned k = type[0] ? ((unsigned char)type[0] * 31u + (unsigned char)type[1] +
                            7u * (unsigned)strlen(type)) % JG__TYPE_CACHE
                         : 0;
    if (c->tcache[k].name && !strcmp(c->tcache[k].name, type)) return c->tcache[k].type;
    const jg_block_type_t *t = jg__block_type_find(c->plugins, type);
    if (t) {
        c->tcache[k].name = t->name;
        c->tcache[k].type = t;
    }
    return t;
}

/* ------------------------------------------------------------- flatten */

/* Upper bounds of the blocks and systems jg__flatten() makes, to size its arrays:
 * it descends into the blocks of JG_BT_SUBSYSTEM types, whose "blocks" array
 * the model's reader has checked; counting every "blocks" array found here
 * spares a type lookup per block and only over-counts odd models. */
void jg__count_blocks(const jg__cctx_t *c, const jg__jv_t *sys, int32_t *nb, int32_t *ns)
{
    size_t i;
    const jg__jv_t *b;
    if (*ns < INT32_MAX) (*ns)++;   /* saturating: the caller refuses such counts */
    jg__jv_foreach(jg__jv_get_key(sys, c->k_blocks), i, b) {
        if (*nb < INT32_MAX) (*nb)++;
        if (jg__jv_is_arr(jg__jv_get_key(b, c->k_blocks))) jg__count_blocks(c, b, nb, ns);
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

/* n bytes for a string of the program: packed one after the other in
 * chunks of the arena (whose own allocations are rounded to 16 bytes: a
 * million paths of a dozen bytes).  NULL: out of memory. */
static char *str_alloc(jg__cctx_t *c, size_t n)
{
    enum { CHUNK = 1 << 16 };
    if (n > CHUNK / 8) return jg_arena_alloc(&c->p->arena, n);
    if (n > c->strleft) {
        if (!(c->strp = jg_arena_alloc(&c->p->arena, CHUNK))) return NULL;
        c->strleft = CHUNK;
    }
    char *d = c->strp;
    c->strp += n;
    c->strleft -= n;
    return d;
}

/* "sys/name" ("name" at the root), packed (str_alloc).  A '/' inside the
 * name is doubled, as Simulink's getfullname writes block "a/b" of "sys" as
 * "sys/a//b", so a path still splits at its single slashes.  printf is too
 * slow for a million paths. */
static char *join_path(jg__cctx_t *cc, const char *sys, const char *name, size_t len)
{
    size_t ls = strlen(sys), nslash = 0;
    for (const char *c = memchr(name, '/', len); c; c = memchr(c + 1, '/', len - (size_t)(c + 1 - name)))
        nslash++;
    char *d = str_alloc(cc, ls + len + nslash + 2);
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
    sy->params = jg__jv_get_key(sysj, c->k_params);
    sy->json = sysj;
    sy->first = p->nblocks;
    size_t i;
    const jg__jv_t *bj;
    jg__jv_foreach(jg__jv_get_key(sysj, c->k_blocks), i, bj) {
        int32_t id = p->nblocks++;
        jg_block_t *b = &p->blocks[id];
        const char *name = jg__jv_str(jg__jv_get_key(bj, c->k_name));
        const char *type = jg__jv_str(jg__jv_get_key(bj, c->k_type));
        b->id = id;
        b->rate = -1;   /* not discrete (sampletime.c sets the discrete ones) */
        b->parent = sys_block;
        b->sys = si;
        c->src[id] = bj;
        size_t len = strlen(name);
        b->path = join_path(c, sy->path, name, len);
        if (!b->path) return jg_error_set(err, JG_NOMEM, "out of memory");
        /* the name itself, unescaped: the path's tail unless it holds a '/' */
        b->name = memchr(name, '/', len) ? jg_arena_strdup(&p->arena, name)
                                         : b->path + strlen(b->path) - len;
        if (!b->name) return jg_error_set(err, JG_NOMEM, "out of memory");
        b->type = find_type(c, type);
        if (!b->type) {
            /* a duplicate path before this block was the first error */
            int32_t db, dob;
            if (index_paths(p, id, &db, &dob)) return jg_error_set(err, JG_NOMEM, "out of memory");
            if (db >= 0) return dup_error(p, db, dob, err);
            char *known = jg__block_type_names(c->plugins);
            jg_error_set(err, JG_MODEL, "block '%s': unknown block type '%s'; known types: %s", b->path,
                         type, known ? known : "(out of memory listing them)");
            free(known);
            return JG_MODEL;
        }
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
