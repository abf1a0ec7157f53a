/* Resolve linearization I/O points and loop openings to element-level
 * connections: what each block input (and each output point) reads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "eval_impl.h"
#include "../core/str.h"

typedef struct {
    const jg_program_t *p;
    const int *in_at;          /* per global output port: input point index, -1 */
    const unsigned char *open; /* per global output port */
    int64_t *inj;              /* collected w element indices */
    int64_t ninj, capinj;
    const jg_iopoint_t *in;
    int skip_first;            /* output points: the measured port itself is not cut */
    int nomem;                 /* an allocation failed: the trace stopped, the result is void */
} visit_t;

static int visit(void *ctx, int64_t gp, int64_t e)
{
    visit_t *v = ctx;
    if (v->skip_first) {
        v->skip_first = 0;
        return 0;
    }
    int k = v->in_at[gp];
    if (k >= 0) {
        if (v->ninj == v->capinj) {
            int64_t cap = v->capinj ? 2 * v->capinj : 16;
            int64_t *n = realloc(v->inj, sizeof(int64_t) * (size_t)cap);
            if (!n) {   /* stop the trace; the caller sees nomem */
                v->nomem = 1;
                return 1;
            }
            v->inj = n;
            v->capinj = cap;
        }
        v->inj[v->ninj++] = v->in[k].off + e;
    }
    return v->open[gp];
}

/* "BLOCK:N" (a block path, '/' inside a name doubled, and the output port
 * after the last colon) or a signal name -> global output port.  A reference
 * of the BLOCK:N form naming an existing block is that block's port, so a
 * signal named like one is reached only through its block. */
static jg_status_t parse_point(const jg_program_t *p, const char *opt, const char *ref,
                               int64_t *gp, jg_error_t *err)
{
    const char *colon = strrchr(ref, ':');
    char *end = NULL;
    long n = colon ? strtol(colon + 1, &end, 10) : 0;
    int block_form = colon && colon != ref && end && !*end && end != colon + 1 && n >= 1;
    int32_t b = -1;
    char path[4096];
    size_t len = block_form ? (size_t)(colon - ref) : 0;
    if (block_form) {
        if (len >= sizeof path) return jg_error_set(err, JG_ARG, "%s %s: path too long", opt, ref);
        memcpy(path, ref, len);
        path[len] = '\0';
        b = jg_program_find_block(p, path);
    }
    if (b < 0) {
        int port;
        jg_error_t serr;
        jg_status_t st = jg_program_find_signal(p, ref, &b, &port, &serr);
        if (!st) {
            *gp = jg__outport(p, b, port);
            return JG_OK;
        }
        /* not found (rather than ambiguous): say what the reference looked like */
        int none = !strncmp(serr.msg, "no signal named ", 16);
        if (none && block_form)
            return jg_error_set(err, JG_ARG, "%s %s: no block '%s' in the model%s", opt, ref, path,
                                strchr(path, '/') ? " (a '/' inside a block name is written "
                                                    "'//' in a path)"
                                                  : "");
        if (none)
            return jg_error_set(err, JG_ARG,
                                "%s %s: no signal has this name, and it is not BLOCK:N (a block "
                                "path and a 1-based output port, e.g. Controller/Sum1:1)",
                                opt, ref);
        return jg_error_set(err, st, "%s %s: %s", opt, ref, serr.msg);
    }
    if (n > p->blocks[b].nout)
        return jg_error_set(err, JG_ARG, "%s %s: block '%s' (%s) has %d output port%s", opt, ref,
                            path, p->blocks[b].type->name, p->blocks[b].nout,
                            p->blocks[b].nout == 1 ? "" : "s");
    *gp = jg__outport(p, b, (int)n - 1);
    return JG_OK;
}

static char **element_names(const char *name, int64_t w)
{
    char **v = calloc((size_t)w + 1, sizeof *v);
    if (!v) return NULL;
    for (int64_t k = 0; k < w; k++) {
        size_t n = strlen(name) + 24;
        v[k] = malloc(n);
        if (!v[k]) {   /* all or nothing: a missing name would print as "?" */
            for (int64_t j = 0; j < k; j++) free(v[j]);
            free(v);
            return NULL;
        }
        if (w == 1)
            snprintf(v[k], n, "%s", name);
        else
            snprintf(v[k], n, "%s(%lld)", name, (long long)k + 1);
    }
    return v;
}

void jg__iospec_free(jg_iospec_t *s)
{
    if (!s) return;
    for (int64_t k = 0; s->w_name && k < s->nw; k++) free(s->w_name[k]);
    for (int64_t k = 0; s->z_name && k < s->nz; k++) free(s->z_name[k]);
    for (int k = 0; s->in && k < s->nin; k++) free((char *)s->in[k].name);
    for (int k = 0; s->out && k < s->nout; k++) free((char *)s->out[k].name);
    free(s->w_name);
    free(s->z_name);
    free(s->in);
    free(s->out);
    free(s->src);
    free(s->inj_ptr);
    free(s->inj_idx);
    free(s);
}

jg_status_t jg__iospec_create(const jg_program_t *p, int nin, const char *const *in, int nout,
                              const char *const *out, int nopen, const char *const *open,
                              int defaults, jg_iospec_t **spec, jg_error_t *err)
{
    return jg__iospec_create_cut(p, nin, in, nout, out, nopen, open, defaults, 0, NULL, spec, err);
}

jg_status_t jg__iospec_create_cut(const jg_program_t *p, int nin, const char *const *in, int nout,
                                  const char *const *out, int nopen, const char *const *open,
                                  int defaults, int32_t ncut, const int32_t *cut,
                                  jg_iospec_t **spec, jg_error_t *err)
{
    jg_status_t st = JG_OK;
    jg_iospec_t *s = calloc(1, sizeof *s);
    int *in_at = malloc(sizeof(int) * (size_t)(p->nout_ports + 1));
    unsigned char *op = calloc((size_t)p->nout_ports + 1, 1);
    visit_t vis = {0};
    *spec = NULL;
    if (!s || !in_at || !op) goto nomem;
    for (int64_t k = 0; k < p->nout_ports; k++) in_at[k] = -1;
    int ni = defaults ? p->nin_root : 0, no = defaults ? p->nout_root : 0;
    s->in = calloc((size_t)(ni + nin + ncut) + 1, sizeof *s->in);
    s->out = calloc((size_t)(no + nout + ncut) + 1, sizeof *s->out);
    if (!s->in || !s->out) goto nomem;
    /* defaults: root Inports perturb their own output; root Outports measure
     * the signal that drives them */
    for (int k = 0; k < ni; k++) {
        const jg_block_t *B = &p->blocks[p->in_root[k]];
        jg_iopoint_t *pt = &s->in[s->nin++];
        pt->name = jg__strdup(B->path);
        pt->gport = jg__outport(p, B->id, 0);
        pt->width = B->out_w[0];
        if (!pt->name) goto nomem;
    }
    for (int k = 0; k < no; k++) {
        const jg_block_t *B = &p->blocks[p->out_root[k]];
        jg_iopoint_t *pt = &s->out[s->nout++];
        pt->name = jg__strdup(B->path);
        pt->gport = p->in_drv[jg__inport(p, B->id, 0)];   /* -1: undriven outport */
        pt->width = B->in_w[0];
        pt->as_consumer = 1;
        if (!pt->name) goto nomem;
    }
    for (int k = 0; k < nin; k++) {
        jg_iopoint_t *pt = &s->in[s->nin];
        if ((st = parse_point(p, "--input", in[k], &pt->gport, err))) goto fail;
        pt->name = jg__strdup(in[k]);
        if (!pt->name) goto nomem;
        pt->width = p->blocks[p->out_blk[pt->gport]].out_w[p->out_port_of[pt->gport]];
        s->nin++;
    }
    for (int k = 0; k < nout; k++) {
        jg_iopoint_t *pt = &s->out[s->nout];
        if ((st = parse_point(p, "--output", out[k], &pt->gport, err))) goto fail;
        pt->name = jg__strdup(out[k]);
        if (!pt->name) goto nomem;
        pt->width = p->blocks[p->out_blk[pt->gport]].out_w[p->out_port_of[pt->gport]];
        s->nout++;
    }
    for (int k = 0; k < nopen; k++) {
        int64_t gp;
        if ((st = parse_point(p, "--open", open[k], &gp, err))) goto fail;
        if (op[gp]) {
            st = jg_error_set(err, JG_ARG, "--open %s: the signal is already opened", open[k]);
            goto fail;
        }
        op[gp] = 1;
    }
    /* cuts: the block's output becomes the input point w_k (its consumers
     * see only w_k) and what its input reads the output point z_k, after the
     * other points; an output point on the cut signal measures w_k, which is
     * what the signal carries in the cut system */
    for (int32_t c = 0; c < ncut; c++) {
        const jg_block_t *B = &p->blocks[cut[c]];
        int64_t gp = jg__outport(p, B->id, 0);
        if (op[gp]) {
            st = jg_error_set(err, JG_ARG, "--open on the output of %s '%s': that signal is cut "
                              "as a delay channel already", B->type->name, B->path);
            goto fail;
        }
        for (int k = 0; k < s->nin; k++)
            if (s->in[k].gport == gp) {
                st = jg_error_set(err, JG_ARG, "input point %s: the output of %s '%s' is a delay "
                                  "channel (its own input point)", s->in[k].name, B->type->name,
                                  B->path);
                goto fail;
            }
        for (int k = 0; k < s->nout; k++)
            if (s->out[k].gport == gp) s->out[k].as_consumer = 1;
        op[gp] = 1;
        jg_iopoint_t *pi = &s->in[s->nin], *po = &s->out[s->nout];
        pi->name = jg__strdup(B->path);
        po->name = jg__strdup(B->path);
        if (!pi->name || !po->name) {
            free((char *)pi->name);
            free((char *)po->name);
            pi->name = po->name = NULL;
            goto nomem;
        }
        pi->gport = gp;
        pi->width = B->out_w[0];
        po->gport = p->in_drv[jg__inport(p, B->id, 0)];   /* -1: undriven input */
        po->width = B->in_w[0];
        po->as_consumer = 1;   /* what the block reads, perturbations included */
        s->nin++;
        s->nout++;
    }
    for (int k = 0; k < s->nin; k++) {
        if (in_at[s->in[k].gport] >= 0) {
            st = jg_error_set(err, JG_ARG, "input point %s: the signal already has input point %s",
                              s->in[k].name, s->in[in_at[s->in[k].gport]].name);
            goto fail;
        }
        in_at[s->in[k].gport] = k;
        s->in[k].off = s->nw;
        s->nw += s->in[k].width;
    }
    for (int k = 0; k < s->nout; k++) {   /* several outputs may measure one signal */
        s->out[k].off = s->nz;
        s->nz += s->out[k].width;
    }
    /* element names */
    s->w_name = calloc((size_t)s->nw + 1, sizeof(char *));
    s->z_name = calloc((size_t)s->nz + 1, sizeof(char *));
    if (!s->w_name || !s->z_name) goto nomem;
    for (int k = 0; k < s->nin; k++) {
        char **v = element_names(s->in[k].name, s->in[k].width);
        if (!v) goto nomem;
        memcpy(s->w_name + s->in[k].off, v, sizeof(char *) * (size_t)s->in[k].width);
        free(v);
    }
    for (int k = 0; k < s->nout; k++) {
        char **v = element_names(s->out[k].name, s->out[k].width);
        if (!v) goto nomem;
        memcpy(s->z_name + s->out[k].off, v, sizeof(char *) * (size_t)s->out[k].width);
        free(v);
    }
    /* connections of every u element, then every z element */
    int64_t ne = p->nu + s->nz;
    s->src = malloc(sizeof(int64_t) * (size_t)(ne + 1));
    s->inj_ptr = malloc(sizeof(int64_t) * (size_t)(ne + 1));
    if (!s->src || !s->inj_ptr) goto nomem;
    vis = (visit_t){.p = p, .in_at = in_at, .open = op, .in = s->in};
    int64_t e = 0;
    /* When every point sits on a real block's output (root Inports, most user
     * points), a trace only meets it at its last step, where the compiled
     * u_src already ends: no re-trace of a million elements is needed. */
    int virtual_marks = 0;
    for (int k = 0; k < s->nin; k++) virtual_marks |= p->blocks[p->out_blk[s->in[k].gport]].virt;
    for (int64_t g = 0; g < p->nout_ports && !virtual_marks; g++)
        virtual_marks |= op[g] && p->blocks[p->out_blk[g]].virt;
    if (!virtual_marks) {
        int64_t *sig_port = malloc(sizeof(int64_t) * (size_t)(p->ny + 1));
        if (!sig_port) goto nomem;
        for (int64_t g = 0; g < p->nout_ports; g++)
            if (p->y_off[g] >= 0)
                for (int64_t k = 0; k < p->blocks[p->out_blk[g]].out_w[p->out_port_of[g]]; k++)
                    sig_port[p->y_off[g] + k] = g;
        for (; e < p->nu; e++) {
            int64_t src = p->u_src[e];
            s->inj_ptr[e] = vis.ninj;
            if (src >= 0) {
                int64_t g = sig_port[src];
                if (visit(&vis, g, src - p->y_off[g])) src = -1;
                if (vis.nomem) {
                    free(sig_port);
                    goto nomem;
                }
            }
            s->src[e] = src;
        }
        free(sig_port);
    }
    for (int32_t b = 0; b < p->nblocks && virtual_marks; b++) {
        const jg_block_t *B = &p->blocks[b];
        if (B->virt) continue;
        for (int k = 0; k < B->nin; k++) {
            int64_t d = p->in_drv[jg__inport(p, b, k)];
            for (int64_t el = 0; el < B->in_w[k]; el++, e++) {
                s->inj_ptr[e] = vis.ninj;
                s->src[e] = d >= 0 ? jg__trace(p, d, el, visit, &vis) : -1;
                if (vis.nomem) goto nomem;
            }
        }
    }
    for (int k = 0; k < s->nout; k++) {
        for (int64_t el = 0; el < s->out[k].width; el++, e++) {
            s->inj_ptr[e] = vis.ninj;
            vis.skip_first = !s->out[k].as_consumer;
            s->src[e] = s->out[k].gport >= 0 ? jg__trace(p, s->out[k].gport, el, visit, &vis) : -1;
            if (vis.nomem) goto nomem;
        }
    }
    s->inj_ptr[e] = vis.ninj;
    s->inj_idx = vis.inj ? vis.inj : malloc(sizeof(int64_t));
    vis.inj = NULL;
    if (!s->inj_idx) goto nomem;
    *spec = s;
    s = NULL;
    goto done;
nomem:
    st = jg_error_set(err, JG_NOMEM, "out of memory");
fail:
done:
    free(vis.inj);
    free(in_at);
    free(op);
    jg__iospec_free(s);
    return st;
}
