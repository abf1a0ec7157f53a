/* The simulation loop (Simulink, "How Simulink Works"): at each major time step
 * the outputs in sorted order (discrete blocks at their sample hits), logging,
 * the blocks' updates (discrete states, modes, state resets), then a solver
 * step that ends at the next sample hit at the latest; zero crossings are
 * located on the step's dense output and the step is cut there, so that the
 * next major step sits just past the event. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/simulate.h"
#include "jacgraph/solverjac.h"
#include "../compile/program_impl.h"
#include "../eval/eval_internal.h"
#include "project.h"
#include "../core/str.h"

struct jg_sim {
    const jg_program_t *p;
    jg_eval_work_t *w;
    jg_solver_t *solver;
    jg_sim_opts_t o;
    double t;
    double *x, *xq, *sig;
    int64_t nlog;
    int64_t *log_src;          /* per logged element: signal index, -1 reads 0 */
    char **log_name;
    int64_t nout_points;       /* output points logged so far */
    long long kout;            /* index of the next output point t0 + k out_step */
    int started;
    jg_error_t *err;           /* the caller's, during jg_sim_run */
    /* hybrid */
    int fixed;                 /* fixed-step solver: crossings at step ends */
    double *khit;              /* per rate: index of its next sample hit */
    double *zl, *zr, *za, *zb, *zm;   /* zero-crossing values */
    signed char *fired;        /* per zc signal at this major step */
    signed char *zdir;         /* per zc signal: JG_ZC_* */
    double *zside;             /* per zc signal: side (+-1) it went to at its last event, 0 */
    int *loc_off;              /* adaptive: major steps left with location off */
    double t_last_event;
    int consecutive;
    double *xsave;
    double *xdsave;            /* discrete states before the major step's update */
    double zr_t;               /* the time zr holds the signals of (NAN: none) */
    jg_sim_stats_t st;
    jg__proj_t *proj;          /* invariant projection (mdlProjection), NULL: none */
    int projected;             /* the last step's state was projected: restart the solver */
    int proj_internal;         /* the solver projects inside its steps (ode15s) */
    double proj_rtol, proj_atol;
    jg_solverjac_t *jac;            /* solver Jacobian of an implicit solver, else NULL */
    jg_solverjac_stats_t jac_setup; /* its counters spent before the run (the sparsing's choice) */
    int32_t *stop_blk, nstop;  /* Stop blocks (lib/blocks/stop.c) */
    long small_steps;          /* solver steps in a row below 1e-6 of the span */
    int collapse_told;         /* o.warn has been called about them */
    double *breaks;            /* o.input_breaks (a copy) */
    int64_t kbreak;            /* the first break not yet reached */
    int stalls;                /* loop iterations in a row that left t where it was */
};

/* Root Inport values at t from the caller's input function.  s->t is the
 * start of the step under way (it moves only after the step), so a later t
 * is inside the step and takes the limit from the left: a step that ends on
 * a jump of a piecewise-constant input integrates the value before it. */
static jg_status_t set_inputs(jg_sim_t *s, double t, jg_error_t *err)
{
    if (!s->o.input || !s->o.input(t, t > s->t, jg_eval_inputs(s->w), s->o.input_ctx)) return JG_OK;
    return jg_error_set(err, JG_NUMERIC, "input function failed at t = %.17g", t);
}

/* Passes the input's breaks reached at s->t (within tol); 1 when there was one. */
static int pass_breaks(jg_sim_t *s, double tol)
{
    int any = 0;
    for (; s->kbreak < s->o.input_nbreaks && s->breaks[s->kbreak] <= s->t + tol; s->kbreak++) any = 1;
    return any;
}

/* x' = f(t, x): the model's derivatives with its outputs evaluated first. */
static int rhs(double t, const double *x, double *dx, void *user)
{
    jg_sim_t *s = user;
    if (set_inputs(s, t, s->err)) return -1;
    memcpy(jg_eval_states(s->w), x, sizeof(double) * (size_t)s->p->nx);
    if (jg_eval_outputs(s->w, t, s->err)) return -1;
    return jg_eval_derivatives(s->w, dx, s->err) ? -1 : 0;
}

/* J_x for an implicit solver: evaluated on the simulation's work, so with its
 * held discrete outputs and modes; errors go where rhs()'s go. */
static int jac(double t, const double *x, const double *fx, cs_dl *J, void *user)
{
    jg_sim_t *s = user;
    if (set_inputs(s, t, s->err)) return -1;
    return jg_solverjac_eval(s->jac, t, x, fx, J, s->err) ? -1 : 0;
}

static int implicit_solver(const char *name)
{
    return !strcmp(name, "ode23s") || !strcmp(name, "lie") || !strcmp(name, "ode15s");
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
                if (!(s->log_name[n] = jg__strdup(buf))) return jg_error_set(err, JG_NOMEM, "out of memory");
            }
        }
        for (int32_t b = 0; b < p->nblocks; b++) {
            const jg_block_t *B = &p->blocks[b];
            if (B->virt || B->is_root_port || !(B->type->flags & JG_BT_SINK)) continue;
            if (!(B->type->flags & JG_BT_LOG)) continue;
            for (int q = 0; q < B->nin; q++)
                for (int64_t e = 0; e < B->in_w[q]; e++, n++) {
                    if (!pass) continue;
                    s->log_src[n] = p->u_src[p->u_off[jg__inport(p, b, q)] + e];
                    char buf[1024];
                    if (B->in_w[q] == 1) snprintf(buf, sizeof buf, "%s:%d", B->path, q + 1);
                    else snprintf(buf, sizeof buf, "%s:%d(%lld)", B->path, q + 1, (long long)e + 1);
                    if (!(s->log_name[n] = jg__strdup(buf)))
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

/* The projection a solver calls inside its step (jg_solver_set_projection).
 * A correction beyond the error tolerances is left undone by jg__proj_apply;
 * here it means the step was less accurate than estimated, so the step fails
 * recoverably (> 0) and the solver retries it smaller, as ode45 does. */
static int project_in_solver(double t, double *x, void *user)
{
    jg_sim_t *s = user;
    int changed;
    jg__proj_stats_t before, after;
    jg__proj_get_stats(s->proj, &before);
    if (jg__proj_apply(s->proj, t, x, jg__eval_dstates(s->w), s->proj_rtol, s->proj_atol, &changed,
                       s->err))
        return -1;
    jg__proj_get_stats(s->proj, &after);
    return after.rejected > before.rejected ? 1 : 0;
}

/* keep (per entry of the structural pattern S) from the list of entries to
 * drop.  An entry outside S is an error (jg_solverjac_keep_from_drop). */
static jg_status_t keep_from_list(jg_sim_t *s, const cs_dl *S, unsigned char *keep, jg_error_t *err)
{
    const jg_sim_opts_t *o = &s->o;
    const int64_t n = S->n;
    int64_t k = jg_solverjac_keep_from_drop(S, o->sparsing_drop, o->sparsing_ndrop, keep);
    if (k < 0) return JG_OK;
    int64_t i = o->sparsing_drop[2 * k], j = o->sparsing_drop[2 * k + 1];
    if (i < 0 || i >= n || j < 0 || j >= n)
        return jg_error_set(err, JG_ARG,
                            "sparsing: entry %lld to drop, (%lld, %lld), is outside 0..%lld "
                            "(0-based, %lld states)",
                            (long long)k + 1, (long long)i, (long long)j, (long long)n - 1, (long long)n);
    return jg_error_set(err, JG_ARG,
                        "sparsing: entry %lld to drop, (%lld, %lld) (%s <- %s), is not in the "
                        "structural pattern of J_x",
                        (long long)k + 1, (long long)i, (long long)j, jg_program_state_name(s->p, i),
                        jg_program_state_name(s->p, j));
}

/* Sparsing ("Sparsing of Jacobians") for the linearly implicit Euler method:
 * J at (t0, x0) in the structural pattern S; the mask from the given list or
 * from jg_sparsing_auto (the paper's checks d1 < C1, d2 < C2); the solver
 * Jacobian then computes only the kept entries (jg_solverjac_set_keep) and
 * the solver leaves the dropped ones out of I - hJ (the mask in the solver's
 * pattern: S, or dense n x n for the full methods). */
static jg_status_t choose_sparsing(jg_sim_t *s, double h, jg_error_t *err)
{
    const jg_sim_opts_t *o = &s->o;
    jg_sim_sparsing_t *sp = &s->st.sparsing;
    if (o->sparsing_drop && o->sparsing_auto)
        return jg_error_set(err, JG_ARG, "sparsing: either a list of entries to drop or automatic, not both");
    if (o->sparsing_ndrop < 0 || (!o->sparsing_drop && o->sparsing_ndrop))
        return jg_error_set(err, JG_ARG, "sparsing: %lld entries to drop without a list",
                            (long long)o->sparsing_ndrop);
    if (o->sparsing_auto & ~(JG_SPARSING_ENTRIES | JG_SPARSING_MIXED))
        return jg_error_set(err, JG_ARG, "sparsing: unknown automatic choice flags %d", o->sparsing_auto);
    if (!(o->sparsing_slow <= 0 || isfinite(o->sparsing_slow)))
        return jg_error_set(err, JG_ARG, "sparsing: slow-mode threshold %g is not finite", o->sparsing_slow);
    if (s->o.solver != JG_SOLVER_LIE)
        return jg_error_set(err, JG_ARG,
                            "sparsing applies to the linearly implicit Euler solver 'lie', not '%s'",
                            jg_solver_method_name(s->o.solver));
    const int64_t n = s->p->nx;
    if (!s->jac) {   /* no states: nothing to drop, nor any index to accept */
        cs_dl empty = {.nzmax = 0, .m = 0, .n = 0, .p = (int64_t[1]){0}, .i = NULL, .x = NULL, .nz = -1};
        unsigned char none;
        return o->sparsing_drop ? keep_from_list(s, &empty, &none, err) : JG_OK;
    }
    const cs_dl *S = jg_solverjac_structure(s->jac), *P = jg_solverjac_pattern(s->jac);
    const int64_t nz = S->p[n];
    const int dense = jg_solverjac_solver_pattern(s->jac) == NULL;
    jg_status_t st = JG_OK;
    cs_dl *J = jg_solverjac_alloc(s->jac);
    cs_dl *Js = cs_dl_spalloc(n, n, nz ? nz : 1, 1, 0);
    unsigned char *keep = malloc((size_t)nz + 1), *mask = NULL, *expl = NULL;
    if (!J || !Js || !keep) {
        st = jg_error_set(err, JG_NOMEM, "out of memory");
        goto done;
    }
    if ((st = jg_solverjac_eval(s->jac, o->t0, s->x, NULL, J, err))) goto done;
    /* J in S (the full methods fill all n^2 entries, S's among them) */
    memcpy(Js->p, S->p, sizeof(int64_t) * (size_t)(n + 1));
    memcpy(Js->i, S->i, sizeof(int64_t) * (size_t)nz);
    for (int64_t j = 0; j < n; j++)
        for (int64_t q = S->p[j]; q < S->p[j + 1]; q++)
            Js->x[q] = P == S ? J->x[q] : J->x[j * n + S->i[q]];
    if (o->sparsing_drop) {
        if ((st = keep_from_list(s, S, keep, err))) goto done;
    } else {
        double slow = o->sparsing_slow == 0 ? JG_SPARSING_SLOW_THRESHOLD : fmax(o->sparsing_slow, 0);
        if (!(expl = malloc((size_t)n + 1))) {
            st = jg_error_set(err, JG_NOMEM, "out of memory");
            goto done;
        }
        if ((st = jg_sparsing_auto(Js, h, slow, o->sparsing_auto, keep, expl, &sp->measure, err)))
            goto done;
        sp->measured = 1;
        for (int64_t k = 0; k < n; k++) sp->nexplicit += expl[k] != 0;
    }
    sp->nnz = nz;
    for (int64_t q = 0; q < nz; q++) {
        sp->nkept += keep[q] != 0;
        sp->ndropped_nonzero += !keep[q] && Js->x[q] != 0;
    }
    /* the predicted LU fill; a singular I - hJ is the run's problem, not this one's */
    jg_sparsing_saving_t sv;
    jg_error_t local;
    jg_error_clear(&local);
    jg_status_t sst = jg_sparsing_saving(Js, keep, h, &sv, &local);
    if (sst == JG_NOMEM) {
        st = jg_error_set(err, JG_NOMEM, "out of memory");
        goto done;
    }
    sp->lu_full = sst ? -1 : sv.lu_full;
    sp->lu = sst ? -1 : sv.lu_sparse;
    sp->colors_full = jg_solverjac_ncolors(s->jac);
    sp->fevals_full = jg_solverjac_fevals_per_jacobian(s->jac);
    if ((st = jg_solverjac_set_keep(s->jac, keep, err))) goto done;
    sp->colors = jg_solverjac_ncolors(s->jac);
    sp->fevals = jg_solverjac_fevals_per_jacobian(s->jac);
    if (dense) {   /* the solver's dense column-major layout */
        if (!(mask = malloc((size_t)(n * n) + 1))) {
            st = jg_error_set(err, JG_NOMEM, "out of memory");
            goto done;
        }
        memset(mask, 1, (size_t)(n * n));
        for (int64_t j = 0; j < n; j++)
            for (int64_t q = S->p[j]; q < S->p[j + 1]; q++)
                if (!keep[q]) mask[j * n + S->i[q]] = 0;
    }
    if ((st = jg_solver_set_sparsing(s->solver, dense ? mask : keep, err))) goto done;
    sp->active = 1;
    /* the choice's evaluations of f are setup, not the run's */
    jg_solverjac_get_stats(s->jac, &s->jac_setup);
done:
    free(keep);
    free(mask);
    free(expl);
    cs_dl_spfree(J);
    cs_dl_spfree(Js);
    return st;
}

/* A step h > 0 that the time scale of the run cannot resolve: at the largest
 * |t| of [t0, tstop], t + h == t, so a loop stepping by h would never end.
 * `what` names the option or block for the message. */
static jg_status_t check_resolvable(const jg_sim_opts_t *o, double h, const char *what,
                                    jg_error_t *err)
{
    double scale = fmax(fabs(o->t0), fabs(o->tstop));
    if (!(h > 0) || scale + h > scale) return JG_OK;
    return jg_error_set(err, JG_ARG,
                        "%s %g is below the time resolution of the run: at t = %g, t + %g == t "
                        "(the smallest step there is %g)",
                        what, h, scale, h, nextafter(scale, INFINITY) - scale);
}

/* Every step-like option and every sample time against the time scale,
 * before anything runs (a 1e-300 step at t = 1e6 would loop forever). */
static jg_status_t check_time_steps(const jg_program_t *p, const jg_sim_opts_t *o, jg_error_t *err)
{
    jg_status_t st;
    if (!isfinite(o->t0) || !isfinite(o->tstop))
        return jg_error_set(err, JG_ARG, "start and stop times must be finite numbers (got %g, %g)",
                            o->t0, o->tstop);
    if ((st = check_resolvable(o, o->so.fixed_step, "the fixed step (--step)", err)) ||
        (st = check_resolvable(o, o->out_step, "the output step (--out-step)", err)) ||
        (st = check_resolvable(o, o->so.max_step, "the largest step (--max-step)", err)) ||
        (st = check_resolvable(o, o->so.initial_step, "the initial step (--initial-step)", err)))
        return st;
    for (int32_t r = 0; r < p->nrates; r++) {
        char what[512];
        snprintf(what, sizeof what, "the sample time of block '%s' (SampleTime)",
                 p->blocks[p->rate_blk[r]].path);
        if ((st = check_resolvable(o, p->rates[r].period, what, err))) return st;
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
    jg_status_t cst = check_time_steps(p, o, err);
    if (cst) return cst;
    if (o->refine < 0) return jg_error_set(err, JG_ARG, "negative refine factor %d", o->refine);
    if (!jg_solver_method_name(o->solver))
        return jg_error_set(err, JG_ARG, "unknown solver method %d (valid: auto %s)", (int)o->solver,
                            jg_solver_names());
    if (!strcmp(jg_solverjac_method_name(o->jacobian), "?"))
        return jg_error_set(err, JG_ARG, "unknown solver Jacobian method %d (valid: %s)", (int)o->jacobian,
                            jg_solverjac_method_names());
    jg_sim_t *s = calloc(1, sizeof *s);
    if (!s) return jg_error_set(err, JG_NOMEM, "out of memory");
    s->p = p;
    s->o = *o;
    if (s->o.solver == JG_SOLVER_AUTO) s->o.solver = JG_SOLVER_ODE45;
    jg_status_t st = jg_eval_create(p, &s->w, err);
    if (!st) st = jg__eval_prepare(s->w, err);   /* the evaluation plan, compiled here */
    if (st) goto fail;
    s->x = malloc(sizeof(double) * (size_t)(p->nx + 1));
    s->xq = malloc(sizeof(double) * (size_t)(p->nx + 1));
    if (!s->x || !s->xq) {
        st = jg_error_set(err, JG_NOMEM, "out of memory");
        goto fail;
    }
    memcpy(s->x, jg_eval_states(s->w), sizeof(double) * (size_t)p->nx);
    if ((st = setup_logging(s, err))) goto fail;
    /* Stop blocks: each sets its one discrete state when its input is nonzero */
    s->stop_blk = malloc(sizeof(int32_t) * (size_t)(p->nblocks + 1));
    if (!s->stop_blk) {
        st = jg_error_set(err, JG_NOMEM, "out of memory");
        goto fail;
    }
    for (int32_t b = 0; b < p->nblocks; b++)
        if (!p->blocks[b].virt && (p->blocks[b].type->flags & JG_BT_STOP) && jg_block_nd(&p->blocks[b]) == 1)
            s->stop_blk[s->nstop++] = b;
    s->khit = calloc((size_t)p->nrates + 1, sizeof(double));
    s->zl = calloc((size_t)p->nzc + 1, sizeof(double));
    s->zr = calloc((size_t)p->nzc + 1, sizeof(double));
    s->za = calloc((size_t)p->nzc + 1, sizeof(double));
    s->zb = calloc((size_t)p->nzc + 1, sizeof(double));
    s->zm = calloc((size_t)p->nzc + 1, sizeof(double));
    s->fired = calloc((size_t)p->nzc + 1, 1);
    s->loc_off = calloc((size_t)p->nzc + 1, sizeof(int));
    s->xsave = malloc(sizeof(double) * (size_t)(p->nx + 1));
    s->xdsave = malloc(sizeof(double) * (size_t)(p->nd + 1));
    s->zr_t = NAN;
    s->zdir = malloc((size_t)p->nzc + 1);
    s->zside = calloc((size_t)p->nzc + 1, sizeof(double));
    if (s->zdir)
        for (int32_t b = 0; b < p->nblocks; b++)
            for (int64_t i = 0; i < jg_block_nzc(&p->blocks[b]); i++)
                s->zdir[jg_block_zc_off(&p->blocks[b]) + i] = jg_block_zc_dir(&p->blocks[b])[i];
    if (!s->khit || !s->zl || !s->zr || !s->za || !s->zb || !s->zm || !s->fired ||
        !s->loc_off || !s->xsave || !s->xdsave || !s->zdir || !s->zside) {
        st = jg_error_set(err, JG_NOMEM, "out of memory");
        goto fail;
    }
    if (o->zc_tol < 0 || isnan(o->zc_tol)) {
        st = jg_error_set(err, JG_ARG, "negative zero-crossing threshold %g", o->zc_tol);
        goto fail;
    }
    if (o->max_zc < 0) {
        st = jg_error_set(err, JG_ARG, "negative number of consecutive zero crossings %d", o->max_zc);
        goto fail;
    }
    if (!s->o.max_zc) s->o.max_zc = 1000;
    /* a model without continuous states only advances time: from sample hit
     * to sample hit (and output point) unless a step is given */
    jg_solver_opts_t so = s->o.so;
    jg_solver_method_t method = s->o.solver;
    const char *name = jg_solver_method_name(method);
    int auto_step = 0;
    if (p->nx == 0) {
        method = JG_SOLVER_DISCRETE;
        name = jg_solver_method_name(method);
        if (!(so.fixed_step > 0)) {
            auto_step = 1;
            so.fixed_step = p->nrates ? o->tstop - o->t0
                            : s->o.out_step > 0 ? s->o.out_step : (o->tstop - o->t0) / 50;
            /* --max-step bounds these steps too (a Transport Delay's history) */
            if (so.max_step > 0 && so.max_step < so.fixed_step) so.fixed_step = so.max_step;
        }
        if (!(so.fixed_step > 0)) so.fixed_step = 1;
    }
    if ((st = jg_solver_create(method, p->nx, rhs, s, &so, &s->solver, err))) goto fail;
    if (p->nx > 0 && implicit_solver(name)) {
        if ((st = jg_solverjac_create(p, o->jacobian, s->w, &s->jac, err)) ||
            (st = jg_solver_set_jacobian(s->solver, jac, jg_solverjac_solver_pattern(s->jac), s, err)))
            goto fail;
        /* perturbation steps at the scale the tolerances care about */
        double rtol = so.rtol > 0 ? fmax(so.rtol, 100 * DBL_EPSILON) : 1e-3, atol = so.atol > 0 ? so.atol : 1e-6;
        jg_solverjac_set_typical(s->jac, fmin(1.0, atol / rtol));
    }
    s->fixed = jg_solver_is_fixed(s->solver) && strcmp(name, "discrete");
    /* a fixed step must land on every sample hit */
    if (jg_solver_is_fixed(s->solver) && !auto_step)
        for (int32_t r = 0; r < p->nrates; r++) {
            double T = p->rates[r].period, off = p->rates[r].offset, h = so.fixed_step;
            double k1 = T / h, k2 = off / h;
            if (fabs(k1 - nearbyint(k1)) > 1e-9 * fmax(1, k1) ||
                fabs(k2 - nearbyint(k2)) > 1e-9 * fmax(1, k2)) {
                st = jg_error_set(err, JG_ARG,
                                  "sample time [%g, %g] of block '%s' is not a multiple of the "
                                  "fixed step %g",
                                  T, off, p->blocks[p->rate_blk[r]].path, h);
                goto fail;
            }
        }
    for (int32_t r = 0; r < p->nrates; r++) {
        double k = ceil((o->t0 - p->rates[r].offset) / p->rates[r].period - 1e-9);
        s->khit[r] = k < 0 ? 0 : k;
    }
    if ((st = jg__proj_create(p, &s->proj, err))) goto fail;
    if (s->proj) {   /* a solver that projects inside its steps keeps its history (CVODE) */
        jg_error_t local;
        jg_error_clear(&local);
        s->proj_rtol = so.rtol > 0 ? fmax(so.rtol, 100 * DBL_EPSILON) : 1e-3;
        s->proj_atol = so.atol > 0 ? so.atol : 1e-6;
        s->proj_internal = jg_solver_set_projection(s->solver, project_in_solver, s, &local) == JG_OK;
    }
    /* the input's breaks, from the first one after t0 (t0 itself starts a step anyway) */
    if (o->input_nbreaks < 0 || (o->input_nbreaks && !o->input_breaks)) {
        st = jg_error_set(err, JG_ARG, "input breaks: %lld times but no list", (long long)o->input_nbreaks);
        goto fail;
    }
    if (o->input_nbreaks) {
        if (!(s->breaks = malloc(sizeof(double) * (size_t)o->input_nbreaks))) {
            st = jg_error_set(err, JG_NOMEM, "out of memory");
            goto fail;
        }
        memcpy(s->breaks, o->input_breaks, sizeof(double) * (size_t)o->input_nbreaks);
        for (int64_t k = 1; k < o->input_nbreaks; k++)
            if (!(s->breaks[k] >= s->breaks[k - 1])) {
                st = jg_error_set(err, JG_ARG, "input breaks: time %lld (%g) is before the one before it",
                                  (long long)k + 1, s->breaks[k]);
                goto fail;
            }
    }
    s->t = o->t0;
    pass_breaks(s, 1e-12 * fmax(1.0, fabs(s->t)));
    s->err = err;
    if ((st = set_inputs(s, o->t0, err))) goto fail;
    if ((st = jg_solver_init(s->solver, o->t0, s->x, o->tstop, err))) goto fail;
    if ((o->sparsing_drop || o->sparsing_auto || o->sparsing_ndrop) &&
        (st = choose_sparsing(s, so.fixed_step, err)))
        goto fail;
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
    free(s->khit);
    free(s->zl);
    free(s->zr);
    free(s->za);
    free(s->zb);
    free(s->zm);
    free(s->fired);
    free(s->zdir);
    free(s->zside);
    free(s->loc_off);
    free(s->xsave);
    free(s->xdsave);
    free(s->stop_blk);
    free(s->breaks);
    jg_solver_free(s->solver);
    jg__proj_free(s->proj);
    jg_solverjac_free(s->jac);
    jg_eval_free(s->w);
    free(s);
}

int64_t jg_sim_nlogged(const jg_sim_t *s) { return s->nlog; }
const char *jg_sim_logged_name(const jg_sim_t *s, int64_t k) { return s->log_name[k]; }
double jg_sim_time(const jg_sim_t *s) { return s->t; }
const double *jg_sim_states(const jg_sim_t *s) { return s->x; }

jg_status_t jg_sim_set_states(jg_sim_t *s, const double *x, jg_error_t *err)
{
    if (!s || !x) return jg_error_set(err, JG_ARG, "jg_sim_set_states: NULL argument");
    if (s->started) return jg_error_set(err, JG_ARG, "jg_sim_set_states: the simulation has already run");
    memcpy(s->x, x, sizeof(double) * (size_t)s->p->nx);
    memcpy(jg_eval_states(s->w), x, sizeof(double) * (size_t)s->p->nx);
    /* the solver starts again from the new point: no history of the old one */
    return jg_solver_reset(s->solver, s->o.t0, s->x, err);
}
/* The evaluations of f that the Jacobian callback made (the solver cannot
 * see them) are the solver's fevals_jac. */
static void jac_fevals(const jg_sim_t *s, jg_solver_stats_t *st)
{
    jg_solverjac_stats_t js;
    if (!s->jac) return;
    jg_solverjac_get_stats(s->jac, &js);
    /* the solver's convention: fevals counts every evaluation of f, those
     * spent on Jacobians (fevals_jac) included */
    long setup = s->jac_setup.fevals + s->jac_setup.fevals_base;
    st->fevals_jac += js.fevals + js.fevals_base - setup;
    st->fevals += js.fevals + js.fevals_base - setup;
}
void jg_sim_stats(const jg_sim_t *s, jg_sim_stats_t *st)
{
    *st = s->st;
    jg_solver_get_stats(s->solver, &st->solver);
    jac_fevals(s, &st->solver);
}
const char *jg_sim_jacobian(const jg_sim_t *s, const char **why)
{
    if (why) *why = s->jac ? jg_solverjac_reason(s->jac) : NULL;
    return s->jac ? jg_solverjac_method_name(jg_solverjac_method(s->jac)) : NULL;
}
jg_eval_work_t *jg_sim_work(jg_sim_t *s) { return s->w; }
int64_t jg_sim_ndstates(const jg_sim_t *s) { return s->p->nd; }
jg__proj_t *jg__sim_projector(const jg_sim_t *s) { return s->proj; }
const double *jg_sim_dstates(const jg_sim_t *s) { return jg__eval_dstates(s->w); }

/* Hand the current evaluation (outputs at t, states x) to the logger. */
static void log_point(jg_sim_t *s, double t, const double *x, jg_sim_log_fn log, void *user,
                      int *stop)
{
    int dec = s->o.decimation > 1 ? s->o.decimation : 1;
    if (s->nout_points++ % dec || !log) return;
    const double *y = jg_eval_signals(s->w);
    for (int64_t k = 0; k < s->nlog; k++) s->sig[k] = s->log_src[k] >= 0 ? y[s->log_src[k]] : 0.0;
    if (log(t, x, s->sig, user)) *stop = 1;
}

/* Outputs at (t, x) between major steps: discrete blocks hold. */
static jg_status_t minor_outputs(jg_sim_t *s, double t, const double *x, jg_error_t *err)
{
    jg_status_t st = set_inputs(s, t, err);
    if (st) return st;
    memcpy(jg_eval_states(s->w), x, sizeof(double) * (size_t)s->p->nx);
    return jg_eval_outputs(s->w, t, err);
}

static jg_status_t zc_at(jg_sim_t *s, double t, const double *x, double *z, jg_error_t *err)
{
    jg_status_t st = minor_outputs(s, t, x, err);
    return st ? st : jg__eval_zc(s->w, z, err);
}

static double rate_time(const jg_sim_t *s, int32_t r)
{
    return s->p->rates[r].offset + s->khit[r] * s->p->rates[r].period;
}

static double next_hit(const jg_sim_t *s)
{
    double t = INFINITY;
    for (int32_t r = 0; r < s->p->nrates; r++) t = fmin(t, rate_time(s, r));
    if (s->kbreak < s->o.input_nbreaks) t = fmin(t, s->breaks[s->kbreak]);
    return t;
}


/* The adaptive algorithm's threshold band (--zc-tol; 0 otherwise): once the
 * crossing signals are inside it, location stops (as in Simulink).  There is no
 * wider automatic band: stopping early means stopping past the crossing by
 * up to band / |slope|, and a reset there puts energy into the model (a
 * bouncing ball's floor clamp lifts it by up to the band at every impact, so
 * it never comes to rest). */
static double band(const jg_sim_t *s, int64_t i)
{
    (void)i;
    return s->o.zc == JG_ZC_MODE_ADAPTIVE ? s->o.zc_tol : 0;
}

/* Did signal i cross zero from a to b in direction dir (Simulink's rule: rising
 * = to or through zero from below, or leaving zero upwards)?  A value at zero
 * just after an event of the signal counts as on the side it went to, so the
 * event does not fire again as "leaving zero". */
static int crossed_i(const jg_sim_t *s, int64_t i, double a, double b, int dir)
{
    if (a == 0) a = s->zside[i];
    int up = (a < 0 && b >= 0) || (a == 0 && b > 0);
    int down = (a > 0 && b <= 0) || (a == 0 && b < 0);
    return dir == JG_ZC_RISING ? up : dir == JG_ZC_FALLING ? down : up || down;
}

/* The major step at the current (t, x): outputs with the due sample hits,
 * logging, updates; then the solver restarts if anything jumped. */
static jg_status_t major_step(jg_sim_t *s, int first, int log_now, int any_fired,
                              jg_sim_log_fn log, void *user, int *stop, jg_error_t *err)
{
    const jg_program_t *p = s->p;
    jg_eval_work_t *w = s->w;
    unsigned char *rate_hit = jg__eval_rate_hits(w);
    double *wx = jg_eval_states(w);
    const double *xd = jg__eval_dstates(w);
    jg_status_t st;
    int hit = 0;
    double tol = 1e-12 * fmax(1.0, fabs(s->t));
    for (int32_t r = 0; r < p->nrates; r++) {
        rate_hit[r] = fabs(rate_time(s, r) - s->t) <= tol;
        hit |= rate_hit[r];
    }
    hit |= pass_breaks(s, tol);   /* the input jumps: restart the solver */
    if ((st = set_inputs(s, s->t, err))) return st;
    jg__eval_set_major(w, 1, first);
    memcpy(wx, s->x, sizeof(double) * (size_t)p->nx);
    if (first) {   /* external initial conditions, then the outputs they give */
        if ((st = jg_eval_outputs(w, s->t, err))) return st;
        if ((st = jg__eval_update(w, 1, NULL, err))) return st;
    }
    if ((st = jg_eval_outputs(w, s->t, err))) return st;
    if (log_now) log_point(s, s->t, wx, log, user, stop);
    if (p->nzc && p->nd) memcpy(s->xdsave, xd, sizeof(double) * (size_t)p->nd);
    if ((st = jg__eval_update(w, 0, any_fired ? s->fired : NULL, err))) return st;
    /* Simulink's Stop block: the run ends after this step, which is logged
     * even off the output grid so that the output ends at the stop time */
    for (int32_t k = 0; k < s->nstop && !s->st.stop_block; k++) {
        const jg_block_t *B = &p->blocks[s->stop_blk[k]];
        if (xd[jg_block_d_off(B)] == 0) continue;
        s->st.stop_block = B->path;
        s->st.stop_time = s->t;
        if (!log_now) log_point(s, s->t, wx, log, user, stop);
        *stop = 1;
    }
    int jumped = hit || any_fired || memcmp(wx, s->x, sizeof(double) * (size_t)p->nx);
    memcpy(s->x, wx, sizeof(double) * (size_t)p->nx);
    for (int32_t r = 0; r < p->nrates; r++)
        if (rate_hit[r]) {
            s->khit[r]++;
            s->st.hits++;
        }
    memset(rate_hit, 0, (size_t)p->nrates + 1);
    jg__eval_set_major(w, 0, 0);
    if (jumped || first) {
        if (!first) s->st.resets++;
        if ((st = jg_solver_reset(s->solver, s->t, s->x, err))) return st;
    } else if (s->projected) {   /* not a discontinuity: keep the step size */
        if ((st = jg__proj_reset_solver(s->solver, s->t, s->x, err))) return st;
    }
    s->projected = 0;
    if (p->nzc) {
        /* the signals at the step's end (find_event) are those here when the
         * major step moved nothing: no hit, event, reset or mode change */
        int same = !first && !jumped && s->zr_t == s->t &&
                   (!p->nd || !memcmp(s->xdsave, xd, sizeof(double) * (size_t)p->nd));
        if (same) memcpy(s->zl, s->zr, sizeof(double) * (size_t)p->nzc);
        else if ((st = zc_at(s, s->t, s->x, s->zl, err))) return st;
        for (int64_t i = 0; i < p->nzc; i++) {
            /* a signal that has just crossed and sits exactly at zero must not
             * "leave zero" in the same direction as a second event */
            if (any_fired && s->fired[i]) s->zside[i] = s->fired[i];
            else if (s->zl[i] != 0) s->zside[i] = 0;
        }
    }
    return JG_OK;
}

/* Names the blocks of the fired signals for an error message. */
static void fired_blocks(const jg_sim_t *s, char *buf, size_t n)
{
    const jg_program_t *p = s->p;
    size_t used = 0;
    buf[0] = '\0';
    int32_t last = -1;
    for (int32_t b = 0; b < p->nblocks && used + 1 < n; b++) {
        const jg_block_t *B = &p->blocks[b];
        for (int64_t i = 0; i < jg_block_nzc(B); i++)
            if (s->fired[jg_block_zc_off(B) + i] && b != last) {
                used += (size_t)snprintf(buf + used, n - used, "%s'%s' (%s)", used ? ", " : "",
                                         B->path, B->type->name);
                last = b;
                if (used >= n) used = n - 1;
                break;
            }
    }
}

/* After a step [t0, t1] (state s->x at t1): find the earliest zero crossing.
 * Sets *te (t1 when none or not located) and s->fired; returns whether any
 * fired.  Location bisects/regula-falsi on the dense output down to the time
 * resolution, or (adaptive) until the crossing signals are inside the band. */
static jg_status_t find_event(jg_sim_t *s, double t0, double t1, double *te, int *any,
                              jg_error_t *err)
{
    const jg_program_t *p = s->p;
    const int64_t nz = p->nzc;
    jg_status_t st;
    *te = t1;
    *any = 0;
    memset(s->fired, 0, (size_t)nz + 1);
    if ((st = zc_at(s, t1, s->x, s->zr, err))) return st;
    s->zr_t = t1;
    int locate = 0;
    for (int64_t i = 0; i < nz; i++) {
        int dir = s->zdir[i];
        s->fired[i] = (signed char)(crossed_i(s, i, s->zl[i], s->zr[i], dir) ? (s->zr[i] > s->zl[i] ? 1 : -1) : 0);
        if (s->fired[i]) {
            *any = 1;
            if (!s->fixed && s->o.zc != JG_ZC_MODE_OFF && !s->loc_off[i]) locate = 1;
        }
    }
    if (!*any || !locate) {
        for (int64_t i = 0; i < nz; i++)
            if (s->fired[i] && s->loc_off[i]) s->loc_off[i] = 20;   /* still crossing: stay off */
        return JG_OK;
    }
    /* bracket [ta, tb] with the earliest located crossing inside */
    double ta = t0, tb = t1;
    memcpy(s->za, s->zl, sizeof(double) * (size_t)nz);
    memcpy(s->zb, s->zr, sizeof(double) * (size_t)nz);
    double *xm = s->xq;
    for (int it = 0; it < 200; it++) {
        double tres = 4 * DBL_EPSILON * fmax(fabs(tb), 1e-300);
        if (tb - ta <= tres) break;
        if (s->o.zc == JG_ZC_MODE_ADAPTIVE) {   /* inside the band: located well enough */
            int in = 1;
            for (int64_t i = 0; i < nz && in; i++) {
                if (s->loc_off[i] || !crossed_i(s, i, s->za[i], s->zb[i], 0)) continue;
                in = fabs(s->zb[i]) <= band(s, i);
            }
            if (in) break;
        }
        /* regula falsi on the earliest estimate, every other step a bisection */
        double tm = 0.5 * (ta + tb);
        if (it % 2 == 0) {
            double best = tb;
            for (int64_t i = 0; i < nz; i++) {
                if (s->loc_off[i] || !s->fired[i] || !crossed_i(s, i, s->za[i], s->zb[i], 0)) continue;
                double d = s->za[i] - s->zb[i];
                if (d == 0) continue;
                double est = ta + (tb - ta) * (s->za[i] / d);
                if (est > ta && est < best) best = est;
            }
            if (best > ta && best < tb) tm = best;
        }
        if (!(tm > ta && tm < tb)) break;   /* no double in between */
        if ((st = jg_solver_interpolate(s->solver, tm, xm)))
            return jg_error_set(err, st, "dense output failed at t = %g", tm);
        if ((st = zc_at(s, tm, xm, s->zm, err))) return st;
        int left = 0;
        for (int64_t i = 0; i < nz && !left; i++) {
            if (!s->fired[i] || s->loc_off[i]) continue;
            int dir = s->fired[i] > 0 ? JG_ZC_RISING : JG_ZC_FALLING;
            left = crossed_i(s, i, s->za[i], s->zm[i], dir);
        }
        double *tmp;
        if (left) {
            tb = tm;
            tmp = s->zb, s->zb = s->zm, s->zm = tmp;
        } else {
            ta = tm;
            tmp = s->za, s->za = s->zm, s->zm = tmp;
        }
    }
    /* the event is at tb: which signals crossed in [ta, tb] */
    for (int64_t i = 0; i < nz; i++) {
        if (!s->fired[i]) continue;
        int dir = s->fired[i] > 0 ? JG_ZC_RISING : JG_ZC_FALLING;
        if (!s->loc_off[i] && !crossed_i(s, i, s->za[i], s->zb[i], dir)) s->fired[i] = 0;
    }
    if (tb < t1) {
        s->zr_t = NAN;   /* zr is not at the event */
        if ((st = jg_solver_interpolate(s->solver, tb, s->x)))
            return jg_error_set(err, st, "dense output failed at t = %g", tb);
    }
    *te = tb;
    s->st.events++;
    /* consecutive crossings: events closer than the time resolution allows */
    double ctol = 10 * 128 * DBL_EPSILON * fmax(1.0, fabs(tb));
    s->consecutive = tb - s->t_last_event <= ctol ? s->consecutive + 1 : 1;
    s->t_last_event = tb;
    if (s->consecutive > s->o.max_zc) {
        if (s->o.zc == JG_ZC_MODE_NONADAPTIVE) {
            char who[512];
            fired_blocks(s, who, sizeof who);
            return jg_error_set(err, JG_NUMERIC,
                                "too many consecutive zero crossings (%d) at t = %.15g in %s: "
                                "the model chatters or is Zeno; try --zc adaptive, a larger "
                                "--max-zc, or disable the block's zero-crossing detection",
                                s->consecutive - 1, tb, who);
        }
        for (int64_t i = 0; i < nz; i++)
            if (s->fired[i]) s->loc_off[i] = 20;
        s->consecutive = 0;
    }
    return JG_OK;
}

/* A variable-step solver whose own steps (not those a sample hit or the end
 * cut short) stay below 1e-6 of the span for 1000 steps in a row is grinding
 * through the interval, typically a stiff model under an explicit solver: the
 * caller hears it once, while the run goes on. */
static void watch_step(jg_sim_t *s, double tprev, double t1, double lim)
{
    if (!s->o.warn || s->collapse_told || jg_solver_is_fixed(s->solver) || !(t1 < lim)) return;
    double h = t1 - tprev;
    if (!(h < 1e-6 * (s->o.tstop - s->o.t0))) {
        s->small_steps = 0;
        return;
    }
    if (++s->small_steps < 1000) return;
    char msg[256];
    snprintf(msg, sizeof msg,
             "%s: 1000 steps in a row below 1e-6 of the time span (h = %.3g at t = %.9g)",
             jg_solver_name(s->solver), h, t1);
    s->collapse_told = 1;
    s->o.warn(s->o.warn_ctx, msg);
}

jg_status_t jg_sim_run(jg_sim_t *s, double t_until, jg_sim_log_fn log, void *user, jg_error_t *err)
{
    jg_status_t st;
    int stop = 0;
    const jg_program_t *p = s->p;
    s->err = err;
    jg__eval_set_sim(s->w, 1);
    if (t_until > s->o.tstop) t_until = s->o.tstop;
    if (s->st.stop_block) return minor_outputs(s, s->t, s->x, err);   /* a Stop block ended it */
    if (!s->started) {
        s->started = 1;
        s->t_last_event = -INFINITY;
        s->kout = 1;
        if ((st = major_step(s, 1, 1, 0, log, user, &stop, err))) return st;
    }
    double h = s->o.out_step;
    while (!stop && s->t < t_until) {
        double tprev = s->t, lim = fmin(t_until, next_hit(s));
        if (!(lim > s->t)) lim = t_until;
        memcpy(s->xsave, s->x, sizeof(double) * (size_t)p->nx);
        double t1;
        if ((st = jg_solver_step(s->solver, lim, &t1, s->x, err))) return st;
        if (s->proj && !s->proj_internal) {   /* onto the invariants (project.h); the restart waits for major_step */
            int retry;
            if ((st = jg__proj_step(s->proj, s->solver, tprev, s->xsave, t1, s->x, jg__eval_dstates(s->w),
                                    &s->projected, &retry, err)))
                return st;
            if (retry) {   /* the step was less accurate than estimated: redo it */
                memcpy(s->x, s->xsave, sizeof(double) * (size_t)p->nx);
                continue;
            }
        }
        watch_step(s, tprev, t1, lim);
        /* progress guarantee: a solver step, an event or a sample hit may
         * leave t in place once (a reset at the step's start), never for long */
        if (!(t1 > tprev) && ++s->stalls > 100)
            return jg_error_set(err, JG_NUMERIC,
                                "time does not advance: 100 steps of solver '%s' in a row left "
                                "t = %.17g in place (the step is below the time resolution there, "
                                "%g)",
                                jg_solver_name(s->solver), tprev,
                                nextafter(fabs(tprev), INFINITY) - fabs(tprev));
        if (t1 > tprev) s->stalls = 0;
        double te = t1;
        int any = 0;
        if (p->nzc && (st = find_event(s, tprev, t1, &te, &any, err))) return st;
        for (int64_t i = 0; i < p->nzc; i++)
            if (s->loc_off[i] && !s->fired[i]) s->loc_off[i]--;
        s->t = te;
        int log_now = h <= 0;
        for (int k = 1; h <= 0 && k < s->o.refine && s->t > tprev && !stop; k++) {
            /* refine: evenly inside (tprev, t) from the dense output */
            double tq = tprev + (s->t - tprev) * k / s->o.refine;
            if ((st = jg_solver_interpolate(s->solver, tq, s->xq)))
                return jg_error_set(err, st, "dense output failed at t = %g", tq);
            if ((st = minor_outputs(s, tq, s->xq, err))) return st;
            log_point(s, tq, s->xq, log, user, &stop);
        }
        if (h > 0) {
            /* output points inside (tprev, t) from the dense output; one at t
             * itself is logged by the major step, after its outputs */
            double tol = 1e-12 * fmax(1.0, fabs(s->t));
            while (!stop) {
                double tq = s->o.t0 + (double)s->kout * h;
                if (tq > s->t + tol) break;
                s->kout++;
                if (tq >= s->t - tol) {
                    log_now = 1;
                    break;
                }
                if ((st = jg_solver_interpolate(s->solver, tq, s->xq)))
                    return jg_error_set(err, st, "dense output failed at t = %g", tq);
                if ((st = minor_outputs(s, tq, s->xq, err))) return st;
                log_point(s, tq, s->xq, log, user, &stop);
            }
        }
        if ((st = major_step(s, 0, log_now && !stop, any, log, user, &stop, err))) return st;
    }
    /* leave the work at the current point for callers that read signals */
    return minor_outputs(s, s->t, s->x, err);
}
