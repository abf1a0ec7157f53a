#!/usr/bin/env bash
# bench_strategies.sh -- every elimination strategy on the shipped models, the
# generated families and small random diagrams whose optimum is known:
# `jacgraph strategies` per model, gathered into one CSV, markdown tables and
# a Pareto plot (docs/strategies.md defines the columns).
#
#   benchmarks/bench_strategies.sh [options]
#
#   --build DIR        build directory (default: build; needs tools/jacgraph and
#                      tests/gen_model)
#   --out DIR          where results go (default: benchmarks/results)
#   --sizes "N..."     generated model sizes (default: "1000 10000 100000")
#   --seeds "S..."     generator seeds (default: "1 2 3 4 5")
#   --big-seeds "S..." seeds at sizes above 10,000 (default: "1 2 3 4 5"; a 100k
#                      model runs every strategy in about a minute on one core)
#   --kinds "K..."     generated kinds (default: "aerospace power deep")
#   --small N          small random diagrams (default: 40), kept when exact runs
#   --time-limit S     searching strategies on the shipped models (default: 2)
#   --quick            sizes "1000 10000", seeds "1 2", 15 small diagrams
#   --report-only      rewrite OUT/strategies.md from an existing OUT/strategies.csv
#
# Strategies: shipped models and small diagrams run `--strategies all`
# (exact and exact:nnz where the graph has at most 20 eliminable vertices,
# exact:bb and exact:nnz:bb beyond on the shipped models, anneal, camd, metis); generated
# models run every strategy but exact and anneal (a search over orders of
# thousands of vertices is not what they measure).  Writes OUT/strategies.csv
# (set, model, blocks, seed, then the command's columns), OUT/strategies.md
# and OUT/strategies.svg (FMA against nonzeros on the 10k power model of --seed 1,
# or the largest power model run).  Exit status 1 when a strategy disagrees
# with the matrix method (max_diff above 1e-10) or fails.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
build=build out=$here/benchmarks/results sizes="1000 10000 100000" seeds="1 2 3 4 5" bigseeds="1 2 3 4 5"
kinds="aerospace power deep" nsmall=40 tl=2 report_only=0
while [ $# -gt 0 ]; do
    case $1 in
    --build) build=$2; shift ;;
    --out) out=$2; shift ;;
    --sizes) sizes=$2; shift ;;
    --seeds) seeds=$2; shift ;;
    --big-seeds) bigseeds=$2; shift ;;
    --kinds) kinds=$2; shift ;;
    --small) nsmall=$2; shift ;;
    --time-limit) tl=$2; shift ;;
    --quick) sizes="1000 10000" seeds="1 2" nsmall=15 ;;
    --report-only) report_only=1 ;;
    -h | --help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench_strategies.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
case $build in /*) ;; *) build=$here/$build ;; esac
J=$build/tools/jacgraph
G=$build/tests/gen_model
csv=$out/strategies.csv
if [ "$report_only" = 0 ]; then
[ -x "$J" ] && [ -x "$G" ] || { echo "bench_strategies.sh: build $build first (tools/jacgraph, tests/gen_model)" >&2; exit 2; }
export JACGRAPH_PLUGIN_PATH=$build/examples${JACGRAPH_PLUGIN_PATH:+:$JACGRAPH_PLUGIN_PATH}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gen_list="none,markowitz,markowitz-nnz,full,forward,reverse,lm,lrm,minfill,mincost,lmmd,momr,camd,metis"
rc=0
: >"$tmp/all.csv"

# run SET MODEL-FILE NAME BLOCKS SEED STRATEGY-ARGS...: one model's rows into the CSV
run() {
    local set=$1 file=$2 name=$3 blocks=$4 seed=$5
    shift 5
    local t0=$SECONDS
    if ! "$J" strategies "$file" --format csv "$@" >"$tmp/one.csv" 2>"$tmp/one.err"; then
        echo "  $name: exit $? ($(grep -v skipped "$tmp/one.err" | head -2 | tr '\n' ' '))" >&2
        rc=1
    fi
    [ -s "$tmp/one.csv" ] || return
    if [ ! -s "$tmp/all.csv" ]; then
        echo "set,model,blocks,seed,$(head -1 "$tmp/one.csv")" >"$tmp/all.csv"
    fi
    tail -n +2 "$tmp/one.csv" | sed "s|^|$set,$name,$blocks,$seed,|" >>"$tmp/all.csv"
    cp "$tmp/all.csv" "$csv.partial"   # what ran so far survives an interrupted run
    echo "  $name: $(($(wc -l <"$tmp/one.csv") - 1)) strategies, $((SECONDS - t0)) s" >&2
}

echo "shipped models" >&2
for m in "$here"/graphs/*.json; do
    b=$(basename "$m" .json)
    run shipped "$m" "$b" "" "" --strategies all --time-limit "$tl"
done

echo "small random diagrams (exact known)" >&2
k=0
for s in $(seq 1 $((nsmall * 4))); do
    [ "$k" -ge "$nsmall" ] && break
    nb=$((6 + s % 9))
    "$G" "$s" "$nb" 1 -q >"$tmp/small.json" 2>/dev/null || continue
    # keep the diagrams exact solves (at most 20 eliminable vertices)
    "$J" strategies "$tmp/small.json" --strategies exact --format csv >/dev/null 2>&1 || continue
    run small "$tmp/small.json" "random_s$s" "$nb" "$s" --strategies all
    k=$((k + 1))
done

for n in $sizes; do
    ss=$seeds
    [ "$n" -gt 10000 ] && ss=$bigseeds
    for kind in $kinds; do
        for s in $ss; do
            f=$tmp/${kind}_$n.json
            "$J" generate "$kind" --blocks "$n" --seed "$s" --out "$f" --quiet || { rc=1; continue; }
            echo "generated $kind $n seed $s" >&2
            plot=()
            if [ "$kind" = power ] && [ "$s" = 1 ] && { [ "$n" = 10000 ] || [ ! -s "$out/strategies.svg.new" ]; }; then
                plot=(--plot "$out/strategies.svg.new")
            fi
            run generated "$f" "${kind}_${n}_s$s" "$n" "$s" --strategies "$gen_list" "${plot[@]}"
            rm -f "$f"
        done
    done
done
[ -s "$out/strategies.svg.new" ] && mv "$out/strategies.svg.new" "$out/strategies.svg"
cp "$tmp/all.csv" "$csv"
rm -f "$csv.partial"
else
    rc=0
    [ -s "$csv" ] || { echo "bench_strategies.sh: no $csv" >&2; exit 2; }
fi

python3 - "$csv" "$out/strategies.md" "$sizes" "$kinds" <<'PY'
import csv, sys
from collections import defaultdict
rows = list(csv.DictReader(open(sys.argv[1])))
md = open(sys.argv[2], "w")
sizes = [int(x) for x in sys.argv[3].split()]
kinds = sys.argv[4].split()
f = lambda r, k: float(r[k]) if r[k] not in ("", None) else None
def gmean(v):
    import math
    v = [x for x in v if x and x > 0]
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else float("nan")
by_model = defaultdict(list)
for r in rows:
    by_model[(r["set"], r["model"])].append(r)
W = md.write
W("# Elimination strategies: results\n\n")
W("Written by `benchmarks/bench_strategies.sh` from `jacgraph strategies` (columns and cost model: "
  "[docs/strategies.md](../../docs/strategies.md)); every number is in `strategies.csv`. "
  "Times are wall clock on a shared 2-core machine: compare them within a table, not across runs.\n\n")
bad = [r for r in rows if not (float(r["max_diff"]) <= 1e-10)]
W("Agreement: %d rows, %d with max_diff above 1e-10; the largest max_diff is %.3g.\n\n" %
  (len(rows), len(bad), max(float(r["max_diff"]) for r in rows)))

# ---- small graphs: distance to the optimum
small = {k: v for k, v in by_model.items() if k[0] == "small"}
if small:
    W("## Small graphs: distance to the optimum\n\n")
    nel = [int(next(r for r in v if r["strategy"] == "exact")["eliminated"]) for v in small.values()
           if any(r["strategy"] == "exact" for r in v)]
    W("%d random linear diagrams (`tests/gen_model SEED N 1`, N = 6..14 blocks) with %d to %d eliminable "
      "vertices, where `exact` (fewest FMA over every order of every eliminable vertex) and `exact:nnz` "
      "(fewest nonzeros over every subset, ties by FMA) are optimal. Per strategy: the FMA against "
      "`exact`'s (for strategies that eliminated the same vertices: geometric mean, worst, how often "
      "optimal) and the nonzeros left against `exact:nnz`'s (geometric mean, worst, how often optimal).\n\n"
      % (len(small), min(nel) if nel else 0, max(nel) if nel else 0))
    agg = defaultdict(lambda: {"fr": [], "nr": [], "fopt": 0, "nopt": 0, "n": 0, "nf": 0})
    for v in small.values():
        ex = {r["strategy"]: r for r in v}
        if "exact" not in ex or "exact:nnz" not in ex:
            continue
        ef, en, eel = int(ex["exact"]["fma"]), int(ex["exact:nnz"]["nnz"]), ex["exact"]["eliminated"]
        for r in v:
            a = agg[r["strategy"]]
            a["n"] += 1
            nn = int(r["nnz"])
            a["nr"].append(nn / en if en else 1.0)
            a["nopt"] += nn == en
            if r["eliminated"] == eel:
                fm = int(r["fma"])
                a["nf"] += 1
                a["fr"].append(fm / ef if ef else 1.0)
                a["fopt"] += fm == ef
    W("| strategy | graphs | FMA / optimum (gmean) | worst | FMA optimal | nnz / optimum (gmean) | worst | nnz optimal |\n")
    W("|---|---:|---:|---:|---:|---:|---:|---:|\n")
    for s, a in agg.items():
        fr = "%.3f | %.3f | %d/%d" % (gmean(a["fr"]), max(a["fr"]), a["fopt"], a["nf"]) if a["fr"] else "- | - | -"
        W("| %s | %d | %s | %.3f | %.3f | %d/%d |\n" % (s, a["n"], fr, gmean(a["nr"]), max(a["nr"]), a["nopt"], a["n"]))
    # heuristics: the greedy rules and orderings, not the searches (exact*, anneal)
    heur = {s: a for s, a in agg.items() if a["fr"] and not s.startswith(("exact", "anneal")) and a["nf"] == a["n"]}
    if heur:
        best = min(heur, key=lambda s: (gmean(heur[s]["fr"]), max(heur[s]["fr"])))
        W("\nThe best greedy heuristic for FMA is **%s**: %.1f %% above the optimum on average (geometric mean), "
          "%.1f %% at worst, optimal on %d of %d graphs.\n" % (best, 100 * (gmean(heur[best]["fr"]) - 1),
          100 * (max(heur[best]["fr"]) - 1), heur[best]["fopt"], heur[best]["nf"]))
    if "anneal" in agg and agg["anneal"]["fr"]:
        a = agg["anneal"]
        W("Simulated annealing (anneal, default budget) is %.1f %% above the optimum on average, %.1f %% at worst, "
          "optimal on %d of %d.\n" % (100 * (gmean(a["fr"]) - 1), 100 * (max(a["fr"]) - 1), a["fopt"], a["nf"]))
    if "markowitz" in agg and agg["markowitz"]["fr"]:
        a = agg["markowitz"]
        W("The paper's rule stops early on %d of %d graphs; where it eliminated every eliminable vertex its FMA "
          "is %.1f %% above the optimum on average (%.1f %% at worst).\n" % (a["n"] - a["nf"], a["n"],
          100 * (gmean(a["fr"]) - 1), 100 * (max(a["fr"]) - 1)))
    for s in ("markowitz", "markowitz-nnz"):
        if s in agg:
            a = agg[s]
            W("The %s leaves %.1f %% more nonzeros than the scarcity optimum on average (%.1f %% at worst, "
              "optimal on %d of %d).\n" % ("paper's rule (markowitz)" if s == "markowitz" else "nonzero variant of the paper's rule (markowitz-nnz)",
              100 * (gmean(a["nr"]) - 1), 100 * (max(a["nr"]) - 1), a["nopt"], a["n"]))
    W("\n")

# ---- shipped models
ship = {k: v for k, v in by_model.items() if k[0] == "shipped"}
if ship:
    W("## Shipped models\n\n")
    W("Per model: the graph before elimination (`none`), the paper's rule, its nonzero variant, the "
      "full-elimination strategy with the fewest FMA, the strategy leaving the fewest nonzeros, and the "
      "optimum where computed (`exact`, `exact:nnz`; `exact:bb` and `exact:nnz:bb` are branch and bound under a 2 s limit, with the lower bound when the search did not finish).\n\n")
    W("| model | none nnz | markowitz nnz / fma | markowitz-nnz nnz / fma | fewest FMA (all eliminated) | fewest nnz | exact fma | exact:nnz nnz |\n")
    W("|---|---:|---:|---:|---|---|---:|---:|\n")
    for (st, m), v in sorted(ship.items()):
        d = {r["strategy"]: r for r in v}
        full = [r for r in v if d.get("full") and r["eliminated"] == d["full"]["eliminated"] and not r["strategy"].startswith("exact")]
        bf = min(full, key=lambda r: int(r["fma"])) if full else None
        bn = min(v, key=lambda r: (int(r["nnz"]), int(r["fma"])))
        g = lambda s, k: d[s][k] if s in d else "-"
        exf = d.get("exact") or d.get("exact:bb")
        exn = d.get("exact:nnz") or d.get("exact:nnz:bb")
        W("| %s | %s | %s / %s | %s / %s | %s (%s) | %s (%s) | %s | %s |\n" % (
            m, g("none", "nnz"), g("markowitz", "nnz"), g("markowitz", "fma"), g("markowitz-nnz", "nnz"),
            g("markowitz-nnz", "fma"), bf["fma"] if bf else "-", bf["strategy"] if bf else "-", bn["nnz"], bn["strategy"],
            (exf["fma"] + ("" if exf["optimal"] == "1" else " (bb, bound %s)" % exf["bound"])) if exf else "-",
            (exn["nnz"] + ("" if exn["optimal"] == "1" else " (bb, bound %s)" % exn["bound"])) if exn else "-"))
    W("\n")

# ---- generated families
gen = defaultdict(lambda: defaultdict(list))
for (st, m), v in by_model.items():
    if st != "generated":
        continue
    kind, n = m.split("_")[0], int(v[0]["blocks"])
    for r in v:
        gen[(kind, n)][r["strategy"]].append(r)
if gen:
    W("## Generated families\n\n")
    W("`jacgraph generate KIND --blocks N --seed S`; means over the seeds run. nnz and FMA relative to "
      "the graph before elimination (`none`) and to `full`; `t_strategy_ms` is the strategy's own "
      "time, `pays off after` the number of numeric replays after which that time is recovered by a "
      "replay faster than `full`'s (never: it is not faster).\n\n")
    for kind in kinds:
        for n in sizes:
            if (kind, n) not in gen:
                continue
            g = gen[(kind, n)]
            mean = lambda s, k: sum(float(r[k]) for r in g[s]) / len(g[s])
            nseeds = len(g["none"]) if "none" in g else 0
            W("### %s, %d blocks (%d seed%s)\n\n" % (kind, n, nseeds, "s" if nseeds != 1 else ""))
            W("| strategy | eliminated | nnz | nnz vs none | fma | work (fma + lft_fma) | lft_order | t_elim_ms | t_strategy_ms | t_replay_ms | pays off after |\n")
            W("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
            n0 = mean("none", "nnz") if "none" in g else float("nan")
            rf = mean("full", "t_replay_ms") if "full" in g else None
            for s in g:
                nn, ts, tr = mean(s, "nnz"), mean(s, "t_strategy_ms"), mean(s, "t_replay_ms")
                if rf is None or s in ("full", "none"):
                    pay = "-"
                elif tr < rf:
                    pay = "%.0f" % (ts / (rf - tr))
                else:
                    pay = "never"
                W("| %s | %.0f | %.0f | %+.1f %% | %.0f | %.0f | %.0f | %.1f | %.1f | %.2f | %s |\n" % (
                    s, mean(s, "eliminated"), nn, 100 * (nn / n0 - 1), mean(s, "fma"), mean(s, "work"),
                    mean(s, "lft_order"), mean(s, "t_elim_ms"), ts, tr, pay))
            W("\n")
    for n in (10000,) + tuple(sizes):
        if ("power", n) in gen:
            g = gen[("power", n)]
            mean = lambda s, k: sum(float(r[k]) for r in g[s]) / len(g[s])
            n0 = mean("none", "nnz")
            best = min(g, key=lambda s: mean(s, "nnz"))
            W("**Fewest nonzeros on the %d-block power models: %s**, %.1f %% against the graph before "
              "elimination (the paper's rule: %.1f %%, markowitz-nnz: %.1f %%; the goal was -90 %%).\n\n" % (
                n, best, 100 * (mean(best, "nnz") / n0 - 1), 100 * (mean("markowitz", "nnz") / n0 - 1),
                100 * (mean("markowitz-nnz", "nnz") / n0 - 1)))
            break
W("The Pareto picture of one model (FMA against nonzeros after elimination): [strategies.svg](strategies.svg).\n")
PY
[ $? -eq 0 ] || rc=1
echo "wrote $csv, $out/strategies.md, $out/strategies.svg" >&2
exit $rc
