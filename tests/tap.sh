# tap.sh -- shared by the shell tests (sourced, not run): the TAP counters, the
# jacgraph binary under test, a scratch directory removed on exit, and checks.
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
J=${JACGRAPH:-$top/build/tools/jacgraph}
# models that name a plugin ("plugins": ["predprey"]) find the build's examples
export JACGRAPH_PLUGIN_PATH="$(dirname "$(dirname "$J")")/examples${JACGRAPH_PLUGIN_PATH:+:$JACGRAPH_PLUGIN_PATH}"
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
n=0
fails=0

ok() {   # ok COND-EXIT-STATUS NAME
    n=$((n + 1))
    if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fails=$((fails + 1)); fi
}

skip() {   # skip NAME REASON
    n=$((n + 1))
    echo "ok $n - $1 # SKIP $2"
}

# expect_err NAME EXIT "exact stderr" CMD...
expect_err() {
    local name=$1 code=$2 msg=$3
    shift 3
    local err rc
    err=$("$@" 2>&1 >/dev/null)
    rc=$?
    if [ "$rc" -eq "$code" ] && [ "$err" = "$msg" ]; then
        ok 0 "$name"
    else
        ok 1 "$name"
        echo "#   exit $rc (expected $code)"
        echo "#   got:      $err" | head -5
        echo "#   expected: $msg"
    fi
}

# tap_done: the plan line, and the exit status of the whole script
tap_done() {
    echo "1..$n"
    [ "$fails" -eq 0 ]
}
