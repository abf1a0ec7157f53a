/* Private structure of jg_model (read by lib/compile only). */
#ifndef JG_MODEL_IMPL_H
#define JG_MODEL_IMPL_H
#include <jansson.h>
#include "jacgraph/model.h"

struct jg_model {
    json_t *root;      /* the validated document (owned) */
    char *source;      /* file name for messages */
    char *name;
};

#endif
