/* Fuzz target "xml": the SLX XML reader on its own -- the input is the part
 * simulink/blockdiagram.xml of a package with no other part (systems inline,
 * the R2019b layout), so mutations reach the XML without a zip's checksums in
 * the way -- then the conversion to our JSON model. */
#include <stdlib.h>
#include "fuzz.h"
#include "fz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FZ_MAX_INPUT) return 0;
    jg_error_t err;
    jg__sl_parts_t ps = {0};
    /* the tree as jg__sl_parse makes it for an SLX package */
    jg__sl_tree_t *t = calloc(1, sizeof *t);
    if (!t) return 0;
    t->max_part = fz_limits.max_part;
    t->max_depth = fz_limits.max_depth;
    t->format = JG_SL_SLX;
    jg_arena_init(&t->arena, 1 << 16);
    t->source = jg_arena_strdup(&t->arena, FZ_SOURCE);
    if (!t->source) goto done;
    if (jg__sl_parts_add(&ps, "simulink/blockdiagram.xml", (const char *)data, size)) goto done;
    if (jg__sl_build_parts(t, &ps, NULL, &err) == JG_OK) fz_convert(t);
    else fz_say("xml", err.msg);
done:
    jg__sl_parts_fini(&ps);
    jg__sl_tree_free(t);
    return 0;
}
