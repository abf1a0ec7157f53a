/* Private structure of jg_model (lib/model only; the compiler reads the
 * document through model_internal.h). */
#ifndef JG_MODEL_IMPL_H
#define JG_MODEL_IMPL_H
#include "model_internal.h"

struct jg_model {
    jg__jdoc_t *doc;   /* the validated document, owned */
    const jg__jv_t *root;   /* its root object */
    char *source;      /* file name for messages */
    char *name;
    void *plugins;     /* the plugin set (lib/blocks), NULL: none loaded */
    void (*plugins_release)(void *);   /* drops the model's reference to it */
    jg_limits_t limits;  /* for the compiler (jg_model_limits); zero: defaults */
    /* the blocks and systems (the root and every block with a "blocks"
     * array), counted by the shape check for the compiler's allocations;
     * counted 0 when a block that is not a SubSystem has "blocks" (the
     * compiler counts those itself) */
    int64_t nblocks, nsys;
    int counted;
};


#endif
