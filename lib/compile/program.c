/* Queries on a compiled program (names, ports, order, loops). */
#include <stdio.h>
#include <string.h>
#include "program_impl.h"

const char *jg_program_name(const jg_program_t *p) { return p->name; }
int32_t jg_program_nblocks(const jg_program_t *p) { return p->nblocks; }
int32_t jg_program_nreal(const jg_program_t *p) { return p->nreal; }
const char *jg_program_block_path(const jg_program_t *p, int32_t b) { return p->blocks[b].path; }
const char *jg_program_block_type(const jg_program_t *p, int32_t b)
{
    return p->blocks[b].type->name;
}
int jg_program_block_virtual(const jg_program_t *p, int32_t b) { return p->blocks[b].virt; }
int64_t jg_program_block_nstates(const jg_program_t *p, int32_t b) { return p->blocks[b].nx; }

int jg_program_block_nports(const jg_program_t *p, int32_t b, int *nin, int *nout)
{
    *nin = p->blocks[b].nin;
    *nout = p->blocks[b].nout;
    return 0;
}

int64_t jg_program_port_width(const jg_program_t *p, int32_t b, int is_output, int port)
{
    const jg_block_t *B = &p->blocks[b];
    if (port < 0 || port >= (is_output ? B->nout : B->nin)) return -1;
    return is_output ? B->out_w[port] : B->in_w[port];
}

int jg_program_block_feedthrough(const jg_program_t *p, int32_t b, int port)
{
    if (p->blocks[b].virt || port < 0 || port >= p->blocks[b].nin) return 0;
    return p->feedthrough[jg__inport(p, b, port)];
}

int64_t jg_program_nstates(const jg_program_t *p) { return p->nx; }
int64_t jg_program_ndstates(const jg_program_t *p) { return p->nd; }
int64_t jg_program_nzc(const jg_program_t *p) { return p->nzc; }
int32_t jg_program_nrates(const jg_program_t *p) { return p->nrates; }
int jg_program_rate(const jg_program_t *p, int32_t k, double *period, double *offset)
{
    if (k < 0 || k >= p->nrates) return -1;
    *period = p->rates[k].period;
    *offset = p->rates[k].offset;
    return 0;
}
void jg_program_block_sample_time(const jg_program_t *p, int32_t b, double *period, double *offset)
{
    *period = p->blocks[b].ts.period;
    *offset = p->blocks[b].ts.offset;
}

/* "PATH(k)" in a: what jg_arena_printf("%s(%lld)") writes, without two
 * passes of printf per name (a million-block model's result names: 45 ms
 * of printf against a few here).  NULL: out of memory.  k >= 1. */
static const char *element_name(jg_arena_t *a, const char *path, int64_t k)
{
    char digits[24];
    int nd = 0;
    do digits[nd++] = (char)('0' + k % 10);
    while ((k /= 10) > 0);
    size_t len = strlen(path);
    char *d = jg_arena_alloc(a, len + (size_t)nd + 3);
    if (!d) return NULL;
    memcpy(d, path, len);
    d[len++] = '(';
    while (nd) d[len++] = digits[--nd];
    d[len++] = ')';
    d[len] = 0;
    return d;
}

const char *jg_program_state_name(const jg_program_t *p, int64_t i)
{
    if (i < 0 || i >= p->nx) return NULL;
    if (!p->x_name[i]) {   /* built on first use: most runs never print names */
        const jg_block_t *B = &p->blocks[p->x_blk[i]];
        jg_program_t *mp = (jg_program_t *)p;
        mp->x_name[i] = B->nx == 1 ? B->path : element_name(&mp->arena, B->path, i - B->x_off + 1);
    }
    return p->x_name[i];
}

jg_status_t jg_program_initial_states(const jg_program_t *p, double *x0, jg_error_t *err)
{
    for (int32_t b = 0; b < p->nblocks; b++) {
        const jg_block_t *B = &p->blocks[b];
        if (B->virt || B->nx == 0) continue;
        if (!B->type->init)
            return jg_error_set(err, JG_INTERNAL, "block '%s' has states but no init", B->path);
        if (B->type->init(B, x0 + B->x_off))
            return jg_error_set(err, JG_NUMERIC, "block '%s': initial condition failed", B->path);
    }
    return JG_OK;
}

const int32_t *jg_program_sorted(const jg_program_t *p, int32_t *n)
{
    *n = p->nsorted;
    return p->sorted;
}

int jg_program_nloops(const jg_program_t *p) { return p->nloops; }

const int32_t *jg_program_loop(const jg_program_t *p, int k, int32_t *n)
{
    *n = p->loop_ptr[k + 1] - p->loop_ptr[k];
    return p->loop_blk + p->loop_ptr[k];
}

int jg_program_block_loop(const jg_program_t *p, int32_t b) { return p->blk_loop[b]; }
const char *jg_program_loop_names(const jg_program_t *p, int k) { return p->loop_names[k]; }
int jg_program_ninputs(const jg_program_t *p) { return p->nin_root; }
int jg_program_noutputs(const jg_program_t *p) { return p->nout_root; }
int32_t jg_program_input_block(const jg_program_t *p, int k) { return p->in_root[k]; }
int32_t jg_program_output_block(const jg_program_t *p, int k) { return p->out_root[k]; }
int jg_program_nwarnings(const jg_program_t *p) { return p->nwarn; }
const char *jg_program_warning(const jg_program_t *p, int i) { return p->warn[i]; }

const char *jg_program_signal_name(const jg_program_t *p, int32_t b, int port)
{
    if (b < 0 || b >= p->nblocks || port < 0 || port >= p->blocks[b].nout) return NULL;
    return p->sig_name ? p->sig_name[jg__outport(p, b, port)] : NULL;
}

jg_status_t jg_program_find_signal(const jg_program_t *p, const char *name, int32_t *block,
                                   int *port, jg_error_t *err)
{
    int64_t first = -1, count = 0;
    for (int64_t g = 0; p->sig_name && g < p->nout_ports; g++)
        if (p->sig_name[g] && !strcmp(p->sig_name[g], name) && count++ == 0) first = g;
    if (count == 0) return jg_error_set(err, JG_ARG, "no signal named '%s'", name);
    if (count > 1) {
        /* every candidate as BLOCK:N, which the caller can use instead; the
         * list stops where the message would be cut */
        char list[JG_ERROR_MSG_MAX / 2];
        size_t len = 0;
        int64_t shown = 0;
        for (int64_t g = first; g < p->nout_ports; g++) {
            if (!p->sig_name[g] || strcmp(p->sig_name[g], name)) continue;
            int n = snprintf(list + len, sizeof list - len, "%s'%s:%d'", shown ? ", " : "",
                             p->blocks[p->out_blk[g]].path, p->out_port_of[g] + 1);
            if (n < 0 || (size_t)n >= sizeof list - len - 24) {
                list[len] = '\0';
                break;
            }
            len += (size_t)n;
            shown++;
        }
        if (shown < count)
            snprintf(list + len, sizeof list - len, " and %lld more", (long long)(count - shown));
        return jg_error_set(err, JG_ARG,
                            "signal name '%s' is ambiguous: %lld output ports carry it: %s", name,
                            (long long)count, list);
    }
    *block = p->out_blk[first];
    *port = p->out_port_of[first];
    return JG_OK;
}
