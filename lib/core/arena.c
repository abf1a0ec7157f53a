/* Bump allocator with chunk list; everything is released by one jg_arena_free. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "arena.h"

struct jg__chunk {
    jg__chunk_t *next;
    size_t size, off;
    _Alignas(16) unsigned char data[];
};

void jg_arena_init(jg_arena_t *a, size_t chunk_size)
{
    a->head = NULL;
    a->chunk_size = chunk_size ? chunk_size : 1 << 16;
    a->used = 0;
}

void *jg_arena_alloc(jg_arena_t *a, size_t size)
{
    size = (size + 15) & ~(size_t)15;
    jg__chunk_t *c = a->head;
    if (!c || c->size - c->off < size) {
        size_t cap = size > a->chunk_size ? size : a->chunk_size;
        c = calloc(1, sizeof *c + cap);
        if (!c) return NULL;
        c->size = cap;
        c->next = a->head;
        a->head = c;
        /* grow chunks geometrically so huge models need few of them */
        if (a->chunk_size < (1u << 24)) a->chunk_size *= 2;
    }
    void *p = c->data + c->off;
    c->off += size;
    a->used += size;
    return p;
}

char *jg_arena_strdup(jg_arena_t *a, const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = jg_arena_alloc(a, n);
    if (d) memcpy(d, s, n);
    return d;
}

char *jg_arena_printf(jg_arena_t *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return NULL;
    char *d = jg_arena_alloc(a, (size_t)n + 1);
    if (!d) return NULL;
    va_start(ap, fmt);
    vsnprintf(d, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return d;
}

void jg_arena_free(jg_arena_t *a)
{
    jg__chunk_t *c = a->head;
    while (c) {
        jg__chunk_t *n = c->next;
        free(c);
        c = n;
    }
    a->head = NULL;
    a->used = 0;
}
