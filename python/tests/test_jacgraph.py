"""The Python binding against the CLI: linearize, simulate and jacobian give
what `jacgraph linearize --format json`, `jacgraph simulate --out` and
`jacgraph jacobian --format json` print, and failures raise jacgraph.Error
with the CLI's message.  Plain asserts; prints TAP (tests/python_test.sh).

usage: JACGRAPH_LIB=BUILD/lib/libjacgraph.so JACGRAPH=BUILD/tools/jacgraph \
       python3 python/tests/test_jacgraph.py      (from the repository root)
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import jacgraph  # noqa: E402

CLI = os.environ.get("JACGRAPH", "build/tools/jacgraph")
n_run = 0
n_failed = 0


def check(name, fn):
    """Run one check (a function of plain asserts) as one TAP line."""
    global n_run, n_failed
    n_run += 1
    try:
        fn()
        print("ok %d - %s" % (n_run, name))
    except Exception as e:   # a failed assert or an unexpected error: report, go on
        n_failed += 1
        print("not ok %d - %s" % (n_run, name))
        for line in ("%s: %s" % (type(e).__name__, e)).splitlines()[:8]:
            print("#   " + line)


def cli(*args):
    r = subprocess.run([CLI, *args], capture_output=True, text=True)
    assert r.returncode == 0, "jacgraph %s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr)
    return r.stdout


def dense(m):
    a = np.zeros((m["rows"], m["cols"]))
    for i, j, x in zip(m["i"], m["j"], m["x"]):
        a[i, j] = x
    return a


def same_lin(args, **kw):
    want = json.loads(cli("linearize", *args, "--format", "json"))
    got = jacgraph.linearize(args[0], **kw)
    assert got.state_names == want["states"], (got.state_names, want["states"])
    assert got.input_names == want["inputs"], (got.input_names, want["inputs"])
    assert got.output_names == want["outputs"], (got.output_names, want["outputs"])
    assert got.t == want["t"]
    for k in "ABCD":
        M = getattr(got, k)
        assert M.format == "csc", M.format
        assert np.array_equal(M.toarray(), dense(want[k])), (k, M.toarray(), dense(want[k]))


def same_sim(model, cli_args, **kw):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "traj.csv")
        cli("simulate", model, *cli_args, "--out", out, "--no-progress")
        with open(out, newline="") as f:
            rows = list(csv.reader(f))
    header, table = rows[0], np.array(rows[1:], dtype=float)
    t, values = jacgraph.simulate(model, **kw)
    assert isinstance(t, np.ndarray) and t.shape == (len(table),), (t.shape, len(table))
    assert list(values) == header[1:], (list(values), header[1:])
    # the CSV holds 12 significant digits
    assert np.allclose(t, table[:, 0], rtol=1e-11, atol=1e-300)
    for k, name in enumerate(header[1:], 1):
        assert values[name].shape == t.shape
        assert np.allclose(values[name], table[:, k], rtol=1e-11, atol=1e-12), name


def same_jac(model, cli_args, **kw):
    want = json.loads(cli("jacobian", model, *cli_args, "--format", "json"))
    got = jacgraph.jacobian(model, **kw)
    assert got.state_names == want["states"]
    assert got.t == want["t"] and got.method == want["method"] and got.reason == want["reason"]
    assert got.J.format == "csc"
    assert np.array_equal(got.J.toarray(), dense(want["J"])), (got.J.toarray(), dense(want["J"]))


def raises(status, text, fn, cli_args=None):
    """fn() raises jacgraph.Error with this status and a message containing
    text; with cli_args, the message is the CLI's for the same failure."""
    try:
        fn()
    except jacgraph.Error as e:
        assert e.status == status, (e.status, e.message)
        assert text in e.message, (text, e.message)
        if cli_args:
            r = subprocess.run([CLI, *cli_args], capture_output=True, text=True)
            assert r.returncode == e.exit_code, (r.returncode, e.exit_code)
            assert r.stderr.strip() == "jacgraph: error: " + e.message, (r.stderr, e.message)
        return
    raise AssertionError("no jacgraph.Error raised")


def main():
    print("# library: %s" % jacgraph.library_path())
    op = {"t": 0.5, "states": {"Actuator": 0.2, "Plant": [1, 2, 3, 4]}, "inputs": {"Ref1": 0.5}}
    with tempfile.TemporaryDirectory() as d:
        opf = os.path.join(d, "op.json")
        with open(opf, "w") as f:
            json.dump(op, f)
        check("linearize vdp.json (defaults)", lambda: same_lin(["graphs/vdp.json"]))
        check("linearize with inputs, outputs, open, an op dict and the matrix method",
              lambda: same_lin(["graphs/mimo_feedback.json", "--input", "Controller/Kp:1",
                                "--output", "Actuator:1", "--open", "Controller/PI:1",
                                "--op", opf, "--method", "matrix"],
                               inputs=["Controller/Kp:1"], outputs=["Actuator:1"],
                               open=["Controller/PI:1"], op=op, method="matrix"))
        check("linearize with an op file, defaults=False, reduce=none",
              lambda: same_lin(["graphs/mimo_feedback.json", "--no-default-io", "--input",
                                "Ref1:1", "--output", "Plant:1", "--op", opf, "--reduce", "none"],
                               inputs=["Ref1:1"], outputs=["Plant:1"], defaults=False, op=opf,
                               reduce="none"))
    check("linearize msd.mdl with set=, perturbation",
          lambda: same_lin(["graphs/msd.mdl", "--set", "kspring=16", "--method", "perturb"],
                           set=["kspring=16"], method="perturb"))
    check("simulate vdp.json, ode45, out_step",
          lambda: same_sim("graphs/vdp.json", ["--stop", "2", "--out-step", "0.1"],
                           stop=2, out_step=0.1))
    check("simulate hires.json, ode23s with rtol, atol",
          lambda: same_sim("graphs/hires.json", ["--solver", "ode23s", "--stop", "5", "--rtol",
                                                 "1e-6", "--atol", "1e-9", "--out-step", "0.5"],
                           solver="ode23s", stop=5, rtol=1e-6, atol=1e-9, out_step=0.5))
    check("simulate bounce.json, every major step (zero crossings)",
          lambda: same_sim("graphs/bounce.json", ["--stop", "3"], stop=3))
    check("simulate a fixed-step solver", lambda: same_sim(
        "graphs/vdp.json", ["--solver", "ode4", "--step", "0.05", "--stop", "1"],
        solver="ode4", step=0.05, stop=1))
    check("jacobian hires.json at t = 1 (auto)",
          lambda: same_jac("graphs/hires.json", ["--at", "1"], t=1))
    check("jacobian vdp.json at the initial point, sparse-perturbation",
          lambda: same_jac("graphs/vdp.json", ["--method", "sparse-perturbation"],
                           method="sparse-perturbation"))
    check("error: a missing model file (IO, the CLI's message)",
          lambda: raises("IO", "missing.json", lambda: jacgraph.linearize("graphs/missing.json"),
                         ["linearize", "graphs/missing.json"]))
    check("error: an unknown linearization point (ARG, the CLI's message)",
          lambda: raises("ARG", "Nope", lambda: jacgraph.linearize("graphs/vdp.json",
                                                                    inputs=["Nope:1"]),
                         ["linearize", "graphs/vdp.json", "--input", "Nope:1"]))
    check("error: an unknown solver (ARG, the CLI's message)",
          lambda: raises("ARG", "unknown solver 'ode99'",
                         lambda: jacgraph.simulate("graphs/vdp.json", solver="ode99"),
                         ["simulate", "graphs/vdp.json", "--solver", "ode99", "--out", os.devnull]))
    check("error: an unknown block type in a dict model (MODEL)",
          lambda: raises("MODEL", "Nonsense", lambda: jacgraph.linearize(
              {"name": "m", "blocks": [{"name": "B", "type": "Nonsense"}], "lines": []})))
    check("error: bad options before any call (ARG)",
          lambda: (raises("ARG", "method",
                          lambda: jacgraph.linearize("graphs/vdp.json", method="x")),
                   raises("ARG", "rtol", lambda: jacgraph.simulate("graphs/vdp.json", rtol=0))))
    print("1..%d" % n_run)
    return 1 if n_failed else 0


if __name__ == "__main__":
    sys.exit(main())
