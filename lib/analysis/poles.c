/* Poles of a linear model (eigenvalues of A) and their damping and natural
 * frequency, continuous or discrete (as MATLAB's damp). */
#include <math.h>
#include "lti_impl.h"

jg_status_t jg_analysis_poles(const jg_analysis_ss_t *s, double *re, double *im, jg_error_t *err)
{
    if (!s || (s->nx && (!re || !im))) return jg_error_set(err, JG_ARG, "jg_analysis_poles: NULL argument");
    int rc = jg__lti_eig(s->nx, s->A, re, im);
    if (rc < 0) return jg_error_set(err, JG_NOMEM, "out of memory");
    if (rc > 0) return jg_error_set(err, JG_NUMERIC, "poles: the QR algorithm did not converge");
    jg__lti_sort_roots(s->nx, re, im, s->Ts);
    return JG_OK;
}

void jg_analysis_damp(double re, double im, double Ts, double *wn, double *zeta)
{
    if (Ts > 0) {   /* the continuous root with the same response at the samples */
        double r = hypot(re, im);
        if (r == 0) {   /* log(0) = -inf: infinitely fast, critically damped */
            *wn = INFINITY;
            *zeta = 1;
            return;
        }
        double a = atan2(im, re);
        re = log(r) / Ts;
        im = a / Ts;
    }
    *wn = hypot(re, im);
    *zeta = *wn > 0 ? -re / *wn : -1;
}
