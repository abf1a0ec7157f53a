#!/usr/bin/env bash
# One-command set-up for a fresh Debian machine: install what is missing,
# build, then either run jacgraph or run the whole test suite.
#
#   tools/quickstart.sh run ARGS...   build, then: jacgraph ARGS...
#   tools/quickstart.sh test          build (plain, ASan+UBSan, MPI and, with clang,
#                                     the libFuzzer targets), run all tests;
#                                     the last line is "N passed, N failed"
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

packages="build-essential meson ninja-build pkg-config libsuitesparse-dev libigraph-dev
          libopenblas-dev liblapacke-dev libgraphviz-dev libjansson-dev libsundials-dev python3
          libzip-dev libxml2-dev libmatio-dev libhdf5-dev python3-numpy python3-scipy python3-h5py
          libopenmpi-dev openmpi-bin clang libclang-rt-dev"

install_missing() {
    local missing=""
    for p in $packages; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
    done
    [ -z "$missing" ] && return 0
    echo "quickstart: installing$missing" >&2
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >&2
}

build() {   # build DIR [meson options...]
    local dir=$1
    shift
    if [ ! -f "$dir/build.ninja" ]; then
        meson setup "$dir" "$@" >&2
    fi
    ninja -C "$dir" >&2
}

build_fuzz() {   # the libFuzzer targets of tests/fuzz (clang), smoke-run by tests/fuzz_smoke_test.sh
    if ! command -v clang >/dev/null 2>&1; then
        echo "quickstart: no clang: the fuzz smoke run is skipped" >&2
        return 0
    fi
    if [ ! -f build-fuzz/build.ninja ]; then
        CC=clang meson setup build-fuzz -Dfuzz=enabled -Db_sanitize=address,undefined -Db_lundef=false >&2
    fi
    ninja -C build-fuzz fuzz >&2
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
run)
    install_missing
    build build
    exec build/tools/jacgraph "$@"
    ;;
test)
    install_missing
    build build
    build build-asan -Db_sanitize=address,undefined -Db_lundef=false
    build_fuzz
    # `mpirun -np 2 jacgraph batch` (tests/batch_mpi_test.sh): the binary only
    [ -f build-mpi/build.ninja ] || meson setup build-mpi -Dmpi=enabled >&2
    ninja -C build-mpi tools/jacgraph >&2
    export JG_FUZZ_BUILD=$top/build-fuzz
    export JG_MPI_BUILD=$top/build-mpi
    export OPENBLAS_NUM_THREADS=1
    export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    export ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0
    export LSAN_OPTIONS=suppressions=$top/tests/lsan.supp
    exec tests/run.sh "$top/build" "$top/build-asan"
    ;;
*)
    echo "usage: tools/quickstart.sh run ARGS... | tools/quickstart.sh test" >&2
    exit 2
    ;;
esac
