"""ctypes binding of libjacgraph: linearize, simulate and the solver Jacobian.

The shared library is found, in this order, at the path in the environment
variable JACGRAPH_LIB, by ctypes.util.find_library("jacgraph") (the system's
library path, e.g. after `meson install` and `ldconfig`), and in the libdir of
`pkg-config jacgraph` (an install under another prefix, with PKG_CONFIG_PATH).

The structures below mirror the public headers (lib/include/jacgraph/*.h);
a change of layout there must be made here as well.
"""
import ctypes
import ctypes.util
import json
import os
import subprocess
import tempfile
import warnings

import numpy as np
import scipy.sparse

__all__ = ["Error", "Linearization", "Jacobian", "linearize", "simulate", "jacobian",
           "library_path"]


class Error(Exception):
    """A failing library call: `message` is the library's text (naming the block,
    parameter or file:line:col), `status` its status name ("SINGULAR_LOOP", "IO",
    "ARG", ...), `exit_code` the CLI's exit code for it."""

    def __init__(self, status, message, exit_code=None):
        super().__init__("%s: %s" % (status, message))
        self.status = status
        self.message = message
        self.exit_code = exit_code


# ---- the C structures (jacgraph/status.h, import.h, linearize.h, solver.h, simulate.h)

class _Err(ctypes.Structure):
    _fields_ = [("status", ctypes.c_int), ("msg", ctypes.c_char * 1024)]


class _Csc(ctypes.Structure):   # CXSparse cs_dl
    _fields_ = [("nzmax", ctypes.c_int64), ("m", ctypes.c_int64), ("n", ctypes.c_int64),
                ("p", ctypes.POINTER(ctypes.c_int64)), ("i", ctypes.POINTER(ctypes.c_int64)),
                ("x", ctypes.POINTER(ctypes.c_double)), ("nz", ctypes.c_int64)]


_WARN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p)
_LOG = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_double, ctypes.POINTER(ctypes.c_double),
                        ctypes.POINTER(ctypes.c_double), ctypes.c_void_p)
_Strs = ctypes.POINTER(ctypes.c_char_p)


class _ImportOpts(ctypes.Structure):
    _fields_ = [("workspace", _Strs), ("nworkspace", ctypes.c_int),
                ("set", _Strs), ("nset", ctypes.c_int),
                ("model_path", _Strs), ("nmodel_path", ctypes.c_int),
                ("substitute", _Strs), ("nsubstitute", ctypes.c_int),
                ("warn", _WARN), ("warn_ctx", ctypes.c_void_p),
                # jg_limits_t limits (jacgraph/model.h): zero, the defaults
                ("max_file_bytes", ctypes.c_uint64), ("max_elements", ctypes.c_int64)]


class _LinOpts(ctypes.Structure):
    _fields_ = [("nin", ctypes.c_int), ("nout", ctypes.c_int), ("nopen", ctypes.c_int),
                ("inp", _Strs), ("out", _Strs), ("open", _Strs), ("no_defaults", ctypes.c_int),
                ("delays", ctypes.c_int), ("pade_order", ctypes.c_int), ("threads", ctypes.c_int)]


class _Linsys(ctypes.Structure):
    _fields_ = [("nx", ctypes.c_int64), ("nu", ctypes.c_int64), ("ny", ctypes.c_int64),
                ("state_names", _Strs), ("input_names", _Strs), ("output_names", _Strs),
                ("A", ctypes.POINTER(_Csc)), ("B", ctypes.POINTER(_Csc)),
                ("C", ctypes.POINTER(_Csc)), ("D", ctypes.POINTER(_Csc)), ("t", ctypes.c_double),
                ("Ts", ctypes.c_double), ("ndelays", ctypes.c_int64),
                ("delays", ctypes.POINTER(ctypes.c_double))]


class _RateOpts(ctypes.Structure):   # jg_analysis_rate_opts_t
    _fields_ = [("rate", ctypes.c_double), ("method", ctypes.c_int), ("prewarp", ctypes.c_double)]


class _SolverOpts(ctypes.Structure):
    _fields_ = [(k, ctypes.c_double) for k in ("rtol", "atol", "max_step", "initial_step",
                                                "fixed_step")]


class _SimOpts(ctypes.Structure):
    _fields_ = [("solver", ctypes.c_int), ("t0", ctypes.c_double), ("tstop", ctypes.c_double),
                ("so", _SolverOpts), ("out_step", ctypes.c_double), ("decimation", ctypes.c_int),
                ("zc", ctypes.c_int), ("zc_tol", ctypes.c_double), ("max_zc", ctypes.c_int),
                ("jacobian", ctypes.c_int), ("sparsing_drop", ctypes.c_void_p),
                ("sparsing_ndrop", ctypes.c_int64), ("sparsing_auto", ctypes.c_int),
                ("sparsing_slow", ctypes.c_double),
                ("refine", ctypes.c_int), ("warn", _WARN), ("warn_ctx", ctypes.c_void_p),
                # the input function (unused here: the root Inports stay zero)
                ("input", ctypes.c_void_p), ("input_ctx", ctypes.c_void_p),
                ("input_breaks", ctypes.c_void_p), ("input_nbreaks", ctypes.c_int64)]


_P = ctypes.c_void_p
_PP = ctypes.POINTER(ctypes.c_void_p)
_ERR = ctypes.POINTER(_Err)
_SIGS = {   # name: (restype, argtypes); the status-returning ones are checked
    "jg_status_name": (ctypes.c_char_p, [ctypes.c_int]),
    "jg_status_exit": (ctypes.c_int, [ctypes.c_int]),
    "jg_import_load": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(_ImportOpts), _PP, _ERR]),
    "jg_model_parse": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_char_p, _PP, _ERR]),
    "jg_model_free": (None, [_P]),
    "jg_plugin_load_model": (ctypes.c_int, [_P, _ERR]),
    "jg_program_compile": (ctypes.c_int, [_P, _PP, _ERR]),
    "jg_program_free": (None, [_P]),
    "jg_program_nwarnings": (ctypes.c_int, [_P]),
    "jg_program_warning": (ctypes.c_char_p, [_P, ctypes.c_int]),
    "jg_program_nstates": (ctypes.c_int64, [_P]),
    "jg_program_state_name": (ctypes.c_char_p, [_P, ctypes.c_int64]),
    "jg_lin_method_parse": (ctypes.c_int, [ctypes.c_char_p]),
    "jg_graph_reduce_parse": (ctypes.c_int, [ctypes.c_char_p]),
    "jg_lin_create": (ctypes.c_int, [_P, ctypes.POINTER(_LinOpts), _PP, _ERR]),
    "jg_lin_free": (None, [_P]),
    "jg_lin_read_op": (ctypes.c_int, [_P, ctypes.c_char_p, _ERR]),
    "jg_lin_run": (ctypes.c_int, [_P, ctypes.c_int, ctypes.c_int,
                                  ctypes.POINTER(ctypes.POINTER(_Linsys)), _P, _ERR]),
    "jg_lin_sys_free": (None, [ctypes.POINTER(_Linsys)]),
    "jg_lin_delays_parse": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(ctypes.c_int),
                                           ctypes.POINTER(ctypes.c_int)]),
    "jg_analysis_has_discrete": (ctypes.c_int, [_P]),
    "jg_analysis_c2d_parse": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(ctypes.c_double)]),
    "jg_analysis_lin_discrete": (ctypes.c_int, [_P, ctypes.POINTER(_RateOpts),
                                                ctypes.POINTER(ctypes.POINTER(_Linsys)), _ERR]),
    "jg_sim_create": (ctypes.c_int, [_P, ctypes.POINTER(_SimOpts), _PP, _ERR]),
    "jg_sim_free": (None, [_P]),
    "jg_sim_run": (ctypes.c_int, [_P, ctypes.c_double, _LOG, _P, _ERR]),
    "jg_sim_nlogged": (ctypes.c_int64, [_P]),
    "jg_sim_logged_name": (ctypes.c_char_p, [_P, ctypes.c_int64]),
    "jg_sim_time": (ctypes.c_double, [_P]),
    "jg_sim_states": (ctypes.POINTER(ctypes.c_double), [_P]),
    "jg_sim_work": (_P, [_P]),
    "jg_solver_method_parse": (ctypes.c_int, [ctypes.c_char_p]),
    "jg_solver_names": (ctypes.c_char_p, []),
    "jg_solverjac_method_parse": (ctypes.c_int, [ctypes.c_char_p]),
    "jg_solverjac_method_names": (ctypes.c_char_p, []),
    "jg_solverjac_create": (ctypes.c_int, [_P, ctypes.c_int, _P, _PP, _ERR]),
    "jg_solverjac_free": (None, [_P]),
    "jg_solverjac_method": (ctypes.c_int, [_P]),
    "jg_solverjac_method_name": (ctypes.c_char_p, [ctypes.c_int]),
    "jg_solverjac_reason": (ctypes.c_char_p, [_P]),
    "jg_solverjac_alloc": (ctypes.POINTER(_Csc), [_P]),
    "jg_solverjac_eval": (ctypes.c_int, [_P, ctypes.c_double, ctypes.POINTER(ctypes.c_double),
                                    _P, ctypes.POINTER(_Csc), _ERR]),
    # CXSparse, a dependency of the library, frees jg_solverjac_alloc's matrix
    "cs_dl_spfree": (_P, [ctypes.POINTER(_Csc)]),
}

_lib = None
_lib_path = None


def library_path():
    """The shared library this module loads (see the module's docstring)."""
    global _lib_path
    if _lib_path:
        return _lib_path
    path = os.environ.get("JACGRAPH_LIB") or ctypes.util.find_library("jacgraph")
    if not path:
        try:
            libdir = subprocess.run(["pkg-config", "--variable=libdir", "jacgraph"],
                                    capture_output=True, text=True, check=True).stdout.strip()
            cand = os.path.join(libdir, "libjacgraph.so")
            path = cand if os.path.exists(cand) else None
        except (OSError, subprocess.CalledProcessError):
            path = None
    if not path:
        raise OSError("libjacgraph not found: set JACGRAPH_LIB to the path of libjacgraph.so "
                      "(e.g. build/lib/libjacgraph.so), install it (meson install) or make "
                      "`pkg-config jacgraph` find it")
    _lib_path = path
    return path


def _api():
    global _lib
    if _lib is None:
        lib = ctypes.CDLL(library_path())
        for name, (res, args) in _SIGS.items():
            f = getattr(lib, name)
            f.restype, f.argtypes = res, args
        _lib = lib
    return _lib


def _check(status, err):
    if status:
        lib = _api()
        msg = err.msg.decode("utf-8", "replace") or "failed"
        raise Error(lib.jg_status_name(status).decode(), msg, lib.jg_status_exit(status))


def _call(fn, *args):
    """fn(*args, &err): raise Error when it returns a status other than JG_OK."""
    err = _Err()
    _check(fn(*args, ctypes.byref(err)), err)


def _strs(items):
    """A C array of strings (and its length) from a list, or from one string."""
    if isinstance(items, (str, bytes, os.PathLike)):
        items = [items]
    items = [s if isinstance(s, bytes) else os.fsencode(s) if isinstance(s, os.PathLike)
             else str(s).encode() for s in items]
    return (ctypes.c_char_p * max(len(items), 1))(*items), len(items)


def _names(arr, n):
    return [arr[k].decode() for k in range(n)]


def _csc(M):
    """A copy of a cs_dl as scipy.sparse.csc_matrix."""
    m = M.contents
    nnz = m.p[m.n] if m.n > 0 else 0
    p = np.ctypeslib.as_array(m.p, (m.n + 1,)).copy() if m.n > 0 else np.zeros(1, np.int64)
    i = np.ctypeslib.as_array(m.i, (nnz,)).copy() if nnz else np.zeros(0, np.int64)
    x = np.ctypeslib.as_array(m.x, (nnz,)).copy() if nnz else np.zeros(0)
    return scipy.sparse.csc_matrix((x, i, p), shape=(m.m, m.n))


def _warn(ctx, msg):
    warnings.warn(msg.decode("utf-8", "replace"), RuntimeWarning, stacklevel=3)


_warn_c = _WARN(_warn)   # kept alive for the module's lifetime


class _Program:
    """A compiled model (context manager: frees the C program)."""

    def __init__(self, model, workspace=None, set=None):
        lib = _api()
        m = ctypes.c_void_p()
        if isinstance(model, dict):
            if workspace or set:
                raise TypeError("workspace and set apply to model files, not to a dict")
            _call(lib.jg_model_parse, json.dumps(model).encode(), b"<dict>", ctypes.byref(m))
        else:
            o = _ImportOpts()
            ws, o.nworkspace = _strs(workspace or [])
            st, o.nset = _strs(set or [])
            o.workspace, o.set = ctypes.cast(ws, _Strs), ctypes.cast(st, _Strs)
            o.warn = _warn_c
            _call(lib.jg_import_load, os.fsencode(model), ctypes.byref(o), ctypes.byref(m))
        self.p = ctypes.c_void_p()
        try:
            _call(lib.jg_plugin_load_model, m)   # its "plugins" list
            _call(lib.jg_program_compile, m, ctypes.byref(self.p))
        finally:
            lib.jg_model_free(m)
        for k in range(lib.jg_program_nwarnings(self.p)):
            warnings.warn(lib.jg_program_warning(self.p, k).decode(), RuntimeWarning, stacklevel=3)

    def state_names(self):
        lib = _api()
        return [lib.jg_program_state_name(self.p, k).decode()
                for k in range(lib.jg_program_nstates(self.p))]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _api().jg_program_free(self.p)


class Linearization:
    """x' = A x + B u (Ts = 0) or x[k+1] = A x[k] + B u[k] (sample time Ts > 0),
    y = C x + D u at time t: A..D scipy.sparse.csc_matrix, names lists.
    delays (delays="exact"): the internal delays tau_k; A..D are then the
    delay-free H whose last len(delays) inputs w_k and outputs z_k close
    through w_k(t) = z_k(t - tau_k) (MATLAB's InternalDelay); else []."""

    def __init__(self, A, B, C, D, state_names, input_names, output_names, t, Ts=0.0,
                 delays=None):
        self.A, self.B, self.C, self.D = A, B, C, D
        self.delays = list(delays or [])
        self.state_names, self.input_names = state_names, input_names
        self.output_names = output_names
        self.t = t
        self.Ts = Ts

    def __repr__(self):
        return "Linearization(%d states, %d inputs, %d outputs, t=%g, Ts=%g)" % (
            len(self.state_names), len(self.input_names), len(self.output_names), self.t, self.Ts)


class Jacobian:
    """The solver Jacobian J = df/dx (csc_matrix) at time t, the method used and why."""

    def __init__(self, J, state_names, t, method, reason):
        self.J, self.state_names, self.t = J, state_names, t
        self.method, self.reason = method, reason

    def __repr__(self):
        return "Jacobian(%d states, %d entries, t=%g, method=%s)" % (
            self.J.shape[0], self.J.nnz, self.t, self.method)


def _parse(fn, what, value, valid):
    k = fn(value.encode())
    if k < 0:
        raise Error("ARG", "unknown %s '%s' (%s)" % (what, value, valid), 2)
    return k


def linearize(model, inputs=None, outputs=None, op=None, method="graph", reduce="markowitz",
              workspace=None, set=None, open=None, defaults=True, rate=None,
              rate_conversion="zoh", delays=None):
    """Linearize `model` (a .json/.mdl/.slx path, or a model as a dict) as
    `jacgraph linearize` does.

    inputs, outputs, open: linearization points "BLOCK:N" (block path, 1-based
    output port), added to the root Inports/Outports as the CLI's --input,
    --output, --open; defaults=False leaves the root ports out (--no-default-io).
    op: an operating point file (docs/model-format.md) or the same as a dict.
    method: "graph", "matrix" or "perturb"; reduce: "markowitz", "none", "full".
    workspace: MATLAB scripts / JSON files; set: ["NAME=EXPR", ...].
    rate, rate_conversion: as --rate and --rate-conversion (a model with
    discrete states at one rate is discrete without them; rate=0: continuous,
    the discrete states held); the result's Ts tells which.
    delays: as --delays, "pade:N" (every TransportDelay by the Pade
    approximant of order N) or "exact" (the result's delays; continuous time
    only); None: each block's own PadeOrder.
    Returns a Linearization; raises Error."""
    lib = _api()
    m = _parse(lib.jg_lin_method_parse, "method", method, "graph, matrix, perturb")
    r = _parse(lib.jg_graph_reduce_parse, "reduce", reduce, "markowitz, none, full")
    with _Program(model, workspace, set) as prog:
        o = _LinOpts()
        arrs = [_strs(x or []) for x in (inputs, outputs, open)]
        o.inp, o.out, o.open = (ctypes.cast(a, _Strs) for a, _ in arrs)
        o.nin, o.nout, o.nopen = (n for _, n in arrs)
        o.no_defaults = 0 if defaults else 1
        if delays is not None:
            dm, dn = ctypes.c_int(0), ctypes.c_int(0)
            if lib.jg_lin_delays_parse(str(delays).encode(), ctypes.byref(dm), ctypes.byref(dn)):
                raise Error("ARG", "unknown delays %r (pade:N with N = 0..10, exact)" % delays, 2)
            o.delays, o.pade_order = dm.value, dn.value
        lin = ctypes.c_void_p()
        sysp = ctypes.POINTER(_Linsys)()
        try:
            _call(lib.jg_lin_create, prog.p, ctypes.byref(o), ctypes.byref(lin))
            if op is not None:
                _read_op(lib, lin, op)
            _call(lib.jg_lin_run, lin, m, r, ctypes.byref(sysp), None)
            if (rate or 0) > 0 or (rate is None and lib.jg_analysis_has_discrete(prog.p)):
                ro = _RateOpts()
                ro.rate = float(rate or 0)
                w = ctypes.c_double(0)
                ro.method = lib.jg_analysis_c2d_parse(rate_conversion.encode(), ctypes.byref(w))
                if ro.method not in (0, 2):
                    raise Error("ARG", "unknown rate_conversion %r (zoh, tustin, prewarp:W)" % rate_conversion, 2)
                ro.prewarp = w.value
                lib.jg_lin_sys_free(sysp)
                sysp = ctypes.POINTER(_Linsys)()
                _call(lib.jg_analysis_lin_discrete, lin, ctypes.byref(ro), ctypes.byref(sysp))
            s = sysp.contents
            return Linearization(_csc(s.A), _csc(s.B), _csc(s.C), _csc(s.D),
                                 _names(s.state_names, s.nx), _names(s.input_names, s.nu),
                                 _names(s.output_names, s.ny), s.t, s.Ts,
                                 [s.delays[k] for k in range(s.ndelays)])
        finally:
            if sysp:
                lib.jg_lin_sys_free(sysp)
            lib.jg_lin_free(lin)


def _read_op(lib, lin, op):
    if not isinstance(op, dict):
        _call(lib.jg_lin_read_op, lin, os.fsencode(op))
        return
    fd, path = tempfile.mkstemp(suffix=".json", prefix="jacgraph-op-")
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(op, f)
        _call(lib.jg_lin_read_op, lin, path.encode())
    finally:
        os.remove(path)


_ZC = {"nonadaptive": 0, "adaptive": 1, "off": 2}


def _sim_opts(solver, start, stop, rtol, atol, max_step, initial_step, step, out_step,
              refine, zc, jacobian):
    lib = _api()
    o = _SimOpts()
    o.solver = lib.jg_solver_method_parse(solver.encode())
    if o.solver < 0:
        raise Error("ARG", "unknown solver '%s' (valid: %s)" % (solver, lib.jg_solver_names().decode()), 2)
    o.t0, o.tstop = start, stop
    for k, v in (("rtol", rtol), ("atol", atol), ("max_step", max_step),
                 ("initial_step", initial_step), ("fixed_step", step)):
        if v is not None and not v > 0:   # the library reads 0 as "the default"
            raise Error("ARG", "%s expects a positive number, got %r" % (k, v), 2)
        setattr(o.so, k, v or 0.0)
    if out_step is not None and not out_step > 0:
        raise Error("ARG", "out_step expects a positive number, got %r" % (out_step,), 2)
    o.out_step = out_step or 0.0
    o.refine = refine
    if zc not in _ZC:
        raise Error("ARG", "zc expects nonadaptive, adaptive or off, got '%s'" % zc, 2)
    o.zc = _ZC[zc]
    o.jacobian = lib.jg_solverjac_method_parse(jacobian.encode()) if jacobian else 0
    if o.jacobian < 0:
        raise Error("ARG", "unknown solver Jacobian method '%s' (valid: %s)"
                    % (jacobian, lib.jg_solverjac_method_names().decode()), 2)
    o.warn = _warn_c
    return o


def simulate(model, stop=10.0, solver="ode45", rtol=None, atol=None, max_step=None,
             initial_step=None, step=None, out_step=None, refine=1, zc="nonadaptive",
             jacobian=None, start=0.0, workspace=None, set=None):
    """Simulate `model` from its initial states as `jacgraph simulate` does
    (same defaults: ode45 from 0 to 10, Simulink's tolerances).

    step is the fixed-step solvers' step; out_step > 0 logs at start + k*out_step,
    otherwise every major step (refine: points per step).  jacobian: the
    implicit solvers' Jacobian method (jacobian()'s).
    Returns (t, values): t a numpy array of the output times, values a dict of
    numpy arrays of the same length keyed by state name ("Plant/x1", "ss(2)")
    then logged signal ("Out1", "Scope:1(2)"), the columns of the CLI's CSV.
    Raises Error."""
    lib = _api()
    o = _sim_opts(solver, start, stop, rtol, atol, max_step, initial_step, step, out_step,
                  refine, zc, jacobian)
    with _Program(model, workspace, set) as prog:
        sim = ctypes.c_void_p()
        try:
            _call(lib.jg_sim_create, prog.p, ctypes.byref(o), ctypes.byref(sim))
            names = prog.state_names()
            nx = len(names)
            nlog = lib.jg_sim_nlogged(sim)
            names += [lib.jg_sim_logged_name(sim, k).decode() for k in range(nlog)]
            ts, rows = [], []

            def log(t, x, sig, user):
                ts.append(t)
                rows.append([x[k] for k in range(nx)] + [sig[k] for k in range(nlog)])
                return 0

            log_c = _LOG(log)
            _call(lib.jg_sim_run, sim, stop, log_c, None)
        finally:
            lib.jg_sim_free(sim)
    data = np.array(rows, dtype=float).reshape(len(ts), len(names))
    return np.array(ts), {name: data[:, k] for k, name in enumerate(names)}


def jacobian(model, t=None, method="auto", workspace=None, set=None):
    """The solver Jacobian df/dx of `model` as `jacgraph jacobian` computes it:
    at the initial states (t None or 0), or at the state an ode45 simulation
    (rtol 1e-6, atol 1e-9) reaches at time t.  method: "auto",
    "full-perturbation", "sparse-perturbation", "full-analytical",
    "sparse-analytical".  Returns a Jacobian; raises Error."""
    lib = _api()
    at = 0.0 if t is None else float(t)
    o = _sim_opts("ode45", 0.0, at, 1e-6, 1e-9, None, None, None, None, 1, "nonadaptive", method)
    with _Program(model, workspace, set) as prog:
        sim, sj = ctypes.c_void_p(), ctypes.c_void_p()
        J = ctypes.POINTER(_Csc)()
        try:
            _call(lib.jg_sim_create, prog.p, ctypes.byref(o), ctypes.byref(sim))
            _call(lib.jg_sim_run, sim, at, _LOG(), None)
            # at the simulation's point: discrete blocks hold what they held there
            _call(lib.jg_solverjac_create, prog.p, o.jacobian, lib.jg_sim_work(sim),
                  ctypes.byref(sj))
            J = lib.jg_solverjac_alloc(sj)
            if not J:
                raise MemoryError("jacgraph: out of memory")
            tt = lib.jg_sim_time(sim)
            _call(lib.jg_solverjac_eval, sj, tt, lib.jg_sim_states(sim), None, J)
            return Jacobian(_csc(J), prog.state_names(), tt,
                            lib.jg_solverjac_method_name(lib.jg_solverjac_method(sj)).decode(),
                            lib.jg_solverjac_reason(sj).decode())
        finally:
            if J:
                lib.cs_dl_spfree(J)
            lib.jg_solverjac_free(sj)
            lib.jg_sim_free(sim)
