#!/usr/bin/env bash
# Corpus test (TAP): every model in graphs/ against its row in graphs/expected.tsv.
# For each row: the block/state/input/output counts (first line of `jacgraph info`),
# the Jacobian graph sizes before and after Markowitz elimination (`jacgraph graph
# MODEL --reduced` prints "V:a E:b -> V:c E:d (markowitz)") and the verdict of
# `jacgraph check`. Every graphs/*.json must have a row, so a new model has to be
# recorded (the command that regenerates the file is in graphs/README.md).
set -u
. "$(dirname "$0")/tap.sh"
tsv=$top/graphs/expected.tsv

# same GOT EXPECTED NAME: ok when equal, otherwise print both
same() {
    if [ "$1" = "$2" ]; then
        ok 0 "$3"
    else
        ok 1 "$3"
        echo "#   got:      $1"
        echo "#   expected: $2"
    fi
}

cd "$top"

header=$(printf 'model\tblocks\tstates\tinputs\toutputs\tv_before\te_before\tv_after\te_after\tcheck')
if [ ! -f "$tsv" ]; then
    ok 1 "graphs/expected.tsv exists"
    echo "1..$n"
    exit 1
fi
same "$(head -1 "$tsv")" "$header" "graphs/expected.tsv has the expected header"

declare -A seen=()
while IFS=$'\t' read -r model blocks states inputs outputs vb eb va ea chk rest; do
    [ -z "$model" ] && continue
    m=graphs/$model.json
    if [ -n "${seen[$model]+x}" ]; then
        ok 1 "$model: one row only"
        continue
    fi
    seen[$model]=1
    if [ -n "$rest" ] || [ -z "$chk" ]; then
        ok 1 "$model: row has 10 tab-separated columns"
        continue
    fi
    if [ ! -f "$m" ]; then
        ok 1 "$model: $m exists"
        continue
    fi

    # "model NAME: N blocks (M non-virtual), S states, I inputs, O outputs, L algebraic loops"
    line=$("$J" info "$m" 2>/dev/null | head -1)
    got=$(sed -nE 's/^model .*: ([0-9]+) blocks \([0-9]+ non-virtual\), ([0-9]+) states?, ([0-9]+) inputs?, ([0-9]+) outputs?,.*/\1 \2 \3 \4/p' <<<"$line")
    same "${got:-$line}" "$blocks $states $inputs $outputs" "$model: blocks states inputs outputs"

    line=$("$J" graph "$m" --reduced 2>/dev/null)
    got=$(sed -nE 's/^V:([0-9]+) E:([0-9]+) -> V:([0-9]+) E:([0-9]+) \(markowitz\)$/\1 \2 \3 \4/p' <<<"$line")
    same "${got:-$line}" "$vb $eb $va $ea" "$model: graph V:$vb E:$eb -> V:$va E:$ea"

    out=$("$J" check "$m" 2>&1)
    rc=$?
    verdict=$(tail -1 <<<"$out")
    if [ "$verdict" = "$chk" ] && { [ "$chk" != PASS ] || [ $rc -eq 0 ]; }; then
        ok 0 "$model: check $chk"
    else
        ok 1 "$model: check $chk"
        echo "#   exit $rc"
        sed 's/^/#   /' <<<"$out"
    fi
done < <(tail -n +2 "$tsv")

# every model in graphs/ is recorded
for m in graphs/*.json; do
    model=$(basename "$m" .json)
    [ -n "${seen[$model]+x}" ]
    ok $? "$model.json has a row in graphs/expected.tsv"
done

tap_done
