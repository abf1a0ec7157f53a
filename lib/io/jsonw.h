/* A JSON text written straight into a byte buffer, byte for byte as
 * jansson's json_dumpf(..., JSON_ENCODE_ANY | JSON_PRESERVE_ORDER |
 * JSON_REAL_PRECISION(17)) writes the same values (lib/io, internal).
 *
 * The linear model writers (json.c, batch_jsonl.c) once built a jansson tree
 * of every matrix entry and dumped it: ~1 us per number, most of a batch's
 * time.  These functions append the same bytes at ~50 ns per number. */
#ifndef JG_IO_JSONW_H
#define JG_IO_JSONW_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cs.h>

typedef struct jg__io_jw {
    char *buf;
    size_t len, cap;
    FILE *f;      /* the sink: a full buffer goes there; NULL: the buffer grows */
    int nomem;    /* an allocation failed: later writes do nothing */
    int ioerr;    /* writing to f failed: later writes do nothing */
} jg__io_jw_t;

/* An empty writer; with f, a fixed buffer of `cap` bytes (>= 64) emptied
 * into f as it fills, else a buffer that grows (cap: its first size).
 * Returns 0, or -1 (w->nomem set) when the buffer cannot be allocated. */
int jg__io_jw_init(jg__io_jw_t *w, FILE *f, size_t cap);
/* Release the buffer (not f). */
void jg__io_jw_free(jg__io_jw_t *w);
/* Write the buffered bytes to f and empty the buffer; 0, or -1 (w->ioerr). */
int jg__io_jw_flush(jg__io_jw_t *w);

/* Append n bytes as they are. */
void jg__io_jw_raw(jg__io_jw_t *w, const char *s, size_t n);
/* A JSON integer ("%lld"). */
void jg__io_jw_int(jg__io_jw_t *w, int64_t v);
/* A JSON real as jansson writes it: "%.17g" with ".0" added when it has
 * neither '.' nor 'e', the exponent without '+' and leading zeros; null
 * for inf and nan (JSON has neither). */
void jg__io_jw_real(jg__io_jw_t *w, double v);
/* A JSON string as jansson escapes it: \" \\ \b \f \n \r \t, other control
 * characters \u00XX, every other byte as it is.  s must be UTF-8 (the
 * callers check names with jg__io_utf8_ok: jansson refused the rest). */
void jg__io_jw_string(jg__io_jw_t *w, const char *s);
/* A name list as a JSON array of strings; NULL v or entries are the
 * default names pfx1, pfx2, ... (x1, u1, y1). */
void jg__io_jw_names(jg__io_jw_t *w, char *const *v, int64_t n, char pfx);
/* [v0, v1, ...] of jg__io_jw_real. */
void jg__io_jw_reals(jg__io_jw_t *w, const double *v, int64_t n);
/* M as {"rows": m, "cols": n, "i": [...], "j": [...], "x": [...]}: the
 * 0-based triplets of its jg__io_canonical form in column-major order.
 * Sets w->nomem when that copy cannot be made.  Cost: O(nnz) (plus the
 * copy when M is not canonical). */
void jg__io_jw_matrix(jg__io_jw_t *w, const cs_dl *M);

#endif
