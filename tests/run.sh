#!/usr/bin/env bash
# Run the whole test suite in each given build directory and print the TAP
# totals as one closing line "N passed, N failed".  The same tests are
# registered with `meson test` (tests/meson.build, suites per module);
# tests/suite_test.sh fails when the two sets differ.
# usage: tests/run.sh BUILD_DIR [BUILD_DIR...]
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
# Graphviz and fontconfig leak by design; the sanitizer build must not count it
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$top/tests/lsan.supp}
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
passed=0
failed=0
for bdir in "$@"; do
    label=$(basename "$bdir")
    bdir=$(cd "$bdir" && pwd) || { failed=$((failed + 1)); continue; }
    # every test program and script, in a fixed order
    tests=()
    while IFS= read -r t; do tests+=("$t"); done < <(find "$bdir/tests" -maxdepth 1 -type f -name 'test_*' -perm -u+x | sort)
    for sh in "$top"/tests/*_test.sh; do tests+=("$sh"); done
    for t in "${tests[@]}"; do
        name=$(basename "$t")
        run=("$t")
        case "$t" in *.sh) run=(bash "$t") ;; esac   # scripts need no execute bit
        out=$(cd "$top" && JACGRAPH="$bdir/tools/jacgraph" JG_BUILD="$bdir" timeout 600 "${run[@]}" 2>&1)
        rc=$?
        p=$(grep -c '^ok ' <<<"$out")
        f=$(grep -c '^not ok ' <<<"$out")
        if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then f=1; fi   # a test that ran nothing fails
        if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi   # a crash after the last check fails
        passed=$((passed + p))
        failed=$((failed + f))
        printf '%-10s %-28s %4d passed %4d failed\n' "$label" "$name" "$p" "$f"
        if [ "$f" -ne 0 ]; then
            grep -E '^(not ok|#)' <<<"$out" | head -40 | sed 's/^/    /'
            [ $rc -ne 0 ] && tail -20 <<<"$out" | sed 's/^/    | /'
        fi
    done
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
