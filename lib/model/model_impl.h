/* Private structure of jg_model (lib/model only; the compiler reads the
 * document through model_internal.h). */
#ifndef JG_MODEL_IMPL_H
#define JG_MODEL_IMPL_H
#include <jansson.h>
#include "jacgraph/model.h"

struct jg_model {
    json_t *root;      /* the validated document (one reference, owned) */
    char *source;      /* file name for messages */
    char *name;
    void *plugins;     /* the plugin set (lib/blocks), NULL: none loaded */
    void (*plugins_release)(void *);   /* drops the model's reference to it */
    jg_limits_t limits;  /* for the compiler (jg_model_limits); zero: defaults */
};


#endif
