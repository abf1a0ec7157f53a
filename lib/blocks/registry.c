/* Registry of block types by Simulink BlockType name: the built-in ones, then
 * a model's plugin types.  Adding a block type: write its static const vtable
 * in one file and add it to the list here (the names in error messages are
 * built from this list). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plugin_impl.h"

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

static const jg_block_type_t *builtin_find(const char *name)
{
    for (size_t i = 0; i < sizeof registry / sizeof *registry; i++)
        if (!strcmp(registry[i]->name, name)) return registry[i];
    return NULL;
}

int jg__block_type_builtin(const char *name) { return builtin_find(name) != NULL; }

/* Built-in types first: a plugin cannot shadow one (the loader refuses it). */
const jg_block_type_t *jg__block_type_find(const jg__plset_t *ps, const char *name)
{
    const jg_block_type_t *t = builtin_find(name);
    for (size_t i = 0; !t && ps && i < ps->ntypes; i++)
        if (!strcmp(ps->types[i]->name, name)) t = &ps->types[i]->bt;
    return t;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Computed on every call (only error messages need it): a cached list would
 * be state shared by every model and thread. */
char *jg__block_type_names(const jg__plset_t *ps)
{
    enum { N = sizeof registry / sizeof *registry };
    size_t n = N + (ps ? ps->ntypes : 0), need = 1, used = 0;
    char *names = NULL;
    const char **v = malloc(n * sizeof *v);
    if (!v) goto done;
    for (size_t i = 0; i < N; i++) v[i] = registry[i]->name;
    for (size_t i = N; i < n; i++) v[i] = ps->types[i - N]->name;
    for (size_t i = 0; i < n; i++) need += strlen(v[i]) + 2;
    if (!(names = malloc(need))) goto done;
    qsort(v, n, sizeof *v, cmp_name);
    names[0] = '\0';
    for (size_t i = 0; i < n; i++) used += (size_t)snprintf(names + used, need - used, "%s%s", i ? ", " : "", v[i]);
done:
    free(v);
    return names;
}
