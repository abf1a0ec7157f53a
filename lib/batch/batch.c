/* The batch engine: the symbolic phase once (on the first points, in order),
 * then every other point numerically on worker threads, each with its own
 * clone of the linearizer, the results handed to the sink in input order. */
#define _GNU_SOURCE 1   /* sched_getaffinity, CPU_COUNT */
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "batch_impl.h"
#include "../linearize/lin_internal.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int jg_batch_ncores(void)
{
    /* the cores this process may run on (taskset, cpusets, mpirun's
     * binding), not every core of the machine */
    cpu_set_t set;
    long n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
    if (n < 1) n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 1024 ? 1024 : (int)n;
}

/* A result waiting for its turn. */
typedef struct {
    int done;
    jg_lin_sys_t *sys;
    char *error;            /* malloc'd; NULL when ok */
    double *vals;           /* nvals, the slot's own buffer */
} slot_t;

typedef struct {
    const jg_batch_points_t *P;
    const jg_batch_opts_t *o;
    const jg__batch_vars_t *V;
    const jg_lin_t *master;
    const jg_lin_sys_t *names;   /* the names every result shares (NULL: copies) */
    const int64_t *ks;      /* the run's points */
    int64_t n;
    pthread_mutex_t mu;
    pthread_cond_t ready, space;
    int64_t next, delivered;   /* run indices */
    int fed_done;           /* no more points will come (always, without a feed) */
    int64_t W;
    slot_t *slot;
    int stop;
} run_t;

/* A linearizer for one program with its default operating point, so that
 * every point starts from the same state whatever ran before it on it.  Of
 * the signals only those of the algebraic loops: where the loop solver
 * starts (every other signal is written before it is read, by each
 * evaluation). */
typedef struct {
    jg_lin_t *l;
    int var;
    double *x0, *u0, *y0;
    int64_t *yl;            /* the loops' signals, ny of them; y0 their values */
    int64_t nx, nu, ny;
} lin_ctx_t;

static void ctx_clear(lin_ctx_t *c)
{
    jg_lin_free(c->l);
    free(c->x0);
    free(c->u0);
    free(c->y0);
    free(c->yl);
    memset(c, 0, sizeof *c);
    c->var = -1;
}

/* c takes l (a new linearizer for program V->prog[var]) and records its
 * defaults.  c owns l from here on, also when this fails (l is freed then):
 * the caller must not free it again. */
static jg_status_t ctx_take(lin_ctx_t *c, jg_lin_t *l, int var, jg_error_t *err)
{
    ctx_clear(c);
    c->l = l;
    c->var = var;
    jg_eval_work_t *w = jg__lin_work(l);
    const jg_program_t *q = jg__eval_program(w);
    c->nx = jg_program_nstates(q);
    c->nu = jg_eval_ninput_elems(w);
    int64_t ny = 0;
    for (int k = 0; k < q->nloops; k++) {
        int32_t nb;
        const int32_t *blk = jg_program_loop(q, k, &nb);
        for (int32_t i = 0; i < nb; i++)
            for (int j = 0; j < q->blocks[blk[i]].nout; j++) ny += q->blocks[blk[i]].out_w[j];
    }
    c->x0 = malloc(sizeof(double) * (size_t)(c->nx + 1));
    c->u0 = malloc(sizeof(double) * (size_t)(c->nu + 1));
    c->y0 = malloc(sizeof(double) * (size_t)(ny + 1));
    c->yl = malloc(sizeof(int64_t) * (size_t)(ny + 1));
    if (!c->x0 || !c->u0 || !c->y0 || !c->yl) {
        ctx_clear(c);
        return jg_error_set(err, JG_NOMEM, "out of memory");
    }
    const double *y = jg_eval_signals(w);
    for (int k = 0; k < q->nloops; k++) {
        int32_t nb;
        const int32_t *blk = jg_program_loop(q, k, &nb);
        for (int32_t i = 0; i < nb; i++) {
            const jg_block_t *B = &q->blocks[blk[i]];
            for (int j = 0; j < B->nout; j++)
                for (int64_t e = 0, o = q->y_off[jg__outport(q, B->id, j)]; e < B->out_w[j]; e++) {
                    c->yl[c->ny] = o + e;
                    c->y0[c->ny++] = y[o + e];
                }
        }
    }
    memcpy(c->x0, jg_lin_states(l), sizeof(double) * (size_t)c->nx);
    memcpy(c->u0, jg_lin_inputs(l), sizeof(double) * (size_t)c->nu);
    return JG_OK;
}

/* Simulate l's program from l's operating point to tend; l gets the state
 * and time reached (linearize --at). */
static jg_status_t snapshot(const jg_batch_opts_t *o, jg_lin_t *l, int set_states, double tend,
                            jg_error_t *err)
{
    jg_eval_work_t *w = jg__lin_work(l);
    const jg_program_t *q = jg__eval_program(w);
    jg_sim_opts_t so = o->sim;
    so.t0 = jg_lin_time(l);
    so.tstop = tend;
    jg_sim_t *sim = NULL;
    jg_status_t st = jg_sim_create(q, &so, &sim, err);
    if (!st && set_states) st = jg_sim_set_states(sim, jg_lin_states(l), err);
    if (!st) {
        memcpy(jg_eval_inputs(jg_sim_work(sim)), jg_lin_inputs(l),
               sizeof(double) * (size_t)jg_eval_ninput_elems(w));
        st = jg_sim_run(sim, tend, NULL, NULL, err);
    }
    if (!st) {
        memcpy(jg_lin_states(l), jg_sim_states(sim), sizeof(double) * (size_t)jg_program_nstates(q));
        jg_lin_set_time(l, jg_sim_time(sim));
    }
    jg_sim_free(sim);
    return st;
}

static char *dup_error(const jg_error_t *e, jg_status_t st)
{
    const char *m = e->msg[0] ? e->msg : jg_strerror(st);
    size_t n = strlen(m) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, m, n);
    return d;
}

/* Point k on c (a linearizer for its program, or a new clone of the master):
 * the result or the error into s. */
static void run_point(const run_t *R, lin_ctx_t *c, int64_t k, slot_t *s)
{
    const jg_batch_points_t *P = R->P;
    const jg_batch_opts_t *o = R->o;
    jg_error_t err;
    jg_error_clear(&err);
    jg_status_t st = JG_OK;
    int64_t g, i;
    int j;
    jg__batch_coords(P, k, &g, &i, &j);
    int var = R->V->var[g * P->nlist + i];
    s->sys = NULL;
    s->error = NULL;
    if (c->var != var) {
        jg_lin_t *l = NULL;
        st = jg_lin_clone(R->master, R->V->prog[var], &l, &err);
        if (!st) st = ctx_take(c, l, var, &err);
        else jg_lin_free(l);
        if (st) goto done;
        jg__lin_share_names(c->l, R->names);
    }
    jg_lin_t *l = c->l;
    double *x = jg_lin_states(l), *u = jg_lin_inputs(l);
    memcpy(x, c->x0, sizeof(double) * (size_t)c->nx);
    memcpy(u, c->u0, sizeof(double) * (size_t)c->nu);
    double *y = jg__eval_signals_w(jg__lin_work(l));
    for (int64_t q = 0; q < c->ny; q++) y[c->yl[q]] = c->y0[q];
    double t = 0;
    int states_set = 0;
    for (int64_t q = P->set_ptr[i]; q < P->set_ptr[i + 1]; q++) {
        int32_t idx = P->set[q].idx;
        if (idx == 0) t = P->set[q].v;
        else if (idx <= P->nx) x[idx - 1] = P->set[q].v, states_set = 1;
        else if (idx <= P->nx + P->nu) u[idx - 1 - P->nx] = P->set[q].v;
    }
    jg_lin_set_time(l, t);
    if (j >= 0 && (st = snapshot(o, l, states_set, P->at[j], &err))) goto done;
    st = o->strategy && o->method == JG_LIN_GRAPH ? jg_lin_run_strategy(l, o->strategy, &s->sys, NULL, &err)
                                                  : jg_lin_run(l, o->method, o->reduce, &s->sys, NULL, &err);
    if (!st && o->post) st = o->post(o->post_ctx, l, &s->sys, &err);
done:
    if (st) {
        jg_lin_sys_free(s->sys);
        s->sys = NULL;
        s->error = dup_error(&err, st);
    }
    /* the values as linearized */
    double *v = s->vals;
    for (int q = 0; q < P->nvals; q++) v[q] = P->base[q];
    if (c->l && c->var == var) {
        v[0] = jg_lin_time(c->l);
        memcpy(v + 1, jg_lin_states(c->l), sizeof(double) * (size_t)P->nx);
        memcpy(v + 1 + P->nx, jg_lin_inputs(c->l), sizeof(double) * (size_t)P->nu);
    }
    memcpy(v + P->nvals - P->nparams, R->V->pv + (size_t)var * (size_t)P->nparams,
           sizeof(double) * (size_t)P->nparams);
    s->done = st ? -1 : 1;   /* -1 failed (error may be NULL when out of memory) */
}

#define BURST 4

static void *worker(void *arg)
{
    run_t *R = arg;
    lin_ctx_t c = {.var = -1};
    pthread_mutex_lock(&R->mu);
    for (;;) {
        /* the window is full, or every point given is taken and more may come */
        while (!R->stop && ((R->next < R->n && R->next - R->delivered >= R->W) ||
                            (R->next >= R->n && !R->fed_done)))
            pthread_cond_wait(&R->space, &R->mu);
        if (R->stop || R->next >= R->n) break;
        int64_t d = R->next++;
        pthread_mutex_unlock(&R->mu);
        slot_t *s = &R->slot[d % R->W];
        slot_t tmp = {.vals = s->vals};
        run_point(R, &c, R->ks[d], &tmp);
        pthread_mutex_lock(&R->mu);
        s->sys = tmp.sys;
        s->error = tmp.error;
        s->done = tmp.done;
        /* Wake the delivering thread (waiting for slot `delivered`) when it can
         * deliver a few at once, or when this worker is about to wait (the
         * window is full, no point is left to start): one wake-up per BURST
         * points rather than per point, where the delivering thread is fast
         * (an MPI rank's sends) and shares the worker's core.  Signalled
         * unlocked: the woken thread, often run at once on this core, finds
         * the mutex free. */
        if (R->slot[R->delivered % R->W].done &&
            (d - R->delivered + 1 >= BURST || R->next >= R->n || R->next - R->delivered >= R->W)) {
            pthread_mutex_unlock(&R->mu);
            pthread_cond_signal(&R->ready);
            pthread_mutex_lock(&R->mu);
        }
    }
    pthread_mutex_unlock(&R->mu);
    ctx_clear(&c);
    return NULL;
}

static int deliver(const run_t *R, int64_t d, slot_t *s, jg_batch_sink_fn sink, void *ctx,
                   jg_batch_stats_t *st)
{
    const char *e = s->done < 0 ? (s->error ? s->error : "out of memory") : NULL;
    if (e) st->nfailed++;
    int r = sink(ctx, R->ks[d], s->vals, e ? NULL : s->sys, e);
    jg_lin_sys_free(s->sys);
    free(s->error);
    s->sys = NULL;
    s->error = NULL;
    if (R->o->progress) R->o->progress(R->o->progress_ctx, d + 1, R->n);
    return r;
}

/* More points from the feed into R->ks (wait: until some come or none
 * will); the workers woken when they are running (locked).  0, or the feed's
 * failure. */
static jg_status_t feed_more(run_t *R, const jg__batch_feed_t *f, int64_t cap, int wait, int locked,
                             jg_error_t *err)
{
    int64_t got = f->take(f->ctx, (int64_t *)R->ks, R->n, cap - R->n, wait, err);
    if (got == -2) return err && err->status ? err->status : JG_IO;
    if (got > cap - R->n) return jg_error_set(err, JG_IO, "the batch's points: more than there are");
    if (locked) pthread_mutex_lock(&R->mu);
    if (got > 0) R->n += got;
    else if (got < 0) R->fed_done = 1;
    if (locked) {
        if (got) pthread_cond_broadcast(&R->space);
        pthread_mutex_unlock(&R->mu);
    }
    return JG_OK;
}

jg_status_t jg_batch_run(const jg_program_t *p, const jg_batch_points_t *P, const jg_batch_opts_t *o,
                         jg_batch_sink_fn sink, void *ctx, jg_batch_stats_t *stats, jg_error_t *err)
{
    return jg__batch_run_fed(p, P, o, NULL, sink, ctx, stats, err);
}

jg_status_t jg__batch_run_fed(const jg_program_t *p, const jg_batch_points_t *P, const jg_batch_opts_t *o,
                              const jg__batch_feed_t *feed, jg_batch_sink_fn sink, void *ctx,
                              jg_batch_stats_t *stats, jg_error_t *err)
{
    jg_batch_stats_t st0;
    jg_batch_stats_t *st = stats ? stats : &st0;
    memset(st, 0, sizeof *st);
    if (!p || !P || !o || !sink) return jg_error_set(err, JG_ARG, "jg_batch_run: NULL argument");
    if (P->p != p && (P->nx != p->nx || P->nvals - P->nparams != 1 + P->nx + P->nu))
        return jg_error_set(err, JG_ARG, "jg_batch_run: the points were read for another program");
    if (o->nranks > 1 && (o->rank < 0 || o->rank >= o->nranks))
        return jg_error_set(err, JG_ARG, "jg_batch_run: rank %d of %d", o->rank, o->nranks);
    jg_status_t ret = JG_OK;
    jg__batch_vars_t V = {0};
    run_t R = {.P = P, .o = o, .V = &V, .fed_done = !feed};
    lin_ctx_t mc = {.var = -1};
    int64_t *ks = NULL;
    unsigned char *used = NULL;
    pthread_t *th = NULL;
    int nth = 0, sync_ok = 0;
    double *vbuf = NULL;
    jg_lin_sys_t *names = NULL;

    /* the run's points */
    int64_t end = o->end > 0 && o->end < P->n ? o->end : P->n, begin = o->begin > 0 ? o->begin : 0;
    int64_t nr = o->nranks > 1 && !feed ? o->nranks : 1, rk = o->nranks > 1 && !feed ? o->rank : 0;
    int64_t cnt = 0;   /* the points given (with a feed: room for all of them) */
    for (int64_t k = begin; k < end; k++) cnt += k % nr == rk;
    ks = malloc(sizeof(int64_t) * (size_t)(cnt + 1));
    used = calloc((size_t)(P->ncomb * P->nlist) + 1, 1);
    if (!ks || !used) goto nomem;
    int64_t cap = cnt;
    cnt = 0;
    for (int64_t k = begin; k < end; k++)
        if (k % nr == rk) {
            int64_t g, i;
            int j;
            jg__batch_coords(P, k, &g, &i, &j);
            used[g * P->nlist + i] = 1;
            if (!feed) ks[cnt++] = k;
        }
    R.ks = ks;
    R.n = st->npoints = cnt;

    /* the programs of the parameter combinations, checked before any point */
    if ((ret = jg__batch_vars_build(p, P, o, used, &V, err))) goto done;
    st->nprograms = 0;
    for (int v = 0; v < V.nprog; v++) st->nprograms += V.owned[v];
    st->t_compile = V.t_compile;
    if (!cap) goto done;

    int jobs = o->jobs > 0 ? o->jobs : jg_batch_ncores();
    R.W = 4 * (int64_t)jobs < 64 ? 64 : 4 * (int64_t)jobs;
    if (R.W > cap) R.W = cap;
    R.slot = calloc((size_t)R.W, sizeof(slot_t));
    vbuf = malloc(sizeof(double) * (size_t)R.W * (size_t)P->nvals);
    if (!R.slot || !vbuf) goto nomem;
    for (int64_t s = 0; s < R.W; s++) R.slot[s].vals = vbuf + (size_t)s * (size_t)P->nvals;

    /* the symbolic phase: the first points in order on the master until its
     * elimination exists (a point that fails before it is built leaves it to
     * the next), each delivered as it comes */
    double t0 = now();
    int64_t d = 0;
    for (;; d++) {
        if (d == R.n && !R.fed_done && (ret = feed_more(&R, feed, cap, 1, 0, err))) goto done;
        if (d == R.n) break;
        int64_t g, i;
        int j;
        jg__batch_coords(P, ks[d], &g, &i, &j);
        int var = V.var[g * P->nlist + i];
        if (mc.var != var) {
            jg_lin_t *l = NULL;
            if ((ret = jg_lin_create(V.prog[var], &o->lin, &l, err))) goto done;
            if ((ret = ctx_take(&mc, l, var, err))) goto done;   /* l freed */
            /* one set of names for every result, made once (the programs
             * share their structure and the linearizers their I/O points) */
            if (!names && (ret = jg__lin_names(mc.l, &names, err))) goto done;
            R.names = names;
            jg__lin_share_names(mc.l, names);
        }
        R.master = mc.l;
        run_point(&R, &mc, ks[d], &R.slot[0]);
        int stop = deliver(&R, d, &R.slot[0], sink, ctx, st);
        R.slot[0].done = 0;   /* (no worker yet) */
        if (stop) {
            ret = jg_error_set(err, JG_IO, "the batch stopped at point %lld (the result sink)",
                               (long long)ks[d]);
            goto done;
        }
        if (o->method != JG_LIN_GRAPH || jg__lin_eliminated(mc.l, o->reduce, o->strategy)) {
            d++;
            break;
        }
    }
    if (mc.l) jg_lin_freeze(mc.l);
    st->t_symbolic = now() - t0;
    t0 = now();
    if (d == R.n && R.fed_done) goto timed;

    /* the numeric phase on the workers */
    if (R.fed_done && jobs > R.n - d) jobs = (int)(R.n - d);
    st->jobs = jobs;
    R.next = R.delivered = d;
    if (pthread_mutex_init(&R.mu, NULL)) goto nomem;
    if (pthread_cond_init(&R.ready, NULL)) {
        pthread_mutex_destroy(&R.mu);
        goto nomem;
    }
    if (pthread_cond_init(&R.space, NULL)) {
        pthread_cond_destroy(&R.ready);
        pthread_mutex_destroy(&R.mu);
        goto nomem;
    }
    sync_ok = 1;
    th = calloc((size_t)jobs, sizeof *th);
    if (!th) goto nomem;
    for (; nth < jobs; nth++)
        if (pthread_create(&th[nth], NULL, worker, &R)) break;
    if (!nth) {
        ret = jg_error_set(err, JG_NOMEM, "out of memory: cannot start a worker thread");
        goto done;
    }
    st->jobs = nth;
    for (;; d++) {
        /* ask for more while the workers still have some to do */
        if (!R.fed_done && R.n - d < feed->ahead && (ret = feed_more(&R, feed, cap, d == R.n, 1, err)))
            break;
        if (d == R.n) break;   /* (the feed is done) */
        slot_t *s = &R.slot[d % R.W];
        pthread_mutex_lock(&R.mu);
        while (!s->done) pthread_cond_wait(&R.ready, &R.mu);
        pthread_mutex_unlock(&R.mu);
        int stop = deliver(&R, d, s, sink, ctx, st);
        pthread_mutex_lock(&R.mu);
        s->done = 0;   /* (locked: a worker reads the done of slot `delivered`) */
        R.delivered = d + 1;
        if (stop) R.stop = 1;
        pthread_cond_broadcast(&R.space);
        pthread_mutex_unlock(&R.mu);
        if (stop) {
            ret = jg_error_set(err, JG_IO, "the batch stopped at point %lld (the result sink)",
                               (long long)ks[d]);
            break;
        }
    }
timed:
    st->npoints = R.n;
    st->t_run = now() - t0;
    goto done;
nomem:
    ret = jg_error_set(err, JG_NOMEM, "out of memory");
done:
    if (nth) {
        pthread_mutex_lock(&R.mu);
        R.stop = 1;
        pthread_cond_broadcast(&R.space);
        pthread_mutex_unlock(&R.mu);
        for (int t = 0; t < nth; t++) pthread_join(th[t], NULL);
    }
    if (sync_ok) {
        pthread_cond_destroy(&R.space);
        pthread_cond_destroy(&R.ready);
        pthread_mutex_destroy(&R.mu);
    }
    for (int64_t s = 0; R.slot && s < R.W; s++) {   /* computed, never delivered */
        jg_lin_sys_free(R.slot[s].sys);
        free(R.slot[s].error);
    }
    free(th);
    free(R.slot);
    free(vbuf);
    ctx_clear(&mc);
    jg_lin_sys_free(names);   /* after every result that shared them */
    jg__batch_vars_free(&V);
    free(ks);
    free(used);
    return ret;
}
