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

# expect_err NAME EXIT "exact stderr" CMD...: CMD exits EXIT saying exactly that
expect_err() { expect_ exact "$@"; }
# expect_fail NAME EXIT "fragment of stderr" CMD...: as expect_err, but stderr
# need only hold the fragment
expect_fail() { expect_ fragment "$@"; }

expect_() {   # expect_ exact|fragment NAME EXIT MESSAGE CMD...
    local how=$1 name=$2 code=$3 msg=$4
    shift 4
    local err rc said=1
    err=$("$@" 2>&1 >/dev/null)
    rc=$?
    if [ "$how" = exact ]; then [ "$err" = "$msg" ]; else grep -qF -- "$msg" <<<"$err"; fi
    said=$?
    if [ "$rc" -eq "$code" ] && [ "$said" -eq 0 ]; then
        ok 0 "$name"
    else
        ok 1 "$name"
        echo "#   exit $rc (expected $code)"
        echo "#   got: $err" | head -8
        echo "#   expected ($how): $msg"
    fi
}

# tap_done: the plan line, and the exit status of the whole script
tap_done() {
    echo "1..$n"
    [ "$fails" -eq 0 ]
}
