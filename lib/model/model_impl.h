/* Private structure of jg_model (lib/model only; the compiler reads the
 * document through model_internal.h). */
#ifndef JG_MODEL_IMPL_H
#define JG_MODEL_IMPL_H
#include <jansson.h>
#include "jacgraph/model.h"
#include "../core/arena.h"

struct jg_model {
    jg_arena_t arena;  /* every node of the document lives here */
    json_t *root;      /* the validated document (in the arena: never json_decref) */
    char *source;      /* file name for messages */
    char *name;
    json_t *owned;     /* a document built with jansson's allocator (jg_model_from_json), else NULL */
};


#endif
