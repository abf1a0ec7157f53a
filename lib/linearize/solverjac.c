/* The solver Jacobian J_x = df/dx (Simulink, "Choose a Jacobian Method"):
 * forward-difference perturbation, dense or grouped by a column coloring of the
 * structural pattern, and the analytical J_x of the Jacobian graph with every
 * algebraic vertex eliminated (jacgraph/solverjac.h); with a sparsing, only
 * the kept entries ("Sparsing of Jacobians": entries determined offline need
 * not be computed at run time). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/solverjac.h"
#include "jacgraph/lft.h"
#include "../lft/lft_internal.h"
#include "../graph/graph_internal.h"   /* and eval_internal.h */
#include "../compile/program_impl.h"

/* 2 GB of doubles: beyond this a dense Jacobian is a mistake, not a method */
#define DENSE_MAX_STATES 16384
/* as in Simulink, auto chooses a sparse method from this many states on */
#define SPARSE_FROM 50

static const char *const method_names[] = {"auto", "full-perturbation", "sparse-perturbation",
                                           "full-analytical", "sparse-analytical"};

const char *jg_solverjac_method_name(jg_solverjac_method_t m)
{
    return (unsigned)m < 5 ? method_names[m] : "?";
}

int jg_solverjac_method_parse(const char *s)
{
    for (int k = 0; s && k < 5; k++)
        if (!strcmp(s, method_names[k])) return k;
    return -1;
}

const char *jg_solverjac_method_names(void)
{
    return "auto full-perturbation sparse-perturbation full-analytical sparse-analytical";
}

static int is_sparse(jg_solverjac_method_t m)
{
    return m == JG_SOLVERJAC_SPARSE_PERTURBATION || m == JG_SOLVERJAC_SPARSE_ANALYTICAL;
}

static int is_analytical(jg_solverjac_method_t m)
{
    return m == JG_SOLVERJAC_FULL_ANALYTICAL || m == JG_SOLVERJAC_SPARSE_ANALYTICAL;
}

/* A column grouping: color[c] per column (-1: empty), and the columns of
 * each color (CSR ptr/col, in column order) for one perturbed f per color. */
typedef struct {
    int64_t *color, ncolors;
    int64_t *ptr, *col;
} grouping_t;

/* A sparsing (jg_solverjac_set_keep); all zero without one. */
typedef struct {
    unsigned char *keep;      /* per entry of S: 1 kept, 0 dropped */
    unsigned char *keepP;     /* per entry of P: 0 where a dropped entry of S lies */
    unsigned char *colkept;   /* per column: has a kept entry (full perturbation) */
    int64_t nkept, ncolkept;
    int64_t nmapk, *mapk;     /* analytical: the map entries k whose destination is kept */
} sparsing_t;

struct jg_solverjac {
    const jg_program_t *p;
    jg_eval_work_t *w;
    int own_w;
    jg_solverjac_method_t method;
    double typ;               /* typical state magnitude for perturbation steps */
    char reason[512];
    int64_t n;
    /* the graph without I/O points, fully eliminated (or by strat) */
    jg_iospec_t *io;
    jg_graph_t *g;
    const jg_graph_strategy_t *strat;   /* NULL: full; only while creating */
    int64_t *xo;              /* per vertex: first state row/column of a live state vertex, -1 */
    cs_dl *S;                 /* structural pattern, rows sorted */
    cs_dl *D;                 /* dense n x n pattern (full methods), else NULL */
    const cs_dl *P;           /* what eval fills: S or D */
    int64_t maxrow;
    grouping_t grp;           /* of S, or of the kept entries with a sparsing */
    /* analytical: J->x[map_dst[k]] += (graph values)[map_src[k]] over the state -> state
     * edges; or, when algebraic vertices survive, the LFT over them */
    int64_t nmap, *map_src, *map_dst;
    int64_t *ra, nr;          /* per vertex: offset of a surviving algebraic vertex, -1 */
    int64_t *rowpos;          /* n, -1: scatter of one column of the LFT result */
    int32_t *held, nheld;     /* blocks with a discrete rate and Jacobian parts */
    int64_t *held_part;       /* per held block: its first Jacobian part */
    sparsing_t sp;
    /* perturbation scratch */
    double *x0, *f0, *f1, *h;   /* x0: the point (x may be the work's own states) */
    jg_solverjac_stats_t st;
    jg_error_t *sink;
};

/* ---------------------------------------------------------------- helpers */

/* The first block whose Jacobian is not analytic: parts declared (or
 * continuous states) but no jacobian function.  -1 when there is none. */
static int32_t non_analytic_block(const jg_program_t *p)
{
    for (int32_t b = 0; b < p->nblocks; b++) {
        const jg_block_t *B = &p->blocks[b];
        if (B->virt) continue;
        if ((!B->type->jacobian || (B->type->flags & JG_BT_JAC_PERTURB)) && (B->npart > 0 || B->nx > 0))
            return b;
    }
    return -1;
}

/* Position of entry (i, j) in the sorted column j of A, -1 when absent. */
static int64_t find_entry(const cs_dl *A, int64_t i, int64_t j)
{
    int64_t lo = A->p[j], hi = A->p[j + 1] - 1;
    while (lo <= hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (A->i[mid] == i) return mid;
        if (A->i[mid] < i) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

/* Compressed-column copy of A with rows sorted in each column and values
 * zero (two transposes, as CSparse's cs_dl_qr does for sorting). */
static cs_dl *sorted_pattern(const cs_dl *A)
{
    cs_dl *T = cs_dl_transpose(A, 0);
    cs_dl *S = T ? cs_dl_transpose(T, 0) : NULL;
    cs_dl_spfree(T);
    if (!S) return NULL;
    S->x = calloc((size_t)S->nzmax + 1, sizeof(double));
    if (!S->x) return cs_dl_spfree(S);
    return S;
}

/* ------------------------------------------------------------------ create */

static jg_status_t nomem(jg_error_t *err, const char *what)
{
    return jg_error_set(err, JG_NOMEM, "solver Jacobian: out of memory (%s)", what);
}

/* Graph, elimination, structural pattern, analytical scatter map. */
static jg_status_t build_pattern(jg_solverjac_t *j, jg_error_t *err)
{
    const jg_program_t *p = j->p;
    const int64_t n = j->n;
    jg_status_t st;
    if ((st = jg__iospec_create(p, 0, NULL, 0, NULL, 0, NULL, 0, &j->io, err))) return st;
    if ((st = jg__graph_build(p, j->io, &j->g, err))) return st;
    st = j->strat ? jg__graph_eliminate_strategy(j->g, j->strat, NULL, err)
                  : jg__graph_eliminate(j->g, JG_GRAPH_REDUCE_FULL, NULL, err);
    if (st) return st;
    const jg_graph_t *g = j->g;
    const int64_t nv = jg_graph_nvertices(g);
    j->xo = malloc(sizeof(int64_t) * (size_t)(nv + 1));
    j->ra = malloc(sizeof(int64_t) * (size_t)(nv + 1));
    if (!j->xo || !j->ra) return nomem(err, "vertex maps");
    const int64_t states_only[5] = {0, -1, -1, -1, -1};
    jg__graph_offset_map(g, states_only, 1, j->xo);
    /* what the full reduction leaves: Algebraic Constraint outputs */
    j->nr = jg__graph_survivor_map(g, j->ra);
    cs_dl *P11 = jg__graph_sub(g, j->xo, n, j->xo, n), *C = NULL;
    if (!P11) return nomem(err, "state submatrix");
    if (j->nr == 0) {
        C = P11;
    } else {
        cs_dl *P12 = jg__graph_sub(g, j->xo, n, j->ra, j->nr);
        cs_dl *P21 = jg__graph_sub(g, j->ra, j->nr, j->xo, n);
        cs_dl *P22 = jg__graph_sub(g, j->ra, j->nr, j->ra, j->nr);
        if (P12 && P21 && P22) C = jg__lft_pattern(P11, P12, P21, P22);
        cs_dl_spfree(P11);
        cs_dl_spfree(P12);
        cs_dl_spfree(P21);
        cs_dl_spfree(P22);
        if (!C) return nomem(err, "pattern closure");
    }
    j->S = sorted_pattern(C);
    cs_dl_spfree(C);
    if (!j->S) return nomem(err, "pattern");
    /* the lower bound on colors */
    int64_t *cnt = calloc((size_t)n + 1, sizeof(int64_t));
    if (!cnt) return nomem(err, "row counts");
    j->maxrow = 0;
    for (int64_t q = 0; q < j->S->p[n]; q++)
        if (++cnt[j->S->i[q]] > j->maxrow) j->maxrow = cnt[j->S->i[q]];
    free(cnt);
    return JG_OK;
}

static void grouping_free(grouping_t *g)
{
    free(g->color);
    free(g->ptr);
    free(g->col);
}

/* The grouping of S's columns (jg_solverjac_color_columns_kept: of the kept
 * entries, keep NULL all of them) into *g, the caller's to free even on
 * failure. */
static jg_status_t grouping_make(const cs_dl *S, const unsigned char *keep, grouping_t *g, jg_error_t *err)
{
    const int64_t n = S->n;
    if (!(g->color = malloc(sizeof(int64_t) * (size_t)(n + 1)))) return nomem(err, "colors");
    jg_status_t st = jg_solverjac_color_columns_kept(S, keep, g->color, &g->ncolors, err);
    if (st) return st;
    const int64_t nc = g->ncolors, *color = g->color;
    int64_t *gp = g->ptr = calloc((size_t)nc + 2, sizeof(int64_t));
    int64_t *gc = g->col = malloc(sizeof(int64_t) * (size_t)(n + 1));
    int64_t *fill = malloc(sizeof(int64_t) * (size_t)(nc + 1));
    if (!gp || !gc || !fill) {
        free(fill);
        return nomem(err, "column groups");
    }
    for (int64_t c = 0; c < n; c++)
        if (color[c] >= 0) gp[color[c] + 1]++;
    for (int64_t c = 0; c < nc; c++) gp[c + 1] += gp[c];
    memcpy(fill, gp, sizeof(int64_t) * (size_t)(nc + 1));
    for (int64_t c = 0; c < n; c++)
        if (color[c] >= 0) gc[fill[color[c]]++] = c;
    free(fill);
    return JG_OK;
}

static void sparsing_free(sparsing_t *sp)
{
    free(sp->keep);
    free(sp->keepP);
    free(sp->colkept);
    free(sp->mapk);
}

/* The dense n x n pattern of the full methods. */
static jg_status_t build_dense(jg_solverjac_t *j, jg_error_t *err)
{
    const int64_t n = j->n;
    j->D = cs_dl_spalloc(n, n, n * n + 1, 1, 0);
    if (!j->D) return nomem(err, "dense Jacobian");
    for (int64_t c = 0; c <= n; c++) j->D->p[c] = c * n;
    for (int64_t q = 0; q < n * n; q++) j->D->i[q] = q % n;
    return JG_OK;
}

/* Analytical: where each value of a state -> state edge goes in P. */
static jg_status_t build_map(jg_solverjac_t *j, jg_error_t *err)
{
    const jg_graph_t *g = j->g;
    const jg_program_t *p = j->p;
    jg_status_t st = JG_OK;
    int64_t nm = jg__graph_sub_entries(g, j->xo, j->xo, NULL, NULL, NULL);
    int64_t *row = malloc(sizeof(int64_t) * (size_t)(nm + 1));
    int64_t *col = malloc(sizeof(int64_t) * (size_t)(nm + 1));
    j->map_src = malloc(sizeof(int64_t) * (size_t)(nm + 1));
    j->map_dst = malloc(sizeof(int64_t) * (size_t)(nm + 1));
    j->rowpos = malloc(sizeof(int64_t) * (size_t)(j->n + 1));
    j->held = malloc(sizeof(int32_t) * (size_t)(p->nblocks + 1));
    j->held_part = malloc(sizeof(int64_t) * (size_t)(p->nblocks + 1));
    if (!row || !col || !j->map_src || !j->map_dst || !j->rowpos || !j->held || !j->held_part) {
        st = nomem(err, "value map");
        goto done;
    }
    for (int64_t i = 0; i < j->n; i++) j->rowpos[i] = -1;
    jg__graph_sub_entries(g, j->xo, j->xo, row, col, j->map_src);
    for (int64_t k = 0; k < nm; k++) {
        int64_t pos = j->D ? col[k] * j->n + row[k] : find_entry(j->S, row[k], col[k]);
        if (pos < 0) {
            st = jg_error_set(err, JG_INTERNAL,
                              "solver Jacobian: graph entry (%lld, %lld) outside the pattern",
                              (long long)row[k], (long long)col[k]);
            goto done;
        }
        j->map_dst[k] = pos;
    }
    j->nmap = nm;
    int64_t part = 0;   /* the first part of block b (jg__eval_jac_values' numbering) */
    for (int32_t b = 0; b < p->nblocks; part += p->blocks[b].npart, b++) {
        const jg_block_t *B = &p->blocks[b];
        if (!B->virt && B->rate >= 0 && B->npart > 0) {
            j->held_part[j->nheld] = part;
            j->held[j->nheld++] = b;
        }
    }
done:
    free(row);
    free(col);
    return st;
}

jg_status_t jg_solverjac_create(const jg_program_t *p, jg_solverjac_method_t method, jg_eval_work_t *w,
                                jg_solverjac_t **out, jg_error_t *err)
{
    return jg_solverjac_create_strategy(p, method, w, NULL, out, err);
}

jg_status_t jg_solverjac_create_strategy(const jg_program_t *p, jg_solverjac_method_t method,
                                         jg_eval_work_t *w, const jg_graph_strategy_t *s,
                                         jg_solverjac_t **out, jg_error_t *err)
{
    *out = NULL;
    int m = (int)method;
    if ((unsigned)m >= sizeof method_names / sizeof *method_names)
        return jg_error_set(err, JG_ARG, "unknown solver Jacobian method %d (valid: 0 to %d, %s)", m,
                            (int)(sizeof method_names / sizeof *method_names) - 1, jg_solverjac_method_names());
    if (w && jg__eval_program(w) != p)
        return jg_error_set(err, JG_ARG, "solver Jacobian: the work belongs to another program");
    jg_solverjac_t *j = calloc(1, sizeof *j);
    if (j) j->typ = 1.0;
    if (!j) return nomem(err, "object");
    j->p = p;
    j->n = p->nx;
    jg_status_t st;
    if (w) {
        j->w = w;
    } else {
        if ((st = jg_eval_create(p, &j->w, err))) goto fail;
        j->own_w = 1;
        jg__eval_set_mode(j->w, 1, 0);   /* f as the simulation computes it, minor step */
    }
    /* the method and why (Simulink's rules) */
    int32_t bad = non_analytic_block(p);
    char why_bad[300] = "";
    if (bad >= 0)
        snprintf(why_bad, sizeof why_bad, "block '%s' (%s) has no analytic Jacobian",
                 p->blocks[bad].path, p->blocks[bad].type->name);
    if (m == JG_SOLVERJAC_AUTO) {
        int sparse = j->n >= SPARSE_FROM;
        if (bad < 0)
            m = sparse ? JG_SOLVERJAC_SPARSE_ANALYTICAL : JG_SOLVERJAC_FULL_ANALYTICAL;
        else
            m = sparse ? JG_SOLVERJAC_SPARSE_PERTURBATION : JG_SOLVERJAC_FULL_PERTURBATION;
        snprintf(j->reason, sizeof j->reason, "auto: %s (%s), %lld state%s %s %d (%s)",
                 bad < 0 ? "every block has an analytic Jacobian" : why_bad,
                 bad < 0 ? "analytical" : "perturbation", (long long)j->n, j->n == 1 ? "" : "s",
                 sparse ? ">=" : "<", SPARSE_FROM, sparse ? "sparse" : "full");
    } else if (is_analytical(m) && bad >= 0) {
        jg_solverjac_method_t fb = is_sparse(m) ? JG_SOLVERJAC_SPARSE_PERTURBATION : JG_SOLVERJAC_FULL_PERTURBATION;
        snprintf(j->reason, sizeof j->reason, "%s requested, but %s: %s instead", method_names[m],
                 why_bad, method_names[fb]);
        m = fb;
    } else {
        snprintf(j->reason, sizeof j->reason, "%s requested", method_names[m]);
    }
    j->method = m;
    if (!is_sparse(j->method) && j->n > DENSE_MAX_STATES) {
        st = jg_error_set(err, JG_ARG,
                          "solver Jacobian: %s needs a dense %lld x %lld matrix (%.1f GB); use "
                          "sparse-perturbation or sparse-analytical",
                          method_names[j->method], (long long)j->n, (long long)j->n,
                          8e-9 * (double)j->n * (double)j->n);
        goto fail;
    }
    j->strat = s;
    st = build_pattern(j, err);
    j->strat = NULL;
    if (st) goto fail;
    if ((st = grouping_make(j->S, NULL, &j->grp, err))) goto fail;
    if (!is_sparse(j->method) && (st = build_dense(j, err))) goto fail;
    j->P = j->D ? j->D : j->S;
    if ((st = build_map(j, err))) goto fail;
    j->f0 = malloc(sizeof(double) * (size_t)(j->n + 1));
    j->f1 = malloc(sizeof(double) * (size_t)(j->n + 1));
    j->h = malloc(sizeof(double) * (size_t)(j->n + 1));
    j->x0 = malloc(sizeof(double) * (size_t)(j->n + 1));
    if (!j->f0 || !j->f1 || !j->h || !j->x0) {
        st = nomem(err, "work vectors");
        goto fail;
    }
    *out = j;
    return JG_OK;
fail:
    jg_solverjac_free(j);
    return st;
}

void jg_solverjac_free(jg_solverjac_t *j)
{
    if (!j) return;
    if (j->own_w) jg_eval_free(j->w);
    jg_graph_free(j->g);
    jg__iospec_free(j->io);
    free(j->xo);
    free(j->ra);
    cs_dl_spfree(j->S);
    cs_dl_spfree(j->D);
    grouping_free(&j->grp);
    free(j->map_src);
    free(j->map_dst);
    free(j->rowpos);
    free(j->held);
    free(j->held_part);
    sparsing_free(&j->sp);
    free(j->f0);
    free(j->f1);
    free(j->h);
    free(j->x0);
    free(j);
}

jg_solverjac_method_t jg_solverjac_method(const jg_solverjac_t *j) { return j->method; }
const char *jg_solverjac_reason(const jg_solverjac_t *j) { return j->reason; }
int64_t jg_solverjac_nstates(const jg_solverjac_t *j) { return j->n; }
jg_eval_work_t *jg_solverjac_work(jg_solverjac_t *j) { return j->w; }
const cs_dl *jg_solverjac_pattern(const jg_solverjac_t *j) { return j->P; }
const cs_dl *jg_solverjac_structure(const jg_solverjac_t *j) { return j->S; }
const cs_dl *jg_solverjac_solver_pattern(const jg_solverjac_t *j) { return j->D ? NULL : j->S; }
int64_t jg_solverjac_ncolors(const jg_solverjac_t *j) { return j->grp.ncolors; }
const int64_t *jg_solverjac_colors(const jg_solverjac_t *j) { return j->grp.color; }
int64_t jg_solverjac_max_row_nnz(const jg_solverjac_t *j) { return j->maxrow; }
void jg_solverjac_get_stats(const jg_solverjac_t *j, jg_solverjac_stats_t *st) { *st = j->st; }
void jg_solverjac_set_error(jg_solverjac_t *j, jg_error_t *err) { j->sink = err; }

int64_t jg_solverjac_fevals_per_jacobian(const jg_solverjac_t *j)
{
    switch (j->method) {
    case JG_SOLVERJAC_FULL_PERTURBATION: return j->sp.keep ? j->sp.ncolkept : j->n;
    case JG_SOLVERJAC_SPARSE_PERTURBATION: return j->grp.ncolors;
    default: return 0;
    }
}

cs_dl *jg_solverjac_alloc(const jg_solverjac_t *j)
{
    const cs_dl *P = j->P;
    cs_dl *J = cs_dl_spalloc(P->m, P->n, P->p[P->n] + 1, 1, 0);
    if (!J) return NULL;
    memcpy(J->p, P->p, sizeof(int64_t) * (size_t)(P->n + 1));
    memcpy(J->i, P->i, sizeof(int64_t) * (size_t)P->p[P->n]);
    memset(J->x, 0, sizeof(double) * (size_t)(P->p[P->n] + 1));
    return J;
}

/* -------------------------------------------------------------- evaluate */

/* f(t, x) with the work's states already set: outputs, then derivatives. */
static jg_status_t f_here(jg_solverjac_t *j, double t, double *f, jg_error_t *err)
{
    jg_status_t st = jg_eval_outputs(j->w, t, err);
    return st ? st : jg_eval_derivatives(j->w, f, err);
}

/* The forward-difference step for x_j = v: sqrt(eps) relative, at least
 * sqrt(eps) times the typical magnitude (1, or the solver's atol / rtol: the
 * size below which it asks for no relative accuracy; a chemistry species of
 * 1e-5 must not be perturbed by 1e-8), away from zero in v's direction. */
static double step_for(double v, double typ)
{
    double h = sqrt(DBL_EPSILON) * fmax(fabs(v), typ);
    return v < 0 ? -h : h;
}

/* The work's states are x on entry and on return; the divisor is the step
 * as stored (x_j + h rounded, minus x_j), not the h asked for. */
static jg_status_t eval_perturb(jg_solverjac_t *j, double t, const double *x, const double *fx,
                                cs_dl *J, jg_error_t *err)
{
    const int64_t n = j->n;
    double *xw = jg_eval_states(j->w);
    jg_status_t st;
    const double *f0 = fx;
    if (!f0) {
        if ((st = f_here(j, t, j->f0, err))) return st;
        j->st.fevals_base++;
        f0 = j->f0;
    }
    if (j->method == JG_SOLVERJAC_FULL_PERTURBATION) {
        for (int64_t c = 0; c < n; c++) {
            double *col = J->x + c * n;
            if (j->sp.keep && !j->sp.colkept[c]) {   /* nothing kept: not perturbed */
                memset(col, 0, sizeof(double) * (size_t)n);
                continue;
            }
            xw[c] = x[c] + step_for(x[c], j->typ);
            double h = xw[c] - x[c];
            st = f_here(j, t, j->f1, err);
            xw[c] = x[c];
            j->st.fevals++;
            if (st) return st;
            for (int64_t i = 0; i < n; i++)
                col[i] = !j->sp.keepP || j->sp.keepP[c * n + i] ? (j->f1[i] - f0[i]) / h : 0;
        }
        return JG_OK;
    }
    /* one f per color: the columns of a color share no row, so each row's
     * difference belongs to exactly one of them (with a sparsing: each row
     * that holds a kept entry; jg_solverjac_color_columns_kept) */
    const cs_dl *S = j->S;
    if (j->sp.keep) memset(J->x, 0, sizeof(double) * (size_t)S->p[n]);
    else
        for (int64_t c = 0; c < n; c++)
            if (j->grp.color[c] < 0)
                for (int64_t q = S->p[c]; q < S->p[c + 1]; q++) J->x[q] = 0;   /* none: empty */
    for (int64_t k = 0; k < j->grp.ncolors; k++) {
        for (int64_t g = j->grp.ptr[k]; g < j->grp.ptr[k + 1]; g++) {
            int64_t c = j->grp.col[g];
            xw[c] = x[c] + step_for(x[c], j->typ);
            j->h[c] = xw[c] - x[c];
        }
        st = f_here(j, t, j->f1, err);
        for (int64_t g = j->grp.ptr[k]; g < j->grp.ptr[k + 1]; g++) xw[j->grp.col[g]] = x[j->grp.col[g]];
        j->st.fevals++;
        if (st) return st;
        for (int64_t g = j->grp.ptr[k]; g < j->grp.ptr[k + 1]; g++) {
            int64_t c = j->grp.col[g];
            for (int64_t q = S->p[c]; q < S->p[c + 1]; q++)
                if (!j->sp.keep || j->sp.keep[q]) J->x[q] = (j->f1[S->i[q]] - f0[S->i[q]]) / j->h[c];
        }
    }
    return JG_OK;
}

/* Blocks with a discrete sample time hold their outputs between hits
 * (jg_eval_outputs): their parts are no path in f now. */
static void zero_held(jg_solverjac_t *j)
{
    for (int32_t k = 0; k < j->nheld; k++) {
        const jg_block_t *B = &j->p->blocks[j->held[k]];
        if (jg__eval_rate_hit(j->w, B->rate)) continue;
        for (int q = 0; q < B->npart; q++) {
            const cs_dl *m = B->part[q].m;   /* the part's pattern */
            memset(jg__eval_jac_values(j->w, j->held_part[k] + q), 0,
                   sizeof(double) * (size_t)m->p[m->n]);
        }
    }
}

/* Algebraic vertices survived the elimination: J_x = P11 + P12 (I - P22)^-1 P21. */
static jg_status_t eval_lft(jg_solverjac_t *j, cs_dl *J, jg_error_t *err)
{
    const jg_graph_t *g = j->g;
    const int64_t n = j->n;
    cs_dl *P11 = jg__graph_sub(g, j->xo, n, j->xo, n);
    cs_dl *P12 = jg__graph_sub(g, j->xo, n, j->ra, j->nr);
    cs_dl *P21 = jg__graph_sub(g, j->ra, j->nr, j->xo, n);
    cs_dl *P22 = jg__graph_sub(g, j->ra, j->nr, j->ra, j->nr);
    cs_dl *F = NULL;
    jg_status_t st;
    if (!P11 || !P12 || !P21 || !P22) {
        st = nomem(err, "LFT operands");
        goto done;
    }
    if ((st = jg_lft(P11, P12, P21, P22, NULL, &F, NULL, err))) goto done;
    memset(J->x, 0, sizeof(double) * (size_t)J->p[n]);
    for (int64_t c = 0; c < n && !st; c++) {
        for (int64_t q = J->p[c]; q < J->p[c + 1]; q++) j->rowpos[J->i[q]] = q;
        /* The pattern is the exact structure of the LFT (reachability through
         * P22), but the LU's triangular solves run over its fill, which partial
         * pivoting can make larger: where the exact value is structurally zero
         * they leave rounding residue (3e-16 in f14 with no elimination).  Such
         * residue is dropped; anything larger is a pattern bug and an error. */
        double cmax = 0;
        for (int64_t q = F->p[c]; q < F->p[c + 1]; q++) cmax = fmax(cmax, fabs(F->x[q]));
        for (int64_t q = F->p[c]; q < F->p[c + 1]; q++) {
            int64_t pos = j->rowpos[F->i[q]];
            if (pos >= 0 && j->sp.keepP && !j->sp.keepP[pos]) continue;   /* dropped */
            if (pos < 0 && fabs(F->x[q]) <= 1e-12 * fmax(1, cmax)) continue;   /* residue */
            if (pos < 0) {
                st = jg_error_set(err, JG_INTERNAL,
                                  "solver Jacobian: entry (%lld, %lld) of the LFT outside the "
                                  "pattern (%g)",
                                  (long long)F->i[q], (long long)c, F->x[q]);
                break;
            }
            J->x[pos] += F->x[q];
        }
        for (int64_t q = J->p[c]; q < J->p[c + 1]; q++) j->rowpos[J->i[q]] = -1;
    }
done:
    cs_dl_spfree(P11);
    cs_dl_spfree(P12);
    cs_dl_spfree(P21);
    cs_dl_spfree(P22);
    cs_dl_spfree(F);
    return st;
}

static jg_status_t eval_analytic(jg_solverjac_t *j, double t, cs_dl *J, jg_error_t *err)
{
    jg_status_t st = jg_eval_outputs(j->w, t, err);
    if (!st) st = jg_eval_jacobians(j->w, err);
    j->st.outputs++;
    if (st) return st;
    zero_held(j);
    if ((st = jg__graph_replay(j->g, j->w, err))) return st;
    j->st.replays++;
    if (j->nr > 0) return eval_lft(j, J, err);
    const double *gx = jg__graph_values(j->g);
    memset(J->x, 0, sizeof(double) * (size_t)J->p[J->n]);
    if (j->sp.mapk) {   /* a sparsing: only what lands on kept entries */
        for (int64_t m = 0; m < j->sp.nmapk; m++) {
            int64_t k = j->sp.mapk[m];
            J->x[j->map_dst[k]] += gx[j->map_src[k]];
        }
        return JG_OK;
    }
    for (int64_t k = 0; k < j->nmap; k++) J->x[j->map_dst[k]] += gx[j->map_src[k]];
    return JG_OK;
}

jg_status_t jg_solverjac_eval(jg_solverjac_t *j, double t, const double *x, const double *fx, cs_dl *J,
                         jg_error_t *err)
{
    const cs_dl *P = j->P;
    if (!J || J->nz != -1 || J->m != P->m || J->n != P->n || J->p[J->n] != P->p[P->n])
        return jg_error_set(err, JG_ARG,
                            "solver Jacobian: expected a %lld x %lld compressed-column matrix "
                            "with %lld entries (jg_solverjac_alloc)",
                            (long long)P->m, (long long)P->n, (long long)P->p[P->n]);
    memmove(j->x0, x, sizeof(double) * (size_t)j->n);
    memcpy(jg_eval_states(j->w), j->x0, sizeof(double) * (size_t)j->n);
    jg_status_t st = is_analytical(j->method) ? eval_analytic(j, t, J, err)
                                               : eval_perturb(j, t, j->x0, fx, J, err);
    if (!st) j->st.jevals++;
    return st;
}

int jg_solverjac_solver_jac(double t, const double *x, const double *fx, cs_dl *J, void *user)
{
    jg_solverjac_t *j = user;
    return jg_solverjac_eval(j, t, x, fx, J, j->sink) ? -1 : 0;
}

void jg_solverjac_set_typical(jg_solverjac_t *j, double typ)
{
    if (j) j->typ = typ > 0 && isfinite(typ) ? typ : 1.0;
}

/* ---------------------------------------------------------------- sparsing */

const unsigned char *jg_solverjac_keep(const jg_solverjac_t *j) { return j->sp.keep; }

int64_t jg_solverjac_keep_from_drop(const cs_dl *S, const int64_t *drop, int64_t ndrop, unsigned char *keep)
{
    memset(keep, 1, (size_t)S->p[S->n]);
    for (int64_t k = 0; k < ndrop; k++) {
        int64_t i = drop[2 * k], j = drop[2 * k + 1];
        int64_t q = i < 0 || i >= S->m || j < 0 || j >= S->n ? -1 : find_entry(S, i, j);
        if (q < 0) return k;
        keep[q] = 0;
    }
    return -1;
}
int64_t jg_solverjac_nkept(const jg_solverjac_t *j) { return j->sp.keep ? j->sp.nkept : j->S->p[j->n]; }

jg_status_t jg_solverjac_set_keep(jg_solverjac_t *j, const unsigned char *keep, jg_error_t *err)
{
    if (!j) return jg_error_set(err, JG_ARG, "solver Jacobian: NULL object");
    const int64_t n = j->n, nz = j->S->p[n], nzP = j->P->p[n];
    jg_status_t st = JG_OK;
    grouping_t g = {0};
    sparsing_t sp = {0};
    if (keep) {
        sp.keep = malloc((size_t)nz + 1);
        sp.keepP = malloc((size_t)nzP + 1);
        sp.colkept = calloc((size_t)n + 1, 1);
        sp.mapk = malloc(sizeof(int64_t) * (size_t)(j->nmap + 1));
        if (!sp.keep || !sp.keepP || !sp.colkept || !sp.mapk) {
            st = nomem(err, "sparsing");
            goto done;
        }
        memcpy(sp.keep, keep, (size_t)nz);
        memset(sp.keepP, 1, (size_t)nzP);
        for (int64_t c = 0; c < n; c++)
            for (int64_t q = j->S->p[c]; q < j->S->p[c + 1]; q++) {
                sp.keep[q] = sp.keep[q] != 0;
                sp.nkept += sp.keep[q];
                if (sp.keep[q]) sp.colkept[c] = 1;
                else sp.keepP[j->D ? c * n + j->S->i[q] : q] = 0;
            }
        for (int64_t c = 0; c < n; c++) sp.ncolkept += sp.colkept[c];
        for (int64_t m = 0; m < j->nmap; m++)
            if (sp.keepP[j->map_dst[m]]) sp.mapk[sp.nmapk++] = m;
    }
    if ((st = grouping_make(j->S, sp.keep, &g, err))) goto done;
    /* everything is ready: swap it in (on failure j is unchanged); the old
     * ones are freed below */
    grouping_t og = j->grp;
    sparsing_t osp = j->sp;
    j->grp = g;
    j->sp = sp;
    g = og;
    sp = osp;
done:
    grouping_free(&g);
    sparsing_free(&sp);
    return st;
}
