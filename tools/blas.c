/* OpenBLAS (openblas-pthread) would start a thread pool that spins on every
 * LAPACK call; our dense problems are loop blocks of a few dozen unknowns.
 * One thread stops the pool being used, but the pool started when the library
 * was loaded still spins out its idle timeout, about 0.1 s of CPU on the
 * other core -- the core that the page-populating thread (heap.c) and, under
 * mpirun, another rank need, and that a benchmark would count as the run's
 * (bench_batch: 3.5 % of a batch's process CPU time).  OpenBLAS's own fork
 * handler, blas_thread_shutdown_, ends those threads.  Both are weak: a BLAS
 * without them is fine. */
#include "blas.h"

void openblas_set_num_threads(int num_threads) __attribute__((weak));
int blas_thread_shutdown_(void) __attribute__((weak));

void cli_blas_quiet(void)
{
    if (openblas_set_num_threads) openblas_set_num_threads(1);
    if (blas_thread_shutdown_) blas_thread_shutdown_();
}
