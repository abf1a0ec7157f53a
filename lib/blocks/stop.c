/* Stop: ends a simulation after the major step at which its input is nonzero.
 *
 * One input of any width, no outputs, no parameters (Simulink's Stop
 * Simulation).  At every major step (at its sample hits when it inherits a
 * discrete rate) update() sets its one discrete state to 1 when some input
 * element is nonzero (NaN counts as nonzero, as in Simulink's "u ~= 0").
 * The simulation loop (lib/sim/simulate.c) looks at that state after each
 * major step's updates and ends the run there, successfully, recording the
 * block and the time (jg_sim_stats_t stop_block, stop_time).  The input has
 * no Jacobian part: a sink without feedthrough, nothing for linearization. */
#include "block_impl.h"

static int stop_setup(jg_block_t *b, jg_setup_t *s)
{
    return jg_setup_ports(b, s, 1, 0);
}

static int stop_widths(jg_block_t *b, jg_setup_t *s)
{
    if (b->in_w[0] < 0) {
        if (!s->force) return JG_BLOCK_AGAIN;
        b->in_w[0] = 1;   /* unconnected */
    }
    return jg_setup_dstates(b, s, 1) < 0 ? JG_BLOCK_FAIL : JG_BLOCK_DONE;
}

static int stop_update(const jg_block_t *b, jg_eval_t *e)
{
    if (e->init) return 0;
    for (int64_t i = 0; i < b->in_w[0]; i++)
        if (e->u[0][i] != 0) e->xdw[0] = 1;   /* NaN != 0 too */
    return 0;
}

const jg_block_type_t jg_block_stop = {
    .name = "Stop", .flags = JG_BT_SINK | JG_BT_LINEAR | JG_BT_STOP,
    .setup = stop_setup, .widths = stop_widths, .update = stop_update,
};
