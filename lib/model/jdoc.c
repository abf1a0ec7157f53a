/* The compact JSON document: member lookup by key, object indexing, and the copy of a jansson tree. */
#include <stdlib.h>
#include <string.h>
#include "model_internal.h"

uint32_t jg__jv_hash(const char *key)
{
    uint32_t h = 2166136261u;   /* FNV-1a */
    for (; *key; key++) h = (h ^ (unsigned char)*key) * 16777619u;
    return h;
}

const jg__jv_t *jg__jv_get(const jg__jv_t *o, const char *key)
{
    if (!jg__jv_is_obj(o) || !key) return NULL;
    const jg__jmem_t *m = o->u.mem;
    if (o->n <= JG__JV_HASH_MIN) {
        for (uint32_t k = 0; k < o->n; k++)
            if (m[k].key[0] == key[0] && !strcmp(m[k].key, key)) return m[k].val;
        return NULL;
    }
    const uint32_t *h = (const uint32_t *)(m + o->n), mask = jg__jv_hash_cap(o->n) - 1;
    for (uint32_t s = jg__jv_hash(key) & mask;; s = (s + 1) & mask) {
        if (h[s] == UINT32_MAX) return NULL;
        if (!strcmp(m[h[s]].key, key)) return m[h[s]].val;
    }
}

int jg__jdoc_object(jg__jdoc_t *d, const jg__jmem_t *mem, uint32_t n, jg__jv_t **out)
{
    int hashed = n > JG__JV_HASH_MIN;
    uint32_t cap = hashed ? jg__jv_hash_cap(n) : 0;
    jg__jv_t *v = jg_arena_alloc(&d->arena, sizeof *v);
    jg__jmem_t *m = n ? jg_arena_alloc(&d->arena, sizeof *m * n + sizeof(uint32_t) * cap) : NULL;
    if (!v || (n && !m)) return -1;
    if (n) memcpy(m, mem, sizeof *m * n);
    if (!hashed) {
        for (uint32_t i = 1; i < n; i++)
            for (uint32_t k = 0; k < i; k++)
                if (m[k].key[0] == m[i].key[0] && !strcmp(m[k].key, m[i].key)) return 1;
    } else {
        uint32_t *h = (uint32_t *)(m + n), mask = cap - 1;
        memset(h, 0xff, sizeof(uint32_t) * cap);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t s = jg__jv_hash(m[i].key) & mask;
            for (; h[s] != UINT32_MAX; s = (s + 1) & mask)
                if (!strcmp(m[h[s]].key, m[i].key)) return 1;
            h[s] = i;
        }
    }
    v->type = JG_JV_OBJ;
    v->n = n;
    v->u.mem = m;
    *out = v;
    return 0;
}

const jg__jv_t *jg__jdoc_root(const jg__jdoc_t *d) { return d ? d->root : NULL; }

void jg__jdoc_free(jg__jdoc_t *d)
{
    if (!d) return;
    jg_arena_free(&d->arena);
    free(d->buf);
    free(d);
}

/* ------------------------------------------------------------ from jansson */

static const jg__jv_t *copy(jg__jdoc_t *d, const json_t *j, int depth)
{
    if (depth > 100000) return NULL;   /* jansson trees are finite; a guard, not a limit */
    jg__jv_t *v = NULL;
    switch (json_typeof(j)) {
    case JSON_OBJECT: {
        size_t n = json_object_size(j), i = 0;
        if (n > UINT32_MAX / 4) return NULL;
        jg__jmem_t *mem = n ? malloc(sizeof *mem * n) : NULL;
        if (n && !mem) return NULL;
        const char *k;
        json_t *e;
        int ok = 1;
        json_object_foreach((json_t *)j, k, e) {
            size_t kl = strlen(k);
            char *kc = jg_arena_alloc(&d->arena, kl + 1);
            const jg__jv_t *ev = kc ? copy(d, e, depth + 1) : NULL;
            if (!ev) {
                ok = 0;
                break;
            }
            memcpy(kc, k, kl + 1);
            mem[i].key = kc;
            mem[i++].val = ev;
        }
        /* a jansson object has unique keys: 1 cannot happen */
        if (!ok || jg__jdoc_object(d, mem, (uint32_t)i, &v)) v = NULL;
        free(mem);
        return v;
    }
    case JSON_ARRAY: {
        size_t n = json_array_size(j);
        if (n > UINT32_MAX / 8) return NULL;
        v = jg_arena_alloc(&d->arena, sizeof *v);
        const jg__jv_t **it = n ? jg_arena_alloc(&d->arena, sizeof *it * n) : NULL;
        if (!v || (n && !it)) return NULL;
        for (size_t i = 0; i < n; i++)
            if (!(it[i] = copy(d, json_array_get(j, i), depth + 1))) return NULL;
        v->type = JG_JV_ARR;
        v->n = (uint32_t)n;
        v->u.item = it;
        return v;
    }
    case JSON_STRING: {
        size_t n = json_string_length(j);
        if (n > UINT32_MAX - 1) return NULL;
        v = jg_arena_alloc(&d->arena, sizeof *v);
        char *s = v ? jg_arena_alloc(&d->arena, n + 1) : NULL;
        if (!s) return NULL;
        memcpy(s, json_string_value(j), n);
        s[n] = '\0';
        v->type = JG_JV_STR;
        v->n = (uint32_t)n;
        v->u.str = s;
        return v;
    }
    default:
        if (!(v = jg_arena_alloc(&d->arena, sizeof *v))) return NULL;
        v->type = json_is_number(j) ? JG_JV_NUM
                  : json_is_true(j) ? JG_JV_TRUE
                  : json_is_false(j) ? JG_JV_FALSE
                                     : JG_JV_NULL;
        if (json_is_number(j)) v->u.num = json_number_value(j);
        return v;
    }
}

jg_status_t jg__jdoc_from_jansson(const json_t *root, jg__jdoc_t **out)
{
    *out = NULL;
    jg__jdoc_t *d = calloc(1, sizeof *d);
    if (!d) return JG_NOMEM;
    jg_arena_init(&d->arena, 1 << 16);
    if (!(d->root = copy(d, root, 0))) {
        jg__jdoc_free(d);
        return JG_NOMEM;
    }
    *out = d;
    return JG_OK;
}
