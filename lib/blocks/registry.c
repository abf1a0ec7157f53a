/* Registry of block types by Simulink BlockType name.  Adding a block type:
 * write its static const vtable in one file and add it to the list here (the
 * names in error messages are built from this list). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "block_impl.h"

#define JG_BLOCK_TYPES(X)                                                              \
    X(inport) X(outport) X(subsystem) X(mux) X(demux) X(selector)                      \
    X(constant) X(ground) X(terminator) X(scope) X(toworkspace)                        \
    X(gain) X(sum) X(product) X(abs) X(math) X(trigonometry) X(saturation)             \
    X(integrator) X(statespace) X(transferfcn) X(zeropole) X(fcn)                     \
    X(step) X(sinewave) X(ramp) X(clock) X(pulsegenerator) X(fromworkspace)            \
    X(lookup1d) X(lookup2d) X(deadzone) X(sign) X(minmax) X(relay) X(switch)           \
    X(unitdelay) X(memory) X(discreteintegrator) X(discretestatespace)                 \
    X(discretetransferfcn) X(zeroorderhold)                                            \
    X(transportdelay) X(ic) X(algebraicconstraint) X(goto) X(from) X(gototagvisibility) \
    X(hitcrossing)

#define JG__DECL(n) extern const jg_block_type_t jg_block_##n;
JG_BLOCK_TYPES(JG__DECL)
#undef JG__DECL

static const jg_block_type_t *const registry[] = {
#define JG__REF(n) &jg_block_##n,
    JG_BLOCK_TYPES(JG__REF)
#undef JG__REF
};

const jg_block_type_t *jg_block_type_find(const char *name)
{
    for (size_t i = 0; i < sizeof registry / sizeof *registry; i++)
        if (!strcmp(registry[i]->name, name)) return registry[i];
    return NULL;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Built from the registry on first use, so that it never goes stale. */
const char *jg_block_type_names(void)
{
    enum { N = sizeof registry / sizeof *registry };
    static char names[N * 24];
    if (!names[0]) {
        const char *v[N];
        for (size_t i = 0; i < N; i++) v[i] = registry[i]->name;
        qsort(v, N, sizeof *v, cmp_name);
        size_t used = 0;
        for (size_t i = 0; i < N && used + 1 < sizeof names; i++)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "", v[i]);
    }
    return names;
}
