/* Fuzz target "opfile": an operating point file (jg_lin_read_op) read
 * against a fixed compiled model, then a linearization at that point.  The
 * reader takes a path: the input is written to an anonymous memory file and
 * read back through /proc/self/fd. */
#define _GNU_SOURCE 1   /* memfd_create */
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#include "fuzz.h"
#include "jacgraph/jacgraph.h"

/* The model the operating points name: a vector state inside a SubSystem
 * ("Plant/x", elements "Plant/x(1)", "Plant/x(2)"), a scalar root state
 * "x1", a vector root Inport "In1" (width 2) and a scalar one "u2". */
static const char model_json[] =
    "{\"name\": \"op\", \"parameters\": {\"k\": 2},"
    " \"blocks\": ["
    "  {\"name\": \"In1\", \"type\": \"Inport\", \"Port\": 1, \"PortDimensions\": 2},"
    "  {\"name\": \"u2\", \"type\": \"Inport\", \"Port\": 2},"
    "  {\"name\": \"Plant\", \"type\": \"SubSystem\", \"blocks\": ["
    "    {\"name\": \"in\", \"type\": \"Inport\", \"Port\": 1},"
    "    {\"name\": \"x\", \"type\": \"Integrator\", \"InitialCondition\": [1, 2]},"
    "    {\"name\": \"Sum\", \"type\": \"Sum\", \"Inputs\": \"+-\"},"
    "    {\"name\": \"out\", \"type\": \"Outport\", \"Port\": 1}],"
    "   \"lines\": [{\"src\": \"in:1\", \"dst\": \"Sum:1\"},"
    "             {\"src\": \"x:1\", \"dst\": [\"Sum:2\", \"out:1\"]},"
    "             {\"src\": \"Sum:1\", \"dst\": \"x:1\"}]},"
    "  {\"name\": \"x1\", \"type\": \"Integrator\", \"InitialCondition\": 0},"
    "  {\"name\": \"Sq\", \"type\": \"Math\", \"Operator\": \"square\"},"
    "  {\"name\": \"G\", \"type\": \"Gain\", \"Gain\": \"k\"},"
    "  {\"name\": \"Out1\", \"type\": \"Outport\", \"Port\": 1},"
    "  {\"name\": \"Out2\", \"type\": \"Outport\", \"Port\": 2}],"
    " \"lines\": ["
    "  {\"src\": \"In1:1\", \"dst\": \"Plant:1\"}, {\"src\": \"Plant:1\", \"dst\": \"Out1:1\"},"
    "  {\"src\": \"u2:1\", \"dst\": \"G:1\"}, {\"src\": \"G:1\", \"dst\": \"x1:1\"},"
    "  {\"src\": \"x1:1\", \"dst\": \"Sq:1\"}, {\"src\": \"Sq:1\", \"dst\": \"Out2:1\"}]}";

/* Compiled once; kept for the life of the process (reachable at exit). */
static jg_model_t *model;
static jg_program_t *prog;

static int setup(void)
{
    jg_error_t err;
    if (prog) return 0;
    if (jg_model_parse(model_json, "op.json", &model, &err) ||
        jg_program_compile(model, &prog, &err)) {
        fprintf(stderr, "fuzz_opfile: fixed model: %s\n", err.msg);
        abort();   /* the target itself is broken: say so loudly */
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FZ_MAX_INPUT) return 0;
    setup();
    jg_error_t err;
    jg_lin_t *l = NULL;
    int fd = memfd_create("fuzz_op", 0);
    if (fd < 0) return 0;
    if (size && write(fd, data, size) != (ssize_t)size) goto done;
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    if (jg_lin_create(prog, NULL, &l, &err)) goto done;
    if (jg_lin_read_op(l, path, &err) == JG_OK) {
        jg_lin_sys_t *s = NULL;
        if (jg_lin_run(l, JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ, &s, NULL, &err) == JG_OK) {
            fz_say("opfile", "linearized");
            jg_lin_sys_free(s);
        } else {
            fz_say("opfile", err.msg);
        }
    } else {
        fz_say("opfile", err.msg);
    }
done:
    jg_lin_free(l);
    close(fd);
    return 0;
}
