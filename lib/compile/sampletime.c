/* Sample times (Simulink's compile phase): read each block's "SampleTime",
 * resolve the inherited ones from the blocks that drive them, check the
 * discrete blocks got a discrete one, and list the model's discrete rates.
 *
 * Representation (jg_ts_t): period -1 inherited, 0 continuous, > 0 discrete
 * with 0 <= offset < period, INFINITY constant.  While compiling, NAN marks
 * "no SampleTime given": the type's default applies once the state count is
 * known (after width propagation).
 *
 * Inheritance (Simulink's propagation, single-tasking): a block takes the
 * sample time of its drivers; any continuous driver makes it continuous;
 * drivers of several discrete rates give the fastest one when every other
 * rate's hits are among its hits (their periods multiples of it, offsets
 * aligned), and a conflict otherwise, which the user settles by setting
 * SampleTime; constant drivers do not count unless all drivers are constant.
 * Loops of inherited blocks are resolved by iterating to a fixed point over
 * the sorted order. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compile_impl.h"

static int is_multiple(double a, double b)   /* a = k b, k integer >= 0 */
{
    double k = a / b;
    return fabs(k - nearbyint(k)) <= 1e-9 * fmax(1.0, fabs(k));
}

int jg__setup_sample_time(jg_block_t *b, jg_setup_t *s)
{
    jg_value_t v;
    b->rate = -1;   /* b->ts: NAN (set before setup) or the type's default */
    int r = jg_setup_num(b, s, "SampleTime", &v);
    if (r < 0) return JG_BLOCK_FAIL;
    if (r > 0) {
        int64_t n = jg_value_numel(&v);
        double T = n >= 1 ? v.x[0] : NAN, off = n == 2 ? v.x[1] : 0;
        int ok = (n == 1 || n == 2) &&
                 ((T == -1 && off == 0) || (T == 0 && off == 0) || (T == INFINITY && off == 0) ||
                  (T > 0 && isfinite(T) && off >= 0 && off < T));
        if (!ok)
            return jg_setup_error(b, s, JG_PARAM, "SampleTime",
                                  "expected -1 (inherited), 0 (continuous), inf (constant), a "
                                  "period T > 0 or [T, offset] with 0 <= offset < T");
        b->ts.period = T;
        b->ts.offset = off;
    }
    r = jg_setup_num(b, s, "Priority", &v);
    if (r < 0) return JG_BLOCK_FAIL;
    if (r > 0) {
        if (jg_value_numel(&v) != 1 || !jg_is_int(v.x[0], -1e9, 1e9))
            return jg_setup_error(b, s, JG_PARAM, "Priority", "expected an integer");
        b->priority = (int)v.x[0];
    }
    return JG_BLOCK_DONE;
}

static int ts_is_discrete(jg_ts_t t) { return t.period > 0 && isfinite(t.period); }

static void fmt_ts(char *buf, size_t n, jg_ts_t t)
{
    if (t.offset != 0)
        snprintf(buf, n, "[%g, %g]", t.period, t.offset);
    else
        snprintf(buf, n, "%g", t.period);
}

/* Combine the drivers' sample times of block b.  Returns 0 and sets *out
 * (period -1 while some needed driver is unresolved), or -1 on a conflict
 * (message set). */
static int inherit(jg__cctx_t *c, const int32_t *sig_blk, const jg_block_t *B, int lenient,
                   jg_ts_t *out)
{
    const jg_program_t *p = c->p;
    int any = 0, unknown = 0, cont = 0;
    jg_ts_t fast = {0, 0};
    int32_t fast_blk = -1;
    int nin = B->nin - ((B->type->flags & JG_BT_SELFLOOP) ? 1 : 0);
    for (int k = 0; k < nin; k++) {
        int64_t o = p->u_off[jg__inport(p, B->id, k)];
        int32_t last = -1;
        for (int64_t e = 0; e < B->in_w[k]; e++) {
            int64_t src = p->u_src[o + e];
            if (src < 0) continue;
            int32_t sb = sig_blk[src];
            if (sb == last) continue;
            last = sb;
            jg_ts_t t = p->blocks[sb].ts;
            any = 1;
            if (t.period == -1) unknown = 1;
            else if (t.period == 0) cont = 1;
            else if (t.period != INFINITY &&   /* constant: counts only when all are */
                     (fast_blk < 0 || t.period < fast.period ||
                      (t.period == fast.period && t.offset < fast.offset))) {
                fast = t;
                fast_blk = sb;
            }
        }
    }
    if (cont) {
        *out = (jg_ts_t){0, 0};
        return 0;
    }
    if (fast_blk >= 0) {
        /* every discrete driver's hits must be hits of the fastest */
        for (int k = 0; k < nin; k++) {
            int64_t o = p->u_off[jg__inport(p, B->id, k)];
            for (int64_t e = 0; e < B->in_w[k]; e++) {
                int64_t src = p->u_src[o + e];
                if (src < 0) continue;
                jg_ts_t t = p->blocks[sig_blk[src]].ts;
                if (!ts_is_discrete(t)) continue;
                if (!is_multiple(t.period, fast.period) ||
                    !is_multiple(fabs(t.offset - fast.offset), fast.period)) {
                    char a[64], b2[64];
                    fmt_ts(a, sizeof a, fast);
                    fmt_ts(b2, sizeof b2, t);
                    jg_error_set(c->err, JG_MODEL,
                                 "block '%s' (%s): sample time conflict: it inherits %s from '%s' "
                                 "and %s from '%s', which the faster rate does not divide; set "
                                 "its SampleTime",
                                 B->path, B->type->name, a, p->blocks[fast_blk].path, b2,
                                 p->blocks[sig_blk[src]].path);
                    return -1;
                }
            }
        }
        *out = unknown && !lenient ? (jg_ts_t){-1, 0} : fast;
        return 0;
    }
    if (unknown || !any) {
        *out = (jg_ts_t){-1, 0};
        return 0;
    }
    *out = (jg_ts_t){INFINITY, 0};
    return 0;
}

jg_status_t jg__resolve_sample_times(jg__cctx_t *c)
{
    jg_program_t *p = c->p;
    jg_status_t st = JG_OK;
    jg_ts_t *rates = NULL;
    int32_t *rate_blk = NULL;
    int32_t open = 0;   /* real blocks whose inherited sample time is open */
    int32_t *sig_blk = malloc(sizeof(int32_t) * (size_t)(p->ny + 1));
    if (!sig_blk) return jg_error_set(c->err, JG_NOMEM, "out of memory");
    for (int32_t b = 0; b < p->nblocks; b++) {
        jg_block_t *B = &p->blocks[b];
        if (B->virt) continue;
        for (int q = 0; q < B->nout; q++) {
            int64_t o = p->y_off[jg__outport(p, b, q)];
            for (int64_t e = 0; e < B->out_w[q]; e++) sig_blk[o + e] = b;
        }
        /* defaults, and what continuous states imply */
        if (isnan(B->ts.period)) {
            if (B->type->flags & JG_BT_CONSTANT) B->ts = (jg_ts_t){INFINITY, 0};
            else if (B->nx > 0 || B->nin == 0) B->ts = (jg_ts_t){0, 0};
            else B->ts = (jg_ts_t){-1, 0};
        }
        if (B->nx > 0 && B->ts.period == -1) B->ts = (jg_ts_t){0, 0};
        open += B->ts.period == -1;
        if (B->nx > 0 && B->ts.period != 0) {
            st = jg_error_set(c->err, JG_PARAM,
                              "block '%s' (%s), parameter 'SampleTime': a block with continuous "
                              "states needs a continuous sample time (0 or -1), got %g",
                              B->path, B->type->name, B->ts.period);
            goto done;
        }
    }
    /* inherit to a fixed point, in sorted order (drivers first).  A loop of
     * inherited blocks (a delay fed back through a Sum) never settles from
     * its own members: when nothing changes any more, a lenient pass lets a
     * block take the rate of the drivers that are known, as Simulink's
     * propagation does, and the strict passes resume from there.  Once none
     * is open, no pass can change anything. */
    for (int pass = 0, changed = 1, lenient = 0; open && pass <= 4 * p->nsorted + 4; pass++) {
        if (!changed) {
            if (lenient) break;
            lenient = 1;
        }
        changed = 0;
        for (int32_t i = 0; i < p->nsorted; i++) {
            int32_t b = p->sorted[i];
            jg_block_t *B = &p->blocks[b];
            if (B->ts.period != -1) continue;
            jg_ts_t t;
            if (inherit(c, sig_blk, B, lenient, &t)) {
                st = c->err->status;
                goto done;
            }
            if (t.period != -1) {
                B->ts = t;
                changed = 1;
                open--;
            }
        }
        if (changed) lenient = 0;
    }
    /* still inherited: fed by nothing that has a sample time; and the
     * distinct discrete rates, fastest first (gathered in scratch arrays,
     * kept at their count: a model has a few) */
    rates = malloc(sizeof(jg_ts_t) * (size_t)(p->nreal + 1));
    rate_blk = malloc(sizeof(int32_t) * (size_t)(p->nreal + 1));
    if (!rates || !rate_blk) {
        st = jg_error_set(c->err, JG_NOMEM, "out of memory");
        goto done;
    }
    for (int32_t b = 0; b < p->nblocks; b++) {
        jg_block_t *B = &p->blocks[b];
        if (B->virt) continue;
        if (B->type->flags & JG_BT_DISCRETE) {
            const char *what = B->ts.period == -1     ? "cannot inherit a sample time (its inputs "
                                                        "are unconnected, constant or inherit from "
                                                        "it)"
                               : B->ts.period == 0    ? "gets a continuous sample time"
                               : B->ts.period == INFINITY ? "gets a constant sample time"
                                                          : NULL;
            if (what) {
                st = jg_error_set(c->err, JG_MODEL,
                                  "block '%s' (%s): %s; a discrete block needs a discrete "
                                  "SampleTime (T > 0 or [T, offset])",
                                  B->path, B->type->name, what);
                goto done;
            }
        }
        if (B->ts.period == -1) B->ts = (jg_ts_t){0, 0};
        if (!ts_is_discrete(B->ts)) continue;
        int32_t r = 0;
        while (r < p->nrates && (rates[r].period != B->ts.period || rates[r].offset != B->ts.offset))
            r++;
        if (r == p->nrates) {
            int32_t k = p->nrates++;
            while (k > 0 && (rates[k - 1].period > B->ts.period ||
                             (rates[k - 1].period == B->ts.period && rates[k - 1].offset > B->ts.offset))) {
                rates[k] = rates[k - 1];
                rate_blk[k] = rate_blk[k - 1];
                k--;
            }
            rates[k] = B->ts;
            rate_blk[k] = b;
        }
    }
    p->rates = jg_arena_alloc(&p->arena, sizeof(jg_ts_t) * (size_t)(p->nrates + 1));
    p->rate_blk = jg_arena_alloc(&p->arena, sizeof(int32_t) * (size_t)(p->nrates + 1));
    if (!p->rates || !p->rate_blk) {
        st = jg_error_set(c->err, JG_NOMEM, "out of memory");
        goto done;
    }
    memcpy(p->rates, rates, sizeof(jg_ts_t) * (size_t)p->nrates);
    memcpy(p->rate_blk, rate_blk, sizeof(int32_t) * (size_t)p->nrates);
    /* each block's rate: -1 (flatten's) unless it is discrete */
    for (int32_t b = 0; p->nrates && b < p->nblocks; b++) {
        jg_block_t *B = &p->blocks[b];
        if (B->virt || !ts_is_discrete(B->ts)) continue;
        for (int32_t r = 0; r < p->nrates; r++)
            if (p->rates[r].period == B->ts.period && p->rates[r].offset == B->ts.offset) B->rate = r;
    }
done:
    free(rates);
    free(rate_blk);
    free(sig_blk);
    return st;
}
