#!/usr/bin/env bash
# verify_mm_bits.sh: the Matrix Market files of `jacgraph linearize --format
# mm` compared byte for byte between two builds of jacgraph (before and after
# a change to the graph, the LFT or the writers), on the shipped models and
# generated models of several kinds and sizes, with each reduction.
#
#   benchmarks/verify_mm_bits.sh OLD_JACGRAPH NEW_JACGRAPH [--blocks "N..."]
#
# For every model and --reduce markowitz, none and full: PREFIX_A.mtx ..
# PREFIX_D.mtx and PREFIX_names.txt of both binaries must be the same bytes.
# A model both binaries refuse the same way (no states, the mm format's
# limits) is skipped.  Generated: aerospace, power and deep at each size
# (default "2000 100000").  Exit status 0 when everything agrees, 1 when a
# file differs, 2 usage.  Run from the repository root.
set -u
[ $# -ge 2 ] || { echo "usage: $0 OLD_JACGRAPH NEW_JACGRAPH [--blocks \"N...\"]" >&2; exit 2; }
old=$1 new=$2
sizes="2000 100000"
[ "${3:-}" = --blocks ] && sizes=${4:-$sizes}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
models=(graphs/*.json graphs/*.mdl)
for n in $sizes; do
    for kind in aerospace power deep; do
        "$new" generate "$kind" --blocks "$n" --seed 1 --out "$tmp/${kind}_$n.json" --quiet || exit 2
        models+=("$tmp/${kind}_$n.json")
    done
done
bad=0 n=0
for model in "${models[@]}"; do
    name=$(basename "$model")
    for red in markowitz none full; do
        "$old" linearize "$model" --reduce "$red" --format mm --out "$tmp/old" >/dev/null 2>"$tmp/old.err"
        ro=$?
        "$new" linearize "$model" --reduce "$red" --format mm --out "$tmp/new" >/dev/null 2>"$tmp/new.err"
        rn=$?
        if [ $ro -ne 0 ] || [ $rn -ne 0 ]; then
            if [ $ro -eq $rn ] && cmp -s "$tmp/old.err" "$tmp/new.err"; then
                echo "skip $name --reduce $red (both refuse it)"
            else
                echo "DIFF $name --reduce $red: exit $ro against $rn"
                bad=1
            fi
            continue
        fi
        for f in A.mtx B.mtx C.mtx D.mtx names.txt; do
            if ! cmp -s "$tmp/old_$f" "$tmp/new_$f"; then
                echo "DIFF $name --reduce $red: $f"
                bad=1
            fi
        done
        n=$((n + 1))
        rm -f "$tmp"/old_* "$tmp"/new_*
    done
done
echo "$n linearizations compared, $([ $bad = 0 ] && echo "all the same bytes" || echo "SOME DIFFER")"
exit $bad
