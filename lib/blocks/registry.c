/* Registry of block types by Simulink BlockType name.  Adding a block type:
 * write its static const vtable in one file, add one line to each list here. */
#include <string.h>
#include "block_impl.h"

#define JG_BLOCK_TYPES(X)                                                              \
    X(inport) X(outport) X(subsystem) X(mux) X(demux) X(selector)                      \
    X(constant) X(ground) X(terminator) X(scope) X(toworkspace)                        \
    X(gain) X(sum) X(product) X(abs) X(math) X(trigonometry) X(saturation)             \
    X(integrator) X(statespace) X(transferfcn) X(zeropole) X(fcn)                     \
    X(step) X(sinewave) X(ramp) X(clock) X(pulsegenerator) X(fromworkspace)            \
    X(lookup1d) X(lookup2d) X(deadzone) X(sign) X(minmax) X(relay) X(switch)

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

const char *jg_block_type_names(void)
{
    static const char names[] =
        "Abs, Clock, Constant, DeadZone, Demux, Fcn, FromWorkspace, Gain, Ground, Inport, "
        "Integrator, Lookup1D, Lookup2D, Math, MinMax, Mux, Outport, Product, PulseGenerator, "
        "Ramp, Relay, Saturation, Scope, Selector, Sign, SineWave, StateSpace, Step, SubSystem, "
        "Sum, Switch, Terminator, ToWorkspace, TransferFcn, Trigonometry, ZeroPole";
    return names;
}
