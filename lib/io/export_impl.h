/* Helpers shared by the engineering exports (MATLAB/Octave script, MAT-file,
 * Python script; lib/io, internal). */
#ifndef JG_IO_EXPORT_IMPL_H
#define JG_IO_EXPORT_IMPL_H
#include <stddef.h>
#include <stdint.h>
#include <cs.h>
#include "jacgraph/io.h"

/* The sample time the exports write: the one place it is read from a
 * jg_lin_sys_t (0: continuous time). */
double jg__io_sample_time(const jg_lin_sys_t *s);
/* Name k of v (NULL or a NULL entry: "x1", "u2"... with prefix pfx, written
 * into buf of at least 32 bytes). */
const char *jg__io_name(char *const *v, int64_t k, char pfx, char *buf);
/* 1 when S (sorted, as jg__io_sorted) is written as a sparse matrix under
 * mode (jg_io_sparse_t; see jg_io_export_opts_t for the automatic rule). */
int jg__io_want_sparse(const cs_dl *S, int mode);
/* 1 when s[0..n) is well-formed UTF-8 (no overlong forms, no surrogates). */
int jg__io_utf8_ok(const char *s, size_t n);
/* Check shapes and names of s for an export called `what`; JG_ARG naming
 * the matrix or the name otherwise. */
jg_status_t jg__io_export_check(const jg_lin_sys_t *s, const char *what, jg_error_t *err);
/* The variable-name suffix of o ("" when none); JG_ARG unless it is letters,
 * digits and underscores only (it ends MATLAB and Python identifiers). */
jg_status_t jg__io_suffix(const jg_io_export_opts_t *o, const char *what, const char **suffix,
                          jg_error_t *err);

#endif
