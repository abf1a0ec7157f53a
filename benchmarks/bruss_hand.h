/* bruss_hand.h -- the 2-D Brusselator written by hand against SUNDIALS CVODE
 * (benchmarks/bruss_hand.c): the reference of benchmarks/stiff_hand.c and
 * benchmarks/bench_stiff.c. */
#ifndef JG_BENCH_BRUSS_HAND_H
#define JG_BENCH_BRUSS_HAND_H
#include <stddef.h>
#include <stdint.h>

typedef struct sh_bruss {
    int64_t nx, ny, M;               /* grid, M = nx ny points, 2 M states */
    double A, B, gx, gy, ku, kv;     /* the diagram's Constant and Gains */
} sh_bruss_t;

typedef struct sh_opts {
    double t0, tstop, rtol, atol, max_step;   /* max_step 0: (tstop - t0) / 50 */
} sh_opts_t;

typedef struct sh_stats {
    long steps, fevals, jevals, setups, err_fails, conv_fails;
    double seconds, cpu_seconds;     /* set-up to free: wall clock, process CPU time */
} sh_stats_t;

/* The parameters of an nx x ny grid, as the generator prints them. */
void sh_bruss_init(sh_bruss_t *b, int64_t nx, int64_t ny);
/* dx = f(x) */
void sh_bruss_rhs(const sh_bruss_t *b, const double *x, double *dx);
/* J into a compressed-column matrix with room for 6 entries per column. */
void sh_bruss_jac(const sh_bruss_t *b, const double *x, int64_t *colptr, int64_t *rowind, double *val);
/* Integrate from x[2M] at o->t0 to o->tstop; x(tstop) back in x.  Returns 0,
 * or -1 with a message (CVODE's flag name) in msg. */
int sh_solve(const sh_bruss_t *b, const sh_opts_t *o, double *x, sh_stats_t *st, char *msg, size_t msglen);
double sh_now(void);   /* CLOCK_MONOTONIC seconds */
double sh_cpu(void);   /* CPU seconds of this process */

#endif
