/* bruss_hand.c -- the 2-D Brusselator of `jacgraph generate brusselator`
 * written by hand against SUNDIALS CVODE: the reference of the whole-run
 * overhead in benchmarks/bench_stiff.c, and the library of the stand-alone
 * benchmarks/stiff_hand.c.  bench_stiff calls sh_solve on the generated
 * model's own initial values, so that both runs integrate the same numbers.
 *
 * The ODE (docs/generator.md, "brusselator"): on the periodic grid, element
 * k = i + nx j,
 *
 *   u' = A + u^2 v + KU u + GX (u_E + u_W) + GY (u_N + u_S)
 *   v' = KB u - u^2 v + KV v + GX (v_E + v_W) + GY (v_N + v_S)
 *
 * A = 1, KB = B = 3.4, GX = alpha nx^2, GY = alpha ny^2 (alpha = 0.1),
 * KU = -(B + 1) - 2 (GX + GY), KV = -2 (GX + GY); the state vector is
 * [u; v].  Each expression is evaluated in the order the block diagram's Sum
 * blocks add their inputs (the generator's DU = A + P + KU u + GUX (UE + UW)
 * + GUY (UN + US), P = (u u) v, DV = KB u - P + ...), and the parameters are
 * the doubles nearest to the same exact decimals, so f here and f of the
 * diagram agree to the last bit (bench_stiff checks it).
 *
 * The Jacobian is analytic and sparse: per column six entries (the state
 * itself, its four neighbours of the same species, the other species at the
 * same point), written into CVODE's compressed-column SUNSparseMatrix with the
 * rows of each column sorted, the pattern jg_solverjac_structure gives for the
 * diagram.  Linear solver KLU (SUNLinSol_KLU).  CVODE options as lib/sim/cvode.c
 * sets them: BDF, maximum order 5, scalar tolerances, CVODE's own initial
 * step, the given maximum step (jacgraph's default (tstop - t0)/50), stop time
 * tstop.  What a hand-written program does not need and lib/sim/cvode.c does
 * (one CVode call per step, the simulation loop around it) is the overhead
 * measured.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cvode/cvode.h>
#include <cvode/cvode_ls.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include "bruss_hand.h"

/* The parameters of an nx x ny grid, as the generator prints them: exact
 * decimals of integers (nx^2 / 10, ...), here the same rationals divided in
 * double, hence the same doubles. */
void sh_bruss_init(sh_bruss_t *b, int64_t nx, int64_t ny)
{
    b->nx = nx;
    b->ny = ny;
    b->M = nx * ny;
    b->A = 1;
    b->B = 34 / 10.0;
    b->gx = (double)(nx * nx) / 10.0;
    b->gy = (double)(ny * ny) / 10.0;
    b->ku = -(double)(44 + 2 * nx * nx + 2 * ny * ny) / 10.0;
    b->kv = -(double)(2 * nx * nx + 2 * ny * ny) / 10.0;
}

/* dx = f(x) */
void sh_bruss_rhs(const sh_bruss_t *b, const double *x, double *dx)
{
    const int64_t nx = b->nx, ny = b->ny, M = b->M;
    const double *u = x, *v = x + M;
    double *du = dx, *dv = dx + M;
    for (int64_t j = 0; j < ny; j++) {
        const int64_t jn = (j + 1 == ny ? 0 : j + 1) * nx, js = (j == 0 ? ny - 1 : j - 1) * nx;
        for (int64_t i = 0; i < nx; i++) {
            const int64_t k = i + nx * j, e = (i + 1 == nx ? 0 : i + 1) + nx * j,
                          w = (i == 0 ? nx - 1 : i - 1) + nx * j;
            const double p = u[k] * u[k] * v[k];
            du[k] = b->A + p + b->ku * u[k] + b->gx * (u[e] + u[w]) + b->gy * (u[i + jn] + u[i + js]);
            dv[k] = b->B * u[k] - p + b->kv * v[k] + b->gx * (v[e] + v[w]) + b->gy * (v[i + jn] + v[i + js]);
        }
    }
}

/* Rows of column c (a point k of species 0 = u, 1 = v) with their values,
 * sorted by row: the same species at k and its 4 neighbours, the other
 * species at k. */
static int sh_bruss_column(const sh_bruss_t *b, const double *x, int64_t c, int64_t *row, double *val)
{
    const int64_t nx = b->nx, ny = b->ny, M = b->M;
    const int64_t sp = c >= M, k = c - sp * M, i = k % nx, j = k / nx, off = sp * M;
    const double u = x[k], v = x[M + k];
    int64_t r[6];
    double a[6];
    r[0] = off + k;
    a[0] = sp ? b->kv - u * u : b->ku + 2 * u * v;
    r[1] = off + (i + 1 == nx ? 0 : i + 1) + nx * j;
    r[2] = off + (i == 0 ? nx - 1 : i - 1) + nx * j;
    r[3] = off + i + nx * (j + 1 == ny ? 0 : j + 1);
    r[4] = off + i + nx * (j == 0 ? ny - 1 : j - 1);
    a[1] = a[2] = b->gx;
    a[3] = a[4] = b->gy;
    r[5] = sp ? k : M + k;                 /* d(u')/dv = u^2, d(v')/du = B - 2 u v */
    a[5] = sp ? u * u : b->B - 2 * u * v;
    /* insertion sort of 6 (nx, ny >= 3: the rows are distinct) */
    for (int p = 1; p < 6; p++)
        for (int q = p; q > 0 && r[q - 1] > r[q]; q--) {
            int64_t tr = r[q];
            double ta = a[q];
            r[q] = r[q - 1], a[q] = a[q - 1];
            r[q - 1] = tr, a[q - 1] = ta;
        }
    memcpy(row, r, sizeof r);
    memcpy(val, a, sizeof a);
    return 6;
}

/* J into a compressed-column matrix with room for 6 entries per column. */
void sh_bruss_jac(const sh_bruss_t *b, const double *x, int64_t *colptr, int64_t *rowind, double *val)
{
    const int64_t n = 2 * b->M;
    int64_t nz = 0;
    for (int64_t c = 0; c < n; c++) {
        colptr[c] = nz;
        nz += sh_bruss_column(b, x, c, rowind + nz, val + nz);
    }
    colptr[n] = nz;
}

/* ------------------------------------------------------------- CVODE */

static int sh_f(realtype t, N_Vector y, N_Vector ydot, void *user)
{
    (void)t;
    sh_bruss_rhs(user, NV_DATA_S(y), NV_DATA_S(ydot));
    return 0;
}

static int sh_jac(realtype t, N_Vector y, N_Vector fy, SUNMatrix J, void *user, N_Vector t1, N_Vector t2,
                  N_Vector t3)
{
    (void)t, (void)fy, (void)t1, (void)t2, (void)t3;
    /* CVODE zeroes the matrix, index arrays included, before each call */
    sh_bruss_jac(user, NV_DATA_S(y), SM_INDEXPTRS_S(J), SM_INDEXVALS_S(J), SM_DATA_S(J));
    return 0;
}

double sh_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU time of this process: on a shared machine the wall clock also counts
 * the time other processes held the cores */
double sh_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Integrate from x[2M] at o->t0 to o->tstop; x(tstop) back in x.  Returns 0,
 * or -1 with a message (CVODE's flag name) in msg. */
int sh_solve(const sh_bruss_t *b, const sh_opts_t *o, double *x, sh_stats_t *st, char *msg, size_t msglen)
{
    const int64_t n = 2 * b->M;
    SUNContext ctx = NULL;
    void *mem = NULL;
    N_Vector y = NULL;
    SUNMatrix A = NULL;
    SUNLinearSolver LS = NULL;
    int rc = -1, flag = 0;
    const char *what = "set-up";
    memset(st, 0, sizeof *st);
    double t0 = sh_now(), c0 = sh_cpu();
    if (SUNContext_Create(NULL, &ctx)) goto done;
    y = N_VNew_Serial(n, ctx);
    mem = CVodeCreate(CV_BDF, ctx);
    A = SUNSparseMatrix(n, n, 6 * n, CSC_MAT, ctx);
    if (!y || !mem || !A) goto done;
    memcpy(NV_DATA_S(y), x, sizeof(double) * (size_t)n);
    LS = SUNLinSol_KLU(y, A, ctx);
    if (!LS) goto done;
    SUNLinSol_KLUSetOrdering(LS, 0);   /* AMD, as lib/sim/cvode.c */
    double hmax = o->max_step > 0 ? o->max_step : (o->tstop - o->t0) / 50;
    what = "CVODE options";
    if ((flag = CVodeInit(mem, sh_f, o->t0, y)) || (flag = CVodeSetUserData(mem, (void *)b)) ||
        (flag = CVodeSStolerances(mem, o->rtol, o->atol)) || (flag = CVodeSetMaxOrd(mem, 5)) ||
        (flag = CVodeSetMaxNumSteps(mem, 1000000000L)) || (flag = CVodeSetMaxStep(mem, hmax)) ||
        (flag = CVodeSetStopTime(mem, o->tstop)) || (flag = CVodeSetLinearSolver(mem, LS, A)) ||
        (flag = CVodeSetJacFn(mem, sh_jac)))
        goto done;
    realtype t = o->t0;
    what = "CVode";
    flag = CVode(mem, o->tstop, y, &t, CV_NORMAL);
    if (flag < 0) goto done;
    memcpy(x, NV_DATA_S(y), sizeof(double) * (size_t)n);
    long nfels = 0;
    CVodeGetNumSteps(mem, &st->steps);
    CVodeGetNumRhsEvals(mem, &st->fevals);
    CVodeGetNumLinRhsEvals(mem, &nfels);
    st->fevals += nfels;
    CVodeGetNumJacEvals(mem, &st->jevals);
    CVodeGetNumLinSolvSetups(mem, &st->setups);
    CVodeGetNumErrTestFails(mem, &st->err_fails);
    CVodeGetNumStepSolveFails(mem, &st->conv_fails);
    rc = 0;
done:
    if (mem) CVodeFree(&mem);
    if (LS) SUNLinSolFree(LS);
    if (A) SUNMatDestroy(A);
    if (y) N_VDestroy(y);
    if (ctx) SUNContext_Free(&ctx);
    st->seconds = sh_now() - t0;
    st->cpu_seconds = sh_cpu() - c0;
    if (rc && msg) {
        char *name = flag ? CVodeGetReturnFlagName(flag) : NULL;
        snprintf(msg, msglen, "stiff_hand: %s failed (%s)", what, name ? name : "out of memory");
        free(name);
    }
    return rc;
}

