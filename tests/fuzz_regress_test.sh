#!/usr/bin/env bash
# Fuzz regressions (TAP): every fuzz target's replay program (tests/fuzz, built
# in every build) runs its seed corpus tests/fuzz/corpus/TARGET/ and the
# inputs that once crashed it, tests/fuzz/regress/TARGET/, without crashing;
# in the ASan+UBSan build a sanitizer report fails it too.  The libFuzzer
# runs themselves are fuzz_smoke_test.sh; tests/fuzz/README.md.
set -u
. "$(dirname "$0")/tap.sh"
cd "$top"
b=${JG_BUILD:-$(dirname "$(dirname "$J")")}
for t in model opfile mdl slx xml expr; do
    exe=$b/tests/fuzz/fuzz_${t}_replay
    if [ ! -x "$exe" ]; then
        ok 1 "$t: replay program built ($exe)"
        continue
    fi
    dirs=(tests/fuzz/corpus/$t)
    [ -d tests/fuzz/regress/$t ] && dirs+=(tests/fuzz/regress/$t)
    out=$("$exe" "${dirs[@]}" 2>&1 </dev/null)
    rc=$?
    count=$(sed -n 's/^# replayed \([0-9]*\) input.*/\1/p' <<<"$out")
    [ $rc -eq 0 ] && [ "${count:-0}" -gt 0 ]
    ok $? "$t: ${count:-0} inputs of ${dirs[*]} replay without a crash or sanitizer report"
    if [ $rc -ne 0 ]; then
        echo "#   exit $rc; the input last started:"
        grep '^# ' <<<"$out" | grep -v '^# replayed' | tail -1 | sed 's/^/#   /'
        grep -v '^# ' <<<"$out" | tail -15 | sed 's/^/#   | /'
    fi
done
tap_done
