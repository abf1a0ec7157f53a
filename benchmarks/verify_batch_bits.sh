#!/usr/bin/env bash
# verify_batch_bits.sh: A, B, C, D of `jacgraph batch` compared byte for byte
# between two builds of jacgraph (before and after a change to the per-point
# path), on the shipped models and a generated aerospace model, each at
# several operating points (every state moved by a different amount).
#
#   benchmarks/verify_batch_bits.sh OLD_JACGRAPH NEW_JACGRAPH [--blocks N]
#
# For every model: the points file (the default point, then points that
# move all states and set t), then `batch --jobs 1` and `batch --jobs 2` of
# each binary into JSON Lines (numbers written %.17g: their bits); the four
# outputs must be the same bytes.  Also `linearize --op` at one point.
# Models the old binary cannot linearize (no states, a failure) are skipped
# when both fail the same way.  Exit status 0 when every model agrees, 1 when
# one differs, 2 usage.  Run from the repository root.
set -u
[ $# -ge 2 ] || { echo "usage: $0 OLD_JACGRAPH NEW_JACGRAPH [--blocks N]" >&2; exit 2; }
old=$1 new=$2
blocks=10000 gen_seed=1   # the model of bench_batch
[ "${3:-}" = --blocks ] && blocks=${4:-10000}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
"$new" generate aerospace --blocks "$blocks" --seed "$gen_seed" --out "$tmp/aero.json" --quiet || exit 2
bad=0 n=0
for model in graphs/*.json graphs/*.mdl "$tmp/aero.json"; do
    name=$(basename "$model")
    # the state names, from a plain linearization
    if ! "$old" linearize "$model" --format json >"$tmp/lin.json" 2>/dev/null; then
        echo "skip $name (does not linearize)"
        continue
    fi
    python3 - "$tmp/lin.json" "$tmp/points.json" "$tmp/op.json" <<'EOF' || { echo "skip $name (points)"; continue; }
import json, sys
lin = json.load(open(sys.argv[1]))
names = lin["states"]
pts = [{}]
for k in range(1, 6):
    st = {n: 0.01 * k * (1 + (j % 7)) * (-1) ** j for j, n in enumerate(names)}
    pts.append({"t": 0.1 * k, "states": st})
json.dump({"points": pts}, open(sys.argv[2], "w"))
json.dump(pts[3], open(sys.argv[3], "w"))
EOF
    status=ok
    for jobs in 1 2; do
        "$old" batch "$model" --points "$tmp/points.json" --jobs $jobs --no-progress --out "$tmp/old.jsonl" 2>"$tmp/old.err"
        so=$?
        "$new" batch "$model" --points "$tmp/points.json" --jobs $jobs --no-progress --out "$tmp/new.jsonl" 2>"$tmp/new.err"
        sn=$?
        if [ $so -ne $sn ] || { [ $so -le 6 ] && ! cmp -s "$tmp/old.jsonl" "$tmp/new.jsonl"; }; then
            status="DIFFERS (batch --jobs $jobs: exit $so / $sn)"
        fi
    done
    "$old" linearize "$model" --op "$tmp/op.json" --format json >"$tmp/old.lin" 2>/dev/null
    so=$?
    "$new" linearize "$model" --op "$tmp/op.json" --format json >"$tmp/new.lin" 2>/dev/null
    sn=$?
    if [ $so -ne $sn ] || ! cmp -s "$tmp/old.lin" "$tmp/new.lin"; then status="DIFFERS (linearize --op)"; fi
    n=$((n + 1))
    echo "$status $name"
    [ "$status" = ok ] || bad=1
done
echo "$n models compared; $([ $bad = 0 ] && echo 'all bit for bit identical' || echo 'DIFFERENCES')"
exit $bad
