/* Core: status list, error context, arena. */
#include <stdint.h>
#include <string.h>
#include "jacgraph/status.h"
#include "core/arena.h"   /* private: the arena allocator is a kernel tested directly */
#include "tap.h"

int main(void)
{
    tap_streq(jg_status_name(JG_SINGULAR_LOOP), "SINGULAR_LOOP", "status name");
    tap_streq(jg_strerror(JG_PARSE), "malformed JSON", "status description");
    tap_ok(jg_status_exit(JG_OK) == 0 && jg_status_exit(JG_MISMATCH) == 1 &&
               jg_status_exit(JG_ARG) == 2 && jg_status_exit(JG_IO) == 3 &&
               jg_status_exit(JG_PARAM) == 4 && jg_status_exit(JG_SINGULAR_LOOP) == 5 &&
               jg_status_exit(JG_NOMEM) == 70,
           "documented exit codes");
    tap_streq(jg_status_name((jg_status_t)999), "UNKNOWN", "out-of-range status");
    jg_error_t e;
    jg_status_t st = jg_error_set(&e, JG_WIDTH, "block '%s': %d", "A/B", 3);
    tap_ok(st == JG_WIDTH && e.status == JG_WIDTH && !strcmp(e.msg, "block 'A/B': 3"),
           "error_set formats and returns the status");
    tap_ok(jg_error_set(NULL, JG_IO, "x") == JG_IO, "error_set accepts NULL");
    jg_arena_t a;
    jg_arena_init(&a, 64);
    int aligned = 1, zero = 1;
    char *prev = NULL;
    for (int k = 0; k < 1000; k++) {
        char *p = jg_arena_alloc(&a, (size_t)(k % 37) + 1);
        aligned &= ((uintptr_t)p % 16) == 0;
        for (int j = 0; j < k % 37 + 1; j++) zero &= p[j] == 0;
        memset(p, 0xab, (size_t)(k % 37) + 1);
        prev = p;
    }
    (void)prev;
    char *big = jg_arena_alloc(&a, 1 << 20);
    tap_ok(aligned && zero && big, "arena: aligned, zeroed, large blocks");
    tap_streq(jg_arena_printf(&a, "%s(%d)", "x", 2), "x(2)", "arena printf");
    jg_arena_free(&a);
    tap_ok(a.head == NULL && a.used == 0, "arena free resets");
    return tap_done();
}
