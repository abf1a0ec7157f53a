/* Connect the lines: global port numbering, each input's driving output, signal names. */
#include <stdlib.h>
#include <string.h>
#include "compile_impl.h"

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
    /* the line names a block of its own system */
    size_t len = (size_t)(colon - ref);
    int32_t b = jg__find_local(c, sy, ref, len);
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
    const char *nm = jg__jv_str(jg__jv_get(line, "name"));
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

jg_status_t jg__connect_lines(jg__cctx_t *c)
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
        const jg__jv_t *lines = jg__jv_get(p->sys[sy].json, "lines");
        size_t i;
        const jg__jv_t *l;
        jg__jv_foreach(lines, i, l) {
            int32_t sb, db;
            int sp, dp;
            jg_status_t st =
                parse_ref(c, sy, jg__jv_str(jg__jv_get(l, "src")), 1, &sb, &sp);
            if (st) return st;
            if ((st = name_signal(c, l, sb, sp))) return st;
            const jg__jv_t *dst = jg__jv_get(l, "dst");
            size_t nd = jg__jv_is_arr(dst) ? jg__jv_len(dst) : 1;
            for (size_t k = 0; k < nd; k++) {
                const char *ref = jg__jv_str(jg__jv_is_arr(dst) ? jg__jv_at(dst, k) : dst);
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
