#!/usr/bin/env bash
# The installed library (TAP): `meson install` of this build into a temporary
# root gives libjacgraph.so and .a, the public headers under include/jacgraph/
# and jacgraph.pc; examples/linearize.c compiled with nothing but
# `pkg-config --cflags --libs jacgraph` (shared) and `--static` prints the same
# A, B, C, D as `jacgraph linearize --format json`; the shared library exports
# exactly the JG_API functions of the installed headers.
set -u
. "$(dirname "$0")/tap.sh"
cd "$top"
build=${JG_BUILD:-$(dirname "$(dirname "$J")")}
root=$d/root

meson install -C "$build" --destdir "$root" --no-rebuild --quiet >"$d/install.log" 2>&1
rc=$?
ok $rc "meson install --destdir into a temporary root"
[ $rc -eq 0 ] || sed 's/^/#   /' "$d/install.log" | tail -5
pc=$(find "$root" -name jacgraph.pc | head -1)
libdir=$(dirname "$(dirname "$pc")")
inc=$(find "$root" -type d -path '*/include/jacgraph' | head -1)
[ -n "$pc" ] && [ -f "$inc/jacgraph.h" ] && [ -f "$inc/export.h" ] && [ -f "$libdir/libjacgraph.a" ] &&
    [ -e "$libdir/libjacgraph.so" ]
ok $? "installed: jacgraph.pc, include/jacgraph/*.h, libjacgraph.so and libjacgraph.a"

# pkg-config over the relocated prefix: a copy of the .pc naming the temporary
# root (--define-variable would relocate every other package's paths as well)
mkdir -p "$d/pc"
sed "s|^prefix=.*|prefix=${pc%/lib/*}|" "$pc" >"$d/pc/jacgraph.pc"
pkgc() { PKG_CONFIG_PATH=$d/pc pkg-config "$@" jacgraph; }
cflags=$(pkgc --cflags)
case "$cflags" in *suitesparse*) false ;; *) true ;; esac
ok $? "pkg-config --cflags needs no SuiteSparse include path ($cflags)"

# the sanitizer build's library needs the sanitizer runtime in the program too
san=""
nm -D "$libdir/libjacgraph.so" | grep -q ' U __asan_init' && san="-fsanitize=address,undefined"
# shellcheck disable=SC2086
cc -std=c11 -Wall -Werror $san examples/linearize.c $cflags $(pkgc --libs) -o "$d/lin" 2>"$d/cc.log"
ok $? "examples/linearize.c builds with \$(pkg-config --cflags --libs jacgraph)"
[ -s "$d/cc.log" ] && sed 's/^/#   /' "$d/cc.log" | head -5
# libjacgraph.a with its dependencies' shared libraries: the Requires.private
# packages and Libs.private (`pkg-config --static` would add igraph's own
# private libraries, glpk, arpack and plfit, whose -dev packages Debian's
# libigraph-dev does not pull in)
reqs=$(pkgc --print-requires-private | awk '{print $1}')
# shellcheck disable=SC2086
static_libs="$libdir/libjacgraph.a $(pkg-config --libs $reqs) $(sed -n 's/^Libs.private: //p' "$pc")"
# shellcheck disable=SC2086
cc -std=c11 -Wall -Werror $san examples/linearize.c $cflags $static_libs -o "$d/lin_static" 2>"$d/cc.log"
ok $? "examples/linearize.c links libjacgraph.a with jacgraph.pc's private dependencies"
[ -s "$d/cc.log" ] && sed 's/^/#   /' "$d/cc.log" | head -5

# expected: the CLI's JSON as the example prints it (17 significant digits; the
# example's first line, the sizes, is left out)
expect() {
    python3 - "$1" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
names = {"A": ("states", "states"), "B": ("states", "inputs"),
         "C": ("outputs", "states"), "D": ("outputs", "inputs")}
for m in "ABCD":
    r, c = names[m]
    for i, j, x in zip(s[m]["i"], s[m]["j"], s[m]["x"]):
        print("%s(%s, %s) = %.17g" % (m, s[r][i], s[c][j], x))
EOF
}
for model in graphs/vdp.json graphs/msd.mdl graphs/mimo_feedback.json; do
    stem=$(basename "${model%.*}")
    "$J" linearize "$model" --format json >"$d/$stem.json" 2>/dev/null
    want=$(expect "$d/$stem.json")
    for prog in lin lin_static; do
        got=$(LD_LIBRARY_PATH=$libdir "$d/$prog" "$model" 2>&1 | tail -n +2)
        [ -n "$want" ] && [ "$got" = "$want" ]
        ok $? "$prog $model: A, B, C, D equal jacgraph linearize --format json"
        [ "$got" = "$want" ] || diff <(echo "$want") <(echo "$got") | head -6 | sed 's/^/#   /'
    done
done

LD_LIBRARY_PATH=$libdir "$d/lin" "$d/missing.json" >/dev/null 2>"$d/err"
rc=$?
[ $rc -eq 3 ] && grep -q '^error (IO): .*missing.json' "$d/err"
ok $? "a missing model: exit 3 and the library's message"

# Python finds the installed library through pkg-config (no JACGRAPH_LIB)
py=""
for c in python3 /usr/bin/python3; do
    command -v "$c" >/dev/null && "$c" -c 'import numpy, scipy.sparse' 2>/dev/null && py=$c && break
done
if [ -z "$py" ]; then
    skip "python: the installed library through pkg-config" "no python3 with NumPy and SciPy"
elif [ -n "$san" ]; then
    skip "python: the installed library through pkg-config" "sanitizer build (tests/python_test.sh)"
elif [ -n "$("$py" -c 'import ctypes.util; print(ctypes.util.find_library("jacgraph") or "")')" ]; then
    skip "python: the installed library through pkg-config" "a libjacgraph is installed system-wide"
else
    env -u JACGRAPH_LIB PKG_CONFIG_PATH="$d/pc" PYTHONPATH="$top/python" PYTHONDONTWRITEBYTECODE=1 "$py" -c '
import sys, jacgraph
assert jacgraph.library_path().startswith(sys.argv[1]), jacgraph.library_path()
lin = jacgraph.linearize("graphs/vdp.json")
assert lin.A.toarray().tolist() == [[0, 1], [-1, -3]], lin.A.toarray()' "$root" 2>"$d/py.log"
    ok $? "python: jacgraph.linearize on the installed library, found through pkg-config"
    sed 's/^/#   /' "$d/py.log" | tail -3
fi

# exports: the JG_API functions of the installed headers, nothing else
nm -D --defined-only "$libdir/libjacgraph.so" | awk '$2 ~ /[TWDBR]/ {print $3}' | sort >"$d/exported"
grep -ho '^JG_API [^(]*(' "$inc"/*.h | sed 's/($//; s/.*[ *]//' | sort >"$d/declared"
[ -s "$d/declared" ] && cmp -s "$d/exported" "$d/declared"
ok $? "libjacgraph.so exports exactly the $(wc -l <"$d/declared") JG_API functions ($(wc -l <"$d/exported") exported)"
cmp -s "$d/exported" "$d/declared" || diff "$d/declared" "$d/exported" | head -5 | sed 's/^/#   /'
# a public function declared without JG_API would be missing from the .so
grep -nE '^(const |unsigned |struct )*[a-z_0-9]+[ *]+(jg|jacgraph)_[a-z0-9_]+\(' "$inc"/*.h >"$d/unmarked"
[ ! -s "$d/unmarked" ]
ok $? "every function declared in the public headers is marked JG_API"
sed 's|.*/include/|#   |' "$d/unmarked" | head -5
tap_done
