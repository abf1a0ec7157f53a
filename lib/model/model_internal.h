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

#endif
