/* model_internal.h -- lib/model's interface for the compiler: the validated
 * document a jg_model holds.  Not installed.  Later modules include this
 * instead of model_impl.h (the model's private structure). */
#ifndef JG_MODEL_INTERNAL_H
#define JG_MODEL_INTERNAL_H
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "jacgraph/model.h"
#include "jacgraph/status.h"
#include "../core/arena.h"

/* The model's JSON document in a compact read-only form (lib/model and
 * the compiler).
 *
 * A million-block model is a hundred megabytes of JSON; as a jansson tree
 * (a hash table per object, a malloc per value and per key) it took more
 * memory than everything after it and most of the load time.  Here a value
 * is 16 bytes stored where its container keeps it: an object's members are
 * one array of values, each holding its key's index, in file order (with a
 * hash index when it has many), an array's elements one array of values,
 * and each distinct string is stored once (a model repeats its block types,
 * names and port references a million times), so that the document does
 * not keep the text it was read from.  A container's own 16 bytes sit in its parent, so that walking a
 * system's blocks or lines reads one array.
 * jg__jdoc_parse reads exactly what jansson's json_loadb
 * (JSON_REJECT_DUPLICATES) accepts, and refuses everything else so that the
 * caller can let jansson word the error (jparse.c). */

typedef enum { JG_JV_NULL, JG_JV_TRUE, JG_JV_FALSE, JG_JV_NUM, JG_JV_STR, JG_JV_ARR, JG_JV_OBJ } jg__jv_type_t;

typedef struct jg__jv jg__jv_t;

/* A key of the document: the index of its text in the document's key table
 * (jg__jdoc_keytext), 0 for none.  A member's key is 29 bits of its value's
 * first word, so that a member is 16 bytes rather than a pointer more. */
typedef uint32_t jg__jkey_t;

struct jg__jv {
    uint32_t type : 3;   /* jg__jv_type_t */
    uint32_t key : 29;   /* an object member: its key; else 0 */
    uint32_t n;      /* string bytes (without the NUL), array elements, object members */
    union {
        double num;
        const char *str;              /* NUL-terminated */
        const jg__jv_t *item;         /* array: n values */
        const jg__jv_t *mem;          /* object: n members in document order (each
                                         value's key set); with more than
                                         JG__JV_HASH_MIN of them a hash index of
                                         jg__jv_hash_cap(n) uint32 slots follows */
    } u;
};

#define JG__JV_HASH_MIN 12

/* A set of distinct strings (open addressing, mask + 1 slots, malloc'd):
 * each slot the string (NULL empty), its length and its bytes packed
 * (jdoc.c: a string of up to 8 bytes compares as two integers). */
typedef struct jg__jstrslot {
    uint64_t w;
    const char *s;
    uint32_t len;
    uint32_t id;   /* the keys' set: the key's index in jg__jdoc_t.keyv */
} jg__jstrslot_t;
typedef struct jg__jstrset {
    jg__jstrslot_t *t;
    uint32_t mask, n;
    /* copies of the slots of recently found strings of up to 8 bytes
     * (JG__JSTR_HOT of them, direct-mapped by their packed bytes): a
     * model's few hundred frequent strings are found here, in the first
     * level cache, rather than in a table of thousands of slots */
    jg__jstrslot_t *hot;
} jg__jstrset_t;
#define JG__JSTR_HOT 512

typedef struct jg__jdoc {
    jg_arena_t arena;      /* values, member and element arrays, strings */
    const jg__jv_t *root;
    /* The document's distinct object keys: every member holds the index of
     * its key's text here (keyv[1..nkeys]; keyv[0] is NULL), so that a lookup
     * compares integers (jg__jdoc_key, jg__jv_get_key) instead of reading
     * each key's text, and a key the document never uses is known absent at
     * once.  keyv is malloc'd, the texts are in the arena. */
    jg__jstrset_t keys;
    const char **keyv;
    uint32_t nkeys, capkeys;
    /* The document's distinct string values, the same way (every string
     * value equal to one of them points at it; after a two-thread parse,
     * those of the first thread's part). */
    jg__jstrset_t strs;
    /* The values and strings the second thread of a two-thread parse read
     * (jparse.c): its part's strings are not in strs, so a string of both
     * parts has two copies (equal texts, as ever; nothing compares string
     * pointers). */
    jg_arena_t arena2;
} jg__jdoc_t;

/* The key of d equal to key[0..len) (copied into d when new; key needs no
 * NUL): the key every member with that text holds.  0: out of memory (or
 * more than 2^27 distinct keys).  O(len). */
jg__jkey_t jg__jdoc_intern(jg__jdoc_t *d, const char *key, size_t len);
/* The same for string values: d's NUL-terminated copy of s[0..len), one per
 * distinct string.  NULL: out of memory.  O(len). */
const char *jg__jdoc_string(jg__jdoc_t *d, const char *s, size_t len);

/* The key d's members with text `key` hold, 0 when no object of d has such
 * a member (or d or key is NULL).  O(strlen(key)). */
jg__jkey_t jg__jdoc_key(const jg__jdoc_t *d, const char *key);
/* The text of key k of d (NUL-terminated, d's), NULL for 0 or a key d does
 * not have.  O(1). */
static inline const char *jg__jdoc_keytext(const jg__jdoc_t *d, jg__jkey_t k)
{
    return d && k && k <= d->nkeys ? d->keyv[k] : NULL;
}

/* jg__jv_get for a key of o's document (jg__jdoc_key; 0: none): the member
 * of object o holding key k.  O(members) up to JG__JV_HASH_MIN, else O(1). */
const jg__jv_t *jg__jv_get_key(const jg__jv_t *o, jg__jkey_t k);

/* An object's n members (scratch, document order, each value's key set)
 * copied into d's arena with their hash index, *out the object's value.
 * 1: two members have the same key (nothing is stored); -1: out of memory;
 * 0: *out set.  O(n) with the index, O(n^2) below JG__JV_HASH_MIN members. */
int jg__jdoc_object(jg__jdoc_t *d, const jg__jv_t *mem, uint32_t n, jg__jv_t *out);

/* Parse buf[0..len), which must be followed by a NUL (buf[len] == 0; else
 * JG_PARSE).  buf is only read and stays the caller's: the document keeps
 * copies of its strings (one per distinct string), so the text may be freed
 * (or unmapped) as soon as this returns.  JG_PARSE: the text is not exactly
 * what jansson accepts (or uses a construct this parser leaves to jansson:
 * a string with "\u0000", an integer beyond 18 digits, nesting deeper than
 * 2000, a real strtod would overflow).  JG_NOMEM likewise.  Cost: O(len),
 * one pass, memory about the number of values times 16 bytes plus the
 * hash indexes of large objects, and the distinct strings; a large text on
 * two threads (jg__jdoc_parse_ex below), each reading about half, with the
 * same result.  Safe to call from several threads at once. */
jg_status_t jg__jdoc_parse(const char *buf, size_t len, jg__jdoc_t **out);

/* The two-thread parse (jparse.c): a text of at least min_bytes, when the
 * process may use two cores, is read by two threads, the second from an
 * array element boundary near the middle of the text on; the document is
 * the one-thread parse's (same values, order, keys and key indexes), and
 * anything the speculation cannot vouch for is read by one thread as
 * before.  jg__jdoc_parse uses the defaults (8 MiB; the second thread
 * starts once the first read 1/64 of the text, up to 1 MiB, and its keys;
 * split: the middle of the rest; only on two cores or more); tests and
 * benchmarks pass their own to jg__jdoc_parse_ex. */
typedef struct {
    size_t min_bytes;    /* 0: never split */
    size_t seed_bytes;   /* the first thread's text before the second starts (0: default) */
    size_t split_at;     /* the offset from which the split is sought (0: default) */
    int force;           /* split even when one core is usable */
} jg__jparse_tune_t;
/* What a two-thread parse did (tests): split: a second thread ran; merged:
 * its part is in the document; remapped: its key indexes differed and were
 * rewritten; merge_s: the merge's wall seconds. */
typedef struct {
    int split, merged, remapped;
    double merge_s;
} jg__jparse_stats_t;
/* jg__jdoc_parse with these settings (NULL: the defaults), what it did into
 * *stats (NULL: not wanted). */
jg_status_t jg__jdoc_parse_ex(const char *buf, size_t len, const jg__jparse_tune_t *tune,
                              jg__jparse_stats_t *stats, jg__jdoc_t **out);

/* The document of a jansson tree (lib/import builds them): strings copied.
 * JG_NOMEM on failure.  Cost: O(size of the tree). */
jg_status_t jg__jdoc_from_jansson(const json_t *root, jg__jdoc_t **out);

const jg__jv_t *jg__jdoc_root(const jg__jdoc_t *d);
void jg__jdoc_free(jg__jdoc_t *d);   /* NULL is fine */

/* json_object_get: the member named key of object o of document d, NULL
 * when o is not an object or has none.  O(strlen(key)) and O(members) up to
 * JG__JV_HASH_MIN, else O(1). */
const jg__jv_t *jg__jv_get(const jg__jdoc_t *d, const jg__jv_t *o, const char *key);

/* Slots of the hash index of an object of n members (a power of two). */
static inline uint32_t jg__jv_hash_cap(uint32_t n)
{
    uint32_t c = 16;
    while (c < 2 * n) c *= 2;
    return c;
}
/* The first slot of key k in an object's hash index (mask: slots - 1). */
static inline uint32_t jg__jv_hash(jg__jkey_t k, uint32_t mask)
{
    uint32_t h = k * 2654435761u;   /* Knuth's multiplicative hash: keys are small integers */
    return (h ^ h >> 15) & mask;
}

static inline int jg__jv_is_obj(const jg__jv_t *v) { return v && v->type == JG_JV_OBJ; }
static inline int jg__jv_is_arr(const jg__jv_t *v) { return v && v->type == JG_JV_ARR; }
static inline int jg__jv_is_str(const jg__jv_t *v) { return v && v->type == JG_JV_STR; }
static inline int jg__jv_is_num(const jg__jv_t *v) { return v && v->type == JG_JV_NUM; }
/* json_string_value: NULL unless a string */
static inline const char *jg__jv_str(const jg__jv_t *v) { return jg__jv_is_str(v) ? v->u.str : NULL; }
static inline size_t jg__jv_strlen(const jg__jv_t *v) { return jg__jv_is_str(v) ? v->n : 0; }
/* json_number_value: 0 unless a number */
static inline double jg__jv_num(const jg__jv_t *v) { return jg__jv_is_num(v) ? v->u.num : 0.0; }
/* json_array_size: the elements of an array, else 0 */
static inline size_t jg__jv_len(const jg__jv_t *v) { return jg__jv_is_arr(v) ? v->n : 0; }
/* json_object_size: the members of an object, else 0 */
static inline size_t jg__jv_size(const jg__jv_t *v) { return jg__jv_is_obj(v) ? v->n : 0; }
/* json_array_get: NULL unless an array with more than i elements */
static inline const jg__jv_t *jg__jv_at(const jg__jv_t *a, size_t i)
{
    return jg__jv_is_arr(a) && i < a->n ? &a->u.item[i] : NULL;
}

/* json_array_foreach / json_object_foreach over the document (k: the
 * member's key, jg__jkey_t; its text jg__jdoc_keytext) */
#define jg__jv_foreach(arr, i, v) \
    for ((i) = 0; (i) < jg__jv_len(arr) && ((v) = jg__jv_at((arr), (i)), 1); (i)++)
#define jg__jv_obj_foreach(obj, i, k, v)                                                   \
    for ((i) = 0; jg__jv_is_obj(obj) && (i) < (obj)->n &&                                  \
                  ((k) = (obj)->u.mem[i].key, (v) = &(obj)->u.mem[i], 1);                  \
         (i)++)



/* The model's document, shape-checked by jg_model_read/parse/from_json
 * (docs/model-format.md).  Owned by m and valid while m lives; never
 * json_decref it.  O(1). */
const jg__jv_t *jg__model_root(const jg_model_t *m);
/* The document itself (its keys: jg__jdoc_key).  O(1). */
const jg__jdoc_t *jg__model_doc(const jg_model_t *m);
/* The model's blocks and systems as the compiler counts them (the root and
 * every block with a "blocks" array are systems), known from the shape
 * check: 1, or 0 when they were not counted there. */
int jg__model_counts(const jg_model_t *m, int64_t *nblocks, int64_t *nsys);

/* The model's plugin set: made by lib/blocks on the first jg_plugin_load into
 * m and opaque here, so that the model does not depend on the modules after
 * it.  The model holds one reference and drops it with `release` when it is
 * freed or the set replaced; NULL when no plugin was loaded.  O(1). */
void *jg__model_plugins(const jg_model_t *m);
void jg__model_set_plugins(jg_model_t *m, void *set, void (*release)(void *));

/* Read the file at path whole into *out (malloc'd, NUL-terminated; *len
 * bytes without the NUL).  Errors: JG_IO (cannot open, a directory, a read
 * error, more than limit bytes -- 0: JG_LIMIT_FILE_BYTES -- named with the
 * option --max-file-size), JG_NOMEM.  A regular file is refused by its size
 * before it is read; a device or pipe (/dev/zero) is read up to limit + 1
 * bytes.  On JG_IO errno tells why: EFBIG beyond the limit, else what
 * open() or read() set.
 * Cost: O(file). */
jg_status_t jg__read_file(const char *path, uint64_t limit, char **out, size_t *len,
                          jg_error_t *err);

/* A read-only view of the file at path, NUL-terminated at *len, for a
 * reader that only reads it once (a JSON model): a regular file is mapped
 * (no copy: a 100 MB model read into memory cost as much as its parse),
 * anything else (or a file the system cannot map) is read with
 * jg__read_file, whose errors, limit and errno it has.  *mapped says which;
 * release it with jg__view_free.  A mapped file truncated by another
 * process while it is read raises SIGBUS, as with any mapped file.
 * Cost: O(1) mapped (pages come from the page cache as they are read),
 * else O(file). */
jg_status_t jg__view_file(const char *path, uint64_t limit, const char **out, size_t *len,
                          int *mapped, jg_error_t *err);
void jg__view_free(const char *buf, size_t len, int mapped);   /* NULL is fine */

/* The model of document d (taken, freed on failure too), its shape checked
 * as jg_model_read does; limits as jg_model_set_limits.  The reader's last
 * step, apart for benchmarks/bench_scale.c's stage times.  Errors:
 * JG_MODEL (the shape, with source in the message), JG_NOMEM.  Cost: O(d). */
jg_status_t jg__model_adopt(jg__jdoc_t *d, const char *source, const jg_limits_t *lim,
                            jg_model_t **out, jg_error_t *err);

#endif
