/* stiff_hand.c -- the 2-D Brusselator of `jacgraph generate brusselator`
 * written by hand against SUNDIALS CVODE (benchmarks/bruss_hand.c), as a
 * program:
 *
 *   stiff_hand NX NY [TSTOP [RTOL [ATOL]]]      (defaults 1, 1e-6, 1e-6)
 *
 * integrates the ODE on an NX x NY grid from Hairer's initial values (the
 * generator's --seed 0) over [0, TSTOP] and prints the statistics, the time
 * and a checksum of x(TSTOP). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "bruss_hand.h"

/* Hairer's initial values as the generator writes them with --seed 0:
 * u0 = 22 y (1 - y)^(3/2), v0 = 27 x (1 - x)^(3/2), rounded to 1e-4. */
static double sh_ic(int c, int64_t k, int64_t n)
{
    double w = (double)k / (double)n, r = 1.0 - w;
    return (double)llround(1e4 * c * w * r * sqrt(r)) / 1e4;
}

static void sh_bruss_x0(const sh_bruss_t *b, double *x)
{
    for (int64_t j = 0; j < b->ny; j++)
        for (int64_t i = 0; i < b->nx; i++) {
            x[i + b->nx * j] = sh_ic(22, j + 1, b->ny);
            x[b->M + i + b->nx * j] = sh_ic(27, i + 1, b->nx);
        }
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 6) {
        fprintf(stderr, "usage: stiff_hand NX NY [TSTOP [RTOL [ATOL]]]   (NX, NY >= 3; defaults 1, 1e-6, 1e-6)\n");
        return 2;
    }
    long long nx = atoll(argv[1]), ny = atoll(argv[2]);
    sh_opts_t o = {0, argc > 3 ? atof(argv[3]) : 1, argc > 4 ? atof(argv[4]) : 1e-6,
                   argc > 5 ? atof(argv[5]) : 1e-6, 0};
    if (nx < 3 || ny < 3 || !(o.tstop > 0) || !(o.rtol > 0) || !(o.atol > 0)) {
        fprintf(stderr, "stiff_hand: NX, NY >= 3 and positive TSTOP, RTOL, ATOL expected\n");
        return 2;
    }
    sh_bruss_t b;
    sh_bruss_init(&b, nx, ny);
    double *x = malloc(sizeof(double) * (size_t)(2 * b.M));
    if (!x) return 2;
    sh_bruss_x0(&b, x);
    sh_stats_t st;
    char msg[256];
    if (sh_solve(&b, &o, x, &st, msg, sizeof msg)) {
        fprintf(stderr, "%s\n", msg);
        free(x);
        return 1;
    }
    double sum = 0, mx = 0;
    for (int64_t k = 0; k < 2 * b.M; k++) sum += x[k], mx = fmax(mx, fabs(x[k]));
    printf("brusselator %lldx%lld (%lld states), t = [0, %g], rtol %g, atol %g: %.3f s (CPU %.3f s), %ld steps "
           "(%ld error-test and %ld convergence failures), %ld f, %ld Jacobians, %ld factorizations; "
           "sum x = %.12g, max |x| = %.12g\n",
           nx, ny, 2 * nx * ny, o.tstop, o.rtol, o.atol, st.seconds, st.cpu_seconds, st.steps, st.err_fails, st.conv_fails,
           st.fevals, st.jevals, st.setups, sum, mx);
    free(x);
    return 0;
}
