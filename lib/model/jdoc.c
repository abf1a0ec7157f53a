/* The compact JSON document: member lookup by key, object indexing, and the copy of a jansson tree. */
#include <stdlib.h>
#include <string.h>
#include "model_internal.h"

/* The intern tables (jg__jstrset_t) hold millions of lookups of a few
 * thousand distinct short strings (block types, names, port references):
 * a string is first its bytes packed into 64 bits, all of them when it has
 * at most 8 (overlapping loads, never past its end), else its first 8; the
 * hash mixes that word (and, beyond 8 bytes, the rest). */
static inline uint64_t load(const char *p, size_t n)
{
    uint64_t w = 0;
    memcpy(&w, p, n);   /* n is 4 or 8: one load */
    return w;
}

static inline uint64_t packed(const char *s, size_t len)
{
    if (len > 8) return load(s, 8);
    if (len >= 4) return load(s, 4) | load(s + len - 4, 4) << 32;
    if (len > 0)
        return (uint64_t)(unsigned char)s[0] | (uint64_t)(unsigned char)s[len / 2] << 8 |
               (uint64_t)(unsigned char)s[len - 1] << 16;
    return 0;
}

static inline uint32_t hashw(uint64_t w, const char *s, size_t len)
{
    uint64_t h = w ^ (0x9e3779b97f4a7c15ull * (uint64_t)(len + 1));
    for (size_t k = 8; k < len; k++) h = (h ^ (unsigned char)s[k]) * 0x100000001b3ull;
    h ^= h >> 33;   /* MurmurHash3's finalizer: every bit of w reaches the low bits */
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    return (uint32_t)(h ^ (h >> 33));
}

/* The slot of s[0..len) (packed w) in T: its string, or the empty slot. */
static inline jg__jstrslot_t *probe(const jg__jstrset_t *T, uint64_t w, const char *s, size_t len)
{
    uint32_t h = hashw(w, s, len) & T->mask;
    for (;; h = (h + 1) & T->mask) {
        jg__jstrslot_t *e = &T->t[h];
        if (!e->s || (e->w == w && e->len == len && (len <= 8 || !memcmp(e->s + 8, s + 8, len - 8))))
            return e;
    }
}

/* s[0..len) in the set T (grown at half full), copied into d's arena when
 * new: its slot.  NULL: out of memory. */
static const jg__jstrslot_t *intern(jg__jdoc_t *d, jg__jstrset_t *T, const char *s, size_t len)
{
    if (len > UINT32_MAX - 1) return NULL;
    jg__jstrslot_t *c = NULL;
    uint64_t w = packed(s, len);
    if (len <= 8 && T->hot) {   /* all its bytes are in w: w and len are the string */
        c = &T->hot[((w ^ len) * 0x9e3779b97f4a7c15ull) >> 55];
        if (c->s && c->w == w && c->len == len) return c;
    }
    if (2 * (T->n + 1) > T->mask) {   /* grow: (re)hash into twice the slots */
        if (T->mask >= (1u << 28)) return NULL;
        uint32_t cap = T->mask ? 2 * (T->mask + 1) : 64;
        jg__jstrset_t N = {calloc(cap, sizeof *N.t), cap - 1, T->n, NULL};
        if (!N.t) return NULL;
        for (uint32_t k = 0; T->t && k <= T->mask; k++)
            if (T->t[k].s) *probe(&N, T->t[k].w, T->t[k].s, T->t[k].len) = T->t[k];
        free(T->t);
        N.hot = T->hot ? T->hot : calloc(JG__JSTR_HOT, sizeof *N.hot);   /* none: none (a cache) */
        *T = N;
        if (len <= 8 && T->hot) c = &T->hot[((w ^ len) * 0x9e3779b97f4a7c15ull) >> 55];
    }
    jg__jstrslot_t *e = probe(T, w, s, len);
    if (e->s) {
        if (c) *c = *e;   /* a key's id is set by now: jg__jdoc_intern sets it as it is made */
        return e;
    }
    char *copy = jg_arena_alloc(&d->arena, len + 1);
    if (!copy) return NULL;
    memcpy(copy, s, len);
    copy[len] = '\0';
    T->n++;
    *e = (jg__jstrslot_t){.w = w, .s = copy, .len = (uint32_t)len};
    return e;
}

jg__jkey_t jg__jdoc_intern(jg__jdoc_t *d, const char *key, size_t len)
{
    if (d->nkeys + 1 >= d->capkeys) {   /* room for the next key first: no half-made key */
        uint32_t nc = d->capkeys ? 2 * d->capkeys : 64;
        const char **v = nc < (1u << 29) ? realloc(d->keyv, sizeof *v * nc) : NULL;
        if (!v) return 0;
        if (!d->keyv) v[0] = NULL;
        d->keyv = v;
        d->capkeys = nc;
    }
    const jg__jstrslot_t *e = intern(d, &d->keys, key, len);
    if (!e) return 0;
    if (e->id) return e->id;
    jg__jkey_t id = ++d->nkeys;
    d->keyv[id] = e->s;
    /* the slot stays where it is until the set grows, which copies the id */
    ((jg__jstrslot_t *)e)->id = id;
    return id;
}

const char *jg__jdoc_string(jg__jdoc_t *d, const char *s, size_t len)
{
    const jg__jstrslot_t *e = intern(d, &d->strs, s, len);
    return e ? e->s : NULL;
}

jg__jkey_t jg__jdoc_key(const jg__jdoc_t *d, const char *key)
{
    if (!d || !d->keys.t || !key) return 0;
    size_t len = strlen(key);
    return probe(&d->keys, packed(key, len), key, len)->id;
}

const jg__jv_t *jg__jv_get_key(const jg__jv_t *o, jg__jkey_t k)
{
    if (!jg__jv_is_obj(o) || !k) return NULL;
    const jg__jv_t *m = o->u.mem;
    if (o->n <= JG__JV_HASH_MIN) {
        for (uint32_t i = 0; i < o->n; i++)
            if (m[i].key == k) return &m[i];
        return NULL;
    }
    const uint32_t *h = (const uint32_t *)(m + o->n), mask = jg__jv_hash_cap(o->n) - 1;
    for (uint32_t s = jg__jv_hash(k, mask);; s = (s + 1) & mask) {
        if (h[s] == UINT32_MAX) return NULL;
        if (m[h[s]].key == k) return &m[h[s]];
    }
}

const jg__jv_t *jg__jv_get(const jg__jdoc_t *d, const jg__jv_t *o, const char *key)
{
    return jg__jv_get_key(o, jg__jdoc_key(d, key));
}

int jg__jdoc_object(jg__jdoc_t *d, const jg__jv_t *mem, uint32_t n, jg__jv_t *out)
{
    int hashed = n > JG__JV_HASH_MIN;
    uint32_t cap = hashed ? jg__jv_hash_cap(n) : 0;
    jg__jv_t *m = n ? jg_arena_alloc(&d->arena, sizeof *m * n + sizeof(uint32_t) * cap) : NULL;
    if (n && !m) return -1;
    if (n) memcpy(m, mem, sizeof *m * n);
    /* keys are interned: equal texts are equal indexes */
    if (!hashed) {
        for (uint32_t i = 1; i < n; i++)
            for (uint32_t k = 0; k < i; k++)
                if (m[k].key == m[i].key) return 1;
    } else {
        uint32_t *h = (uint32_t *)(m + n), mask = cap - 1;
        memset(h, 0xff, sizeof(uint32_t) * cap);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t s = jg__jv_hash(m[i].key, mask);
            for (; h[s] != UINT32_MAX; s = (s + 1) & mask)
                if (m[h[s]].key == m[i].key) return 1;
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
    jg_arena_free(&d->arena2);
    free(d->keys.t);
    free(d->keys.hot);
    free(d->strs.hot);
    free(d->keyv);
    free(d->strs.t);
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
        jg__jv_t *mem = n ? malloc(sizeof *mem * n) : NULL;
        if (n && !mem) return -1;
        const char *k;
        json_t *e;
        int ok = 1;
        json_object_foreach((json_t *)j, k, e) {
            jg__jkey_t kc = jg__jdoc_intern(d, k, strlen(k));   /* one copy per distinct key */
            if (!kc || copy(d, e, &mem[i], depth + 1)) {
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
