#!/usr/bin/env bash
# The test inventory (TAP): the tests `meson test` knows (tests/meson.build, read
# from the build's meson-info/intro-tests.json) are exactly the ones
# tests/run.sh runs -- every tests/test_*.c program and tests/*_test.sh script --
# each in a suite, with a timeout, the TAP protocol and the repository root as
# working directory.  The build directory comes from JG_BUILD (meson test and
# run.sh set it), else from JACGRAPH (BUILD/tools/jacgraph).
set -u
. "$(dirname "$0")/tap.sh"
b=${JG_BUILD:-$(dirname "$(dirname "$J")")}
info="$b/meson-info/intro-tests.json"
if [ ! -f "$info" ]; then
    skip "test inventory" "no $info (not a meson build directory)"
    tap_done
    exit
fi

# name TAB suites TAB timeout TAB protocol TAB workdir, one line per registered test
python3 - "$info" >"$d/meson.tsv" <<'EOF'
import json, sys
for t in json.load(open(sys.argv[1])):
    suites = ",".join(s.split(":", 1)[-1] for s in t.get("suite", []))
    print("\t".join([t["name"], suites, str(t.get("timeout", "")), str(t.get("protocol", "")),
                     str(t.get("workdir") or "")]))
EOF
ok $? "meson-info/intro-tests.json read"
cut -f1 "$d/meson.tsv" | sort >"$d/meson.txt"

# what the sources hold, and what run.sh runs (the same rules as run.sh)
{ for f in "$top"/tests/test_*.c; do basename "$f" .c; done
  for f in "$top"/tests/*_test.sh; do basename "$f"; done; } | sort >"$d/sources.txt"
{ find "$b/tests" -maxdepth 1 -type f -name 'test_*' -perm -u+x -printf '%f\n'
  for f in "$top"/tests/*_test.sh; do basename "$f"; done; } | sort >"$d/runsh.txt"

same_set() {   # same_set FILE-A FILE-B NAME: the two sorted lists are equal
    if diff -q "$1" "$2" >/dev/null; then
        ok 0 "$3"
    else
        ok 1 "$3"
        comm -23 "$1" "$2" | sed "s/^/#   only in $(basename "$1" .txt): /"
        comm -13 "$1" "$2" | sed "s/^/#   only in $(basename "$2" .txt): /"
        echo "#   (a new test file needs a row in tests/meson.build, then: meson setup --reconfigure $b)"
    fi
}
same_set "$d/sources.txt" "$d/meson.txt" "every tests/test_*.c and tests/*_test.sh is registered with meson test, and nothing else"
same_set "$d/runsh.txt" "$d/meson.txt" "tests/run.sh runs exactly the tests meson knows ($(wc -l <"$d/meson.txt") tests)"

bad=$(awk -F'\t' '$2 == "" || $3 == "" || $3 <= 0 {print $1}' "$d/meson.tsv")
[ -z "$bad" ]
ok $? "every test has a suite and a timeout${bad:+ (not: $(echo $bad))}"
bad=$(awk -F'\t' '$4 != "tap" {print $1}' "$d/meson.tsv")
[ -z "$bad" ]
ok $? "every test speaks TAP to meson${bad:+ (not: $(echo $bad))}"
bad=$(awk -F'\t' -v top="$top" '$5 != top {print $1}' "$d/meson.tsv")
[ -z "$bad" ]
ok $? "every test runs from the repository root${bad:+ (not: $(echo $bad))}"
tap_done
