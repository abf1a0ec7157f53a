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
    X(hitcrossing) \
    X(lookupnddirect) X(unitconversion) \
    X(signalgenerator) X(digitalclock) X(repeatingsequence) X(bandlimitedwhitenoise) X(discretefilter) X(discretezeropole) X(discretepulsegenerator) X(derivative) X(ratelimiter) X(pidcontroller) X(stop) \
    X(bias) X(unaryminus) X(polyval) X(rounding) X(quantizer) X(relationaloperator) X(logic) X(multiportswitch) X(width) X(signalconversion) X(reshape) X(signalspecification) X(datatypeconversion) \
    X(delay) X(backlash) X(combinatoriallogic) X(randomnumber) X(uniformrandomnumber) X(sampletimemath) X(assignment)

#define JG__DECL(n) extern const jg_block_type_t jg_block_##n;
JG_BLOCK_TYPES(JG__DECL)
#undef JG__DECL

static const jg_block_type_t *const registry[] = {
#define JG__REF(n) &jg_block_##n,
    JG_BLOCK_TYPES(JG__REF)
#undef JG__REF
};

/* Types registered at run time (plugins): searched after the built-in ones;
 * `generation` invalidates the cached name list. */
static const jg_block_type_t **dyn;
static size_t ndyn, capdyn;
static unsigned generation = 1, names_generation;

static const jg_block_type_t *builtin_find(const char *name)
{
    for (size_t i = 0; i < sizeof registry / sizeof *registry; i++)
        if (!strcmp(registry[i]->name, name)) return registry[i];
    return NULL;
}

int jg__block_type_builtin(const char *name) { return builtin_find(name) != NULL; }

const jg_block_type_t *jg_block_type_find(const char *name)
{
    const jg_block_type_t *t = builtin_find(name);
    for (size_t i = 0; !t && i < ndyn; i++)
        if (!strcmp(dyn[i]->name, name)) t = dyn[i];
    return t;
}

int jg__block_type_register(const jg_block_type_t *t)
{
    if (ndyn == capdyn) {
        size_t cap = capdyn ? 2 * capdyn : 16;
        const jg_block_type_t **d = realloc(dyn, cap * sizeof *d);
        if (!d) return -1;
        dyn = d;
        capdyn = cap;
    }
    dyn[ndyn++] = t;
    generation++;
    return 0;
}

void jg__block_type_unregister(const jg_block_type_t *t)
{
    for (size_t i = 0; i < ndyn; i++)
        if (dyn[i] == t) {
            memmove(dyn + i, dyn + i + 1, (ndyn - i - 1) * sizeof *dyn);
            ndyn--;
            generation++;
            return;
        }
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Built from the registry when it changed, so that it never goes stale. */
const char *jg_block_type_names(void)
{
    enum { N = sizeof registry / sizeof *registry };
    static char fixed[N * 24], *names = fixed;
    static size_t cap = sizeof fixed;
    if (names_generation != generation) {
        size_t n = N + ndyn, need = 1;
        const char **v = malloc((n + 1) * sizeof *v);
        if (!v) return names;   /* out of memory: the previous list */
        for (size_t i = 0; i < N; i++) v[i] = registry[i]->name;
        for (size_t i = 0; i < ndyn; i++) v[N + i] = dyn[i]->name;
        for (size_t i = 0; i < n; i++) need += strlen(v[i]) + 2;
        if (need > cap) {
            char *d = malloc(need);
            if (!d) {
                free(v);
                return names;
            }
            if (names != fixed) free(names);
            names = d;
            cap = need;
        }
        qsort(v, n, sizeof *v, cmp_name);
        size_t used = 0;
        names[0] = '\0';
        for (size_t i = 0; i < n && used + 1 < cap; i++)
            used += (size_t)snprintf(names + used, cap - used, "%s%s", i ? ", " : "", v[i]);
        free(v);
        names_generation = generation;
    }
    return names;
}
