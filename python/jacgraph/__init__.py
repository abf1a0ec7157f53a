"""jacgraph from Python: linearize and simulate Simulink-style block diagrams
(JSON, .mdl, .slx) through libjacgraph (ctypes; NumPy and SciPy).

    import jacgraph
    lin = jacgraph.linearize("graphs/vdp.json")        # lin.A ... lin.D: scipy.sparse
    t, y = jacgraph.simulate("graphs/vdp.json", stop=5, out_step=0.1)
    jac = jacgraph.jacobian("graphs/hires.json", t=1)  # jac.J = df/dx

Errors raise jacgraph.Error (.status, .message).  The library is found through
JACGRAPH_LIB, the system's library path or pkg-config (jacgraph.library_path()).
"""
from .core import Error, Jacobian, Linearization, jacobian, library_path, linearize, simulate

__all__ = ["Error", "Jacobian", "Linearization", "jacobian", "library_path", "linearize",
           "simulate"]
