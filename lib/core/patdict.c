/* A dictionary of sparsity patterns (patdict.h): each distinct pattern
 * stored once, found again by comparing with the last one or by hash. */
#include <stdlib.h>
#include <string.h>
#include "patdict.h"

void jg__patdict_init(jg__patdict_t *d, int64_t n)
{
    memset(d, 0, sizeof *d);
    d->n = n;
    d->last = -1;
}

void jg__patdict_free(jg__patdict_t *d)
{
    free(d->colp);
    free(d->rstart);
    free(d->rows);
    free(d->hash);
    free(d->slot);
    jg__patdict_init(d, d->n);
}

/* FNV-1a over the column pointers and the row indices. */
static uint64_t hash_of(const cs_dl *S)
{
    uint64_t h = 1469598103934665603ULL;
    const int64_t nz = S->p[S->n];
    for (int64_t j = 0; j <= S->n; j++) h = (h ^ (uint64_t)S->p[j]) * 1099511628211ULL;
    for (int64_t p = 0; p < nz; p++) h = (h ^ (uint64_t)S->i[p]) * 1099511628211ULL;
    return h;
}

static int same(const jg__patdict_t *d, int64_t t, const cs_dl *S)
{
    const int64_t *cp = d->colp + t * (d->n + 1), nz = S->p[S->n];
    return d->rstart[t + 1] - d->rstart[t] == nz &&
           !memcmp(cp, S->p, sizeof(int64_t) * (size_t)(d->n + 1)) &&
           (nz == 0 || !memcmp(d->rows + d->rstart[t], S->i, sizeof(int64_t) * (size_t)nz));
}

/* Put pattern t into the open-addressing table (nslot a power of 2). */
static void place(jg__patdict_t *d, int64_t t)
{
    uint64_t mask = (uint64_t)d->nslot - 1;
    for (uint64_t s = d->hash[t] & mask;; s = (s + 1) & mask)
        if (d->slot[s] < 0) {
            d->slot[s] = t;
            return;
        }
}

/* Room for one more pattern of nz entries (the table kept at most half full). */
static int reserve(jg__patdict_t *d, int64_t nz)
{
    if (d->npat == d->cap) {
        int64_t c = d->cap ? 2 * d->cap : 4;
        int64_t *cp = realloc(d->colp, sizeof(int64_t) * (size_t)(c * (d->n + 1)));
        if (cp) d->colp = cp;
        int64_t *rs = realloc(d->rstart, sizeof(int64_t) * (size_t)(c + 1));
        if (rs) d->rstart = rs;
        uint64_t *h = realloc(d->hash, sizeof(uint64_t) * (size_t)c);
        if (h) d->hash = h;
        if (!cp || !rs || !h) return -1;
        if (d->cap == 0) d->rstart[0] = 0;
        d->cap = c;
    }
    if (d->nrows + nz > d->rcap) {
        int64_t c = d->rcap ? d->rcap : 1024;
        while (c < d->nrows + nz) c *= 2;
        int64_t *r = realloc(d->rows, sizeof(int64_t) * (size_t)c);
        if (!r) return -1;
        d->rows = r, d->rcap = c;
    }
    if (2 * (d->npat + 1) > d->nslot) {
        int64_t ns = d->nslot ? 2 * d->nslot : 16;
        int64_t *sl = malloc(sizeof(int64_t) * (size_t)ns);
        if (!sl) return -1;
        free(d->slot);
        d->slot = sl, d->nslot = ns;
        for (int64_t s = 0; s < ns; s++) sl[s] = -1;
        for (int64_t t = 0; t < d->npat; t++) place(d, t);
    }
    return 0;
}

int64_t jg__patdict_id(jg__patdict_t *d, const cs_dl *S)
{
    if (d->n < 0 && d->npat == 0) d->n = S->n;   /* the first pattern's columns */
    if (S->n != d->n) return -1;
    /* the points of a batch mostly repeat the previous point's pattern */
    if (d->last >= 0 && d->last < d->npat && same(d, d->last, S)) return d->last;
    uint64_t h = hash_of(S), mask = (uint64_t)d->nslot - 1;
    for (uint64_t s = h & mask; d->nslot && d->slot[s] >= 0; s = (s + 1) & mask) {
        int64_t t = d->slot[s];
        if (d->hash[t] == h && same(d, t, S)) return d->last = t;
    }
    int64_t nz = S->p[S->n], t = d->npat;
    if (reserve(d, nz)) return -1;
    memcpy(d->colp + t * (d->n + 1), S->p, sizeof(int64_t) * (size_t)(d->n + 1));
    if (nz) memcpy(d->rows + d->nrows, S->i, sizeof(int64_t) * (size_t)nz);
    d->nrows += nz;
    d->rstart[t + 1] = d->nrows;
    d->hash[t] = h;
    d->npat++;
    place(d, t);
    return d->last = t;
}

void jg__patdict_get(const jg__patdict_t *d, int64_t t, const int64_t **colp, const int64_t **rows,
                     int64_t *nnz)
{
    *colp = d->colp + t * (d->n + 1);
    *rows = d->rows + d->rstart[t];
    *nnz = d->rstart[t + 1] - d->rstart[t];
}

void jg__patdict_triplets(const jg__patdict_t *d, int64_t *ri, int64_t *ci)
{
    for (int64_t t = 0; t < d->npat; t++) {
        const int64_t *cp = d->colp + t * (d->n + 1), *rows = d->rows + d->rstart[t];
        for (int64_t j = 0; j < d->n; j++)
            for (int64_t p = cp[j]; p < cp[j + 1]; p++) {
                ri[d->rstart[t] + p] = rows[p];
                ci[d->rstart[t] + p] = j;
            }
    }
}
