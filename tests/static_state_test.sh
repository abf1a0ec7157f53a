#!/usr/bin/env bash
# No process-wide mutable state in the library (TAP): every object of this
# build's lib/libjacgraph.a is listed with `objdump -t`, and a symbol in a
# writable data section (.data, .bss, their TLS forms .tdata/.tbss, the
# relocated-but-writable .data.rel and .data.rel.local, common symbols) fails
# the test unless the allowlist below names it with its reason; what
# sanitizers and coverage add (__asan*, __odr_asan*, ...) is not the
# library's.  An optimizing build may fold a forgotten const away, so run it
# on the sanitizer build too (tests/run.sh build build-asan does).  Read-only
# data (.rodata, .data.rel.ro: const tables, even of pointers) is fine.  Two
# models, two threads, or a host program and the library must never meet in
# a static variable (docs/architecture.md).  The checker also runs on a small
# object with a planted static, which it must report.
set -u
. "$(dirname "$0")/tap.sh"
cd "$top"
build=${JG_BUILD:-$(dirname "$(dirname "$J")")}
lib=$build/lib/libjacgraph.a

# Allowed writable statics: "lib/MODULE/FILE.c SYMBOL  reason" (a function's
# static is SYMBOL without the compiler's .N suffix).  Keep it short.
allow='
lib/io/h5load.c h5lib  HDF5 and matio, loaded once per process on first use (dlopen, as the dynamic loader would at start): filled under pthread_once, read-only after
lib/io/dot.c gvc  Graphviz 2.42 pango plugin keeps a static pointer into the first GVC context (pango_textlayout): a second context reads freed memory, so one lazily made context serves the process; Graphviz is not thread-safe anyway
'

# An MPI build's (-Dmpi=enabled): a process is one MPI rank, initialised
# once, and the signal handlers that end a rank's run (a crash names the rank
# and its point, SIGINT/SIGTERM stop rank 0's wait) can reach only
# process-wide state.
allow_mpi='
lib/batch/batch_mpi.c g_active  MPI_Init ran in this process (one rank per process)
lib/batch/batch_mpi.c g_rank  this process'"'"'s rank, for the crash handler'"'"'s message
lib/batch/batch_mpi.c g_nranks  the ranks of this process'"'"'s MPI_COMM_WORLD
lib/batch/batch_mpi.c g_told  rank 0 has this rank'"'"'s failure (the crash handler does not repeat it)
lib/batch/batch_mpi.c g_next_point  the point the crash handler names
lib/batch/batch_mpi.c g_stop  set by the SIGINT/SIGTERM handler
lib/batch/batch_mpi.c g_old_int  the SIGINT handler the caller had, called too
lib/batch/batch_mpi.c g_old_term  the SIGTERM handler the caller had, called too
'
# writable_statics OBJECT...: "object symbol section" per writable data symbol
writable_statics() {
    local o
    for o in "$@"; do
        objdump -t "$o" | awk -F'\t' -v obj="$(basename "$o")" '
            NF < 2 { next }
            {
                n = split($1, f, " "); sec = f[n]; flags = substr($1, 18)
                m = split($2, g, " "); name = g[m]                          # after ".hidden"
                if (flags ~ / d / || flags ~ /^ *d/ || flags ~ /f/) next      # section and file symbols
                if (name ~ /^__(odr_asan|asan|ubsan|sancov|gcov|llvm_gcov)/) next   # instrumentation
                if (sec == "*COM*" ||
                    (sec ~ /^\.(data|bss|tdata|tbss)(\.|$)/ && sec !~ /^\.data\.rel\.ro/))
                    print obj, name, sec
            }'
    done
}

# ---- the checker on a planted violation
cat > "$d/planted.c" <<'EOF'
static int counter;                                   /* .bss: must be reported */
static const int limit = 3;                           /* .rodata */
const char *const names[] = {"a", "b"};               /* .data.rel.ro with -fPIC */
__attribute__((visibility("hidden"))) int shared_count;   /* .bss, shown after ".hidden" */
int step(void) { static double last; last += limit; return counter++ + (int)last + (names[0][0] == 'a'); }
EOF
cc -c -fPIC -O2 -o "$d/planted.o" "$d/planted.c" 2>"$d/cc.err"
found=$(writable_statics "$d/planted.o" | awk '{print $2}' | sed 's/\.[0-9]*$//' | sort | tr '\n' ' ')
[ "$found" = "counter last shared_count " ]
ok $? "the checker reports a planted static, a hidden global and a function's static, not const data (found: $found)"

# ---- the library
[ -f "$lib" ]
ok $? "the static library is built ($lib)"
if [ -f "$lib" ]; then
    mkdir "$d/ar"
    abs=$(realpath "$lib")
    (cd "$d/ar" && ar x "$abs")
    nobj=$(ls "$d/ar" | wc -l)
    writable_statics "$d/ar"/*.o > "$d/found"
    # the MPI entries apply to a build whose batch_mpi.c calls MPI
    if nm "$d/ar"/batch_batch_mpi.c.o 2>/dev/null | grep -q ' U MPI_Init'; then
        allow=$allow$allow_mpi
        echo "# an MPI build: batch_mpi.c's allowlist applies"
    fi
    bad=0
    while read -r obj sym sec; do
        src=lib/${obj%.o}; src=${src/_//}                   # io_dot.c.o -> lib/io/dot.c
        base=${sym%.[0-9]*}
        if printf '%s\n' "$allow" | grep -q "^$src $base "; then
            echo "# allowed: $src $base ($sec)"
        else
            echo "# $src: writable static '$sym' in $sec"
            bad=1
        fi
    done < "$d/found"
    [ "$nobj" -gt 50 ] && [ $bad -eq 0 ]
    ok $? "no writable static data in the $nobj objects of libjacgraph.a beyond the allowlist"
    # every allowlist entry still exists: a stale entry hides nothing but misleads
    stale=0
    while read -r src sym _; do
        [ -n "$src" ] || continue
        obj=${src#lib/}; obj=${obj/\//_}.o
        grep -q "^$obj $sym\(\.[0-9]*\)\? " "$d/found" || { echo "# stale allowlist entry: $src $sym"; stale=1; }
    done <<< "$allow"
    [ $stale -eq 0 ]
    ok $? "every allowlist entry names a static that exists"
fi

tap_done
