/* Terminator, Scope and ToWorkspace: sinks that read signals and compute nothing.
 *
 * Logging belongs to the simulator, which finds these blocks by their flag; for
 * evaluation and linearization they only fix the widths of what drives them.
 */
#include <stdlib.h>
#include "block_impl.h"

/* Every input takes the width of its driver; an input nothing drives is a scalar. */
static int sink_widths(jg_block_t *b, jg_setup_t *s)
{
    for (int p = 0; p < b->nin; p++) {
        if (b->in_w[p] < 0) {
            if (!s->force) return JG_BLOCK_AGAIN;
            b->in_w[p] = 1;
        }
    }
    return JG_BLOCK_DONE;
}

static int sink_outputs(const jg_block_t *b, jg_eval_t *e)
{
    (void)b;
    (void)e;
    return 0;
}

/* ------------------------------------------------------------ Terminator */

static int one_input_setup(jg_block_t *b, jg_setup_t *s)
{
    return jg_setup_ports(b, s, 1, 0);
}

const jg_block_type_t jg_block_terminator = {
    .name = "Terminator", .flags = JG_BT_SINK | JG_BT_LINEAR,
    .setup = one_input_setup, .widths = sink_widths, .outputs = sink_outputs,
};

/* ----------------------------------------------------------------- Scope */

static int scope_setup(jg_block_t *b, jg_setup_t *s)
{
    const char *str = NULL;
    jg_value_t num;
    long n = 1;
    /* Simulink files store NumInputPorts as a string ("2"); accept a number too. */
    int r = jg_setup_str_or_num(b, s, "NumInputPorts", &str, &num);
    if (r < 0) return JG_BLOCK_FAIL;
    if (r == 1) {
        char *end;
        n = strtol(str, &end, 10);
        if (end == str || *end != '\0') n = 0;   /* rejected below */
    } else if (r == 2) {
        double x = jg_value_numel(&num) == 1 ? num.x[0] : 0;
        n = x >= 1 && x <= 1024 && x == (double)(long)x ? (long)x : 0;
    }
    if (n < 1 || n > 1024) {
        if (r == 1)
            return jg_setup_error(b, s, JG_PARAM, "NumInputPorts",
                                  "expected a port count from 1 to 1024, got \"%s\"", str);
        return jg_setup_error(b, s, JG_PARAM, "NumInputPorts",
                              "expected a port count from 1 to 1024");
    }
    return jg_setup_ports(b, s, (int)n, 0);
}

const jg_block_type_t jg_block_scope = {
    .name = "Scope", .flags = JG_BT_SINK | JG_BT_LINEAR | JG_BT_LOG,
    .setup = scope_setup, .widths = sink_widths, .outputs = sink_outputs,
};

/* ----------------------------------------------------------- ToWorkspace */

const jg_block_type_t jg_block_toworkspace = {
    .name = "ToWorkspace", .flags = JG_BT_SINK | JG_BT_LINEAR | JG_BT_LOG,
    .setup = one_input_setup, .widths = sink_widths, .outputs = sink_outputs,
};
