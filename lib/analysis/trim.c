/* Trim: the variables and names of a trim problem, its residual evaluation
 * on the linearizer's work, the accessors and the operating-point writer. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "trim_impl.h"
#include "core/jsonstr.h"

/* Discrete states that take part: those of discrete-time types at a discrete
 * rate.  Modes, Memory, buffers and seeds are held as linearization holds
 * them (their "steady state" is not a fixed point of an update map). */
static int takes_part(const jg_block_t *B)
{
    return !B->virt && jg_block_nd(B) > 0 && B->rate >= 0 && B->type->update &&
           (B->type->flags & JG_BT_DISCRETE) && !(B->type->flags & JG_BT_STOP);
}

/* Append a type name to t->fd_types once; 0 ok, -1 no memory. */
static int add_type(jg_analysis_trim_t *t, const char *name)
{
    size_t n = t->fd_types ? strlen(t->fd_types) : 0, k = strlen(name);
    for (const char *s = t->fd_types; s && (s = strstr(s, name)); s += k)
        if ((s == t->fd_types || s[-1] == ' ') && (s[k] == ',' || s[k] == 0)) return 0;
    char *d = realloc(t->fd_types, n + k + 3);
    if (!d) return -1;
    snprintf(d + n, k + 3, "%s%s", n ? ", " : "", name);
    t->fd_types = d;
    return 0;
}

static jg_status_t nomem(jg_error_t *err) { return jg_error_set(err, JG_NOMEM, "out of memory"); }

jg_status_t jg_analysis_trim_create(const jg_program_t *p, const jg_analysis_trim_opts_t *o,
                                    jg_analysis_trim_t **out, jg_error_t *err)
{
    static const jg_analysis_trim_opts_t none = {0};
    if (!o) o = &none;
    if (!p || !out) return jg_error_set(err, JG_ARG, "jg_analysis_trim_create: NULL argument");
    *out = NULL;
    jg_analysis_trim_t *t = calloc(1, sizeof *t);
    if (!t) return nomem(err);
    jg_status_t st;
    t->p = p;
    t->tol = o->tol > 0 ? o->tol : 1e-9;
    t->max_iter = o->max_iter > 0 ? o->max_iter : 100;
    jg_lin_opts_t lo = {.nout = o->nout, .out = o->out};
    if ((st = jg_lin_create(p, &lo, &t->l, err))) goto fail;
    t->w = jg__lin_work(t->l);
    t->io = jg__lin_iospec(t->l);
    t->nx = p->nx;
    for (int32_t b = 0; b < p->nblocks; b++)
        if (takes_part(&p->blocks[b])) t->nd += jg_block_nd(&p->blocks[b]);
    t->nu = jg_eval_ninput_elems(t->w);
    t->ny = t->io->nz;
    t->nv = t->nx + t->nd + t->nu;
    /* B's columns are the root Inports' elements in port order, as the work's
     * inputs: the default input points and no others */
    if (t->io->nw != t->nu) {
        st = jg_error_set(err, JG_INTERNAL, "trim: %lld input points for %lld root-Inport elements",
                          (long long)t->io->nw, (long long)t->nu);
        goto fail;
    }
    size_t nv1 = (size_t)t->nv + 1, ny1 = (size_t)t->ny + 1, nx1 = (size_t)t->nx + 1;
    t->d_at = malloc(sizeof(int64_t) * ((size_t)t->nd + 1));
    t->d_var = malloc(sizeof(int64_t) * ((size_t)p->nd + 1));
    t->d_fd = calloc((size_t)t->nd + 1, 1);
    t->vname = calloc(nv1, sizeof(char *));
    t->owned_names = calloc((size_t)(t->nd + t->nu) + 1, sizeof(char *));
    t->v = calloc(nv1, sizeof(double));
    t->y = calloc(ny1, sizeof(double));
    t->dx = calloc(nx1, sizeof(double));
    t->x_save = calloc(nx1, sizeof(double));
    t->xd_save = calloc((size_t)p->nd + 1, sizeof(double));
    for (int k = 0; k < 3; k++) t->group[k] = calloc(2 * (size_t)p->nblocks + (size_t)t->io->nout + 1,
                                                        sizeof(jg__trim_group_t));
    if (!t->d_at || !t->d_var || !t->d_fd || !t->vname || !t->owned_names || !t->v || !t->y || !t->dx ||
        !t->x_save || !t->xd_save || !t->group[0] || !t->group[1] || !t->group[2])
        goto oom;
    /* names and the groups a specification may name */
    for (int64_t i = 0; i < t->nx; i++) t->vname[i] = jg_program_state_name(p, i);
    for (int32_t b = 0; b < p->nblocks; b++)
        if (p->blocks[b].nx > 0 && !p->blocks[b].virt)
            t->group[0][t->ngroup[0]++] = (jg__trim_group_t){p->blocks[b].path, p->blocks[b].x_off,
                                                               p->blocks[b].nx};
    int64_t kd = 0;
    for (int64_t k = 0; k < p->nd; k++) t->d_var[k] = -1;
    for (int32_t b = 0; b < p->nblocks; b++) {
        const jg_block_t *B = &p->blocks[b];
        if (!takes_part(B)) continue;
        t->group[0][t->ngroup[0]++] = (jg__trim_group_t){B->path, t->nx + kd, jg_block_nd(B)};
        /* the same test as the hybrid model's (jg__lin_hybrid_ex, PARTIAL) */
        unsigned char fd = B->type->djacobian ? JG__TRIM_FD_NONE
                           : B->nin > 0       ? JG__TRIM_FD_ROWS
                                              : JG__TRIM_FD_COLUMN;
        if (fd && add_type(t, B->type->name)) goto oom;
        for (int64_t k = 0; k < jg_block_nd(B); k++, kd++) {
            t->d_at[kd] = jg_block_d_off(B) + k;
            t->d_var[jg_block_d_off(B) + k] = kd;
            t->d_fd[kd] = fd;
            char *s = jg__lin_element_name(B->path, jg_block_nd(B), k);
            if (!s) goto oom;
            t->owned_names[t->nowned++] = s;
            t->vname[t->nx + kd] = s;
        }
    }
    int64_t iu = t->nx + t->nd;
    for (int k = 0; k < p->nin_root; k++) {
        const jg_block_t *B = &p->blocks[p->in_root[k]];
        int64_t off = jg_eval_input_offset(t->w, k), n = B->out_w[0];
        t->group[1][t->ngroup[1]++] = (jg__trim_group_t){B->path, iu + off, n};
        for (int64_t e = 0; e < n; e++) {
            char *s = jg__lin_element_name(B->path, n, e);
            if (!s) goto oom;
            t->owned_names[t->nowned++] = s;
            t->vname[iu + off + e] = s;
        }
    }
    t->yname = (const char **)t->io->z_name;
    for (int k = 0; k < t->io->nout; k++)
        t->group[2][t->ngroup[2]++] = (jg__trim_group_t){t->io->out[k].name, t->io->out[k].off,
                                                           t->io->out[k].width};
    t->name[JG_ANALYSIS_TRIM_STATE] = t->vname;
    t->name[JG_ANALYSIS_TRIM_DSTATE] = t->vname + t->nx;
    t->name[JG_ANALYSIS_TRIM_INPUT] = t->vname + iu;
    t->name[JG_ANALYSIS_TRIM_OUTPUT] = t->yname;
    /* the starting point: the work's (initial states, zero inputs) */
    memcpy(t->v, jg_eval_states(t->w), sizeof(double) * (size_t)t->nx);
    const double *xd = jg__eval_dstates(t->w);
    for (int64_t k = 0; k < t->nd; k++) t->v[t->nx + k] = xd[t->d_at[k]];
    memcpy(t->v + iu, jg_eval_inputs(t->w), sizeof(double) * (size_t)t->nu);
    if (jg__trim_spec_alloc(t, &t->spec)) goto oom;
    jg__trim_spec_defaults(t, &t->spec, 0);
    *out = t;
    return JG_OK;
oom:
    st = nomem(err);
fail:
    jg_analysis_trim_free(t);
    return st;
}

void jg_analysis_trim_free(jg_analysis_trim_t *t)
{
    if (!t) return;
    for (int64_t k = 0; k < t->nowned; k++) free(t->owned_names[k]);
    free(t->owned_names);
    for (int64_t k = 0; k < t->neq; k++) free(t->eq[k].name);
    free(t->eq);
    free(t->res);
    for (int k = 0; k < 3; k++) free(t->group[k]);
    jg__trim_spec_free(&t->spec);
    free(t->d_at);
    free(t->d_var);
    free(t->d_fd);
    free(t->fd_types);
    free(t->vname);
    free(t->v);
    free(t->y);
    free(t->dx);
    free(t->x_save);
    free(t->xd_save);
    jg_lin_free(t->l);
    free(t);
}

jg_status_t jg_analysis_trim_read_op(jg_analysis_trim_t *t, const char *path, jg_error_t *err)
{
    if (!t || !path) return jg_error_set(err, JG_ARG, "jg_analysis_trim_read_op: NULL argument");
    jg_status_t st = jg_lin_read_op(t->l, path, err);
    if (st) return st;
    int64_t iu = t->nx + t->nd;
    memcpy(t->v, jg_eval_states(t->w), sizeof(double) * (size_t)t->nx);
    memcpy(t->v + iu, jg_eval_inputs(t->w), sizeof(double) * (size_t)t->nu);
    memcpy(t->spec.val, t->v, sizeof(double) * (size_t)t->nv);
    return JG_OK;
}

jg_status_t jg__trim_eval(jg_analysis_trim_t *t, const double *v, double *res, jg_error_t *err)
{
    const jg_program_t *p = t->p;
    jg_eval_work_t *w = t->w;
    double *x = jg_eval_states(w), *xd = jg__eval_dstates_w(w);
    memcpy(x, v, sizeof(double) * (size_t)t->nx);
    for (int64_t k = 0; k < t->nd; k++) xd[t->d_at[k]] = v[t->nx + k];
    memcpy(jg_eval_inputs(w), v + t->nx + t->nd, sizeof(double) * (size_t)t->nu);
    jg_status_t st = jg_eval_outputs(w, jg_lin_time(t->l), err);
    if (!st) st = jg_eval_derivatives(w, t->dx, err);
    if (st) return st;
    /* an output point measures the signal element it reads (the input
     * perturbations are zero at the operating point) */
    const double *sig = jg_eval_signals(w);
    for (int64_t k = 0; k < t->ny; k++) {
        int64_t src = t->io->src[p->nu + k];
        t->y[k] = src >= 0 ? sig[src] : 0.0;
    }
    if (!res) return JG_OK;
    int dd = 0;
    for (int64_t e = 0; e < t->neq; e++) dd |= t->eq[e].kind == JG__TRIM_EQ_DD;
    if (dd) {
        /* update() writes the discrete states (and resets continuous ones)
         * in place: take the new values, then put the point back */
        memcpy(t->xd_save, xd, sizeof(double) * (size_t)p->nd);
        memcpy(t->x_save, x, sizeof(double) * (size_t)t->nx);
        st = jg__eval_update(w, 0, NULL, err);
        for (int64_t e = 0; !st && e < t->neq; e++)
            if (t->eq[e].kind == JG__TRIM_EQ_DD)
                res[e] = xd[t->d_at[t->eq[e].idx]] - v[t->nx + t->eq[e].idx];
        memcpy(xd, t->xd_save, sizeof(double) * (size_t)p->nd);
        memcpy(x, t->x_save, sizeof(double) * (size_t)t->nx);
        if (st) return st;
    }
    const jg__trim_spec_t *s = &t->spec;
    for (int64_t e = 0; e < t->neq; e++) {
        int64_t i = t->eq[e].idx;
        switch (t->eq[e].kind) {
        case JG__TRIM_EQ_DX: res[e] = t->dx[i]; break;
        case JG__TRIM_EQ_Y: res[e] = t->y[i] - s->yval[i]; break;
        case JG__TRIM_EQ_YBOUND: res[e] = t->y[i] - fmin(fmax(t->y[i], s->ylo[i]), s->yhi[i]); break;
        default: break;
        }
    }
    return JG_OK;
}

/* ------------------------------------------------------------ accessors */

void jg_analysis_trim_info(const jg_analysis_trim_t *t, jg_analysis_trim_info_t *info)
{
    if (info) *info = t ? t->info : (jg_analysis_trim_info_t){0};
}

int64_t jg_analysis_trim_nequations(const jg_analysis_trim_t *t) { return t ? t->neq : 0; }

const char *jg_analysis_trim_equation(const jg_analysis_trim_t *t, int64_t k, double *residual)
{
    if (!t || k < 0 || k >= t->neq) return NULL;
    if (residual) *residual = t->res[k];
    return t->eq[k].name;
}

double jg_analysis_trim_time(const jg_analysis_trim_t *t) { return t ? jg_lin_time(t->l) : NAN; }

int64_t jg_analysis_trim_count(const jg_analysis_trim_t *t, jg_analysis_trim_kind_t kind)
{
    if (!t) return 0;
    switch (kind) {
    case JG_ANALYSIS_TRIM_STATE: return t->nx;
    case JG_ANALYSIS_TRIM_DSTATE: return t->nd;
    case JG_ANALYSIS_TRIM_INPUT: return t->nu;
    case JG_ANALYSIS_TRIM_OUTPUT: return t->ny;
    }
    return 0;
}

/* The variable index of element k of a kind, -1 out of range (outputs: -2). */
static int64_t var_of(const jg_analysis_trim_t *t, jg_analysis_trim_kind_t kind, int64_t k)
{
    if (k < 0 || k >= jg_analysis_trim_count(t, kind)) return -1;
    if (kind == JG_ANALYSIS_TRIM_OUTPUT) return -2;
    return k + (kind == JG_ANALYSIS_TRIM_DSTATE ? t->nx : kind == JG_ANALYSIS_TRIM_INPUT ? t->nx + t->nd : 0);
}

const char *jg_analysis_trim_name(const jg_analysis_trim_t *t, jg_analysis_trim_kind_t kind, int64_t k)
{
    if (!t || var_of(t, kind, k) == -1) return NULL;
    return t->name[kind][k];
}

double jg_analysis_trim_value(const jg_analysis_trim_t *t, jg_analysis_trim_kind_t kind, int64_t k,
                              int *known)
{
    int64_t i = t ? var_of(t, kind, k) : -1;
    if (known) *known = 0;
    if (i == -1) return NAN;
    if (i == -2) {
        if (known) *known = t->spec.yknown[k];
        return t->y[k];
    }
    if (known) *known = t->spec.known[i];
    return t->v[i];
}

/* ------------------------------------------------ operating-point file */

jg_status_t jg_analysis_trim_write_op(const jg_analysis_trim_t *t, const char *path, jg_error_t *err)
{
    if (!t || !path) return jg_error_set(err, JG_ARG, "jg_analysis_trim_write_op: NULL argument");
    FILE *f = fopen(path, "w");
    if (!f) return jg_error_set(err, JG_IO, "%s: cannot write: %s", path, strerror(errno));
    /* 17 significant digits: jg_lin_read_op reads the same doubles back */
    fprintf(f, "{\"t\": %.17g,\n \"states\": {", jg_lin_time(t->l));
    for (int64_t i = 0; i < t->nx; i++) {
        fprintf(f, "%s\n  ", i ? "," : "");
        jg__json_put_string(f, t->vname[i]);
        fprintf(f, ": %.17g", t->v[i]);
    }
    fprintf(f, "\n },\n \"inputs\": {");
    const double *u = t->v + t->nx + t->nd;
    for (int k = 0; k < t->ngroup[1]; k++) {
        const jg__trim_group_t *g = &t->group[1][k];
        fprintf(f, "%s\n  ", k ? "," : "");
        jg__json_put_string(f, g->name);
        fputs(": ", f);
        if (g->n == 1) fprintf(f, "%.17g", u[g->first - t->nx - t->nd]);
        else {
            fputc('[', f);
            for (int64_t e = 0; e < g->n; e++)
                fprintf(f, "%s%.17g", e ? ", " : "", u[g->first - t->nx - t->nd + e]);
            fputc(']', f);
        }
    }
    fprintf(f, "\n }\n}\n");
    int bad = ferror(f);
    if (fclose(f) || bad) {
        remove(path);
        return jg_error_set(err, JG_IO, "%s: write failed", path);
    }
    return JG_OK;
}
