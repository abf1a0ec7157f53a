/* jacgraph/analysis.h -- engineering answers computed from a model with the
 * Jacobian graph: operating points from specifications (trim) and answers
 * about the linear model (poles, zeros, gains, responses).  Module
 * lib/analysis, between linearization and simulation; each section below is
 * one analysis.
 */
#ifndef JACGRAPH_ANALYSIS_H
#define JACGRAPH_ANALYSIS_H
#include "jacgraph/export.h"
#include <stdint.h>
#include "jacgraph/program.h"
#include "jacgraph/linearize.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ trim
 *
 * An operating point from a specification (Simulink Control Design's
 * operspec / findop): states x, discrete states xd and root-Inport values u
 * with
 *     dx/dt = f(x, xd, u) = 0            for every steady continuous state,
 *     xd = update(x, xd, u)              for every steady discrete state,
 *     y(x, xd, u) = value                for every known output element,
 *     min <= y <= max                    for every bounded output element,
 * over the unknowns (the elements that are not "known"), each kept inside its
 * [min, max].  Solved as a bound-constrained nonlinear least-squares problem
 * by Levenberg-Marquardt (Madsen, Nielsen & Tingleff, "Methods for Non-Linear
 * Least Squares Problems", the damping update of their Algorithm 3.16) with
 * each step projected onto the bounds; a square nonsingular system takes
 * Newton steps near the solution.  The Jacobian of f and y at every iterate is
 * A, B, C, D of jg_lin_run (the graph method: numeric replay of one symbolic
 * elimination).  What involves discrete states (the update equations' rows,
 * the discrete states' columns, the outputs' dependence on them) comes from
 * the blocks' analytic update Jacobians (djacobian: dF/dxd, dF/du, dy/dxd)
 * joined through the signal connections at the same point (the hybrid model
 * of discrete linearization).  Only a discrete state of a block type without
 * djacobian (none of the built-in ones) takes a forward difference of the
 * model: its column, and when the block has inputs its update rows in every
 * column; info.fd_types names those types.
 *
 * Discrete states taking part: those of discrete-time block types (Unit
 * Delay, Delay, Discrete Integrator, the discrete state-space and transfer
 * function blocks...) with a discrete sample time.  Other discrete states
 * (modes of switching blocks, Memory, Transport Delay buffers, random seeds)
 * are held at their initial values, as linearization holds them.
 *
 * The specification file (JSON, every key optional):
 *   {"states":  {NAME: {"value": v, "known": b, "min": a, "max": c, "steady": b}},
 *    "inputs":  {NAME: {"value": v, "known": b, "min": a, "max": c}},
 *    "outputs": {NAME: {"value": v, "known": b, "min": a, "max": c}}}
 * NAME is a block path (every element of the block: values and bounds are a
 * number for all of them or an array of one per element) or one element
 * "PATH(k)", as in operating-point files; outputs are the root Outports by
 * path and the extra output points (opts) by the name they were given.
 * Defaults without a specification: inputs known at their guessed values,
 * states (continuous and discrete) free and steady, outputs free.  With one,
 * the defaults of operspec: an entry not mentioned is free (inputs too),
 * states steady; "value" of a free element is its starting guess.
 */

typedef struct jg_analysis_trim jg_analysis_trim_t;

typedef struct jg_analysis_trim_opts {
    int nout;                  /* output points besides the root Outports: */
    const char *const *out;    /* "BLOCK:N" or signal names (linearize --output) */
    int max_iter;              /* Levenberg-Marquardt iterations; 0: 100 */
    double tol;                /* each residual's absolute bound for success; 0: 1e-9 */
} jg_analysis_trim_opts_t;

/* Set up trimming p (which must outlive the result): resolves the output
 * points, builds the linearizer (one symbolic elimination for all
 * iterates), and starts from t = 0, the initial states, zero inputs and the
 * default specification.  o may be NULL.  Errors: JG_ARG (a bad output point,
 * naming it), JG_NOMEM.  Cost: that of jg_lin_create. */
JG_API jg_status_t jg_analysis_trim_create(const jg_program_t *p, const jg_analysis_trim_opts_t *o,
                                           jg_analysis_trim_t **out, jg_error_t *err);
/* Accepts NULL. */
JG_API void jg_analysis_trim_free(jg_analysis_trim_t *t);

/* The starting guess from an operating-point file (jg_lin_read_op's format:
 * t, states, inputs); read it before the specification, whose "value"s
 * override it.  Errors: those of jg_lin_read_op (JG_IO, JG_PARSE, JG_ARG
 * naming the file and the entry). */
JG_API jg_status_t jg_analysis_trim_read_op(jg_analysis_trim_t *t, const char *path, jg_error_t *err);
/* Read a specification file (format above) and replace the default
 * specification by it.  Errors (JG_ARG unless noted), each naming the file
 * and the key: an unknown section or entry key, an unknown name (with the
 * nearest known one: "did you mean"), "steady" on an input or output, a
 * value of the wrong type or length, min > max, a known value outside its
 * bounds; JG_IO, JG_PARSE (line and column), JG_NOMEM.  On error the
 * previous specification is kept.  Cost: O(file + names). */
JG_API jg_status_t jg_analysis_trim_read_spec(jg_analysis_trim_t *t, const char *path, jg_error_t *err);

/* Solve.  JG_OK when every residual is within opts.tol; the point is then
 * the trimmed one.  Otherwise JG_NUMERIC with the message "no operating point
 * meets the specification ... violated: ..." listing each violated
 * specification (state not steady, output off its value or bounds) with its
 * residual, and the accessors below describe the best point found (smallest
 * sum of squared residuals).  Other errors: those of evaluation at the
 * starting point (JG_NUMERIC domain errors naming the block, algebraic
 * loops), of jg_lin_run, JG_NOMEM.  Cost per iteration: one jg_lin_run
 * (replay and LFT), one model evaluation per trial step, with discrete states
 * one evaluation with block Jacobians, a sparse LU of I - D M over the
 * signals and two sparse solves per discrete state (plus one evaluation per
 * differenced column, see above), and a dense solve with the unknowns,
 * O(n^3): meant for models up to a few thousand unknowns. */
JG_API jg_status_t jg_analysis_trim_run(jg_analysis_trim_t *t, jg_error_t *err);

typedef struct jg_analysis_trim_info {
    int converged;             /* every residual within tol */
    int finished;              /* the iteration ran to its end: the point is the best
                                  found (0 when an error stopped it) */
    int iterations;            /* Levenberg-Marquardt iterations (Jacobians) */
    int64_t nunknowns, nequations;
    int64_t fevals;            /* model evaluations (finite differences included) */
    int64_t fd_columns;        /* Jacobian columns by differences, over all iterations:
                                  discrete states of types without an analytic
                                  update Jacobian (0 for every built-in type) */
    double max_residual;       /* largest |residual| at the point */
    const char *fd_types;      /* the block types differenced, "A, B" (owned by t), NULL: none */
} jg_analysis_trim_info_t;

/* After jg_analysis_trim_run (zero before). */
JG_API void jg_analysis_trim_info(const jg_analysis_trim_t *t, jg_analysis_trim_info_t *info);

/* The equations of the last run and their residuals at the point, in order:
 * continuous states ("d/dt NAME"), discrete states ("update NAME"), outputs
 * ("NAME = v" known, "NAME in [a, b]" bounded).  Names valid while t lives;
 * NULL when k is out of range. */
JG_API int64_t jg_analysis_trim_nequations(const jg_analysis_trim_t *t);
JG_API const char *jg_analysis_trim_equation(const jg_analysis_trim_t *t, int64_t k, double *residual);

/* The point: time, continuous states (jg_program_nstates), root-Inport values
 * (port order, every element), the discrete states taking part and the
 * output elements (root Outports, then the extra points), with their names.
 * Pointers and names are owned by t and valid until the next call that
 * changes the point.  *known (may be NULL) tells whether the element was
 * fixed by the specification. */
JG_API double jg_analysis_trim_time(const jg_analysis_trim_t *t);
typedef enum {
    JG_ANALYSIS_TRIM_STATE = 0,   /* continuous states */
    JG_ANALYSIS_TRIM_DSTATE,      /* discrete states taking part */
    JG_ANALYSIS_TRIM_INPUT,       /* root-Inport elements */
    JG_ANALYSIS_TRIM_OUTPUT       /* output elements */
} jg_analysis_trim_kind_t;
/* Counts, element names ("Plant/x", "Plant/ss(2)") and values; O(1).  An
 * out-of-range k gives NULL / NaN. */
JG_API int64_t jg_analysis_trim_count(const jg_analysis_trim_t *t, jg_analysis_trim_kind_t kind);
JG_API const char *jg_analysis_trim_name(const jg_analysis_trim_t *t, jg_analysis_trim_kind_t kind,
                                         int64_t k);
JG_API double jg_analysis_trim_value(const jg_analysis_trim_t *t, jg_analysis_trim_kind_t kind,
                                     int64_t k, int *known);

/* Write the point as an operating-point file {"t", "states", "inputs"} that
 * jg_lin_read_op (linearize --op) reads back exactly (17 digits).  Discrete
 * states are not part of that format and are left out.  Errors: JG_IO naming
 * the file (a partial file is removed), JG_ARG (NULL). */
JG_API jg_status_t jg_analysis_trim_write_op(const jg_analysis_trim_t *t, const char *path,
                                             jg_error_t *err);

/* ------------------------------------------------------------ linear models
 *
 * Answers about a linear model (a jg_lin_run result or any A, B, C, D)
 *     continuous (Ts = 0):   x' = A x + B u,        y = C x + D u
 *     discrete (Ts > 0):     x[k+1] = A x[k] + B u[k], y[k] = C x[k] + D u[k]
 * poles with damping and natural frequency, invariant (transmission) zeros,
 * DC gain, controllability and observability, a minimal realization,
 * transfer functions of SISO channels, frequency and step/impulse responses.
 * Dense, column-major: entry (i, j) of an r-row matrix is M[i + j r].  Every
 * function takes the sample time with the model; all are O(n^3) in the
 * number of states n (LAPACK), meant for models up to a few hundred states.
 * Channel c = j ny + i is input j to output i (the D matrix's column-major
 * order); responses are stored per channel, contiguous in frequency or time.
 */

typedef struct jg_analysis_ss {
    int64_t nx, nu, ny;       /* states, inputs, outputs */
    double *A, *B, *C, *D;    /* nx x nx, nx x nu, ny x nx, ny x nu; owned */
    double Ts;                /* 0: continuous; > 0: sample time (s) */
} jg_analysis_ss_t;

/* A model from dense arrays (copied; a NULL matrix is zero).  Errors: JG_ARG
 * (negative sizes, Ts < 0 or not finite, a NaN or infinite entry, naming
 * it), JG_NOMEM.  Cost: O(sizes). */
JG_API jg_status_t jg_analysis_ss_create(int64_t nx, int64_t nu, int64_t ny, const double *A,
                                         const double *B, const double *C, const double *D,
                                         double Ts, jg_analysis_ss_t **out, jg_error_t *err);
/* The dense model of a linearization result with sample time Ts.  Errors as
 * jg_analysis_ss_create; JG_ARG naming the delays for a result with internal
 * delays (ndelays > 0, JG_LIN_DELAYS_EXACT): the poles, zeros, gains,
 * realizations and time responses of its delay-free part are not those of
 * the delayed system (jg_analysis_lin_freqresp is exact for it). */
JG_API jg_status_t jg_analysis_ss_from_lin(const jg_lin_sys_t *s, double Ts, jg_analysis_ss_t **out,
                                           jg_error_t *err);
/* The SISO model from input j to output i (the same states).  Errors: JG_ARG
 * (out of range), JG_NOMEM. */
JG_API jg_status_t jg_analysis_ss_channel(const jg_analysis_ss_t *s, int64_t j, int64_t i,
                                          jg_analysis_ss_t **out, jg_error_t *err);
/* Accepts NULL. */
JG_API void jg_analysis_ss_free(jg_analysis_ss_t *s);

/* The nx poles (eigenvalues of A, LAPACK dgeev) into re, im, sorted by
 * natural frequency (conjugate pairs adjacent, positive imaginary part
 * first).  Errors: JG_NUMERIC (no convergence), JG_NOMEM.  Cost: O(nx^3). */
JG_API jg_status_t jg_analysis_poles(const jg_analysis_ss_t *s, double *re, double *im, jg_error_t *err);
/* Natural frequency (rad/s) and damping ratio of the root re + i im, as
 * MATLAB's damp: for Ts > 0 those of s = log(z) / Ts (z = 0: wn = inf,
 * zeta = 1); a root at 0 has zeta = -1. */
JG_API void jg_analysis_damp(double re, double im, double Ts, double *wn, double *zeta);

/* The invariant zeros: the finite s at which the system matrix
 * [A - sI  B; C  D] loses rank below its normal rank (for a SISO minimal
 * model the zeros of the transfer function).  Computed as Emami-Naeini & Van
 * Dooren ("Computation of zeros of linear multivariable systems"): the
 * system is reduced by orthogonal transformations to one with the same zeros
 * and an invertible D (any numbers of inputs and outputs), the columns of
 * [C D] are compressed, and the zeros are the generalized eigenvalues of
 * the remaining n x n pencil (LAPACK dggev).  re, im need room for nx; *nz
 * gets the count, sorted as poles.  A system whose system matrix is rank
 * deficient at every s in a way the reduction cannot square up (normal rank
 * below min(nx + nu, nx + ny), e.g. a zero transfer function) gets *nz = 0
 * and *degenerate = 1 (degenerate may be NULL); so does a model without
 * inputs and outputs (*degenerate = 0).  Errors: JG_NUMERIC (no
 * convergence), JG_NOMEM.  Cost: O(nx^4) at worst (one SVD per reduction
 * step), O(nx^3) typically. */
JG_API jg_status_t jg_analysis_zeros(const jg_analysis_ss_t *s, int64_t *nz, double *re, double *im,
                                     int *degenerate, jg_error_t *err);

/* The steady-state gain G (ny x nu): D - C A^-1 B (continuous) or
 * D + C (I - A)^-1 B (discrete).  When A (I - A) is singular, each channel
 * is reduced to its minimal realization first (a cancelled integrator has a
 * gain); a channel that keeps a pole at 0 (at 1) gets +inf.  Errors:
 * JG_NOMEM, JG_NUMERIC.  Cost: O(nx^3), O(nu ny nx^3) with the fallback. */
JG_API jg_status_t jg_analysis_dcgain(const jg_analysis_ss_t *s, double *G, jg_error_t *err);

/* Controllability: the order of the controllable part of (A, B) by the
 * orthogonal staircase (Van Dooren; Varga, "Computation of irreducible
 * generalized state-space realizations") into *rank, and the uncontrollable
 * modes (nx - *rank eigenvalues; unc_re, unc_im need room for nx, may be
 * NULL).  A singular value counts when above tol * max(1, ||[A B]||_F);
 * tol <= 0: sqrt(eps).  jg_analysis_obsv is the same for (A', C').  Errors:
 * JG_NUMERIC, JG_NOMEM.  Cost: O(nx^4) at worst (one SVD per staircase
 * step), O(nx^3) typically. */
JG_API jg_status_t jg_analysis_ctrb(const jg_analysis_ss_t *s, double tol, int64_t *rank, double *unc_re,
                                    double *unc_im, jg_error_t *err);
JG_API jg_status_t jg_analysis_obsv(const jg_analysis_ss_t *s, double tol, int64_t *rank, double *uno_re,
                                    double *uno_im, jg_error_t *err);
/* A minimal realization (Kalman decomposition: the controllable part of the
 * staircase, then the observable part of that), same D and Ts, states in
 * transformed coordinates.  tol as jg_analysis_ctrb.  *out is new (free
 * with jg_analysis_ss_free).  Errors: JG_NUMERIC, JG_NOMEM. */
JG_API jg_status_t jg_analysis_minreal(const jg_analysis_ss_t *s, double tol, jg_analysis_ss_t **out,
                                       jg_error_t *err);

/* The transfer function of the SISO channel input j -> output i:
 *     G(s) = k prod(s - z) / prod(s - p) = num(s) / den(s),
 * num and den in descending powers of s (z for Ts > 0), den monic, num of
 * the same length (leading zeros).  Computed from the minimal realization of
 * the channel (tol as jg_analysis_ctrb): p its poles, z its invariant zeros,
 * k from G at one point away from both (the coefficients are expanded from
 * the roots: characteristic-polynomial methods such as Leverrier's lose
 * digits as the order grows, while the roots are well conditioned). */
typedef struct jg_analysis_tf {
    int64_t np, nz;           /* poles and zeros of the minimal channel */
    double *pre, *pim, *zre, *zim;
    double k;                 /* zpk gain */
    double *num, *den;        /* np + 1 coefficients each */
    double Ts;
} jg_analysis_tf_t;
/* *out is new (jg_analysis_tf_free).  Errors: JG_ARG (channel out of range),
 * JG_NUMERIC, JG_NOMEM.  Cost: O(nx^3). */
JG_API jg_status_t jg_analysis_tf(const jg_analysis_ss_t *s, int64_t j, int64_t i, double tol,
                                  jg_analysis_tf_t **out, jg_error_t *err);
JG_API void jg_analysis_tf_free(jg_analysis_tf_t *tf);

/* n frequencies (rad/s, n >= 2) log-spaced over the decades around the
 * natural frequencies of the given poles and zeros: from a decade below the
 * smallest one (above 1e-10 times the largest: a root at 0 has no corner) to
 * a decade above the largest, whole decades, at
 * least two; 0.1 .. 10 when there are none.  Ts > 0: up to the Nyquist
 * frequency pi / Ts. */
JG_API void jg_analysis_freqgrid(int64_t np, const double *pre, const double *pim, int64_t nz,
                                 const double *zre, const double *zim, double Ts, int64_t n, double *w);
/* The frequency response H(jw) = C (jwI - A)^-1 B + D (Ts > 0: at
 * z = e^(jw Ts)) at the nw frequencies w, into Hre, Him (nw per channel,
 * channel-major: [(j ny + i) nw + k]).  A is reduced to Hessenberg form once
 * (LAPACK dgehrd), each frequency is a Hessenberg solve.  A frequency at a
 * pole gives +inf.  Errors: JG_NOMEM.  Cost: O(nx^3 + nw (nx^2 (nu + 1) +
 * ny nx nu)). */
JG_API jg_status_t jg_analysis_freqresp(const jg_analysis_ss_t *s, int64_t nw, const double *w,
                                        double *Hre, double *Him, jg_error_t *err);
/* Bode form of the same: magnitude in dB and phase in degrees, the phase
 * unwrapped along the frequencies per channel (steps below 180 degrees),
 * starting in (-180, 180].  Either output may be NULL.  Errors as above. */
JG_API jg_status_t jg_analysis_bode(const jg_analysis_ss_t *s, int64_t nw, const double *w, double *mag_db,
                                    double *phase_deg, jg_error_t *err);

/* Models with internal delays.  A linearization result with ndelays > 0
 * (JG_LIN_DELAYS_EXACT) is the delay-free H whose last nd inputs w and
 * outputs z are closed by w_k(t) = z_k(t - tau_k): infinitely many poles, so
 * the analyses above refuse it (jg_analysis_ss_from_lin).  Its frequency
 * response is exact: at each w, with E = diag(e^(-jw tau_k)),
 *     G(jw) = H11 + H12 E (I - H22 E)^-1 H21
 * (H11: the external inputs to the external outputs).  The functions below
 * take any linearization result (ndelays = 0: jg_analysis_freqresp of it,
 * Ts > 0 at z = e^(jw Ts)); channels are the external ones, c = j (ny - nd)
 * + i, nw values each, as jg_analysis_freqresp.  A frequency at a pole of H
 * or of the closed loop gives +inf.  Errors: JG_ARG (bad sizes or delays,
 * delays in a discrete model), JG_NOMEM.  Cost: O(nx^3) once, then per
 * frequency O(nx^2 (nu + 1) + ny nx nu + nd^3 + nd (nu + ny) nd). */
JG_API jg_status_t jg_analysis_lin_freqresp(const jg_lin_sys_t *s, int64_t nw, const double *w, double *Gre,
                                            double *Gim, jg_error_t *err);
/* The same in Bode form (dB, unwrapped degrees, as jg_analysis_bode). */
JG_API jg_status_t jg_analysis_lin_bode(const jg_lin_sys_t *s, int64_t nw, const double *w, double *mag_db,
                                        double *phase_deg, jg_error_t *err);
/* n >= 2 frequencies for it: jg_analysis_freqgrid of the eigenvalues of H's A
 * and a corner 1/tau per delay, the top lowered (by quarter decades, to one
 * decade at least) until the longest delay turns the phase by less than 90
 * degrees between two points (so that the unwrapped phase is right).
 * Errors: as above, JG_NUMERIC (no eigenvalue convergence).  Cost: O(nx^3). */
JG_API jg_status_t jg_analysis_lin_freqgrid(const jg_lin_sys_t *s, int64_t n, double *w, jg_error_t *err);
/* e^M for an n x n matrix M (column-major) into E: scaling and squaring
 * with the degree-6 diagonal Pade approximant (Golub & Van Loan, "Matrix
 * Computations", Algorithm 11.3.1; Moler & Van Loan, "Nineteen Dubious
 * Ways to Compute the Exponential of a Matrix").  Errors: JG_ARG (not
 * finite), JG_NUMERIC (singular denominator), JG_NOMEM.  Cost: O(n^3 (8 +
 * log2 ||M||)). */
JG_API jg_status_t jg_analysis_expm(int64_t n, const double *M, double *E, jg_error_t *err);

typedef enum { JG_ANALYSIS_STEP = 0, JG_ANALYSIS_IMPULSE } jg_analysis_resp_t;
/* A time horizon showing the dynamics of the given poles: 8 time constants
 * of the slowest decaying mode (e^-8 < 1e-3 left), shortened to 5 of the
 * fastest growth when unstable, lengthened to 10 periods of an undamped
 * oscillation; 10 s (50 samples when discrete) without any.  Ts > 0: a
 * whole number of samples, at most 10000. */
JG_API double jg_analysis_tfinal(int64_t np, const double *pre, const double *pim, double Ts);
/* Unit step or impulse responses of every channel at nt times t (written:
 * 0 .. tfinal evenly, or k Ts when discrete, nt samples), into Y (channel-
 * major, nt per channel).  Continuous: exact at the samples, by the
 * zero-order-hold discretization e^([A B; 0 0] h) (jg_analysis_expm); the
 * impulse response is C e^(At) B (D's impulse left out, as MATLAB's
 * impulse).  Discrete: the recursion itself; the impulse is a unit-area
 * pulse, u[0] = 1/Ts (MATLAB's convention).  Errors: JG_ARG (nt < 2,
 * tfinal <= 0), JG_NUMERIC, JG_NOMEM.  Cost: O((nx + nu)^3 + nt nu nx (nx + ny)). */
JG_API jg_status_t jg_analysis_timeresp(const jg_analysis_ss_t *s, jg_analysis_resp_t kind, double tfinal,
                                        int64_t nt, double *t, double *Y, jg_error_t *err);

/* ------------------------------------------- discretization (c2d, d2d)
 *
 * Conversions between continuous and discrete time as MATLAB's c2d, d2c and
 * d2d do them:
 *   zoh     inputs held over each sample: A_d = e^(A Ts), B_d = int e^(As) ds B
 *           (the exponential of [A B; 0 0] Ts, jg_analysis_expm), C, D kept;
 *   foh     inputs interpolated linearly between samples (the triangle hold;
 *           Franklin, Powell & Workman, "Digital Control of Dynamic Systems");
 *   tustin  s = (1/k) (z - 1)/(z + 1) with k = Ts/2, or prewarped at w rad/s
 *           with k = tan(w Ts/2)/w (the frequency response exact at w).
 * The discrete realizations differ from MATLAB's by a state transformation
 * (same transfer function).  d2c zoh takes the matrix logarithm (an eigenvalue
 * at 0 or on the negative real axis has none: JG_NUMERIC); d2d zoh to an
 * integer multiple of the sample time is A^N, (I + ... + A^(N-1)) B (exact
 * with poles at 0), otherwise d2c then c2d.  Errors: JG_ARG (wrong time
 * domain, Ts <= 0, foh for d2c/d2d, prewarp at or above Nyquist), JG_NUMERIC,
 * JG_NOMEM.  Cost: O((nx + nu)^3).
 */
typedef enum { JG_ANALYSIS_ZOH = 0, JG_ANALYSIS_FOH, JG_ANALYSIS_TUSTIN } jg_analysis_c2d_t;
/* "zoh", "foh", "tustin", "prewarp:W" (Tustin prewarped at W > 0 rad/s, into
 * *prewarp; 0 otherwise); -1 when unknown. */
JG_API int jg_analysis_c2d_parse(const char *s, double *prewarp);
JG_API const char *jg_analysis_c2d_name(jg_analysis_c2d_t m);
/* *out is new (jg_analysis_ss_free). */
JG_API jg_status_t jg_analysis_c2d(const jg_analysis_ss_t *s, double Ts, jg_analysis_c2d_t m, double prewarp,
                                   jg_analysis_ss_t **out, jg_error_t *err);
JG_API jg_status_t jg_analysis_d2c(const jg_analysis_ss_t *s, jg_analysis_c2d_t m, double prewarp,
                                   jg_analysis_ss_t **out, jg_error_t *err);
JG_API jg_status_t jg_analysis_d2d(const jg_analysis_ss_t *s, double Ts, jg_analysis_c2d_t m, double prewarp,
                                   jg_analysis_ss_t **out, jg_error_t *err);
/* The principal matrix logarithm of the n x n M into L (column-major) by
 * inverse scaling and squaring: Denman-Beavers square roots until
 * ||X - I|| <= 1/4, then Gregory's series (Higham, "Functions of Matrices",
 * ch. 11).  Errors: JG_NUMERIC (no real logarithm), JG_NOMEM.  Cost: O(n^3
 * (log2 ||M - I|| + 20)). */
JG_API jg_status_t jg_analysis_logm(int64_t n, const double *M, double *L, jg_error_t *err);
/* A linearization result converted (names and t kept): c2d of a continuous
 * one (Ts > 0), d2d of a discrete one, d2c when Ts = 0.  *out is new
 * (jg_lin_sys_free).  Errors as above; JG_ARG naming the delays for a result
 * with internal delays (converting the delay-free part would drop them). */
JG_API jg_status_t jg_analysis_lin_convert(const jg_lin_sys_t *s, double Ts, jg_analysis_c2d_t m,
                                           double prewarp, jg_lin_sys_t **out, jg_error_t *err);

/* ------------------------------------- discrete and multirate linearization
 *
 * The linear model of a model with discrete sample times, as Simulink
 * Control Design builds it: the block Jacobians, with the discrete blocks'
 * update Jacobians (their discrete states become states), are combined one
 * rate at a time, fastest first.  The continuous part, whose inputs are the
 * held outputs of the discrete blocks, is converted to the fastest discrete
 * rate; that system is closed with the blocks of that rate (signals sampled
 * at their hits); the result is converted to the next rate (d2d) and closed
 * with its blocks, and so on; the final system is resampled to the target
 * rate when that differs from the slowest.  With one rate and zoh this is
 * the exact sampled-data model (continuous part ZOH-discretized, the hold at
 * the rate boundary, the loop closed at the sample instants).  States: the
 * continuous ones then the discrete ones per rate (names "PATH" or
 * "PATH(k)"), in the converted coordinates (tustin changes them).  Inputs are
 * held over a sample (ZOH), outputs sampled.
 */
typedef struct jg_analysis_rate_opts {
    double rate;                   /* target sample time; 0: the model's one rate */
    jg_analysis_c2d_t method;      /* rate conversion: zoh or tustin */
    double prewarp;                /* tustin prewarp frequency (rad/s); 0: none */
} jg_analysis_rate_opts_t;
/* 1 when p has discrete states that discrete linearization takes (a
 * non-source block at a discrete rate with discrete states), else 0. */
JG_API int jg_analysis_has_discrete(const jg_program_t *p);
/* The discrete linear model of l's model at l's operating point, Ts set.
 * *out is new (jg_lin_sys_free).  Errors: JG_ARG (several rates and no
 * target, naming them; a sample time offset, naming the block), JG_MODEL (a
 * discrete block without an update Jacobian, naming it), JG_SINGULAR_LOOP,
 * JG_NUMERIC (a conversion that does not exist, e.g. zoh to a faster rate
 * with a pole at z = 0), JG_NOMEM.  Cost: dense, O(rates (nx + nd + ny)^3)
 * with ny the model's signal elements: meant for models up to a few thousand
 * signals. */
JG_API jg_status_t jg_analysis_lin_discrete(jg_lin_t *l, const jg_analysis_rate_opts_t *o,
                                            jg_lin_sys_t **out, jg_error_t *err);

#ifdef __cplusplus
}
#endif
#endif
