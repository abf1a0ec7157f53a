/* Helpers shared by the writers (lib/io, internal). */
#ifndef JG_IO_IMPL_H
#define JG_IO_IMPL_H
#include <stdint.h>
#include <stdio.h>
#include <cs.h>
#include "jacgraph/status.h"

/* A copy with rows sorted within each column, duplicates summed, zeros
 * dropped, so every writer's output is deterministic whatever order the
 * producer left.  NULL when out of memory. */
cs_dl *jg__io_sorted(const cs_dl *M);
/* 1 when M is already what jg__io_sorted would make of it (rows increasing
 * within each column, no zero stored).  Cost: O(nnz). */
int jg__io_clean(const cs_dl *M);
/* M itself when it is clean, else its sorted copy, which *own receives (free
 * it with cs_dl_spfree; *own is NULL when M is returned).  NULL when out of
 * memory.  The writers called once per point use it: the linearizer's
 * matrices are usually clean, and the copy was most of a point's writing. */
const cs_dl *jg__io_canonical(const cs_dl *M, cs_dl **own);
/* M is a compressed-column m x n matrix with values. */
int jg__io_shape_ok(const cs_dl *M, int64_t m, int64_t n);
/* s's delays are consistent: 0 <= ndelays <= nu, ny, with the times. */
struct jg_lin_sys;
int jg__io_delays_ok(const struct jg_lin_sys *s);
/* Remove a partly written output, but only a regular file: the path may name
 * a device or a link such as /dev/stdout, which must survive a failed write. */
void jg__io_discard(const char *path);
/* Close a written output: JG_OK, or (bad set by the caller, a stream error,
 * a failed close) the file discarded and JG_IO "path: cannot write: why". */
jg_status_t jg__io_close(FILE *f, int bad, const char *path, jg_error_t *err);
/* How the Matrix Market writer spreads a large matrix's entries over threads
 * (mm_entries.c): threads in all, the caller's included (below 2: none
 * started); from how many entries (fewer: the serial writer); entries per
 * chunk.  The output's bytes do not depend on them. */
typedef struct {
    int threads;
    int64_t min_nnz, chunk;
} jg__io_mm_par_t;
/* The defaults: the cores of the process's CPU affinity (at most 4), from
 * 32,768 entries, chunks of 8,192. */
void jg__io_mm_par_default(jg__io_mm_par_t *par);
/* S's entries as "ROW COL VALUE\n" lines (1-based, %.17g values) to f, in
 * S's order, serially or on threads (par NULL: serially).  A write error
 * stops it with ferror(f) set and errno the write's, for jg__io_close.  Out
 * of memory or a thread that does not start falls back to fewer threads or
 * none: the same bytes.  Cost: O(nnz), ~3 MB of buffers on two threads. */
void jg__io_mm_entries(FILE *f, const cs_dl *S, const jg__io_mm_par_t *par);
/* jg_io_write_linsys_mm with par for the matrices' entries (NULL: the
 * defaults); the tests force the threads on small models with it. */
jg_status_t jg__io_write_linsys_mm_par(const char *prefix, const struct jg_lin_sys *s,
                                       const jg__io_mm_par_t *par, jg_error_t *err);
/* v as snprintf(buf, 32, "%.17g", v) writes it, byte for byte (fmt17.c:
 * exact integer rounding, ~10x faster); returns the length.  buf holds >= 32
 * bytes, and those past the returned length may be overwritten. */
int jg__io_fmt17(char *buf, double v);
/* v in decimal at o (at most 20 bytes, no NUL); returns the end (jsonw.c). */
char *jg__io_put_u64(char *o, uint64_t v);

#endif
