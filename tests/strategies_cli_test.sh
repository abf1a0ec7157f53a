#!/usr/bin/env bash
# `jacgraph strategies` and `jacgraph graph --json` (TAP): the CSV header and
# the JSON keys, every strategy on every shipped model agreeing with the
# matrix method, the optimum no worse than any heuristic, the costs recounted
# from the graph JSON and the order files by benchmarks/recount.py (an
# independent replay in Python), the plot and the order files, and the
# refusals: unknown strategies listing the known ones, meaningless chains, bad
# order files naming the line, bad options (docs/strategies.md).
set -u
. "$(dirname "$0")/tap.sh"
cd "$top"

header="strategy,eliminated,vertices,edges,nnz,bytes,peak_nnz,fma,fma_inv,fma_scale,fma_prod,adds,lft_order,lft_fma,t_elim_ms,t_replay_ms,t_total_ms,max_diff,t_strategy_ms,optimal,bound,work,work_vs_best,nnz_vs_best,fma_vs_exact,nnz_vs_exact"

"$J" strategies graphs/f14.json --format csv >"$d/f14.csv"
ok $? "f14: csv"
[ "$(head -1 "$d/f14.csv")" = "$header" ]
ok $? "csv header: the columns of the cost model, then the ratios"
[ "$(cut -d, -f1 "$d/f14.csv" | tail -n +2 | tr '\n' ' ')" = "none markowitz full " ]
ok $? "default strategies: none, markowitz, full"

# every strategy on every shipped model; exact where the graph is small enough
for m in graphs/*.json; do
    b=$(basename "$m" .json)
    "$J" strategies "$m" --strategies all --format csv --order-out "$d/ord_$b" >"$d/$b.csv" 2>"$d/$b.err"
    rc=$?
    python3 - "$d/$b.csv" "$b" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
names = [r["strategy"] for r in rows]
assert len(rows) >= 12, names
for r in rows:
    assert float(r["max_diff"]) <= 1e-10, (r["strategy"], r["max_diff"])
    assert int(r["fma"]) == int(r["fma_inv"]) + int(r["fma_scale"]) + int(r["fma_prod"]), r
    assert int(r["peak_nnz"]) >= int(r["nnz"]), r
ex = {r["strategy"]: r for r in rows}
if "exact" in ex:
    e = ex["exact"]
    assert e["optimal"] == "1" and float(e["fma_vs_exact"]) == 1.0, e
    for r in rows:   # heuristics that eliminated the same vertices cost at least as much
        if r["eliminated"] == e["eliminated"]:
            assert int(r["fma"]) >= int(e["fma"]), (r["strategy"], r["fma"], e["fma"])
if "exact:nnz" in ex:
    n = int(ex["exact:nnz"]["nnz"])
    for r in rows:
        assert int(r["nnz"]) >= n, (r["strategy"], r["nnz"], n)
print("# %s: %d strategies%s" % (sys.argv[2], len(rows), ", exact" if "exact" in ex else ""))
PY
    ok $(( rc != 0 || $? != 0 )) "$b: every strategy, A..D equal to the matrix method's; exact no worse"
done
grep -l '^exact,' "$d"/*.csv >/dev/null
ok $? "exact ran on at least one shipped model"

# the costs recounted from the graph JSON and the order files
for b in f14 algebraic_loop mimo_feedback tf_cascade hires; do
    "$J" graph "graphs/$b.json" --json "$d/$b.g.json" >/dev/null
    python3 - "$d/$b.g.json" "$d/$b.csv" "$d/ord_$b" <<'PY'
import csv, json, re, subprocess, sys
g, c, od = sys.argv[1:4]
for row in csv.DictReader(open(c)):
    f = od + "/" + re.sub(r"[^A-Za-z0-9._-]", "_", row["strategy"]) + ".txt"
    assert sum(1 for _ in open(f)) == int(row["eliminated"]), f
    got = json.loads(subprocess.check_output(["python3", "benchmarks/recount.py", g, f, "--json"]))
    for k, v in got.items():
        assert str(v) == row[k], (row["strategy"], k, v, row[k])
PY
    ok $? "$b: recount.py replays every order file to the same costs"
done
# a generated model with vector loops (inversions and scalings)
"$J" generate power --blocks 300 --seed 2 --out "$d/pw.json" --quiet
"$J" graph "$d/pw.json" --json "$d/pw.g.json" >/dev/null &&
    "$J" strategies "$d/pw.json" --strategies full,markowitz-nnz,minfill,reverse --format csv --order-out "$d/ord_pw" >"$d/pw.csv"
ok $? "generated power model: strategies and graph JSON"
python3 - "$d/pw.g.json" "$d/pw.csv" "$d/ord_pw" <<'PY'
import csv, json, subprocess, sys
g, c, od = sys.argv[1:4]
inv = 0
for row in csv.DictReader(open(c)):
    got = json.loads(subprocess.check_output(["python3", "benchmarks/recount.py", g, od + "/" + row["strategy"] + ".txt", "--json"]))
    for k, v in got.items():
        assert str(v) == row[k], (row["strategy"], k, v, row[k])
    inv += int(row["fma_inv"]) + int(row["fma_scale"])
assert inv > 0
PY
ok $? "generated power model: recount.py agrees, inversions and scalings included"

# graph --json is the graph before elimination, whatever --reduce says
"$J" graph graphs/f14.json --reduce full --json "$d/f14r.json" >/dev/null
python3 - "$d/f14r.json" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
assert len(g["vertices"]) == 107 and len(g["edges"]) == 127, (len(g["vertices"]), len(g["edges"]))
ids = [v["id"] for v in g["vertices"]]
assert ids == list(range(107))
w = {v["id"]: v["width"] for v in g["vertices"]}
for e in g["edges"]:
    assert e["rows"] == w[e["dst"]] and e["cols"] == w[e["src"]]
    assert len(e["i"]) == len(e["j"]) == len(e["x"])
    assert all(0 <= i < e["rows"] for i in e["i"]) and all(0 <= j < e["cols"] for j in e["j"])
    if e["identity"]:
        assert e["i"] == e["j"] == list(range(e["rows"])) and e["x"] == [1] * e["rows"]
assert {v["kind"] for v in g["vertices"]} <= {"state", "input", "output", "io"}
PY
ok $? "graph --json: before elimination (V:107 E:127 with --reduce full), 0-based, shapes from the widths"

# formats
"$J" strategies graphs/f14.json --strategies lm,markowitz --format json >"$d/f.json"
python3 - "$d/f.json" "$header" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
rows = m["strategies"]
assert [r["strategy"] for r in rows] == ["lm", "markowitz"]
assert list(rows[0].keys()) == sys.argv[2].split(","), list(rows[0].keys())
assert rows[1]["fma_vs_exact"] is None and rows[0]["max_diff"] < 1e-10
PY
ok $? "json: one object per strategy, keys = the csv columns, null where not computed"
"$J" strategies graphs/f14.json --strategies lm >"$d/t.txt"
head -1 "$d/t.txt" | grep -q '^strategy  *elim  *V  *E  *nnz' && [ "$(wc -l <"$d/t.txt")" -eq 2 ]
ok $? "text: a header and one line per strategy"

# the Pareto plot
"$J" strategies graphs/f14.json --strategies none,markowitz,full,minfill,momr --plot "$d/p.svg" >/dev/null
python3 - "$d/p.svg" <<'PY'
import sys, xml.etree.ElementTree as ET
t = ET.parse(sys.argv[1])
text = "".join(t.getroot().itertext())
for s in ["none", "markowitz", "full", "minfill", "momr", "nonzeros after elimination", "Pareto"]:
    assert s in text, s
ns = "{http://www.w3.org/2000/svg}"
assert len(t.getroot().findall(".//%scircle" % ns)) >= 4
assert t.getroot().find(".//%spath[@class='pareto']" % ns) is not None
PY
ok $? "--plot: an SVG with every strategy, the axes and the Pareto front"

# a spec with its own commas; --order FILE and order:FILE
"$J" strategies graphs/f14.json --strategies full --order-out "$d/o1" >/dev/null &&
    "$J" strategies graphs/f14.json --strategies none --order "$d/o1/full.txt" --format csv >"$d/o.csv"
ok $? "--order FILE evaluates an order written by --order-out"
[ "$(grep -c '^order:' "$d/o.csv")" -eq 1 ] &&
    [ "$(cut -d, -f2-12 <<<"$(grep '^order:' "$d/o.csv")")" = "$(cut -d, -f2-12 <<<"$(sed -n 4p "$d/f14.csv")")" ]
ok $? "the order of full replayed gives full's row"

# refusals
expect_fail "unknown strategy: usage error listing the known ones" 2 \
    "unknown strategy 'bogus' (known: none, markowitz, full," "$J" strategies graphs/f14.json --strategies lm,bogus
expect_fail "a chain of a non-criterion: refused" 2 "a chain A>B>C takes criteria only" \
    "$J" strategies graphs/f14.json --strategies 'lm>markowitz'
printf '0\n0\n' >"$d/rep.txt"
expect_fail "order file repeating a vertex: names the line" 2 "rep.txt:2: vertex 0" \
    "$J" strategies graphs/f14.json --order "$d/rep.txt"
printf '2\n4\n' >"$d/st.txt"
expect_fail "order file naming a state: names the line" 2 "st.txt:2: vertex 4" \
    "$J" strategies graphs/f14.json --order "$d/st.txt"
printf '99999\n' >"$d/unk.txt"
expect_fail "order file naming an unknown vertex" 2 "unk.txt:1: unknown vertex 99999" \
    "$J" strategies graphs/f14.json --order "$d/unk.txt"
printf 'x1\n' >"$d/junk.txt"
expect_fail "order file with a word" 4 "junk.txt:1: 'x1' is not a vertex id" \
    "$J" strategies graphs/f14.json --order "$d/junk.txt"
expect_fail "a missing order file" 3 "no_such.txt: cannot open" \
    "$J" strategies graphs/f14.json --strategies none --order "$d/no_such.txt"
expect_fail "bad --format" 2 "unknown --format 'xml'" "$J" strategies graphs/f14.json --format xml
expect_fail "bad --time-limit" 2 "--time-limit" "$J" strategies graphs/f14.json --time-limit -1
expect_fail "missing model" 2 "missing MODEL" "$J" strategies
"$J" strategies --help | grep -q "^  exact "
ok $? "--help lists the registered strategies"

tap_done
