/* jacgraph.h -- umbrella header of libjacgraph.
 *
 * Pipeline (docs/architecture.md): jg_model_read -> jg_program_compile -> jg_lin_create
 * -> jg_lin_run (graph | matrix | perturb) -> jg_io_write_linsys_*.
 */
#ifndef JACGRAPH_H
#define JACGRAPH_H
#include "jacgraph/export.h"
#include "jacgraph/status.h"
#include "jacgraph/expr.h"
#include "jacgraph/model.h"
#include "jacgraph/import.h"
#include "jacgraph/program.h"
#include "jacgraph/eval.h"
#include "jacgraph/graph.h"
#include "jacgraph/lft.h"
#include "jacgraph/linearize.h"
#include "jacgraph/analysis.h"
#include "jacgraph/io.h"
#include "jacgraph/solver.h"
#include "jacgraph/simulate.h"
#include "jacgraph/solverjac.h"
#include "jacgraph/plot.h"
#include "jacgraph/gen.h"
#endif
