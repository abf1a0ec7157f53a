/* Connect the lines: global port numbering, each input's driving output, signal names. */
#define _GNU_SOURCE 1   /* sched_getaffinity, CPU_COUNT */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "compile_impl.h"

/* The blocks directly in one system, for its lines' "BLOCK:N" lookups: a
 * system holds a dozen blocks on average, found by a scan of their names;
 * a large one gets a hash table.  Built system by system, the lookups stay
 * within the few blocks and names of that system (a table over the whole
 * model made every lookup a cache miss). */
typedef struct {
    int32_t *kid, nk, kcap;
    uint64_t *pre;  /* per kid: the first 8 bytes of its name, zero-padded */
    uint32_t *len;  /* per kid: its name's length (a scan reads no block) */
    int32_t *tab;   /* kid indices, -1 empty; used when nk > LOCAL_SCAN */
    int64_t tcap;   /* slots allocated */
    uint64_t tmask; /* slots used for this system, minus one */
} local_t;

#define LOCAL_SCAN 16

static uint64_t prefix(const char *name, size_t len)
{
    uint64_t v = 0;
    memcpy(&v, name, len < 8 ? len : 8);
    return v;
}

static uint64_t hash_name(const char *name, size_t len)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t k = 0; k < len; k++) h = (h ^ (unsigned char)name[k]) * 1099511628211ull;
    return h ^ (h >> 29);
}

/* Collect the blocks of system sy (depth-first ids: a SubSystem's
 * descendants follow it; skip them). -1: out of memory. */
static int local_build(const jg_program_t *p, int32_t sy, local_t *L)
{
    const struct jg_sys *S = &p->sys[sy];
    L->nk = 0;
    for (int32_t id = S->first; id < S->first + S->n;) {
        if (L->nk == L->kcap) {
            int32_t cap = L->kcap ? 2 * L->kcap : 64;
            int32_t *k = realloc(L->kid, sizeof *k * (size_t)cap);
            if (k) L->kid = k;
            uint64_t *pr = k ? realloc(L->pre, sizeof *pr * (size_t)cap) : NULL;
            if (pr) L->pre = pr;
            uint32_t *ln = pr ? realloc(L->len, sizeof *ln * (size_t)cap) : NULL;
            if (!ln) return -1;
            L->len = ln;
            L->kcap = cap;
        }
        const char *nm = p->blocks[id].name;
        size_t n = strlen(nm);
        L->len[L->nk] = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
        L->pre[L->nk] = prefix(nm, n);
        L->kid[L->nk++] = id;
        if (id + 1 < p->nblocks && p->blocks[id + 1].parent == id) {
            const struct jg_sys *in = &p->sys[p->blocks[id + 1].sys];
            id = in->first + in->n;
        } else {
            id++;
        }
    }
    if (L->nk <= LOCAL_SCAN) return 0;
    int64_t cap = 16;
    while (cap < 2 * (int64_t)L->nk) cap *= 2;
    if (cap > L->tcap) {
        int32_t *t = realloc(L->tab, sizeof *t * (size_t)cap);
        if (!t) return -1;
        L->tab = t;
        L->tcap = cap;
    }
    uint64_t mask = L->tmask = (uint64_t)cap - 1;
    memset(L->tab, 0xff, sizeof *L->tab * (size_t)cap);
    for (int32_t k = 0; k < L->nk; k++) {
        uint64_t s = hash_name(p->blocks[L->kid[k]].name, L->len[k]) & mask;
        while (L->tab[s] >= 0) s = (s + 1) & mask;
        L->tab[s] = k;
    }
    return 0;
}

/* The block named name[0..len) (unescaped) in the system of L, -1: none.
 * Names are unique in a system (flatten checked the paths). */
static int32_t local_find(const jg_program_t *p, const local_t *L, const char *name, size_t len)
{
    if (L->nk <= LOCAL_SCAN) {
        uint64_t pre = prefix(name, len);
        for (int32_t k = 0; k < L->nk; k++)
            if (L->pre[k] == pre && L->len[k] == len &&
                (len <= 8 || !strncmp(p->blocks[L->kid[k]].name + 8, name + 8, len - 8)))
                return L->kid[k];
        return -1;
    }
    uint64_t mask = L->tmask;
    for (uint64_t s = hash_name(name, len) & mask; L->tab[s] >= 0; s = (s + 1) & mask) {
        int32_t k = L->tab[s];
        if (L->len[k] == len && !strncmp(p->blocks[L->kid[k]].name, name, len)) return L->kid[k];
    }
    return -1;
}

/* "BLOCK:N" in the system of L: the block's id with *n = N, -1 when N is
 * not a number >= 1, -2 when the system has no such block.  Reads only the
 * blocks' names and the systems (what flatten set), so that it may run
 * beside setup_blocks. */
static int32_t resolve_ref(const jg_program_t *p, const local_t *L, const char *ref, long *n_out)
{
    const char *colon = strrchr(ref, ':');
    char *end = NULL;
    long n = 0;
    /* "BLOCK:N" with a few plain digits, the usual form, without strtol;
     * anything else (signs, spaces, long numbers) as strtol reads it */
    const char *d = colon ? colon + 1 : NULL;
    size_t nd = 0;
    while (d && nd < 9 && d[nd] >= '0' && d[nd] <= '9') n = 10 * n + (d[nd++] - '0');
    if (d && nd > 0 && nd < 9 && !d[nd]) end = (char *)d + nd;
    else n = colon ? strtol(colon + 1, &end, 10) : 0;
    if (!colon || colon == ref || !end || *end || end == colon + 1 || n < 1) return -1;
    /* the line names a block of its own system */
    int32_t b = local_find(p, L, ref, (size_t)(colon - ref));
    *n_out = n;
    return b < 0 ? -2 : b;
}

/* The ports a line may end at: B's outputs (is_src) or inputs. */
static int nports(const jg_block_t *B, int is_src)
{
    int np = is_src ? B->nout : B->nin;
    if (!is_src && (B->type->flags & JG_BT_SELFLOOP)) np--;   /* the last input is internal */
    return np;
}

/* Block b's port n (1-based) of a line end inside system sy: 0-based into
 * *port, or the error when b has fewer ports. */
static jg_status_t check_port(jg__cctx_t *c, int32_t sy, const char *ref, int is_src, int32_t b, long n,
                              int *port)
{
    const jg_program_t *p = c->p;
    const char *where = *p->sys[sy].path ? p->sys[sy].path : "<root>";
    const jg_block_t *B = &p->blocks[b];
    int np = nports(B, is_src);
    if (n > np)
        return jg_error_set(c->err, JG_MODEL,
                            "system '%s': line %s \"%s\": block '%s' (%s) has %d %s port%s",
                            where, is_src ? "source" : "destination", ref, B->path,
                            B->type->name, np, is_src ? "output" : "input", np == 1 ? "" : "s");
    *port = (int)n - 1;
    return JG_OK;
}

/* Parse "BLOCK:N" inside system sy (its blocks in L): block id and 0-based port. */
static jg_status_t parse_ref(jg__cctx_t *c, int32_t sy, const local_t *L, const char *ref,
                             int is_src, int32_t *blk, int *port)
{
    const jg_program_t *p = c->p;
    const char *where = *p->sys[sy].path ? p->sys[sy].path : "<root>";
    long n = 0;
    int32_t b = resolve_ref(p, L, ref, &n);
    if (b == -1)
        return jg_error_set(c->err, JG_MODEL,
                            "system '%s': bad port reference \"%s\": expected \"BLOCK:N\" with N "
                            ">= 1",
                            where, ref);
    if (b < 0) {
        const char *colon = strrchr(ref, ':');
        return jg_error_set(c->err, JG_MODEL, "system '%s': line %s \"%s\": no block named '%.*s' here",
                            where, is_src ? "source" : "destination", ref, (int)(colon - ref), ref);
    }
    *blk = b;
    return check_port(c, sy, ref, is_src, b, n, port);
}

/* ---- the line ends resolved beside setup_blocks */

struct jg__lines_pre {
    const jg__cctx_t *c;
    /* per line in connect_lines' order: its destinations and whether it
     * names its signal, then per end (the source, the destinations): block
     * id and N, or -1, -1; so that connect_lines reads the document only
     * for a line's name or an error */
    int32_t *ref;
    int64_t nref, cap;
    int ok;            /* every end resolved (0: out of memory; connect_lines does it all) */
    int joined;
    pthread_t th;
};

static void resolve_wait(jg__lines_pre_t *R)
{
    if (R && !R->joined) pthread_join(R->th, NULL);
    if (R) R->joined = 1;
}

static void *resolve_all(void *arg)
{
    jg__lines_pre_t *R = arg;
    const jg__cctx_t *c = R->c;
    const jg_program_t *p = c->p;
    local_t L = {0};
    R->ok = 0;
    for (int32_t sy = 0; sy < p->nsys; sy++) {
        const jg__jv_t *lines = jg__jv_get_key(p->sys[sy].json, c->k_lines);
        size_t i;
        const jg__jv_t *l;
        if (jg__jv_len(lines) && local_build(p, sy, &L)) goto done;
        jg__jv_foreach(lines, i, l) {
            const jg__jv_t *dst = jg__jv_get_key(l, c->k_dst);
            size_t nd = jg__jv_is_arr(dst) ? jg__jv_len(dst) : 1;
            if (nd > INT32_MAX - 1) goto done;
            if (R->nref + 2 * (int64_t)(nd + 2) > R->cap) {
                int64_t cap = R->cap ? 2 * R->cap : 1 << 16;
                while (cap < R->nref + 2 * (int64_t)(nd + 2)) cap *= 2;
                int32_t *nr = realloc(R->ref, sizeof *nr * (size_t)cap);
                if (!nr) goto done;
                R->ref = nr, R->cap = cap;
            }
            const char *nm = jg__jv_str(jg__jv_get_key(l, c->k_name));
            R->ref[R->nref++] = (int32_t)nd;
            R->ref[R->nref++] = nm && *nm;
            for (size_t k = 0; k <= nd; k++) {   /* the source, then the destinations */
                const char *ref = jg__jv_str(!k ? jg__jv_get_key(l, c->k_src)
                                                : jg__jv_is_arr(dst) ? jg__jv_at(dst, k - 1) : dst);
                long n = 0;
                int32_t b = ref ? resolve_ref(p, &L, ref, &n) : -1;
                R->ref[R->nref++] = b < 0 || n > INT32_MAX ? -1 : b;
                R->ref[R->nref++] = b < 0 || n > INT32_MAX ? -1 : (int32_t)n;
            }
        }
    }
    R->ok = 1;
done:
    free(L.kid);
    free(L.pre);
    free(L.len);
    free(L.tab);
    return NULL;
}

jg__lines_pre_t *jg__lines_resolve_start(const jg__cctx_t *c)
{
    if (!c->threads) return NULL;
    jg__lines_pre_t *R = calloc(1, sizeof *R);
    if (!R) return NULL;
    R->c = c;
    if (pthread_create(&R->th, NULL, resolve_all, R)) {
        free(R);
        return NULL;   /* connect_lines resolves them itself */
    }
    return R;
}

void jg__lines_resolve_end(jg__lines_pre_t *R)
{
    if (!R) return;
    resolve_wait(R);
    free(R->ref);
    free(R);
}

/* A line's "name" names the signal of its source port.  Several lines (the
 * branches of one signal) may repeat it; a second, different name is a
 * warning and the first one stays, as a port has one signal.  "" is no name
 * (Simulink writes Name "" for an unnamed line). */
static jg_status_t name_signal(jg__cctx_t *c, const jg__jv_t *line, int32_t sb, int sp)
{
    jg_program_t *p = c->p;
    const char *nm = jg__jv_str(jg__jv_get_key(line, c->k_name));
    if (!nm || !*nm) return JG_OK;
    if (!p->sig_name &&   /* the first named signal: most models name none */
        !(p->sig_name = jg_arena_alloc(&p->arena, sizeof(char *) * (size_t)(p->nout_ports + 1))))
        return jg_error_set(c->err, JG_NOMEM, "out of memory");
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

/* End k of line l of system sy (-1 its source, else its k-th destination):
 * from the resolved ends when there are (the next one, *r), else parsed
 * here; an end that did not resolve, or to a port its block lacks, is parsed
 * again, for its message (L built then). */
static jg_status_t line_end(jg__cctx_t *c, int32_t sy, local_t *L, int *have_local, const jg__lines_pre_t *pre,
                            int64_t *r, const jg__jv_t *l, int64_t k, int32_t *blk, int *port)
{
    if (pre) {
        if (*r + 1 >= pre->nref) return jg_error_set(c->err, JG_INTERNAL, "the lines' ends ran out");
        int32_t b = pre->ref[*r], n = pre->ref[*r + 1];
        *r += 2;
        if (b >= 0 && n <= nports(&c->p->blocks[b], k < 0)) {
            *blk = b;
            *port = n - 1;
            return JG_OK;
        }
    }
    const jg__jv_t *dst = k < 0 ? NULL : jg__jv_get_key(l, c->k_dst);
    const char *ref = jg__jv_str(k < 0 ? jg__jv_get_key(l, c->k_src)
                                       : jg__jv_is_arr(dst) ? jg__jv_at(dst, (size_t)k) : dst);
    if (!*have_local && local_build(c->p, sy, L)) return jg_error_set(c->err, JG_NOMEM, "out of memory");
    *have_local = 1;
    return parse_ref(c, sy, L, ref, k < 0, blk, port);
}

jg_status_t jg__connect_lines(jg__cctx_t *c, jg__lines_pre_t *pre)
{
    resolve_wait(pre);
    if (pre && !pre->ok) pre = NULL;
    int64_t r = 0;   /* the next resolved line end */
    jg_program_t *p = c->p;
    /* the port counts setup_blocks summed: one pass numbers the ports */
    int64_t nin = c->nin_total, nout = c->nout_total;
    p->in_base = jg_arena_alloc(&p->arena, sizeof(int64_t) * (size_t)(p->nblocks + 1));
    p->out_base = jg_arena_alloc(&p->arena, sizeof(int64_t) * (size_t)(p->nblocks + 1));
    if (!p->in_base || !p->out_base) return jg_error_set(c->err, JG_NOMEM, "out of memory");
    p->nin_ports = nin;
    p->nout_ports = nout;
    p->in_drv = jg_arena_alloc(&p->arena, sizeof(int64_t) * (size_t)(nin + 1));
    p->in_blk = jg_arena_alloc(&p->arena, sizeof(int32_t) * (size_t)(nin + 1));
    p->in_port_of = jg_arena_alloc(&p->arena, sizeof(int) * (size_t)(nin + 1));
    p->out_blk = jg_arena_alloc(&p->arena, sizeof(int32_t) * (size_t)(nout + 1));
    p->out_port_of = jg_arena_alloc(&p->arena, sizeof(int) * (size_t)(nout + 1));
    if (!p->in_drv || !p->in_blk || !p->out_blk || !p->in_port_of || !p->out_port_of)
        return jg_error_set(c->err, JG_NOMEM, "out of memory");
    nin = nout = 0;
    for (int32_t b = 0; b < p->nblocks; b++) {
        p->in_base[b] = nin;
        p->out_base[b] = nout;
        for (int k = 0; k < p->blocks[b].nin; k++, nin++) {
            p->in_blk[nin] = b;
            p->in_port_of[nin] = k;
            p->in_drv[nin] = -1;
        }
        for (int k = 0; k < p->blocks[b].nout; k++, nout++) {
            p->out_blk[nout] = b;
            p->out_port_of[nout] = k;
        }
    }
    if (nin != p->nin_ports || nout != p->nout_ports)
        return jg_error_set(c->err, JG_INTERNAL, "port counts changed after the setup");
    local_t L = {0};
    jg_status_t st = JG_OK;
    for (int32_t sy = 0; sy < p->nsys && !st; sy++) {
        const jg__jv_t *lines = jg__jv_get_key(p->sys[sy].json, c->k_lines);
        size_t i;
        const jg__jv_t *l;
        int have_local = 0;   /* L is this system's (with the ends resolved: only for an error) */
        if (!pre && jg__jv_len(lines)) {
            if (local_build(p, sy, &L)) {
                st = jg_error_set(c->err, JG_NOMEM, "out of memory");
                break;
            }
            have_local = 1;
        }
        jg__jv_foreach(lines, i, l) {   /* (l is not read unless needed) */
            int32_t sb, db;
            int sp, dp, named = 1;
            size_t nd;
            if (pre) {
                if (r + 1 >= pre->nref) {
                    st = jg_error_set(c->err, JG_INTERNAL, "the lines' ends ran out");
                    break;
                }
                nd = (size_t)pre->ref[r];
                named = pre->ref[r + 1];
                r += 2;
            } else {
                const jg__jv_t *dst = jg__jv_get_key(l, c->k_dst);
                nd = jg__jv_is_arr(dst) ? jg__jv_len(dst) : 1;
            }
            if ((st = line_end(c, sy, &L, &have_local, pre, &r, l, -1, &sb, &sp)) ||
                (named && (st = name_signal(c, l, sb, sp))))
                break;
            for (size_t k = 0; k < nd && !st; k++) {
                if ((st = line_end(c, sy, &L, &have_local, pre, &r, l, (int64_t)k, &db, &dp))) break;
                int64_t gi = jg__inport(p, db, dp);
                if (p->in_drv[gi] >= 0) {
                    int64_t o = p->in_drv[gi];
                    st = jg_error_set(c->err, JG_MODEL,
                                      "input %d of block '%s' has two drivers: '%s:%d' and "
                                      "'%s:%d'",
                                      dp + 1, p->blocks[db].path, p->blocks[p->out_blk[o]].path,
                                      p->out_port_of[o] + 1, p->blocks[sb].path, sp + 1);
                    break;
                }
                p->in_drv[gi] = jg__outport(p, sb, sp);
            }
            if (st) break;
        }
    }
    free(L.kid);
    free(L.pre);
    free(L.len);
    free(L.tab);
    if (st) return st;
    /* Algebraic Constraint: its last input reads its own output, y = y + u,
     * so that the loop solver's fixed point is u = 0 */
    for (int32_t b = 0; c->nselfloop && b < p->nblocks; b++)
        if ((p->blocks[b].type->flags & JG_BT_SELFLOOP) && p->blocks[b].nin > 0 && p->blocks[b].nout > 0)
            p->in_drv[jg__inport(p, b, p->blocks[b].nin - 1)] = jg__outport(p, b, 0);
    return JG_OK;
}
