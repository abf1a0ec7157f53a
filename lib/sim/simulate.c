/* The simulation loop for continuous-time models: outputs in sorted order,
 * derivatives, a solver step; logging at output points from dense output. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/simulate.h"
#include "../eval/eval_impl.h"

struct jg_sim {
    const jg_program_t *p;
    jg_work_t *w;
    jg_solver_t *solver;
    jg_sim_opts_t o;
    double t;
    double *x, *xq, *sig;
    int64_t nlog;
    int64_t *log_src;          /* per logged element: signal index, -1 reads 0 */
    char **log_name;
    int64_t nout_points;       /* output points logged so far */
    int started;
    jg_error_t *err;           /* the caller's, during jg_sim_run */
};

/* x' = f(t, x): the model's derivatives with its outputs evaluated first. */
static int rhs(double t, const double *x, double *dx, void *user)
{
    jg_sim_t *s = user;
    memcpy(jg_work_states(s->w), x, sizeof(double) * (size_t)s->p->nx);
    if (jg_work_outputs(s->w, t, s->err)) return -1;
    return jg_work_derivatives(s->w, dx, s->err) ? -1 : 0;
}

static char *dupstr(const char *v)
{
    size_t n = strlen(v) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, v, n);
    return d;
}

/* Logged elements: root Outports, then Scope and ToWorkspace inputs. */
static jg_status_t setup_logging(jg_sim_t *s, jg_error_t *err)
{
    const jg_program_t *p = s->p;
    int64_t n = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int k = 0; k < p->nout_root; k++) {
            const jg_block_t *B = &p->blocks[p->out_root[k]];
            for (int64_t e = 0; e < B->in_w[0]; e++, n++) {
                if (!pass) continue;
                s->log_src[n] = p->u_src[p->u_off[jg__inport(p, B->id, 0)] + e];
                char buf[1024];
                if (B->in_w[0] == 1) snprintf(buf, sizeof buf, "%s", B->path);
                else snprintf(buf, sizeof buf, "%s(%lld)", B->path, (long long)e + 1);
                if (!(s->log_name[n] = dupstr(buf))) return jg_error_set(err, JG_NOMEM, "out of memory");
            }
        }
        for (int32_t b = 0; b < p->nblocks; b++) {
            const jg_block_t *B = &p->blocks[b];
            if (B->virt || B->is_root_port || !(B->type->flags & JG_BT_SINK)) continue;
            if (strcmp(B->type->name, "Scope") && strcmp(B->type->name, "ToWorkspace")) continue;
            for (int q = 0; q < B->nin; q++)
                for (int64_t e = 0; e < B->in_w[q]; e++, n++) {
                    if (!pass) continue;
                    s->log_src[n] = p->u_src[p->u_off[jg__inport(p, b, q)] + e];
                    char buf[1024];
                    if (B->in_w[q] == 1) snprintf(buf, sizeof buf, "%s:%d", B->path, q + 1);
                    else snprintf(buf, sizeof buf, "%s:%d(%lld)", B->path, q + 1, (long long)e + 1);
                    if (!(s->log_name[n] = dupstr(buf)))
                        return jg_error_set(err, JG_NOMEM, "out of memory");
                }
        }
        if (!pass) {
            s->nlog = n;
            s->log_src = malloc(sizeof(int64_t) * (size_t)(n + 1));
            s->log_name = calloc((size_t)n + 1, sizeof(char *));
            s->sig = malloc(sizeof(double) * (size_t)(n + 1));
            if (!s->log_src || !s->log_name || !s->sig) return jg_error_set(err, JG_NOMEM, "out of memory");
            n = 0;
        }
    }
    return JG_OK;
}

jg_status_t jg_sim_create(const jg_program_t *p, const jg_sim_opts_t *o, jg_sim_t **out,
                          jg_error_t *err)
{
    *out = NULL;
    if (!(o->tstop >= o->t0))
        return jg_error_set(err, JG_ARG, "stop time %g before start time %g", o->tstop, o->t0);
    if (o->out_step < 0) return jg_error_set(err, JG_ARG, "non-positive output step %g", o->out_step);
    jg_sim_t *s = calloc(1, sizeof *s);
    if (!s) return jg_error_set(err, JG_NOMEM, "out of memory");
    s->p = p;
    s->o = *o;
    if (!s->o.solver) s->o.solver = "ode45";
    jg_status_t st = jg_work_create(p, &s->w, err);
    if (st) goto fail;
    s->x = malloc(sizeof(double) * (size_t)(p->nx + 1));
    s->xq = malloc(sizeof(double) * (size_t)(p->nx + 1));
    if (!s->x || !s->xq) {
        st = jg_error_set(err, JG_NOMEM, "out of memory");
        goto fail;
    }
    memcpy(s->x, jg_work_states(s->w), sizeof(double) * (size_t)p->nx);
    if ((st = setup_logging(s, err))) goto fail;
    /* a model without continuous states only advances time */
    jg_solver_opts_t so = s->o.so;
    const char *name = s->o.solver;
    if (p->nx == 0) {
        name = "discrete";
        if (!(so.fixed_step > 0))
            so.fixed_step = s->o.out_step > 0 ? s->o.out_step : (o->tstop - o->t0) / 50;
        if (!(so.fixed_step > 0)) so.fixed_step = 1;
    }
    if ((st = jg_solver_create(name, p->nx, rhs, s, &so, &s->solver, err))) goto fail;
    s->err = err;
    if ((st = jg_solver_init(s->solver, o->t0, s->x, o->tstop, err))) goto fail;
    s->t = o->t0;
    *out = s;
    return JG_OK;
fail:
    jg_sim_free(s);
    return st;
}

void jg_sim_free(jg_sim_t *s)
{
    if (!s) return;
    for (int64_t k = 0; s->log_name && k < s->nlog; k++) free(s->log_name[k]);
    free(s->log_name);
    free(s->log_src);
    free(s->sig);
    free(s->x);
    free(s->xq);
    jg_solver_free(s->solver);
    jg_work_free(s->w);
    free(s);
}

int64_t jg_sim_nlogged(const jg_sim_t *s) { return s->nlog; }
const char *jg_sim_logged_name(const jg_sim_t *s, int64_t k) { return s->log_name[k]; }
double jg_sim_time(const jg_sim_t *s) { return s->t; }
const double *jg_sim_states(const jg_sim_t *s) { return s->x; }
void jg_sim_stats(const jg_sim_t *s, jg_solver_stats_t *st) { jg_solver_get_stats(s->solver, st); }

/* Evaluate the outputs at (t, x) and hand the point to the logger. */
static jg_status_t emit(jg_sim_t *s, double t, const double *x, jg_sim_log_fn log, void *user,
                        int *stop, jg_error_t *err)
{
    int dec = s->o.decimation > 1 ? s->o.decimation : 1;
    if (s->nout_points++ % dec) return JG_OK;
    if (!log) return JG_OK;
    memcpy(jg_work_states(s->w), x, sizeof(double) * (size_t)s->p->nx);
    jg_status_t st = jg_work_outputs(s->w, t, err);
    if (st) return st;
    const double *y = jg_work_signals(s->w);
    for (int64_t k = 0; k < s->nlog; k++) s->sig[k] = s->log_src[k] >= 0 ? y[s->log_src[k]] : 0.0;
    if (log(t, x, s->sig, user)) *stop = 1;
    return JG_OK;
}

jg_status_t jg_sim_run(jg_sim_t *s, double t_until, jg_sim_log_fn log, void *user, jg_error_t *err)
{
    jg_status_t st;
    int stop = 0;
    s->err = err;
    if (t_until > s->o.tstop) t_until = s->o.tstop;
    if (!s->started) {
        s->started = 1;
        if ((st = emit(s, s->t, s->x, log, user, &stop, err))) return st;
    }
    double h = s->o.out_step;
    while (!stop && s->t < t_until) {
        double tprev = s->t;
        if ((st = jg_solver_step(s->solver, t_until, &s->t, s->x, err))) return st;
        if (h > 0) {
            /* output points t0 + k h inside (tprev, t] from the dense output */
            double k0 = floor((tprev - s->o.t0) / h + 1e-9) + 1;
            for (double k = k0;; k++) {
                double tq = s->o.t0 + k * h;
                if (tq > s->t * (1 + 1e-12) + 1e-300 || stop) break;
                if (tq >= s->t) tq = s->t;
                if (tq == s->t) {
                    memcpy(s->xq, s->x, sizeof(double) * (size_t)s->p->nx);
                } else if ((st = jg_solver_interpolate(s->solver, tq, s->xq))) {
                    return jg_error_set(err, st, "dense output failed at t = %g", tq);
                }
                if ((st = emit(s, tq, s->xq, log, user, &stop, err))) return st;
            }
        } else if ((st = emit(s, s->t, s->x, log, user, &stop, err))) {
            return st;
        }
    }
    /* leave the work at the current point for callers that read signals */
    memcpy(jg_work_states(s->w), s->x, sizeof(double) * (size_t)s->p->nx);
    return jg_work_outputs(s->w, s->t, err);
}
