/* gen_sb.c -- the generators' tracked allocations, failure jump and string builder. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "gen_impl.h"

void jg__gen_mem_init(jg__gen_mem_t *m, jg_error_t *err)
{
    m->live.l.prev = m->live.l.next = &m->live;
    m->err = err;
    m->st = JG_OK;
}

static void unlink_hdr(jg__gen_hdr_t *h)
{
    h->l.prev->l.next = h->l.next;
    h->l.next->l.prev = h->l.prev;
}

static void link_hdr(jg__gen_mem_t *m, jg__gen_hdr_t *h)
{
    h->l.prev = &m->live;
    h->l.next = m->live.l.next;
    m->live.l.next->l.prev = h;
    m->live.l.next = h;
}

_Noreturn void jg__gen_fail(jg__gen_mem_t *m, jg_status_t st, const char *fmt, ...)
{
    char msg[JG_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    m->st = st;
    jg_error_set(m->err, st, "%s", msg);
    longjmp(m->fail, 1);
}

void *jg__gen_realloc(jg__gen_mem_t *m, void *p, size_t n)
{
    jg__gen_hdr_t *h = p ? (jg__gen_hdr_t *)p - 1 : NULL;
    if (n > SIZE_MAX - sizeof *h) jg__gen_fail(m, JG_NOMEM, "generator: out of memory");
    if (h) unlink_hdr(h);
    jg__gen_hdr_t *q = realloc(h, sizeof *h + n);
    if (!q) {
        if (h) link_hdr(m, h);   /* still live: freed with the rest after the jump */
        jg__gen_fail(m, JG_NOMEM, "generator: out of memory (%zu bytes)", n);
    }
    link_hdr(m, q);
    return q + 1;
}

void *jg__gen_calloc(jg__gen_mem_t *m, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size) jg__gen_fail(m, JG_NOMEM, "generator: out of memory");
    void *p = jg__gen_realloc(m, NULL, n * size);
    memset(p, 0, n * size);
    return p;
}

void jg__gen_free(jg__gen_mem_t *m, void *p)
{
    (void)m;
    if (!p) return;
    jg__gen_hdr_t *h = (jg__gen_hdr_t *)p - 1;
    unlink_hdr(h);
    free(h);
}

void jg__gen_free_all(jg__gen_mem_t *m)
{
    while (m->live.l.next != &m->live) {
        jg__gen_hdr_t *h = m->live.l.next;
        unlink_hdr(h);
        free(h);
    }
}

/* Hand the text p over to the caller: it moves to the front of its block, over
 * the header, so that the caller frees it with free(). */
void *jg__gen_release(jg__gen_mem_t *m, void *p)
{
    jg__gen_hdr_t *h = (jg__gen_hdr_t *)p - 1;
    (void)m;
    unlink_hdr(h);
    memmove(h, p, strlen(p) + 1);
    return h;
}

/* ------------------------------------------------------ string builder */

void jg__gen_sb_init(jg__gen_sb_t *b, jg__gen_mem_t *m)
{
    memset(b, 0, sizeof *b);
    b->m = m;
}

static void sb_reserve(jg__gen_sb_t *b, size_t extra)
{
    if (b->n + extra + 1 <= b->cap) return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + extra + 1) cap *= 2;
    b->s = jg__gen_realloc(b->m, b->s, cap);
    b->cap = cap;
}

void jg__gen_sb_cat(jg__gen_sb_t *b, const char *s) { jg__gen_sb_catn(b, s, strlen(s)); }

void jg__gen_sb_catn(jg__gen_sb_t *b, const char *s, size_t n)
{
    sb_reserve(b, n);
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = '\0';
}

void jg__gen_sb_printf(jg__gen_sb_t *b, const char *fmt, ...)
{
    va_list ap;
    sb_reserve(b, 128);
    for (;;) {
        size_t room = b->cap - b->n;
        va_start(ap, fmt);
        int n = vsnprintf(b->s + b->n, room, fmt, ap);
        va_end(ap);
        if (n < 0) jg__gen_fail(b->m, JG_INTERNAL, "generator: formatting '%s' failed", fmt);
        if ((size_t)n < room) {
            b->n += (size_t)n;
            return;
        }
        sb_reserve(b, (size_t)n);
    }
}

void jg__gen_sb_free(jg__gen_sb_t *b)
{
    jg__gen_free(b->m, b->s);
    b->s = NULL;
    b->n = b->cap = 0;
}
