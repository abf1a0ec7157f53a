/* Connect the lines: global port numbering, each input's driving output, signal names. */
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

/* Parse "BLOCK:N" inside system sy (its blocks in L): block id and 0-based port. */
static jg_status_t parse_ref(jg__cctx_t *c, int32_t sy, const local_t *L, const char *ref,
                             int is_src, int32_t *blk, int *port)
{
    jg_program_t *p = c->p;
    const char *colon = strrchr(ref, ':');
    const char *where = *p->sys[sy].path ? p->sys[sy].path : "<root>";
    char *end = NULL;
    long n = 0;
    /* "BLOCK:N" with a few plain digits, the usual form, without strtol;
     * anything else (signs, spaces, long numbers) as strtol reads it */
    const char *d = colon ? colon + 1 : NULL;
    size_t nd = 0;
    while (d && nd < 9 && d[nd] >= '0' && d[nd] <= '9') n = 10 * n + (d[nd++] - '0');
    if (d && nd > 0 && nd < 9 && !d[nd]) end = (char *)d + nd;
    else n = colon ? strtol(colon + 1, &end, 10) : 0;
    if (!colon || colon == ref || !end || *end || end == colon + 1 || n < 1)
        return jg_error_set(c->err, JG_MODEL,
                            "system '%s': bad port reference \"%s\": expected \"BLOCK:N\" with N "
                            ">= 1",
                            where, ref);
    /* the line names a block of its own system */
    size_t len = (size_t)(colon - ref);
    int32_t b = local_find(p, L, ref, len);
    if (b < 0)
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

jg_status_t jg__connect_lines(jg__cctx_t *c)
{
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
        if (jg__jv_len(lines) && local_build(p, sy, &L)) {
            st = jg_error_set(c->err, JG_NOMEM, "out of memory");
            break;
        }
        jg__jv_foreach(lines, i, l) {
            int32_t sb, db;
            int sp, dp;
            if ((st = parse_ref(c, sy, &L, jg__jv_str(jg__jv_get_key(l, c->k_src)), 1, &sb, &sp)) ||
                (st = name_signal(c, l, sb, sp)))
                break;
            const jg__jv_t *dst = jg__jv_get_key(l, c->k_dst);
            size_t nd = jg__jv_is_arr(dst) ? jg__jv_len(dst) : 1;
            for (size_t k = 0; k < nd && !st; k++) {
                const char *ref = jg__jv_str(jg__jv_is_arr(dst) ? jg__jv_at(dst, k) : dst);
                if ((st = parse_ref(c, sy, &L, ref, 0, &db, &dp))) break;
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
