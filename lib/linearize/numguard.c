/* Numerical guards of a linearization: non-finite results named by the blocks
 * whose Jacobians produced them, and the ill-conditioning notice naming the
 * algebraic loop. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lin_impl.h"

void jg_lin_set_warn(jg_lin_t *l, void (*warn)(void *ctx, const char *msg), void *ctx)
{
    l->warn = warn;
    l->warn_ctx = ctx;
    l->warned = 0;
}

int jg__lin_finite(const cs_dl *F)
{
    if (!F) return 1;
    for (int64_t k = 0; k < F->p[F->n]; k++)
        if (!isfinite(F->x[k])) return 0;
    return 1;
}

int jg__lin_jacobians_finite(const jg_lin_t *l)
{
    const jg_program_t *p = l->p;
    int64_t k = 0;
    for (int32_t b = 0; b < p->nblocks; b++)
        for (int q = 0; q < p->blocks[b].npart; q++, k++) {
            const double *x = jg__eval_jac_values(l->w, k);
            const cs_dl *m = p->blocks[b].part[q].m;
            for (int64_t t = 0; m && t < m->p[m->n]; t++)
                if (!isfinite(x[t])) return 0;
        }
    return 1;
}

jg_status_t jg__lin_nonfinite(jg_lin_t *l, const char *step, jg_error_t *err)
{
    static const char kinds[] = "abcd";
    const jg_program_t *p = l->p;
    char buf[JG_ERROR_MSG_MAX];
    size_t n = 0;
    int nb = 0, more = 0;
    buf[0] = 0;
    /* the block Jacobians of the operating point (perturbation evaluates none:
     * evaluate them now, for the names) */
    jg_error_t e2;
    jg_error_clear(&e2);
    int have = !jg_eval_jacobians(l->w, &e2);
    int64_t k = 0;
    for (int32_t b = 0; have && b < p->nblocks; b++) {
        const jg_block_t *B = &p->blocks[b];
        char parts[8] = "";
        int np = 0;
        for (int q = 0; q < B->npart; q++, k++) {
            const double *x = jg__eval_jac_values(l->w, k);
            const cs_dl *m = B->part[q].m;
            int64_t bad = 0;
            for (int64_t t = 0; m && t < m->p[m->n]; t++) bad += !isfinite(x[t]);
            if (bad && np < 4 && !strchr(parts, kinds[B->part[q].kind]))
                parts[np++] = kinds[B->part[q].kind];
        }
        if (!np) continue;
        if (nb == 4 || n + strlen(B->path) + 24 >= sizeof buf) {
            more++;
            continue;
        }
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s'%s' (%s)", nb ? ", " : "", B->path,
                              parts);
        nb++;
    }
    if (nb)
        return jg_error_set(err, JG_NUMERIC,
                            "the linear model has non-finite entries (NaN or Inf): the Jacobian "
                            "of block%s %s%s %s NaN or Inf entries at the operating point (t = %g; "
                            "parts a: states->derivatives, b: inputs->derivatives, c: "
                            "states->outputs, d: inputs->outputs)",
                            nb + more > 1 ? "s" : "", buf, more ? " and more" : "",
                            nb + more > 1 ? "have" : "has", l->t);
    return jg_error_set(err, JG_NUMERIC,
                        "the linear model has non-finite entries (NaN or Inf) although every "
                        "block Jacobian is finite at t = %g: %s overflowed",
                        l->t, step);
}

/* The block owning element `row` of the Y-space (block outputs, then the
 * input points), -1 for an input point. */
static int32_t yspace_block(const jg_program_t *p, int64_t row)
{
    for (int64_t k = 0; k < p->nout_ports; k++) {
        int32_t b = p->out_blk[k];
        if (p->blocks[b].virt || p->y_off[k] < 0) continue;
        int64_t w = p->blocks[b].out_w[p->out_port_of[k]];
        if (row >= p->y_off[k] && row < p->y_off[k] + w) return b;
    }
    return -1;
}

int32_t jg__lin_row_block(const jg_lin_t *l, const jg_graph_t *g, int64_t row)
{
    if (row < 0) return -1;
    if (!g) return yspace_block(l->p, row);
    /* a reduced graph: the surviving algebraic vertices, element by element */
    int64_t nv = jg_graph_nvertices(g);
    int64_t *ra = malloc(sizeof(int64_t) * (size_t)(nv + 1));
    int32_t b = -1;
    if (!ra) return -1;
    jg__graph_survivor_map(g, ra);
    for (int64_t v = 0; v < nv; v++) {
        jg_vertex_info_t vi;
        jg_graph_vertex(g, v, &vi);
        if (ra[v] >= 0 && row >= ra[v] && row < ra[v] + vi.width) {
            b = vi.block;
            break;
        }
    }
    free(ra);
    return b;
}

void jg__lin_cond_notice(jg_lin_t *l, double cond, int32_t b, const char *what)
{
    if (!(cond > JG_LIN_COND_WARN) || !l->warn || l->warned) return;
    const jg_program_t *p = l->p;
    int lp = b >= 0 ? p->blk_loop[b] : -1;
    char msg[JG_ERROR_MSG_MAX];
    if (lp >= 0)
        snprintf(msg, sizeof msg,
                 "%s is ill-conditioned at t = %g: estimated condition %.2g (above %.0e), so "
                 "about %.0f of the 16 significant digits of A, B, C, D may be wrong; the "
                 "algebraic loop goes through %s",
                 what, l->t, cond, JG_LIN_COND_WARN, fmin(16, ceil(log10(cond))), p->loop_names[lp]);
    else
        snprintf(msg, sizeof msg,
                 "%s is ill-conditioned at t = %g: estimated condition %.2g (above %.0e), so "
                 "about %.0f of the 16 significant digits of A, B, C, D may be wrong%s%s",
                 what, l->t, cond, JG_LIN_COND_WARN, fmin(16, ceil(log10(cond))),
                 b >= 0 ? "; at block " : "", b >= 0 ? p->blocks[b].path : "");
    l->warned = 1;
    l->warn(l->warn_ctx, msg);
}
