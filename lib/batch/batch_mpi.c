/* A batch across MPI ranks: each rank linearizes its share of the points on
 * its own threads and sends each result to rank 0, which runs its share too
 * and merges everything into one sink in point order.  The shares: when the
 * points set no workspace parameter, each rank starts with the points
 * k % nranks == r of a short prefix, then asks rank 0 for more, a few
 * consecutive points at a time, whenever it runs low (rank 0, which also
 * writes every result, so takes fewer for itself); otherwise k % nranks == r
 * throughout, so that a rank compiles only its points' parameter
 * combinations.
 * A result travels as its values and a reference to its sparsity pattern,
 * the pattern itself only the first time the rank sends it.
 * Without MPI (the default build) only the checks that refuse a launch by
 * mpirun or srun remain, so that K copies never write one file. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "jacgraph/batch.h"
#include "batch_impl.h"
#include "../core/patdict.h"

/* The process was started by a launcher with several tasks: OpenMPI's
 * mpirun, a PMI launcher (MPICH's hydra, Slurm's srun). */
static int launched_ranks(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE",
                                       "SLURM_STEP_NUM_TASKS"};
    for (size_t k = 0; k < sizeof vars / sizeof vars[0]; k++) {
        const char *v = getenv(vars[k]);
        if (v && atoi(v) > 1) return atoi(v);
    }
    return 1;
}

#ifndef JG_HAVE_MPI

int jg_batch_mpi_built(void) { return 0; }

jg_status_t jg_batch_mpi_init(int *rank, int *nranks, jg_error_t *err)
{
    int n = launched_ranks();
    if (rank) *rank = 0;
    if (nranks) *nranks = 1;
    if (n > 1)
        return jg_error_set(err, JG_ARG, "started as one of %d MPI tasks, but this jacgraph was built "
                            "without MPI (meson setup -Dmpi=enabled): every task would write the whole "
                            "result", n);
    return JG_OK;
}

jg_status_t jg_batch_mpi_run(const jg_program_t *p, const jg_batch_points_t *pts, const jg_batch_opts_t *o,
                             jg_batch_sink_fn sink, void *ctx, jg_batch_stats_t *st, jg_error_t *err)
{
    return jg_batch_run(p, pts, o, sink, ctx, st, err);
}

void jg_batch_mpi_finalize(int abort_code) { (void)abort_code; }

#else /* JG_HAVE_MPI */

#include <mpi.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

enum { TAG_RESULT = 1, TAG_ABORT = 2, TAG_REQ = 3, TAG_GRANT = 4 };

static int g_active, g_rank, g_nranks, g_told;   /* g_told: rank 0 has this rank's failure */
/* for the crash message: the first of this rank's points not yet delivered */
static volatile int64_t g_next_point = -1;
/* rank 0: SIGINT or SIGTERM arrived (mpirun sends SIGTERM when another rank
 * died); the handlers the caller had, called too */
static volatile sig_atomic_t g_stop;
static struct sigaction g_old_int, g_old_term;

int jg_batch_mpi_built(void) { return 1; }

/* ---- a crashing rank names itself and its point (async-signal-safe) */

static size_t put_num(char *b, int64_t v)
{
    char t[24];
    size_t n = 0, k = 0;
    int neg = v < 0;
    uint64_t u = neg ? (uint64_t)(-(v + 1)) + 1 : (uint64_t)v;
    do t[n++] = (char)('0' + u % 10), u /= 10;
    while (u);
    if (neg) b[k++] = '-';
    while (n) b[k++] = t[--n];
    return k;
}

static size_t put_str(char *b, const char *s)
{
    size_t n = strlen(s);
    memcpy(b, s, n);
    return n;
}

static void on_crash(int sig)
{
    char b[256];
    size_t n = put_str(b, "jacgraph batch: MPI rank ");
    n += put_num(b + n, g_rank);
    n += put_str(b + n, " of ");
    n += put_num(b + n, g_nranks);
    n += put_str(b + n, ": fatal signal ");
    n += put_num(b + n, sig);
    if (g_next_point >= 0) {
        n += put_str(b + n, " at point ");
        n += put_num(b + n, g_next_point);
        n += put_str(b + n, " (its first point not finished)");
    } else {
        n += put_str(b + n, " between its points");
    }
    n += put_str(b + n, "; no output file is written\n");
    ssize_t w = write(STDERR_FILENO, b, n);
    (void)w;
    raise(sig);   /* SA_RESETHAND: the default action, a core dump */
}

/* Every TCP socket of the process sends at once (TCP_NODELAY).  Open MPI
 * 4.1's PMIx client talks to its local server (mpirun or the node's daemon)
 * over a loopback TCP connection without TCP_NODELAY: at MPI_Finalize it
 * sends a few small messages in a row, Nagle's algorithm holds each one back
 * until the previous one is acknowledged, and the server acknowledges late
 * (Linux's delayed ACK, 40 ms).  Measured here: MPI_Finalize of two ranks
 * took 44 ms, 2 ms with this.  The sockets Open MPI opens for MPI traffic
 * (its TCP transport) already send at once; the option changes only when a
 * segment leaves, never what arrives.  Applied only when this call started
 * MPI, so that a program that did so itself keeps its sockets as they are. */
static void tcp_nodelay_all(void)
{
    long maxfd = sysconf(_SC_OPEN_MAX);
    if (maxfd < 0 || maxfd > 4096) maxfd = 4096;
    for (int fd = 0; fd < (int)maxfd; fd++) {
        int type = 0, one = 1;
        socklen_t len = sizeof type;
        struct sockaddr_storage a;
        socklen_t alen = sizeof a;
        if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) || type != SOCK_STREAM) continue;
        if (getsockname(fd, (struct sockaddr *)&a, &alen) || (a.ss_family != AF_INET && a.ss_family != AF_INET6))
            continue;
        (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);   /* best effort */
    }
}

jg_status_t jg_batch_mpi_init(int *rank, int *nranks, jg_error_t *err)
{
    int n = launched_ranks(), ok = 0, provided = 0;
    if (rank) *rank = 0;
    if (nranks) *nranks = 1;
    if (n <= 1 || g_active) return JG_OK;   /* a plain run: no MPI at all */
    MPI_Initialized(&ok);
    if (!ok && MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
        return jg_error_set(err, JG_IO, "MPI_Init_thread failed");
    if (!ok && provided < MPI_THREAD_SERIALIZED) {
        MPI_Finalize();
        return jg_error_set(err, JG_IO, "this MPI library cannot be called from the delivering "
                            "thread (thread level %d)", provided);
    }
    /* errors come back as codes: rank 0 then removes its temporary file
     * before the run ends (the default handler would abort it on the spot) */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (!ok) tcp_nodelay_all();
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_nranks);
    g_active = 1;
    struct sigaction sa = {0};
    sa.sa_handler = on_crash;
    sa.sa_flags = (int)SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++) sigaction(sigs[k], &sa, NULL);
    if (rank) *rank = g_rank;
    if (nranks) *nranks = g_nranks;
    return JG_OK;
}

void jg_batch_mpi_finalize(int abort_code)
{
    if (!g_active) return;
    g_active = 0;
    /* A failed rank other than 0 tells rank 0 (which is waiting for its
     * points), which removes its temporary file and then aborts every rank;
     * wait for that (a minute at most). */
    if (abort_code && g_rank != 0 && !g_told) {
        char text[160];
        int len = snprintf(text, sizeof text, "before its points (exit code %d; its message is on its "
                           "standard error)", abort_code);
        MPI_Send(text, len + 1, MPI_BYTE, 0, TAG_ABORT, MPI_COMM_WORLD);
    }
    struct timespec tenth = {0, 100000000};
    for (int w = 0; abort_code && g_rank != 0 && w < 600; w++) nanosleep(&tenth, NULL);
    if (abort_code) MPI_Abort(MPI_COMM_WORLD, abort_code);   /* ends every rank */
    MPI_Finalize();
}

/* ---- one result as a message: a header, then 8-byte arrays, then text */

typedef struct {
    int64_t k, ok, nvals, nx, nu, ny, ndelays, has_names, nnz[4], errlen, nameslen;
    int64_t pat[4];      /* the sender's id of each matrix's pattern */
    int64_t newpat[4];   /* 1: the pattern (column pointers, rows) follows */
    double t, Ts;
} hdr_t;

/* The patterns one rank has sent, per matrix (jg__patdict_t: ids 0, 1, ...
 * in order of sending): on the sender to find a pattern already sent, on
 * rank 0 to rebuild the matrix from its id. */

/* The sender's id of M's pattern, *isnew when it was not sent before; -1
 * out of memory. */
static int64_t pat_find(jg__patdict_t *t, const cs_dl *M, int *isnew)
{
    int64_t before = t->npat, id = jg__patdict_id(t, M);
    *isnew = t->npat > before;
    return id;
}

typedef struct {
    char *b;
    size_t n, cap;
} buf_t;

static int grow(buf_t *b, size_t more)
{
    if (b->n + more <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->n + more) cap *= 2;
    char *nb = realloc(b->b, cap);
    if (!nb) return -1;
    b->b = nb, b->cap = cap;
    return 0;
}

static int add(buf_t *b, const void *data, size_t n)
{
    if (grow(b, n)) return -1;
    if (n) memcpy(b->b + b->n, data, n);
    b->n += n;
    return 0;
}

/* Per rank (seen from rank 0): its state, input and output names, sent once. */
typedef struct {
    char *text;        /* the names, NUL-separated (owned) */
    char **v[3];       /* pointers into text */
} names_t;

/* Results travel without blocking the computation: a rank keeps up to
 * NSEND sends in flight (then waits for the oldest), rank 0 takes in what has
 * arrived whenever it is called and holds up to QMAX results per rank until
 * their turn (beyond that the senders wait: memory stays bounded). */
#define NSEND 16
#define QMAX 64

typedef struct {
    buf_t b;
    MPI_Request rq;
    int busy;
} slot_t;

typedef struct msg {
    struct msg *next;
    int tag, count;
    char *b;           /* count bytes + a NUL */
    MPI_Request rq;    /* while in flight (queue_t.fly) */
} msg_t;

/* Rank 0's messages from one rank: those received in full (head .. tail, n
 * of them, in order), behind them those still arriving (fly .. fly_tail,
 * nfly, in the order they were posted). */
typedef struct {
    msg_t *head, *tail;
    int n;
    msg_t *fly, *fly_tail;
    int nfly;
} queue_t;

/* Points handed out on request: [start, start + len) to rank. */
typedef struct {
    int64_t start, len;
    int rank;
} grant_t;

/* Points a rank asks for at a time, at most (or twice its threads), and how
 * few it may have left before it asks (or four times its threads): a request
 * takes about one of rank 0's points to be answered (rank 0 answers between
 * its own points), so a rank asks while it has enough to go on with. */
#define CHUNK_MAX 16
#define AHEAD 16

typedef struct {
    const jg_batch_opts_t *o;
    int nvals, nranks;
    /* points on request (dyn): the prefix [begin, pre_end) is k % nranks,
     * then rank 0 hands out [counter, end) */
    int dyn, gave_pre;
    int64_t begin, pre_end, counter;
    grant_t *gr;       /* rank 0: every grant after the prefix, in order */
    int64_t ngr, capgr, cur;
    int nfin;          /* rank 0: ranks told that no more points come */
    int64_t want;      /* the most points this rank asks for at a time */
    int64_t reserve;   /* rank 0: the last points it leaves to the others */
    const char *fault; /* JG_BATCH_MPI_FAULT (read once: the environment of a rank is long) */
    const int64_t *ks; /* this rank's points so far (the engine's), nks of them, */
    int64_t nks, ndel; /* ndel delivered */
    int req_out, fin_me;     /* a rank other than 0: a request in flight, no more to come */
    int64_t grant[2];
    MPI_Request grq;
    slot_t out[NSEND]; /* a rank other than 0: the sends in flight */
    int oslot;
    int sent_names;
    jg__patdict_t sent[4];    /* the patterns of A..D this rank sent so far (rank 0: queued) */
    jg__patdict_t (*got)[4];  /* rank 0: per rank, the patterns it sent */
    queue_t *q;        /* rank 0: per rank, the results received ahead of their turn */
    /* rank 0: the caller's sink, the merge position */
    jg_batch_sink_fn sink;
    void *ctx;
    int64_t next, end, total, done, nfailed;
    names_t *names;    /* nranks */
    double *vals;
    jg_error_t *err;   /* recv_point's failure (kept apart: the engine writes its own) */
    jg_status_t st;    /* set when a remote point could not be delivered */
} mpi_run_t;

static int pack(buf_t *b, int64_t k, const double *vals, int nvals, const jg_lin_sys_t *s,
                const char *error, int with_names, jg__patdict_t sent[4])
{
    hdr_t h = {.k = k, .ok = s != NULL, .nvals = nvals};
    const cs_dl *m[4] = {0};
    char *const *names[3] = {0};
    int64_t cnt[3] = {0};
    b->n = 0;
    if (s) {
        h.nx = s->nx, h.nu = s->nu, h.ny = s->ny, h.ndelays = s->ndelays, h.t = s->t, h.Ts = s->Ts;
        m[0] = s->A, m[1] = s->B, m[2] = s->C, m[3] = s->D;
        for (int q = 0; q < 4; q++) {
            int isnew;
            h.nnz[q] = m[q]->p[m[q]->n];
            if ((h.pat[q] = pat_find(&sent[q], m[q], &isnew)) < 0) return -1;
            h.newpat[q] = isnew;
        }
        names[0] = s->state_names, names[1] = s->input_names, names[2] = s->output_names;
        cnt[0] = s->nx, cnt[1] = s->nu, cnt[2] = s->ny;
        h.has_names = with_names;
        for (int g = 0; with_names && g < 3; g++)
            for (int64_t j = 0; j < cnt[g]; j++)
                h.nameslen += (int64_t)strlen(names[g] && names[g][j] ? names[g][j] : "") + 1;
    } else {
        h.errlen = (int64_t)strlen(error ? error : "failed") + 1;
    }
    if (add(b, &h, sizeof h) || add(b, vals, sizeof(double) * (size_t)nvals)) return -1;
    if (s) {
        if (add(b, s->delays, sizeof(double) * (size_t)s->ndelays)) return -1;
        for (int q = 0; q < 4; q++)
            if ((h.newpat[q] && (add(b, m[q]->p, sizeof(cs_long_t) * (size_t)(m[q]->n + 1)) ||
                                 add(b, m[q]->i, sizeof(cs_long_t) * (size_t)h.nnz[q]))) ||
                add(b, m[q]->x, sizeof(double) * (size_t)h.nnz[q]))
                return -1;
        for (int g = 0; with_names && g < 3; g++)
            for (int64_t j = 0; j < cnt[g]; j++) {
                const char *t = names[g] && names[g][j] ? names[g][j] : "";
                if (add(b, t, strlen(t) + 1)) return -1;
            }
    } else if (add(b, error ? error : "failed", (size_t)h.errlen)) {
        return -1;
    }
    return 0;
}

/* A fault on purpose for the tests (tests/batch_mpi_test.sh):
 * JG_BATCH_MPI_FAULT=R:K:fail makes rank R stop at its point K as a failing
 * sink would, R:K:crash makes it die there of SIGSEGV. */
static int fault_here(const char *f, int64_t k)
{
    int rk;
    long long pk;
    char how[8] = "";
    if (!f || sscanf(f, "%d:%lld:%7s", &rk, &pk, how) != 3 || rk != g_rank || pk != k) return 0;
    if (!strcmp(how, "crash")) raise(SIGSEGV);
    return !strcmp(how, "fail");
}

/* Sleep between two polls: *ns (the caller starts at 20 or 250 us),
 * doubling up to 2 ms.  The workers compute ahead of the delivering thread
 * (jg_batch_run's window), so the wait adds little, and a rank that waits
 * long (its peer is behind, the machine is busy) polls a few hundred times a
 * second instead of taking a core. */
static void nap(long *ns)
{
    struct timespec t = {0, *ns};
    nanosleep(&t, NULL);
    *ns = *ns < 1000000 ? 2 * *ns : 2000000;
}

/* Wait for a request without spinning a core (MPI's own wait polls hard,
 * and the rank's workers need the cores).  A sender waits for rank 0 to
 * take a result, which takes about a point's time (rank 0 drains between
 * its own points): naps from 250 us, not 20.  mpirun binds a rank to one
 * core, so every wake-up of this thread preempts the rank's worker; from 20
 * us, rank 1 of 2 woke about twice a point (12,000 context switches for
 * 5,000 points, 0.15 s of its 1.7 s of CPU), while its worker went on with
 * the points ahead anyway. */
static int wait_req(MPI_Request *rq)
{
    long ns = 250000;
    for (int done = 0;;) {
        if (MPI_Test(rq, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return -1;
        if (done) return 0;
        nap(&ns);
    }
}

/* ---- points on request */

/* The rank that has point k (granted already); -1 when none has. */
static int owner(mpi_run_t *r, int64_t k)
{
    if (!r->dyn || k < r->pre_end) return (int)(k % r->nranks);
    if (k >= r->counter) return -1;
    if (r->cur >= r->ngr || k < r->gr[r->cur].start) r->cur = 0;   /* (k only grows: never) */
    while (r->gr[r->cur].start + r->gr[r->cur].len <= k) r->cur++;
    return r->gr[r->cur].rank;
}

/* Rank 0: the next points for rank, which asked for up to want; *len 0 when
 * none is left; -1 out of memory.  Fewer at a time towards the end (a quarter
 * of what is left per rank), so that the ranks finish together. */
static int grant(mpi_run_t *r, int rank, int64_t want, int64_t *start, int64_t *len)
{
    int64_t rest = r->end - r->counter, n = rest / (4 * (int64_t)r->nranks);
    n = n < 1 ? 1 : n > want ? want : n;
    if (n > rest) n = rest;
    *start = r->counter, *len = n;
    if (!n) return 0;
    if (r->ngr == r->capgr) {
        int64_t cap = r->capgr ? 2 * r->capgr : 256;
        grant_t *g = realloc(r->gr, sizeof *g * (size_t)cap);
        if (!g) return -1;
        r->gr = g, r->capgr = cap;
    }
    r->gr[r->ngr++] = (grant_t){*start, n, rank};
    r->counter += n;
    return 0;
}

/* Rank 0: answer src's request (it has arrived). */
static jg_status_t answer(mpi_run_t *r, int src)
{
    int64_t g[2], want = 0;
    if (MPI_Recv(&want, 1, MPI_INT64_T, src, TAG_REQ, MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return jg_error_set(r->err, JG_IO, "MPI rank %d: cannot receive", src);
    if (want < 1 || want > 1 << 20)
        return jg_error_set(r->err, JG_IO, "MPI rank %d asked for %lld points at a time", src, (long long)want);
    if (grant(r, src, want, &g[0], &g[1]))
        return jg_error_set(r->err, JG_NOMEM, "out of memory handing out points");
    r->nfin += g[1] == 0;
    if (MPI_Send(g, 2, MPI_INT64_T, src, TAG_GRANT, MPI_COMM_WORLD) != MPI_SUCCESS)
        return jg_error_set(r->err, JG_IO, "MPI rank %d: cannot send it points", src);
    return JG_OK;
}

/* This rank's prefix points into ks[have ..]: their count. */
static int64_t prefix(mpi_run_t *r, int64_t *ks, int64_t have)
{
    int64_t n = 0;
    r->gave_pre = 1;
    for (int64_t k = r->begin; k < r->pre_end; k++)
        if (k % r->nranks == g_rank) ks[have + n++] = k;
    return n;
}

/* The engine's feed on rank 0: its prefix, then points from the counter. */
static int64_t take0(void *ctx, int64_t *ks, int64_t have, int64_t max, int wait, jg_error_t *err)
{
    mpi_run_t *r = ctx;
    int64_t start, n = 0;
    (void)wait;
    r->ks = ks;
    if (!r->gave_pre) n = prefix(r, ks, have);
    else if (r->end - r->counter <= r->reserve) return -1;   /* the others' */
    else if (grant(r, 0, r->want, &start, &n)) return jg_error_set(err, JG_NOMEM, "out of memory"), -2;
    else if (!n) return -1;
    else
        for (int64_t j = 0; j < n; j++) ks[have + j] = start + j;
    if (n > max) return jg_error_set(err, JG_IO, "the batch's points: more than there are"), -2;
    r->nks = have + n;
    return n ? n : take0(ctx, ks, have, max, wait, err);   /* an empty prefix */
}

/* The engine's feed on the other ranks: the prefix, then rank 0's answers to
 * a request sent as soon as the engine runs low (waiting for it only when
 * wait is set). */
static int64_t take1(void *ctx, int64_t *ks, int64_t have, int64_t max, int wait, jg_error_t *err)
{
    mpi_run_t *r = ctx;
    r->ks = ks;
    if (!r->gave_pre) {
        int64_t n = prefix(r, ks, have);
        r->nks = have + n;
        if (n) return n;
    }
    if (r->fin_me) return -1;
    if (!r->req_out) {
        if (MPI_Send(&r->want, 1, MPI_INT64_T, 0, TAG_REQ, MPI_COMM_WORLD) != MPI_SUCCESS ||
            MPI_Irecv(r->grant, 2, MPI_INT64_T, 0, TAG_GRANT, MPI_COMM_WORLD, &r->grq) != MPI_SUCCESS)
            return jg_error_set(err, JG_IO, "MPI rank %d: cannot ask rank 0 for points", g_rank), -2;
        r->req_out = 1;
    }
    long ns = 20000;
    for (int done = 0;;) {
        if (MPI_Test(&r->grq, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return jg_error_set(err, JG_IO, "MPI rank %d: cannot receive points from rank 0", g_rank), -2;
        if (done) break;
        if (!wait) return 0;
        nap(&ns);
    }
    r->req_out = 0;
    int64_t start = r->grant[0], n = r->grant[1], after = have ? ks[have - 1] + 1 : r->begin;
    if (!n) {
        r->fin_me = 1;
        return -1;
    }
    if (n < 0 || n > max || start < after || start > r->end - n)
        return jg_error_set(err, JG_IO, "MPI rank %d: rank 0 handed out points %lld..%lld, out of place",
                            g_rank, (long long)start, (long long)(start + n - 1)), -2;
    for (int64_t j = 0; j < n; j++) ks[have + j] = start + j;
    r->nks = have + n;
    return n;
}

/* After point k is delivered: this rank's first point not finished (for the
 * crash message), -1 when it has none yet. */
static int64_t after_delivered(mpi_run_t *r, int64_t k)
{
    if (!r->dyn) return k + r->nranks;
    r->ndel++;
    return r->ndel < r->nks ? r->ks[r->ndel] : -1;
}

/* Ranks other than 0: each result goes to rank 0 as it is delivered. */
static int send_sink(void *ctx, int64_t k, const double *vals, const jg_lin_sys_t *s, const char *error)
{
    mpi_run_t *r = ctx;
    g_next_point = k;
    if (r->fault && fault_here(r->fault, k)) return 1;
    g_next_point = after_delivered(r, k);
    slot_t *sl = &r->out[r->oslot];
    r->oslot = (r->oslot + 1) % NSEND;
    if (sl->busy && wait_req(&sl->rq)) return 1;   /* the oldest send */
    sl->busy = 0;
    if (pack(&sl->b, k, vals, r->nvals, s, error, s && !r->sent_names, r->sent) || sl->b.n > 0x7FFFFFFF)
        return 1;
    if (MPI_Isend(sl->b.b, (int)sl->b.n, MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD, &sl->rq) != MPI_SUCCESS)
        return 1;
    sl->busy = 1;
    if (s) r->sent_names = 1;
    return 0;
}

/* Rank 0: the messages of q in flight that have arrived in full, in order,
 * onto its queue.  0, or -1 when MPI failed. */
static int landed(queue_t *q)
{
    while (q->fly) {
        int done = 0;
        if (MPI_Test(&q->fly->rq, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return -1;
        if (!done) break;
        msg_t *m = q->fly;
        if (!(q->fly = m->next)) q->fly_tail = NULL;
        q->nfly--;
        m->next = NULL;
        m->b[m->count] = 0;
        if (q->tail) q->tail->next = m;
        else q->head = m;
        q->tail = m;
        q->n++;
    }
    return 0;
}

/* Rank 0: take in every result that has arrived or is arriving (up to QMAX
 * per rank, received or in flight), without waiting for any.  A receive is
 * posted as soon as its message is seen, and left to arrive: when Open MPI
 * cannot copy between the processes in one step (its shared-memory
 * transport without CMA, e.g. in a container that forbids
 * process_vm_readv), a result of more than a few KB travels in fragments
 * that the sender pushes only when it next calls MPI, and waiting here for
 * each one took 0.5 ms a result: 10,000 points of the 10,000-block model on
 * two ranks ran 3.5 s instead of 0.7. */
static jg_status_t drain(mpi_run_t *r)
{
    jg_status_t st;
    for (int flag = r->dyn; flag;) {   /* requests first, even from a rank whose queue is full */
        MPI_Status ms;
        if (MPI_Iprobe(MPI_ANY_SOURCE, TAG_REQ, MPI_COMM_WORLD, &flag, &ms) != MPI_SUCCESS)
            return jg_error_set(r->err, JG_IO, "MPI: cannot receive");
        if (flag && (st = answer(r, ms.MPI_SOURCE))) return st;
    }
    for (int src = 1; src < r->nranks; src++) {
        queue_t *q = &r->q[src];
        while (q->n + q->nfly < QMAX) {   /* (landing moves a message, the count stays) */
            int flag = 0, count = 0;
            MPI_Status ms;
            if (MPI_Iprobe(src, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &ms) != MPI_SUCCESS ||
                (flag && (MPI_Get_count(&ms, MPI_BYTE, &count) != MPI_SUCCESS || count < 0)))
                return jg_error_set(r->err, JG_IO, "MPI rank %d: cannot receive", src);
            if (!flag) break;
            if (ms.MPI_TAG == TAG_REQ) {
                if ((st = answer(r, src))) return st;
                continue;
            }
            msg_t *m = calloc(1, sizeof *m);
            if (m) m->b = malloc((size_t)count + 1);
            if (!m || !m->b) {
                free(m);
                return jg_error_set(r->err, JG_NOMEM, "out of memory receiving from MPI rank %d", src);
            }
            m->tag = ms.MPI_TAG, m->count = count;
            if (MPI_Irecv(m->b, count, MPI_BYTE, src, ms.MPI_TAG, MPI_COMM_WORLD, &m->rq) != MPI_SUCCESS) {
                free(m->b);
                free(m);
                return jg_error_set(r->err, JG_IO, "MPI rank %d: cannot receive", src);
            }
            if (q->fly_tail) q->fly_tail->next = m;
            else q->fly = m;
            q->fly_tail = m;
            q->nfly++;
        }
        if (landed(q)) return jg_error_set(r->err, JG_IO, "MPI rank %d: cannot receive", src);
    }
    return JG_OK;
}

/* Rank 0: the next message of rank src, waiting for it (interruptibly). */
static jg_status_t next_msg(mpi_run_t *r, int src, int64_t k, msg_t **out)
{
    long ns = 20000;
    queue_t *q = &r->q[src];
    jg_status_t st;
    while (!q->head) {
        if ((st = drain(r))) return st;
        if (q->head) break;
        if (g_stop)
            return jg_error_set(r->err, JG_IO, "interrupted waiting for point %lld from MPI rank %d",
                                (long long)k, src);
        nap(&ns);
    }
    *out = q->head;
    if (!(q->head = q->head->next)) q->tail = NULL;
    q->n--;
    return JG_OK;
}

/* A bounds-checked reader of a received message. */
typedef struct {
    const char *p, *end;
} rd_t;

static const void *take(rd_t *d, size_t n)
{
    if ((size_t)(d->end - d->p) < n) return NULL;
    const void *at = d->p;
    d->p += n;
    return at;
}

static jg_status_t deliver(mpi_run_t *r, int64_t k, int src, const msg_t *msg);

/* Rank src's failure, from its TAG_ABORT message's text. */
static jg_status_t rank_failed(jg_error_t *err, int src, const msg_t *m)
{
    return jg_error_set(err, JG_IO, "MPI rank %d failed: %s", src, m->b);
}

/* Rank 0 at the end: wait until point k, one of those it left to the others
 * (r->reserve), is handed out (answering their requests), *src its rank. */
static jg_status_t await_grant(mpi_run_t *r, int64_t k, int *src)
{
    jg_status_t st;
    for (long ns = 20000; r->dyn && k >= r->counter; nap(&ns)) {
        if ((st = drain(r))) return st;
        if (k < r->counter) break;
        if (g_stop)
            return jg_error_set(r->err, JG_IO, "interrupted waiting for point %lld to be handed out",
                                (long long)k);
        for (int q = 1; q < r->nranks; q++)   /* a rank that failed asks for no more */
            if (r->q[q].head && r->q[q].head->tag == TAG_ABORT)
                return rank_failed(r->err, q, r->q[q].head);
        if (r->nfin >= r->nranks - 1)
            return jg_error_set(r->err, JG_INTERNAL, "point %lld was handed out to no MPI rank", (long long)k);
    }
    *src = owner(r, k);
    return JG_OK;
}

enum { MERGE_NOW, MERGE_WAIT, MERGE_END };

/* Rank 0: deliver the points from r->next on whose results are here, in
 * order.  Rank 0's own results are queued as they are computed (q[0]), so
 * that its threads go on while another rank's point is awaited.  how:
 * MERGE_NOW stops at the first result not here, MERGE_WAIT waits for the
 * other ranks' (but stops at rank 0's own not yet computed), MERGE_END
 * waits for every point to the end. */
static jg_status_t merge(mpi_run_t *r, int how)
{
    jg_status_t s = JG_OK;
    for (; r->next < r->end; r->next++) {
        int64_t k = r->next;
        int src = owner(r, k);
        if (src < 0 && how != MERGE_END) break;   /* not handed out yet */
        if (src < 0 && (s = await_grant(r, k, &src))) break;   /* (one of the reserved) */
        if (src < 0 || src >= r->nranks || (src == 0 && !r->q[0].head && how == MERGE_END)) {
            s = jg_error_set(r->err, JG_INTERNAL, "point %lld was handed out to no MPI rank", (long long)k);
            break;
        }
        if (!r->q[src].head && (src == 0 || how == MERGE_NOW)) break;
        msg_t *m = NULL;
        if (src) {
            s = next_msg(r, src, k, &m);
        } else {
            m = r->q[0].head;
            if (!(r->q[0].head = m->next)) r->q[0].tail = NULL;
            r->q[0].n--;
        }
        if (!s) s = deliver(r, k, src, m);
        if (m) free(m->b);
        free(m);
        if (s) break;
    }
    if (s && !r->st) r->st = s;
    return s;
}

static jg_status_t deliver(mpi_run_t *r, int64_t k, int src, const msg_t *msg)
{
    if (msg->tag == TAG_ABORT)
        return rank_failed(r->err, src, msg);
    rd_t d = {msg->b, msg->b + msg->count};
    const hdr_t *h = take(&d, sizeof *h);
    const char *bad = NULL;
    if (!h || h->k != k || h->nvals != r->nvals || h->nx < 0 || h->nu < 0 || h->ny < 0 || h->ndelays < 0) {
        bad = "a message out of place";
        goto fail;
    }
    const double *vals = take(&d, sizeof(double) * (size_t)h->nvals);
    if (!vals) goto fail;
    memcpy(r->vals, vals, sizeof(double) * (size_t)h->nvals);   /* aligned copy */
    int sink_stop;
    if (!h->ok) {
        const char *e = take(&d, (size_t)h->errlen);
        if (!e || h->errlen < 1 || e[h->errlen - 1]) goto fail;
        r->nfailed++;
        sink_stop = r->sink(r->ctx, k, r->vals, NULL, e);
    } else {
        jg_lin_sys_t s = {.nx = h->nx, .nu = h->nu, .ny = h->ny, .t = h->t, .Ts = h->Ts, .ndelays = h->ndelays};
        cs_dl m[4];
        const int64_t dims[4][2] = {{h->nx, h->nx}, {h->nx, h->nu}, {h->ny, h->nx}, {h->ny, h->nu}};
        s.delays = (double *)take(&d, sizeof(double) * (size_t)h->ndelays);
        if (!s.delays) goto fail;
        for (int q = 0; q < 4; q++) {
            jg__patdict_t *t = &r->got[src][q];
            int64_t id = h->pat[q], n = dims[q][1], nnz;
            m[q] = (cs_dl){.nzmax = h->nnz[q], .m = dims[q][0], .n = n, .nz = -1};
            if (h->nnz[q] < 0 || id < 0 || id > t->npat || (h->newpat[q] != 0 && h->newpat[q] != 1) ||
                (id == t->npat) != (h->newpat[q] == 1) || (t->npat && t->n != n))
                goto fail;
            if (h->newpat[q]) {   /* a pattern this rank had not sent: keep it */
                const cs_long_t *pp = take(&d, sizeof(cs_long_t) * (size_t)(n + 1));
                const cs_long_t *pi = take(&d, sizeof(cs_long_t) * (size_t)h->nnz[q]);
                if (!pp || !pi || pp[0] != 0 || pp[n] != h->nnz[q]) goto fail;
                for (int64_t j = 0; j < n; j++)
                    if (pp[j + 1] < pp[j]) goto fail;
                for (int64_t e = 0; e < h->nnz[q]; e++)
                    if (pi[e] < 0 || pi[e] >= dims[q][0]) goto fail;
                const cs_dl v = {.m = dims[q][0], .n = n, .p = (cs_long_t *)pp, .i = (cs_long_t *)pi, .nz = -1};
                int64_t got = jg__patdict_id(t, &v);
                if (got < 0)
                    return jg_error_set(r->err, JG_NOMEM, "out of memory receiving point %lld", (long long)k);
                if (got != id) goto fail;   /* a pattern it had sent already, sent as new */
            }
            const int64_t *cp, *rows;
            jg__patdict_get(t, id, &cp, &rows, &nnz);
            if (nnz != h->nnz[q]) goto fail;
            m[q].p = (cs_long_t *)cp, m[q].i = (cs_long_t *)rows;
            m[q].x = (double *)take(&d, sizeof(double) * (size_t)h->nnz[q]);
            if (!m[q].x) goto fail;
        }
        s.A = &m[0], s.B = &m[1], s.C = &m[2], s.D = &m[3];
        names_t *nm = &r->names[src];
        if (h->has_names) {   /* the rank's first model: keep its names */
            const char *t = take(&d, (size_t)h->nameslen);
            const int64_t cnt[3] = {h->nx, h->nu, h->ny};
            if (!t || (h->nameslen && t[h->nameslen - 1]) || nm->text) goto fail;
            if (!(nm->text = malloc((size_t)h->nameslen + 1)))
                return jg_error_set(r->err, JG_NOMEM, "out of memory receiving point %lld", (long long)k);
            memcpy(nm->text, t, (size_t)h->nameslen);
            char *c = nm->text, *e = nm->text + h->nameslen;
            for (int g = 0; g < 3; g++) {
                if (!(nm->v[g] = calloc((size_t)cnt[g] + 1, sizeof(char *))))
                    return jg_error_set(r->err, JG_NOMEM, "out of memory receiving point %lld", (long long)k);
                for (int64_t j = 0; j < cnt[g]; j++) {
                    if (c >= e) goto fail;
                    nm->v[g][j] = c;
                    c += strlen(c) + 1;
                }
            }
        }
        if (!nm->text && h->nx + h->nu + h->ny > 0) goto fail;
        s.state_names = nm->v[0], s.input_names = nm->v[1], s.output_names = nm->v[2];
        sink_stop = r->sink(r->ctx, k, r->vals, &s, NULL);
    }
    r->done++;
    if (r->o->progress) r->o->progress(r->o->progress_ctx, r->done, r->total);
    if (sink_stop) return jg_error_set(r->err, JG_IO, "the run stopped at point %lld", (long long)k);
    return JG_OK;
fail:
    return jg_error_set(r->err, JG_IO, "MPI rank %d sent %s for point %lld", src,
                        bad ? bad : "a malformed result", (long long)k);
}

static void on_stop(int sig)
{
    g_stop = 1;
    const struct sigaction *old = sig == SIGINT ? &g_old_int : &g_old_term;
    if (!(old->sa_flags & SA_SIGINFO) && old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN)
        old->sa_handler(sig);
}

/* Rank 0's share arrives here in order: queued as a message, the way the
 * other ranks send theirs, then every point whose result is here merged. */
static int merge_sink(void *ctx, int64_t k, const double *vals, const jg_lin_sys_t *s, const char *error)
{
    mpi_run_t *r = ctx;
    g_next_point = after_delivered(r, k);
    buf_t b = {0};
    msg_t *m = calloc(1, sizeof *m);
    if (!m || pack(&b, k, vals, r->nvals, s, error, s && !r->sent_names, r->sent) || grow(&b, 1) ||
        b.n > 0x7FFFFFFF) {
        free(m);
        free(b.b);
        r->st = jg_error_set(r->err, JG_NOMEM, "out of memory keeping point %lld", (long long)k);
        return 1;
    }
    if (s) r->sent_names = 1;
    m->tag = TAG_RESULT, m->count = (int)b.n, m->b = b.b;
    queue_t *q = &r->q[0];
    if (q->tail) q->tail->next = m;
    else q->head = m;
    q->tail = m;
    q->n++;
    jg_status_t ds = drain(r);   /* whatever arrived meanwhile, so the senders go on */
    if (ds) {
        r->st = ds;
        return 1;
    }
    /* (rank 0 runs ahead of the others by what they still have to do; past
     * 4 QMAX of its own results kept, it waits for theirs) */
    return merge(r, q->n >= 4 * QMAX ? MERGE_WAIT : MERGE_NOW) ? 1 : 0;
}

jg_status_t jg_batch_mpi_run(const jg_program_t *p, const jg_batch_points_t *pts, const jg_batch_opts_t *o,
                             jg_batch_sink_fn sink, void *ctx, jg_batch_stats_t *st, jg_error_t *err)
{
    if (!g_active || g_nranks <= 1) return jg_batch_run(p, pts, o, sink, ctx, st, err);
    if (!p || !pts || !o || !sink) return jg_error_set(err, JG_ARG, "jg_batch_mpi_run: NULL argument");
    jg_batch_opts_t mine = *o;
    mine.nranks = g_nranks, mine.rank = g_rank;
    mine.progress = NULL;   /* rank 0 reports the merged progress */
    jg_error_t rerr;
    jg_error_clear(&rerr);
    mpi_run_t r = {.o = o, .nvals = jg_batch_points_nvals(pts), .nranks = g_nranks, .sink = sink,
                   .ctx = ctx, .err = &rerr};
    int64_t n = jg_batch_points_count(pts);
    r.end = o->end > 0 && o->end < n ? o->end : n;
    r.next = o->begin > 0 ? o->begin : 0;
    r.total = r.end > r.next ? r.end - r.next : 0;
    /* points on request unless the points set parameters (then every rank
     * would compile every combination); the prefix: up to 512 points per rank
     * (at most an eighth of the points), enough to start on while rank 0 is
     * not yet answering: it opens the output first (loading HDF5, creating
     * the file), and rank 1 of 2 sat idle for 20-40 ms of it with the 64 of
     * an earlier limit (8 ms of points of the 10,000-block model) */
    r.fault = getenv("JG_BATCH_MPI_FAULT");
    r.dyn = jg_batch_points_nparams(pts) == 0 && r.total > 0;   /* (no points: no rank asks) */
    r.begin = r.next;
    int64_t per = r.total / (8 * (int64_t)g_nranks);
    per = per < 4 ? 4 : per > 512 ? 512 : per;
    r.pre_end = r.counter = r.next + (r.total < per * g_nranks ? r.total : per * g_nranks);
    int64_t jobs = o->jobs > 0 ? o->jobs : jg_batch_ncores();
    r.want = 2 * jobs > CHUNK_MAX ? 2 * jobs : CHUNK_MAX;
    /* Rank 0 ends the run with the writes of the points that come last and
     * behind them, with the file's close: it leaves the last 1/128 of the
     * points to the others.  (10,000 points of the 10,000-block model on two
     * ranks, where rank 0 does about 50 ms more CPU than rank 1: 1/64 took
     * that to 30-40 ms, but rank 0 then sat idle for 10-15 ms waiting for
     * the last points; at 1/128 the difference is within the runs' noise.) */
    r.reserve = g_rank == 0 && r.dyn ? (r.end - r.pre_end) / 128 : 0;
    jg__batch_feed_t feed = {g_rank ? take1 : take0, &r, 4 * jobs > AHEAD ? 4 * jobs : AHEAD};
    for (g_next_point = r.next; g_next_point % g_nranks != g_rank; g_next_point++) {}
    jg_batch_stats_t bs = {0};
    jg_status_t s;
    for (int q = 0; q < 4; q++) jg__patdict_init(&r.sent[q], -1);
    if (g_rank != 0) {
        s = jg__batch_run_fed(p, pts, &mine, r.dyn ? &feed : NULL, send_sink, &r, &bs, err);
        for (int j = 0; j < NSEND; j++) {   /* the sends still in flight */
            if (r.out[j].busy && wait_req(&r.out[j].rq) && !s)
                s = jg_error_set(err, JG_IO, "MPI rank %d: a send to rank 0 failed", g_rank);
            free(r.out[j].b.b);
        }
        for (int q = 0; q < 4; q++) jg__patdict_free(&r.sent[q]);
        if (s) {   /* tell rank 0, which ends the run for every rank */
            char text[JG_ERROR_MSG_MAX + 64];
            int len = snprintf(text, sizeof text, "at point %lld: %s", (long long)g_next_point,
                               err ? err->msg : jg_strerror(s));
            if (len < 0 || len >= (int)sizeof text) len = (int)sizeof text - 1;
            MPI_Send(text, len + 1, MPI_BYTE, 0, TAG_ABORT, MPI_COMM_WORLD);
            g_told = 1;
        }
        if (st) *st = bs;
        return s;
    }
    r.names = calloc((size_t)g_nranks, sizeof *r.names);
    r.q = calloc((size_t)g_nranks, sizeof *r.q);
    r.got = calloc((size_t)g_nranks, sizeof *r.got);
    r.vals = malloc(sizeof(double) * ((size_t)r.nvals + 1));
    if (!r.names || !r.q || !r.got || !r.vals) {
        s = jg_error_set(err, JG_NOMEM, "out of memory");
        goto done;
    }
    for (int j = 0; j < g_nranks; j++)
        for (int q = 0; q < 4; q++) jg__patdict_init(&r.got[j][q], -1);
    struct sigaction sa = {0};
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    g_stop = 0;
    sigaction(SIGINT, &sa, &g_old_int);
    sigaction(SIGTERM, &sa, &g_old_term);
    s = jg__batch_run_fed(p, pts, &mine, r.dyn ? &feed : NULL, merge_sink, &r, &bs, err);
    if (!s) s = merge(&r, MERGE_END);
    /* every other rank waits to be told that no more points come (one that
     * failed before it asked has sent its message instead) */
    for (long ns = 20000; !s && r.dyn && r.nfin < g_nranks - 1; nap(&ns)) {
        if ((s = drain(&r))) r.st = s;
        else if (g_stop) s = r.st = jg_error_set(&rerr, JG_IO, "interrupted at the end of the run");
        for (int src = 1; !s && src < g_nranks; src++)
            if (r.q[src].head)   /* nothing else is left to come */
                s = r.st = r.q[src].head->tag == TAG_ABORT
                               ? rank_failed(&rerr, src, r.q[src].head)
                               : jg_error_set(&rerr, JG_IO, "MPI rank %d sent a result nobody asked for", src);
    }
    sigaction(SIGINT, &g_old_int, NULL);
    sigaction(SIGTERM, &g_old_term, NULL);
    if (r.st) {   /* a remote point's failure, not the engine's message */
        s = r.st;
        if (err) *err = rerr;
    }
    if (st) {
        *st = bs;
        st->npoints = r.total;
        st->nfailed = r.nfailed;
    }
done:
    for (int j = 0; r.names && j < g_nranks; j++) {
        free(r.names[j].text);
        for (int g = 0; g < 3; g++) free(r.names[j].v[g]);
    }
    free(r.names);
    for (int j = 0; r.got && j < g_nranks; j++)
        for (int q = 0; q < 4; q++) jg__patdict_free(&r.got[j][q]);
    free(r.got);
    for (int j = 0; r.q && j < g_nranks; j++) {
        for (msg_t *m = r.q[j].head, *nx; m; m = nx) {
            nx = m->next;
            free(m->b);
            free(m);
        }
        /* (a receive still in flight, only after an error, may yet write
         * into its buffer: the buffer is left to the run's end, MPI_Abort) */
        for (msg_t *m = r.q[j].fly; m; m = m->next) MPI_Request_free(&m->rq);
    }
    free(r.q);
    free(r.vals);
    free(r.gr);
    for (int q = 0; q < 4; q++) jg__patdict_free(&r.sent[q]);
    return s;
}

#endif /* JG_HAVE_MPI */
