/* measure.c -- see measure.h. */
#define _DEFAULT_SOURCE 1   /* wait4, struct rusage */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include "measure.h"

double jgb_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double jgb_median(double *v, int n)
{
    if (n <= 0) return NAN;
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

char *jgb_slurp(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    char *s = NULL;
    long n = -1;
    if (!fseek(f, 0, SEEK_END)) n = ftell(f);
    if (n >= 0 && !fseek(f, 0, SEEK_SET) && (s = malloc((size_t)n + 1))) {
        if (fread(s, 1, (size_t)n, f) != (size_t)n) {
            free(s);
            s = NULL;
        } else {
            s[n] = '\0';
        }
    }
    fclose(f);
    if (!s) snprintf(err, errlen, "%s: cannot read", path);
    return s;
}

void jgb_host(char *buf, size_t len)
{
    snprintf(buf, len, "?");
    FILE *ci = fopen("/proc/cpuinfo", "r");
    if (!ci) return;
    char line[512];
    while (fgets(line, sizeof line, ci))
        if (!strncmp(line, "model name", 10)) {
            char *s = strchr(line, ':');
            if (s) snprintf(buf, len, "%s", s + 2);
            buf[strcspn(buf, "\n")] = 0;
            break;
        }
    fclose(ci);
}

void jgb_opts_default(jgb_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->repeat = 5;
    o->max_time = 60;
    o->min_time = 0.5;
    o->max_runs = 1000;
    o->reduce = JG_GRAPH_REDUCE_MARKOWITZ;
    o->matrix = 1;
    o->fork = 1;
    o->tol = 1e-10;
}

/* ------------------------------------------------------------ one task */

enum { TASK_BASE, TASK_GRAPH, TASK_MATRIX };

/* What a task reports (written raw to a temporary file: same binary). */
typedef struct part {
    int status;                 /* 0 ok */
    char err[1024];
    jg_status_t lib;            /* the failing library call's status (0: not one) */
    int32_t nblocks, nreal;
    int64_t nx, nu, ny;
    int nloops;
    double t_compile;
    int runs;
    jgb_times_t first, second;  /* graph: first and repeated run; matrix: first */
    jg_graph_stats_t gs;
    size_t bytes_lft;
    int64_t lft_n;
    double self_diff;           /* graph: repeated run vs first run */
    int has_sys;
} part_t;

static int write_csc(FILE *f, const cs_dl *A)
{
    int64_t h[3] = {A->m, A->n, A->p[A->n]};
    return fwrite(h, sizeof h, 1, f) != 1 ||
           fwrite(A->p, sizeof(int64_t), (size_t)A->n + 1, f) != (size_t)A->n + 1 ||
           fwrite(A->i, sizeof(int64_t), (size_t)h[2], f) != (size_t)h[2] ||
           fwrite(A->x, sizeof(double), (size_t)h[2], f) != (size_t)h[2];
}

static cs_dl *read_csc(FILE *f)
{
    int64_t h[3];
    if (fread(h, sizeof h, 1, f) != 1 || h[0] < 0 || h[1] < 0 || h[2] < 0) return NULL;
    cs_dl *A = cs_dl_spalloc(h[0], h[1], h[2] ? h[2] : 1, 1, 0);
    if (!A) return NULL;
    if (fread(A->p, sizeof(int64_t), (size_t)h[1] + 1, f) != (size_t)h[1] + 1 ||
        fread(A->i, sizeof(int64_t), (size_t)h[2], f) != (size_t)h[2] ||
        fread(A->x, sizeof(double), (size_t)h[2], f) != (size_t)h[2])
        return cs_dl_spfree(A);
    return A;
}

static int write_sys(FILE *f, const jg_lin_sys_t *s)
{
    int64_t h[3] = {s->nx, s->nu, s->ny};
    return fwrite(h, sizeof h, 1, f) != 1 || write_csc(f, s->A) || write_csc(f, s->B) ||
           write_csc(f, s->C) || write_csc(f, s->D);
}

static jg_lin_sys_t *read_sys(FILE *f)
{
    int64_t h[3];
    jg_lin_sys_t *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    if (fread(h, sizeof h, 1, f) != 1) {
        free(s);
        return NULL;
    }
    s->A = read_csc(f);
    s->B = read_csc(f);
    s->C = read_csc(f);
    s->D = read_csc(f);
    if (!s->A || !s->B || !s->C || !s->D) {
        jg_lin_sys_free(s);   /* names are NULL: fine */
        return NULL;
    }
    s->nx = h[0];
    s->nu = h[1];
    s->ny = h[2];
    return s;
}

static void fill_times(jgb_times_t *t, double *const v[6], int n)
{
    t->eval = jgb_median(v[0], n);
    t->build = jgb_median(v[1], n);
    t->elim = jgb_median(v[2], n);
    t->replay = jgb_median(v[3], n);
    t->lft = jgb_median(v[4], n);
    t->total = jgb_median(v[5], n);
}

static void record(double *const v[6], int k, const jg_lin_stats_t *st)
{
    v[0][k] = st->t_eval;
    v[1][k] = st->t_build;
    v[2][k] = st->t_elim;
    v[3][k] = st->t_replay;
    v[4][k] = st->t_lft;
    v[5][k] = st->t_total;
}

static int new_lin(const jg_program_t *p, const jgb_opts_t *o, jg_lin_t **l, jg_error_t *err)
{
    *l = NULL;
    if (jg_lin_create(p, o->io, l, err)) return 1;
    if (o->op_path && jg_lin_read_op(*l, o->op_path, err)) {
        jg_lin_free(*l);
        *l = NULL;
        return 1;
    }
    return 0;
}

/* A tiny model every child linearizes with both algorithms before measuring, so
 * that library code pages and lazily allocated buffers (KLU, LAPACK for the
 * algebraic loop) are resident in all three children alike: the peak-RSS
 * increments over the base child are then the algorithm's data. */
static const char warmup_json[] =
    "{\"name\": \"warmup\", \"blocks\": ["
    "{\"name\": \"In1\", \"type\": \"Inport\", \"Port\": 1},"
    "{\"name\": \"E\", \"type\": \"Sum\", \"Inputs\": \"+--\"},"
    "{\"name\": \"F\", \"type\": \"Gain\", \"Gain\": 0.5},"
    "{\"name\": \"P\", \"type\": \"Product\", \"Inputs\": \"**\"},"
    "{\"name\": \"T\", \"type\": \"TransferFcn\", \"Numerator\": [1, 1], \"Denominator\": [1, 3, 2]},"
    "{\"name\": \"x\", \"type\": \"Integrator\", \"InitialCondition\": 1},"
    "{\"name\": \"Out1\", \"type\": \"Outport\", \"Port\": 1}],"
    "\"lines\": ["
    "{\"src\": \"In1:1\", \"dst\": \"E:1\"},"
    "{\"src\": \"x:1\", \"dst\": [\"E:2\", \"P:1\", \"P:2\", \"Out1:1\"]},"
    "{\"src\": \"F:1\", \"dst\": \"E:3\"},"
    "{\"src\": \"E:1\", \"dst\": [\"F:1\", \"T:1\"]},"
    "{\"src\": \"T:1\", \"dst\": \"x:1\"}]}";

static int warmup(void)
{
    jg_model_t *m = NULL;
    jg_program_t *p = NULL;
    jg_lin_t *l = NULL;
    jg_lin_sys_t *a = NULL, *b = NULL;
    int rc = jg_model_parse(warmup_json, "warmup", &m, NULL) || jg_program_compile(m, &p, NULL) ||
             jg_lin_create(p, NULL, &l, NULL) ||
             jg_lin_run(l, JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ, &a, NULL, NULL) ||
             jg_lin_run(l, JG_LIN_MATRIX, JG_GRAPH_REDUCE_NONE, &b, NULL, NULL);
    jg_lin_sys_free(a);
    jg_lin_sys_free(b);
    jg_lin_free(l);
    jg_program_free(p);
    jg_model_free(m);
    return rc;
}

void jgb_steady_heap(void)
{
#ifdef __GLIBC__
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
#endif
}

/* After loading: give freed heap pages back (so that the algorithm's data fault
 * in new pages rather than reuse the parser's) and restart the peak-RSS
 * high-water mark at the current RSS (Linux >= 4.0; ignored elsewhere), so
 * that the transient peak of JSON parsing is not in any child's peak. */
static void rss_reset(void)
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (f) {
        fputs("5", f);
        fclose(f);
    }
}

int jgb_compile(const jgb_source_t *src, jg_program_t **p, double *t_compile, char *msg,
                size_t msglen, jg_error_t *err)
{
    jg_model_t *m = NULL;
    *p = NULL;
    double t0 = jgb_now();
    if (src->load) {
        char *text = src->load(src->ctx, msg, msglen);
        if (!text) return 1;
        t0 = jgb_now();   /* generation is not compilation */
        jg_status_t s = jg_model_parse(text, src->label, &m, err);
        free(text);
        if (s) return 1;
    } else if (jg_model_read(src->path, &m, err)) {
        return 1;
    }
    jg_status_t s = jg_program_compile(m, p, err);
    if (t_compile) *t_compile = jgb_now() - t0;
    jg_model_free(m);   /* the program does not refer to it */
    return s != JG_OK;
}

/* Load, compile and (for GRAPH / MATRIX) linearize; report into out. */
static void run_task(const jgb_source_t *src, const jgb_opts_t *o, int task, FILE *out)
{
    part_t r;
    memset(&r, 0, sizeof r);
    jg_error_t err;
    jg_error_clear(&err);
    jg_program_t *p = NULL;
    jg_lin_t *l = NULL;
    jg_lin_sys_t *keep = NULL;
    int rep = o->repeat < 1 ? 1 : o->repeat;
    int n = rep > o->max_runs ? rep : o->max_runs;
    double *v1[6], *v2[6];
    for (int k = 0; k < 6; k++) {
        v1[k] = calloc((size_t)n, sizeof(double));
        v2[k] = calloc((size_t)n, sizeof(double));
    }
    jgb_steady_heap();
    if (warmup()) {
        r.status = 1;
        snprintf(r.err, sizeof r.err, "internal: the warm-up model failed");
        goto done;
    }
    if (jgb_compile(src, &p, &r.t_compile, r.err, sizeof r.err, &err)) {
        r.status = 1;
        if (err.status) goto fail;
        goto done;   /* the loader failed: its message is in r.err */
    }
    rss_reset();
    r.nblocks = jg_program_nblocks(p);
    r.nreal = jg_program_nreal(p);
    r.nx = jg_program_nstates(p);
    r.nloops = jg_program_nloops(p);
    if (new_lin(p, o, &l, &err)) goto fail;
    if (task == TASK_BASE) goto done;
    double spent = 0;
    for (int k = 0; k < n; k++) {
        if (k > 0 && o->max_time > 0 && spent >= o->max_time) break;
        if (k >= rep && spent >= o->min_time) break;   /* enough runs and enough time */
        jg_lin_stats_t s1, s2;
        jg_lin_sys_t *a = NULL, *b = NULL;
        if (k > 0 && task == TASK_GRAPH) {   /* a first run needs a new jg_lin_t */
            jg_lin_free(l);
            if (new_lin(p, o, &l, &err)) goto fail;
        }
        if (task == TASK_GRAPH) {
            if (o->strategy ? jg_lin_run_strategy(l, o->strategy, &a, &s1, &err)
                            : jg_lin_run(l, JG_LIN_GRAPH, o->reduce, &a, &s1, &err))
                goto fail;
            if (o->strategy ? jg_lin_run_strategy(l, o->strategy, &b, &s2, &err)
                            : jg_lin_run(l, JG_LIN_GRAPH, o->reduce, &b, &s2, &err)) {
                jg_lin_sys_free(a);
                goto fail;
            }
            record(v1, k, &s1);
            record(v2, k, &s2);
            spent += s1.t_total + s2.t_total;
            double d = jg_lin_sys_diff(b, a, NULL);
            if (!isnan(r.self_diff) && !(d <= r.self_diff)) r.self_diff = d;   /* NaN sticks */
            r.gs = s1.graph;
            r.bytes_lft = s1.bytes_lft;
            r.lft_n = s1.lft_n;
            jg_lin_sys_free(b);
        } else {
            if (jg_lin_run(l, JG_LIN_MATRIX, JG_GRAPH_REDUCE_NONE, &a, &s1, &err)) goto fail;
            record(v1, k, &s1);
            spent += s1.t_total;
            r.bytes_lft = s1.bytes_matrix;
            r.lft_n = s1.lft_n;
        }
        if (!keep) {
            keep = a;
            r.nu = a->nu;
            r.ny = a->ny;
        } else {
            jg_lin_sys_free(a);
        }
        r.runs = k + 1;
    }
    fill_times(&r.first, v1, r.runs);
    fill_times(&r.second, v2, r.runs);
    r.has_sys = keep != NULL;
    goto done;
fail:
    r.status = 1;
    r.lib = err.status;
    snprintf(r.err, sizeof r.err, "%s", err.msg[0] ? err.msg : jg_strerror(err.status));
done:
    if (fwrite(&r, sizeof r, 1, out) != 1 || (keep && write_sys(out, keep))) r.status = 1;
    fflush(out);
    jg_lin_sys_free(keep);
    jg_lin_free(l);
    jg_program_free(p);
    for (int k = 0; k < 6; k++) {
        free(v1[k]);
        free(v2[k]);
    }
}

/* Run a task in a child (or here), read its report; *rss in KiB (0 in-process). */
static int spawn(const jgb_source_t *src, const jgb_opts_t *o, int task, part_t *r,
                 jg_lin_sys_t **sys, long *rss)
{
    memset(r, 0, sizeof *r);
    *sys = NULL;
    *rss = 0;
    FILE *tf = tmpfile();
    if (!tf) {
        snprintf(r->err, sizeof r->err, "cannot create a temporary file: %s", strerror(errno));
        return 1;
    }
    if (o->fork) {
        fflush(stdout);
        fflush(stderr);
        pid_t pid = fork();
        if (pid < 0) {
            snprintf(r->err, sizeof r->err, "fork: %s", strerror(errno));
            fclose(tf);
            return 1;
        }
        if (pid == 0) {
            run_task(src, o, task, tf);
            _exit(0);
        }
        int status = 0;
        struct rusage ru;
        memset(&ru, 0, sizeof ru);
        pid_t w;
        while ((w = wait4(pid, &status, 0, &ru)) < 0 && errno == EINTR) {
        }
        if (w < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
            if (w >= 0 && WIFSIGNALED(status))
                snprintf(r->err, sizeof r->err, "measuring child killed by signal %d%s",
                         WTERMSIG(status), WTERMSIG(status) == SIGKILL ? " (out of memory?)" : "");
            else
                snprintf(r->err, sizeof r->err, "measuring child failed");
            fclose(tf);
            return 1;
        }
        *rss = ru.ru_maxrss;   /* KiB on Linux */
    } else {
        run_task(src, o, task, tf);
    }
    rewind(tf);
    char msg[sizeof r->err];
    if (fread(r, sizeof *r, 1, tf) != 1) {
        snprintf(r->err, sizeof r->err, "measuring child wrote no report");
        fclose(tf);
        return 1;
    }
    if (!r->status && r->has_sys && !(*sys = read_sys(tf))) {
        snprintf(msg, sizeof msg, "cannot read the child's result back");
        memcpy(r->err, msg, sizeof msg);
        r->status = 1;
    }
    fclose(tf);
    return r->status;
}

int jgb_measure(const jgb_source_t *src, const jgb_opts_t *o, jgb_row_t *row)
{
    memset(row, 0, sizeof *row);
    snprintf(row->label, sizeof row->label, "%s", src->label);
    part_t base, g, mx;
    jg_lin_sys_t *sb = NULL, *sg = NULL, *sm = NULL;
    double tc[3];
    int ntc = 0;
    if (spawn(src, o, TASK_BASE, &base, &sb, &row->rss_base_kib)) {
        snprintf(row->err, sizeof row->err, "%s", base.err);
        row->status = base.lib;
        return 1;
    }
    row->nblocks = base.nblocks;
    row->nreal = base.nreal;
    row->nx = base.nx;
    row->nloops = base.nloops;
    tc[ntc++] = base.t_compile;
    if (spawn(src, o, TASK_GRAPH, &g, &sg, &row->rss_graph_kib)) {
        snprintf(row->err, sizeof row->err, "graph algorithm: %.900s", g.err);
        row->status = g.lib;
        return 1;
    }
    tc[ntc++] = g.t_compile;
    row->nu = g.nu;
    row->ny = g.ny;
    row->v_before = g.gs.v_before;
    row->e_before = g.gs.e_before;
    row->v_after = g.gs.v_after;
    row->e_after = g.gs.e_after;
    row->eliminated = g.gs.eliminated;
    row->tape_ops = g.gs.ops;
    row->bytes_graph = g.bytes_lft;
    row->bytes_graph_struct = g.gs.bytes_graph;
    row->lft_n_graph = g.lft_n;
    row->runs_graph = g.runs;
    row->graph = g.first;
    row->replay = g.second;
    row->max_diff = g.self_diff;
    int rc = 0;
    row->matrix_skipped = !o->matrix || (o->matrix_max_blocks > 0 && row->nblocks > o->matrix_max_blocks);
    if (!row->matrix_skipped) {
        if (spawn(src, o, TASK_MATRIX, &mx, &sm, &row->rss_matrix_kib)) {
            snprintf(row->err, sizeof row->err, "matrix algorithm: %.900s", mx.err);
            row->status = mx.lib;
            jg_lin_sys_free(sg);
            return 1;
        }
        tc[ntc++] = mx.t_compile;
        row->bytes_matrix = mx.bytes_lft;
        row->lft_n_matrix = mx.lft_n;
        row->runs_matrix = mx.runs;
        row->matrix = mx.first;
        const char *which = "?";
        double d = NAN;
        if (sg && sm && sg->nx == sm->nx && sg->nu == sm->nu && sg->ny == sm->ny)
            d = jg_lin_sys_diff(sg, sm, &which);
        if (!isnan(row->max_diff) && !(d <= row->max_diff)) row->max_diff = d;
    }
    row->t_compile = jgb_median(tc, ntc);
    if (!(row->max_diff <= o->tol)) {
        row->mismatch = 1;
        snprintf(row->err, sizeof row->err,
                 "graph and matrix algorithms disagree: max difference %.3g > %.0e", row->max_diff,
                 o->tol);
        rc = 1;
    }
    row->ok = !rc;
    jg_lin_sys_free(sg);
    jg_lin_sys_free(sm);
    jg_lin_sys_free(sb);
    return rc;
}

/* ---------------------------------------------------------------- output */

double jgb_mem_ratio(const jgb_row_t *r)
{
    return r->matrix_skipped || !r->bytes_matrix ? NAN : (double)r->bytes_graph / (double)r->bytes_matrix;
}

double jgb_time_ratio(const jgb_row_t *r)
{
    return r->matrix_skipped || !(r->matrix.total > 0) ? NAN : r->graph.total / r->matrix.total;
}

double jgb_rss_ratio(const jgb_row_t *r)
{
    if (r->matrix_skipped || !r->rss_matrix_kib || r->rss_matrix_kib <= r->rss_base_kib) return NAN;
    return (double)(r->rss_graph_kib - r->rss_base_kib) / (double)(r->rss_matrix_kib - r->rss_base_kib);
}

static const char *pct(char *buf, size_t n, double ratio)
{
    if (isnan(ratio)) snprintf(buf, n, "n/a");
    else snprintf(buf, n, "%+.2f%%", 100.0 * (ratio - 1.0));
    return buf;
}

static const char *secs(char *buf, size_t n, double t)
{
    if (isnan(t)) snprintf(buf, n, "-");
    else snprintf(buf, n, "%.3g", t);
    return buf;
}

static const char *sz(char *buf, size_t n, long long v, int skipped)
{
    if (skipped) snprintf(buf, n, "(skipped)");
    else snprintf(buf, n, "%lld", v);
    return buf;
}

void jgb_table1_header(FILE *f)
{
    fprintf(f, "| Model | # of blocks | J size | Memory used (bytes) | J_r size | Memory used (bytes) "
               "| Memory usage reduction |\n|---|--:|---|--:|---|--:|--:|\n");
}

void jgb_table1_row(FILE *f, const jgb_row_t *r)
{
    char a[32], b[32];
    fprintf(f, "| %s | %d | V:%lld E:%lld | %s | V:%lld E:%lld | %zu | %s |\n", r->label, r->nblocks,
            (long long)r->v_before, (long long)r->e_before,
            sz(a, sizeof a, (long long)r->bytes_matrix, r->matrix_skipped), (long long)r->v_after,
            (long long)r->e_after, r->bytes_graph, pct(b, sizeof b, jgb_mem_ratio(r)));
}

void jgb_table2_header(FILE *f)
{
    fprintf(f, "| Model | # of blocks | J size | Memory used (bytes) | Time (secs) | J_r size | "
               "Memory used (bytes) | Time (secs) | Memory usage reduction | Computation time "
               "reduction |\n|---|--:|---|--:|--:|---|--:|--:|--:|--:|\n");
}

void jgb_table2_row(FILE *f, const jgb_row_t *r)
{
    char a[32], b[32], c[32], d[32], e[32];
    fprintf(f, "| %s | %d | V:%lld E:%lld | %s | %s | V:%lld E:%lld | %zu | %s | %s | %s |\n",
            r->label, r->nblocks, (long long)r->v_before, (long long)r->e_before,
            sz(a, sizeof a, (long long)r->bytes_matrix, r->matrix_skipped),
            r->matrix_skipped ? "(skipped)" : secs(b, sizeof b, r->matrix.total),
            (long long)r->v_after, (long long)r->e_after, r->bytes_graph,
            secs(c, sizeof c, r->graph.total), pct(d, sizeof d, jgb_mem_ratio(r)),
            pct(e, sizeof e, jgb_time_ratio(r)));
}

static const char *ms(char *buf, size_t n, double t, int skipped)
{
    if (skipped || isnan(t)) snprintf(buf, n, "-");
    else snprintf(buf, n, "%.3f", 1e3 * t);
    return buf;
}

static const char *ratio(char *buf, size_t n, double x)
{
    if (isnan(x)) snprintf(buf, n, "-");
    else snprintf(buf, n, "%.3f", x);
    return buf;
}

static const char *mib(char *buf, size_t n, long kib)
{
    if (!kib) snprintf(buf, n, "-");
    else snprintf(buf, n, "%.1f", (double)kib / 1024.0);
    return buf;
}

void jgb_detail_header(FILE *f)
{
    fprintf(f, "| Model | blocks | states | loops | runs g/m | compile | eval | build | elim | replay | "
               "LFT | graph total | again (replay) | m eval | m assembly | m LFT | matrix total | "
               "time g/m | bytes g/m | graph struct bytes | RSS base | RSS graph | RSS matrix | "
               "RSS incr g/m | max diff |\n"
               "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
               "--:|--:|--:|--:|--:|\n");
}

void jgb_detail_row(FILE *f, const jgb_row_t *r)
{
    char b[20][32];
    int s = r->matrix_skipped;
    fprintf(f,
            "| %s | %d | %lld | %d | %d/%d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s "
            "| %s | %s | %zu | %s | %s | %s | %s | %.1e |\n",
            r->label, r->nblocks, (long long)r->nx, r->nloops, r->runs_graph, r->runs_matrix,
            ms(b[0], 32, r->t_compile, 0), ms(b[1], 32, r->graph.eval, 0), ms(b[2], 32, r->graph.build, 0),
            ms(b[3], 32, r->graph.elim, 0), ms(b[4], 32, r->graph.replay, 0), ms(b[5], 32, r->graph.lft, 0),
            ms(b[6], 32, r->graph.total, 0), ms(b[7], 32, r->replay.total, 0),
            ms(b[8], 32, r->matrix.eval, s), ms(b[9], 32, r->matrix.build, s), ms(b[10], 32, r->matrix.lft, s),
            ms(b[11], 32, r->matrix.total, s), ratio(b[12], 32, jgb_time_ratio(r)),
            ratio(b[13], 32, jgb_mem_ratio(r)), r->bytes_graph_struct, mib(b[14], 32, r->rss_base_kib),
            mib(b[15], 32, r->rss_graph_kib), mib(b[16], 32, s ? 0 : r->rss_matrix_kib),
            ratio(b[17], 32, jgb_rss_ratio(r)), r->max_diff);
}

void jgb_svg_begin(FILE *f, double W, double H, const char *title)
{
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
               "font-family=\"Helvetica, Arial, sans-serif\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
            W, H, W, H);
    fprintf(f, "<text x=\"%.1f\" y=\"16\" text-anchor=\"middle\" font-size=\"13\" fill=\"#444\">%s</text>\n", W / 2,
            title);
}

void jgb_csv_header(FILE *f)
{
    fprintf(f, "model,blocks,real_blocks,states,inputs,outputs,loops,"
               "V_before,E_before,V_after,E_after,eliminated,tape_ops,"
               "bytes_matrix,bytes_graph,bytes_graph_struct,mem_ratio,lft_n_matrix,lft_n_graph,"
               "runs_graph,runs_matrix,matrix_skipped,t_compile,"
               "g_eval,g_build,g_elim,g_replay,g_lft,g_total,"
               "r_eval,r_replay,r_lft,r_total,m_eval,m_build,m_lft,m_total,time_ratio,"
               "rss_base_kib,rss_graph_kib,rss_matrix_kib,rss_incr_ratio,max_diff,status\n");
}

static void csv_d(FILE *f, double x)
{
    if (isnan(x)) fputs(",", f);
    else fprintf(f, ",%.9g", x);
}

void jgb_csv_row(FILE *f, const jgb_row_t *r)
{
    int s = r->matrix_skipped;
    fputc('"', f);
    for (const char *c = r->label; *c; c++) {
        if (*c == '"') fputc('"', f);
        fputc(*c, f);
    }
    fputc('"', f);
    fprintf(f, ",%d,%d,%lld,%lld,%lld,%d,%lld,%lld,%lld,%lld,%lld,%lld", r->nblocks, r->nreal,
            (long long)r->nx, (long long)r->nu, (long long)r->ny, r->nloops, (long long)r->v_before,
            (long long)r->e_before, (long long)r->v_after, (long long)r->e_after,
            (long long)r->eliminated, (long long)r->tape_ops);
    if (s) fputs(",", f);
    else fprintf(f, ",%zu", r->bytes_matrix);
    fprintf(f, ",%zu,%zu", r->bytes_graph, r->bytes_graph_struct);
    csv_d(f, jgb_mem_ratio(r));
    if (s) fputs(",", f);
    else fprintf(f, ",%lld", (long long)r->lft_n_matrix);
    fprintf(f, ",%lld,%d,%d,%d", (long long)r->lft_n_graph, r->runs_graph, r->runs_matrix, s);
    csv_d(f, r->t_compile);
    const jgb_times_t *t = &r->graph;
    csv_d(f, t->eval), csv_d(f, t->build), csv_d(f, t->elim), csv_d(f, t->replay), csv_d(f, t->lft),
        csv_d(f, t->total);
    t = &r->replay;
    csv_d(f, t->eval), csv_d(f, t->replay), csv_d(f, t->lft), csv_d(f, t->total);
    t = &r->matrix;
    csv_d(f, s ? NAN : t->eval), csv_d(f, s ? NAN : t->build), csv_d(f, s ? NAN : t->lft),
        csv_d(f, s ? NAN : t->total);
    csv_d(f, jgb_time_ratio(r));
    fprintf(f, ",%ld,%ld", r->rss_base_kib, r->rss_graph_kib);
    if (s || !r->rss_matrix_kib) fputs(",", f);
    else fprintf(f, ",%ld", r->rss_matrix_kib);
    csv_d(f, jgb_rss_ratio(r));
    csv_d(f, r->max_diff);
    fprintf(f, ",%s\n", r->ok ? "ok" : r->mismatch ? "mismatch" : "error");
}
