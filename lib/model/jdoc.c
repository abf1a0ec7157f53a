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

static uint32_t hashn(const char *key, size_t len)
{
    uint32_t h = 2166136261u;   /* FNV-1a, as jg__jv_hash */
    for (size_t k = 0; k < len; k++) h = (h ^ (unsigned char)key[k]) * 16777619u;
    return h;
}

const char *jg__jdoc_intern(jg__jdoc_t *d, const char *key, size_t len)
{
    if (2 * (d->nkeys + 1) > d->kmask) {   /* grow: (re)hash into twice the slots */
        uint32_t cap = d->kmask ? 2 * (d->kmask + 1) : 64;
        const char **t = calloc(cap, sizeof *t);
        if (!t) return NULL;
        for (uint32_t k = 0; d->keys && k <= d->kmask; k++)
            if (d->keys[k]) {
                uint32_t s = jg__jv_hash(d->keys[k]) & (cap - 1);
                while (t[s]) s = (s + 1) & (cap - 1);
                t[s] = d->keys[k];
            }
        free(d->keys);
        d->keys = t;
        d->kmask = cap - 1;
    }
    uint32_t s = hashn(key, len) & d->kmask;
    for (; d->keys[s]; s = (s + 1) & d->kmask)
        if (!strncmp(d->keys[s], key, len) && !d->keys[s][len]) return d->keys[s];
    d->nkeys++;
    return d->keys[s] = key;
}

const char *jg__jdoc_key(const jg__jdoc_t *d, const char *key)
{
    if (!d || !d->keys || !key) return NULL;
    for (uint32_t s = jg__jv_hash(key) & d->kmask; d->keys[s]; s = (s + 1) & d->kmask)
        if (!strcmp(d->keys[s], key)) return d->keys[s];
    return NULL;
}

const jg__jv_t *jg__jv_get_key(const jg__jv_t *o, const char *dkey)
{
    if (!jg__jv_is_obj(o) || !dkey) return NULL;
    const jg__jmem_t *m = o->u.mem;
    if (o->n <= JG__JV_HASH_MIN) {
        for (uint32_t k = 0; k < o->n; k++)
            if (m[k].key == dkey) return &m[k].val;
        return NULL;
    }
    const uint32_t *h = (const uint32_t *)(m + o->n), mask = jg__jv_hash_cap(o->n) - 1;
    for (uint32_t s = jg__jv_hash(dkey) & mask;; s = (s + 1) & mask) {
        if (h[s] == UINT32_MAX) return NULL;
        if (m[h[s]].key == dkey) return &m[h[s]].val;
    }
}

const jg__jv_t *jg__jv_get(const jg__jv_t *o, const char *key)
{
    if (!jg__jv_is_obj(o) || !key) return NULL;
    const jg__jmem_t *m = o->u.mem;
    if (o->n <= JG__JV_HASH_MIN) {
        for (uint32_t k = 0; k < o->n; k++)
            if (m[k].key[0] == key[0] && !strcmp(m[k].key, key)) return &m[k].val;
        return NULL;
    }
    const uint32_t *h = (const uint32_t *)(m + o->n), mask = jg__jv_hash_cap(o->n) - 1;
    for (uint32_t s = jg__jv_hash(key) & mask;; s = (s + 1) & mask) {
        if (h[s] == UINT32_MAX) return NULL;
        if (!strcmp(m[h[s]].key, key)) return &m[h[s]].val;
    }
}

int jg__jdoc_object(jg__jdoc_t *d, const jg__jmem_t *mem, uint32_t n, jg__jv_t *out)
{
    int hashed = n > JG__JV_HASH_MIN;
    uint32_t cap = hashed ? jg__jv_hash_cap(n) : 0;
    jg__jmem_t *m = n ? jg_arena_alloc(&d->arena, sizeof *m * n + sizeof(uint32_t) * cap) : NULL;
    if (n && !m) return -1;
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
    out->type = JG_JV_OBJ;
    out->n = n;
    out->u.mem = m;
    return 0;
}

const jg__jv_t *jg__jdoc_root(const jg__jdoc_t *d) { return d ? d->root : NULL; }

void jg__jdoc_free(jg__jdoc_t *d)
{
    if (!d) return;
    jg_arena_free(&d->arena);
    free(d->buf);
    free(d->keys);
    free(d);
}

/* ------------------------------------------------------------ from jansson */

/* j into *v (its containers' contents in d's arena); -1 out of memory. */
static int copy(jg__jdoc_t *d, const json_t *j, jg__jv_t *v, int depth)
{
    if (depth > 100000) return -1;   /* jansson trees are finite; a guard, not a limit */
    memset(v, 0, sizeof *v);
    switch (json_typeof(j)) {
    case JSON_OBJECT: {
        size_t n = json_object_size(j), i = 0;
        if (n > UINT32_MAX / 4) return -1;
        jg__jmem_t *mem = n ? malloc(sizeof *mem * n) : NULL;
        if (n && !mem) return -1;
        const char *k;
        json_t *e;
        int ok = 1;
        json_object_foreach((json_t *)j, k, e) {
            size_t kl = strlen(k);
            const char *kc = jg__jdoc_key(d, k);   /* one copy per distinct key */
            if (!kc) {
                char *nk = jg_arena_alloc(&d->arena, kl + 1);
                if (nk) memcpy(nk, k, kl + 1);
                kc = nk ? jg__jdoc_intern(d, nk, kl) : NULL;
            }
            if (!kc || copy(d, e, &mem[i].val, depth + 1)) {
                ok = 0;
                break;
            }
            mem[i++].key = kc;
        }
        /* a jansson object has unique keys: 1 cannot happen */
        if (ok && jg__jdoc_object(d, mem, (uint32_t)i, v)) ok = 0;
        free(mem);
        return ok ? 0 : -1;
    }
    case JSON_ARRAY: {
        size_t n = json_array_size(j);
        if (n > UINT32_MAX / 8) return -1;
        jg__jv_t *it = n ? jg_arena_alloc(&d->arena, sizeof *it * n) : NULL;
        if (n && !it) return -1;
        for (size_t i = 0; i < n; i++)
            if (copy(d, json_array_get(j, i), &it[i], depth + 1)) return -1;
        v->type = JG_JV_ARR;
        v->n = (uint32_t)n;
        v->u.item = it;
        return 0;
    }
    case JSON_STRING: {
        size_t n = json_string_length(j);
        if (n > UINT32_MAX - 1) return -1;
        char *s = jg_arena_alloc(&d->arena, n + 1);
        if (!s) return -1;
        memcpy(s, json_string_value(j), n);
        s[n] = '\0';
        v->type = JG_JV_STR;
        v->n = (uint32_t)n;
        v->u.str = s;
        return 0;
    }
    default:
        v->type = json_is_number(j) ? JG_JV_NUM
                  : json_is_true(j) ? JG_JV_TRUE
                  : json_is_false(j) ? JG_JV_FALSE
                                     : JG_JV_NULL;
        if (json_is_number(j)) v->u.num = json_number_value(j);
        return 0;
    }
}

jg_status_t jg__jdoc_from_jansson(const json_t *root, jg__jdoc_t **out)
{
    *out = NULL;
    jg__jdoc_t *d = calloc(1, sizeof *d);
    if (!d) return JG_NOMEM;
    jg_arena_init(&d->arena, 1 << 16);
    jg__jv_t *r = jg_arena_alloc(&d->arena, sizeof *r);
    if (!r || copy(d, root, r, 0)) {
        jg__jdoc_free(d);
        return JG_NOMEM;
    }
    d->root = r;
    *out = d;
    return JG_OK;
}
