/* PLACEHOLDER being replaced by the lie implementation (issue 5). */
#include "solver_impl.h"

static jg_status_t step(jg_solver_t *s, double lim, jg_error_t *err)
{
    (void)lim;
    return jg_error_set(err, JG_INTERNAL, "solver '%s' is not built yet", s->name);
}

static jg_status_t interp(const jg_solver_t *s, double tq, double *xq)
{
    (void)s, (void)tq, (void)xq;
    return JG_ARG;
}

const jg__solver_ops_t jg__lie_ops = {.step = step, .interpolate = interp};
