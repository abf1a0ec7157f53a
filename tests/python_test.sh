#!/usr/bin/env bash
# The Python binding (TAP): python/tests/test_jacgraph.py checks that
# jacgraph.linearize / simulate / jacobian equal the CLI's results and that
# failures raise jacgraph.Error, on this build's shared library (no install).
# Needs a python3 with NumPy and SciPy (Debian python3-numpy python3-scipy);
# without one the test is skipped.  A sanitizer build's library needs the
# sanitizer runtimes preloaded into the (uninstrumented) interpreter; leak
# checking is off there, as CPython keeps memory until exit by design.
set -u
. "$(dirname "$0")/tap.sh"
cd "$top"
build=${JG_BUILD:-$(dirname "$(dirname "$J")")}
export JACGRAPH_LIB=$build/lib/libjacgraph.so JACGRAPH=$J
export PYTHONDONTWRITEBYTECODE=1   # no __pycache__ in the source tree

py=""
for c in python3 /usr/bin/python3; do
    if command -v "$c" >/dev/null && "$c" -c 'import numpy, scipy.sparse' 2>/dev/null; then
        py=$c
        break
    fi
done
if [ -z "$py" ]; then
    echo "skipped: no python3 with NumPy and SciPy (apt-get install python3-numpy python3-scipy)"
    skip "the Python binding" "no python3 with NumPy and SciPy"
    tap_done
    exit
fi
if nm -D "$JACGRAPH_LIB" | grep -q ' U __asan_init'; then
    export LD_PRELOAD="$(cc -print-file-name=libasan.so) $(cc -print-file-name=libubsan.so)"
    export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
fi
"$py" python/tests/test_jacgraph.py
