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

#endif
