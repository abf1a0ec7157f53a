#!/usr/bin/env python3
"""Recount the cost of an elimination order from the graph JSON alone.

usage: recount.py GRAPH.json ORDER.txt [--json]

GRAPH.json is what `jacgraph graph MODEL --json FILE` writes (the Jacobian
graph before elimination); ORDER.txt is one of the files of
`jacgraph strategies MODEL --order-out DIR` (vertex ids, one a line, in the
order they were eliminated).  The script replays the elimination on the
structural patterns, independently of jacgraph's C code, and prints the cost
model of docs/strategies.md:

    eliminated vertices edges nnz fma fma_inv fma_scale fma_prod adds peak_nnz

which must equal the columns of the same names in `jacgraph strategies`.
Plain Python 3, no third-party module.
"""
import json
import sys


def load(path):
    g = json.load(open(path))
    width = {v["id"]: v["width"] for v in g["vertices"]}
    elim = {v["id"]: v["eliminable"] for v in g["vertices"]}
    edges = {}  # (src, dst) -> [pattern: dict col -> set(rows), rows, cols, identity]
    for e in g["edges"]:
        pat = {}
        for i, j in zip(e["i"], e["j"]):
            pat.setdefault(j, set()).add(i)
        key = (e["src"], e["dst"])
        if key in edges:
            raise SystemExit("%s: edge %d -> %d twice" % (path, key[0], key[1]))
        edges[key] = [pat, e["rows"], e["cols"], bool(e["identity"])]
    return width, elim, edges


def nnz(pat):
    return sum(len(r) for r in pat.values())


def product(X, Y):
    """pattern of X * Y and phi(X, Y) = sum_j sum_{k in P_Y(:,j)} |P_X(:,k)|"""
    out, phi = {}, 0
    for j, ks in Y.items():
        rows = set()
        for k in ks:
            xk = X.get(k, ())
            phi += len(xk)
            rows.update(xk)
        if rows:
            out[j] = rows
    return out, phi


def recount(width, elim, edges, order):
    ins, outs = {}, {}
    for (s, d) in edges:
        if s != d:
            outs.setdefault(s, set()).add(d)
            ins.setdefault(d, set()).add(s)
    c = dict(eliminated=0, fma=0, fma_inv=0, fma_scale=0, fma_prod=0, adds=0)
    live = sum(nnz(e[0]) for e in edges.values())
    peak = live
    done = set()
    for line, v in order:
        if v not in width:
            raise SystemExit("order line %d: no vertex %d" % (line, v))
        if not elim[v] or v in done:
            raise SystemExit("order line %d: vertex %d is not eliminable or repeated" % (line, v))
        done.add(v)
        w = width[v]
        D = edges.get((v, v))
        inv = scale = prod = adds = 0
        dense = False
        if D is not None:
            dense = any(i != j for j, rs in D[0].items() for i in rs)
            inv = w ** 3 if dense else w
        Khat = {}
        transient = 0  # S and the scaled in-edges live while v is eliminated
        for u in sorted(ins.get(v, ())):
            K = edges[(u, v)]
            if D is None:
                Khat[u] = (K[0], K[3])
            elif dense:
                scale += w * nnz(K[0])
                Khat[u] = ({j: set(range(w)) for j in K[0]}, False)
            else:
                scale += nnz(K[0])
                Khat[u] = (K[0], False)
            if D is not None:
                transient += nnz(Khat[u][0])
        if D is not None:
            transient += w * w if dense else w
        newnz = 0
        for u in sorted(ins.get(v, ())):
            Ke, eid = Khat[u]
            for t in sorted(outs.get(v, ())):
                Kf = edges[(v, t)]
                if eid or Kf[3]:
                    P = Kf[0] if eid else Ke
                    phi = 0
                else:
                    P, phi = product(Kf[0], Ke)
                if not P:
                    continue  # a structurally zero product makes no edge
                prod += phi
                old = edges.get((u, t))
                if old is not None:
                    adds += nnz(P)
                    before = nnz(old[0])
                    for j, rs in P.items():
                        old[0].setdefault(j, set()).update(rs)
                    old[3] = False
                    newnz += nnz(old[0]) - before
                else:
                    edges[(u, t)] = [{j: set(rs) for j, rs in P.items()}, width[t], width[u], eid and Kf[3]]
                    newnz += nnz(P)
                    if u != t:
                        outs.setdefault(u, set()).add(t)
                        ins.setdefault(t, set()).add(u)
        peak = max(peak, live + newnz + transient)
        # v and its edges go
        gone = 0
        for u in list(ins.get(v, ())):
            gone += nnz(edges.pop((u, v))[0])
            outs[u].discard(v)
        for t in list(outs.get(v, ())):
            gone += nnz(edges.pop((v, t))[0])
            ins[t].discard(v)
        if D is not None:
            gone += nnz(edges.pop((v, v))[0])
        ins.pop(v, None)
        outs.pop(v, None)
        live += newnz - gone
        c["eliminated"] += 1
        c["fma_inv"] += inv
        c["fma_scale"] += scale
        c["fma_prod"] += prod
        c["fma"] += inv + scale + prod
        c["adds"] += adds
    c["vertices"] = len(width) - len(done)
    c["edges"] = len(edges)  # self-loops included
    c["nnz"] = sum(nnz(e[0]) for e in edges.values())
    c["peak_nnz"] = peak
    return c


def main(argv):
    if len(argv) < 3:
        raise SystemExit(__doc__)
    width, elim, edges = load(argv[1])
    order = []
    for k, line in enumerate(open(argv[2]), 1):
        line = line.strip()
        if line and not line.startswith("#"):
            order.append((k, int(line)))
    c = recount(width, elim, edges, order)
    keys = ["eliminated", "vertices", "edges", "nnz", "fma", "fma_inv", "fma_scale", "fma_prod", "adds", "peak_nnz"]
    if "--json" in argv[3:]:
        print(json.dumps({k: c[k] for k in keys}))
    else:
        print(" ".join(keys))
        print(" ".join(str(c[k]) for k in keys))


if __name__ == "__main__":
    main(sys.argv)
