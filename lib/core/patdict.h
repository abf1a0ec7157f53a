/* lib/core/patdict.h -- a dictionary of sparsity patterns: each distinct
 * pattern of an m x n compressed-column matrix stored once, ids 0, 1, ... in
 * order of first appearance.  The batch files keep one per matrix (a file
 * holds the same bytes whatever order its points were computed in) and MPI
 * ranks one per matrix and peer (a pattern crosses the wire once).
 * Internal (jg__*); later modules include it. */
#ifndef JG_CORE_PATDICT_H
#define JG_CORE_PATDICT_H
#include <stdint.h>
#include <cs.h>

typedef struct {
    int64_t n;                 /* columns (-1: taken from the first pattern) */
    int64_t npat, cap;
    int64_t *colp;             /* cap x (n + 1): pattern t's column pointers at t (n + 1) */
    int64_t *rstart;           /* cap + 1: pattern t's rows at rows[rstart[t] .. rstart[t + 1]) */
    int64_t *rows;
    int64_t nrows, rcap;
    uint64_t *hash;            /* per pattern */
    int64_t *slot, nslot;      /* open addressing over the ids (-1 empty), half full at most */
    int64_t last;              /* the id found last (-1: none), compared first */
} jg__patdict_t;

/* An empty dictionary of n-column patterns (n = -1: the first pattern's). */
void jg__patdict_init(jg__patdict_t *d, int64_t n);
void jg__patdict_free(jg__patdict_t *d);

/* The id of S's pattern (S->p and S->i: column pointers from 0 and the rows
 * of each column, as the caller's canonical form keeps them), added when new;
 * -1 when out of memory or S has another number of columns.  The previous
 * id's pattern is compared first (points mostly repeat it), then a hash.
 * Cost: O(n + nnz). */
int64_t jg__patdict_id(jg__patdict_t *d, const cs_dl *S);

/* Pattern t's column pointers (n + 1 of them) and rows (*nnz of them), views
 * into d valid until the next jg__patdict_id or free. */
void jg__patdict_get(const jg__patdict_t *d, int64_t t, const int64_t **colp, const int64_t **rows,
                     int64_t *nnz);

/* Every pattern's 0-based row and column indices, concatenated in id order
 * (d->nrows each; pattern t from d->rstart[t]). */
void jg__patdict_triplets(const jg__patdict_t *d, int64_t *ri, int64_t *ci);

#endif
