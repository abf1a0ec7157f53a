/* arena.h -- bump allocator for compile-time structures (internal to libjacgraph).
 *
 * Blocks, ports, patterns and names live as long as the program that owns them;
 * allocating them from an arena makes a million-block compile cost a few large
 * mallocs instead of millions, and frees everything at once.
 */
#ifndef JG_CORE_ARENA_H
#define JG_CORE_ARENA_H
#include <stddef.h>

typedef struct jg__chunk jg__chunk_t;
typedef struct jg_arena {
    jg__chunk_t *head;   /* current chunk; older ones linked behind it */
    size_t chunk_size;   /* default size of a new chunk */
    size_t used;         /* bytes handed out (for memory statistics) */
} jg_arena_t;

void jg_arena_init(jg_arena_t *a, size_t chunk_size);
/* 16-byte aligned, zero-filled; NULL when out of memory. */
void *jg_arena_alloc(jg_arena_t *a, size_t size);
char *jg_arena_strdup(jg_arena_t *a, const char *s);
char *jg_arena_printf(jg_arena_t *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void jg_arena_free(jg_arena_t *a);   /* releases every chunk; a may be reused after init */

#endif
