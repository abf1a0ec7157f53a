/* model_internal.h -- lib/model's interface for the compiler: the validated
 * document a jg_model holds.  Not installed.  Later modules include this
 * instead of model_impl.h (the model's private structure). */
#ifndef JG_MODEL_INTERNAL_H
#define JG_MODEL_INTERNAL_H
#include <jansson.h>
#include "jacgraph/model.h"

/* The model's document, shape-checked by jg_model_read/parse/from_json
 * (docs/model-format.md).  Owned by m and valid while m lives; never
 * json_decref it.  O(1). */
const json_t *jg__model_root(const jg_model_t *m);

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

#endif
