/* Numerical perturbation of the whole model: central differences of
 * [dx; z] = f(x, w) around the operating point, one state or input at a time.
 * Independent of the block Jacobians, so it checks them. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lin_impl.h"

/* Evaluate [dx; z] at the work's current x and l->wv. */
static jg_status_t model_f(jg_lin_t *l, double *out, jg_error_t *err)
{
    const jg_program_t *p = l->p;
    const jg_iospec_t *io = l->io;
    jg_status_t st = jg_eval_outputs(l->w, l->t, err);
    if (st) return st;
    if ((st = jg_eval_derivatives(l->w, out, err))) return st;
    const double *y = jg_eval_signals(l->w);
    for (int64_t k = 0; k < io->nz; k++) {
        int64_t e = p->nu + k, s = io->src[e];
        double v = s >= 0 ? y[s] : 0.0;
        for (int64_t j = io->inj_ptr[e]; j < io->inj_ptr[e + 1]; j++) v += l->wv[io->inj_idx[j]];
        out[p->nx + k] = v;
    }
    return JG_OK;
}

jg_status_t jg__lin_perturb(jg_lin_t *l, cs_dl **F, jg_error_t *err)
{
    const jg_program_t *p = l->p;
    int64_t nx = p->nx, nw = l->io->nw, no = nx + l->io->nz, ni = nx + nw;
    jg_status_t st = JG_OK;
    double *fp = malloc(sizeof(double) * (size_t)(no + 1));
    double *fm = malloc(sizeof(double) * (size_t)(no + 1));
    cs_dl *T = cs_dl_spalloc(no, ni, 16, 1, 1);
    double *x = jg_eval_states(l->w);
    *F = NULL;
    if (!fp || !fm || !T) {
        st = jg_error_set(err, JG_NOMEM, "out of memory");
        goto done;
    }
    /* step ~ cbrt(eps) balances truncation (h^2) against round-off (eps/h) */
    const double rel = cbrt(DBL_EPSILON);
    for (int64_t j = 0; j < ni; j++) {
        double *v = j < nx ? &x[j] : &l->wv[j - nx];
        double v0 = *v, h = rel * fmax(1.0, fabs(v0));
        *v = v0 + h;
        if ((st = model_f(l, fp, err))) goto restore;
        *v = v0 - h;
        if ((st = model_f(l, fm, err))) goto restore;
        *v = v0;
        double scale = 0;
        for (int64_t i = 0; i < no; i++) {
            fp[i] = (fp[i] - fm[i]) / (2 * h);
            scale = fmax(scale, fabs(fp[i]));
        }
        /* differences of exact zeros are round-off: drop them relative to the column */
        for (int64_t i = 0; i < no; i++)
            if (fabs(fp[i]) > 1e-10 * fmax(1.0, scale) && jg__entry(T, i, j, fp[i])) {
                st = jg_error_set(err, JG_NOMEM, "out of memory");
                goto done;
            }
        continue;
    restore:
        *v = v0;
        goto done;
    }
    *F = cs_dl_compress(T);
    if (!*F) st = jg_error_set(err, JG_NOMEM, "out of memory");
done:
    /* leave the work at the operating point again */
    if (!st) st = jg_eval_outputs(l->w, l->t, err);
    free(fp);
    free(fm);
    cs_dl_spfree(T);
    return st;
}
