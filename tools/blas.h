/* blas.h -- the CLI's use of OpenBLAS (tools/blas.c). */
#ifndef JG_CLI_BLAS_H
#define JG_CLI_BLAS_H

/* One BLAS thread, and the pool OpenBLAS started when it was loaded ended
 * (see blas.c).  Call first in main(), before any thread of our own; the
 * benchmarks call it too, so that they measure what the CLI runs.  Never
 * fails: a BLAS without these entry points is left as it is. */
void cli_blas_quiet(void);

#endif
