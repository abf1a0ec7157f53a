#!/usr/bin/env bash
# The include rule of docs/architecture.md (TAP): every `#include "..."` of
# lib/<module>/*.c and *.h names a header of its own module, a public header
# (lib/include/jacgraph/*.h), or the internal interface of an EARLIER module
# (the list below), so the module arrows point one way:
#   core -> expr -> model -> import -> compile -> blocks -> eval -> graph -> lft
#        -> linearize -> analysis -> sim -> batch -> io        (gen uses core only)
# An internal interface itself includes only public headers and internal
# interfaces.  Includes are resolved as the compiler does: the including
# file's directory first, then lib/meson.build's include_directories of `inc`.
# The checker is also run on a small tree with a planted violation, which it
# must report.
set -u
. "$(dirname "$0")/tap.sh"
cd "$top"

# module -> rank; a module may use the interfaces of modules of lower rank.
# gen sits right after core, so it may use core only and nothing uses gen's
# private headers.
declare -A rank=([core]=0 [gen]=1 [expr]=2 [model]=3 [import]=4 [compile]=5 [blocks]=6
                 [eval]=7 [graph]=8 [lft]=9 [linearize]=10 [analysis]=11 [sim]=12 [batch]=13 [io]=14)
# the internal interfaces written for later modules (docs/architecture.md)
interfaces="core/arena.h core/dense.h core/jsonstr.h core/str.h core/patdict.h model/model_internal.h compile/program_impl.h
compile/block_impl.h compile/goto.h eval/eval_internal.h graph/graph_internal.h
lft/lft_internal.h linearize/lin_internal.h"
is_interface() { case " $(echo $interfaces) " in *" $1 "*) return 0 ;; esac; return 1; }

# the include path of the library (lib/meson.build: inc = include_directories(...))
incdirs=$(sed -n "s/^inc = include_directories(\([^)]*\)).*/\1/p" lib/meson.build | tr -d "' " | tr , ' ')
[ -n "$incdirs" ]
ok $? "include_directories of lib/meson.build read ($incdirs)"

# check_tree LIBDIR: prints one line per violation "file: #include "x" (why)";
# exit status 1 when there is any.
check_tree() {
    local lib=$1 bad=0 f mod dir inc tgt tmod
    for f in "$lib"/*/*.c "$lib"/*/*.h; do
        [ -f "$f" ] || continue
        mod=${f#"$lib"/}; mod=${mod%%/*}
        [ "$mod" = include ] && continue
        if [ -z "${rank[$mod]+x}" ]; then
            echo "${f#"$lib"/}: module $mod is not in the module order"; bad=1; continue
        fi
        dir=$(dirname "$f")
        while IFS= read -r inc; do
            tgt=""
            if [ -f "$dir/$inc" ]; then
                tgt=$(realpath -m --relative-to="$lib" "$dir/$inc")
            else
                for i in $incdirs; do
                    if [ -f "$lib/$i/$inc" ]; then
                        tgt=$(realpath -m --relative-to="$lib" "$lib/$i/$inc"); break
                    fi
                done
            fi
            if [ -z "$tgt" ]; then
                echo "${f#"$lib"/}: #include \"$inc\" (not found in lib/)"; bad=1; continue
            fi
            tmod=${tgt%%/*}
            if [ "$tmod" = include ]; then continue; fi             # public header
            if is_interface "${f#"$lib"/}" && ! is_interface "$tgt"; then
                echo "${f#"$lib"/}: #include \"$inc\" ($tgt: an interface includes only public headers and interfaces)"
                bad=1; continue
            fi
            [ "$tmod" = "$mod" ] && continue                         # own module
            if [ -z "${rank[$tmod]+x}" ] || [ "${rank[$tmod]}" -ge "${rank[$mod]}" ]; then
                echo "${f#"$lib"/}: #include \"$inc\" ($tgt: $tmod is not earlier than $mod)"; bad=1
            elif ! is_interface "$tgt"; then
                echo "${f#"$lib"/}: #include \"$inc\" ($tgt: private to $tmod, not an internal interface)"; bad=1
            fi
        done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
    done
    return $bad
}

# the listed interfaces exist (the list does not go stale)
missing=""
for h in $interfaces; do [ -f "lib/$h" ] || missing="$missing $h"; done
[ -z "$missing" ]
ok $? "the internal interfaces exist${missing:+ (missing:$missing)}"

out=$(check_tree "$top/lib")
ok $? "lib/: every #include follows the module order"
[ -n "$out" ] && sed 's/^/#   /' <<<"$out"

# the checker itself: a compile file reaching into eval's private header, a
# blocks file into sim, and an interface including a private header, all
# reported; a clean tree is not
mkdir -p "$d/lib/compile" "$d/lib/eval" "$d/lib/blocks" "$d/lib/sim" "$d/lib/include/jacgraph"
touch "$d/lib/eval/eval_impl.h" "$d/lib/eval/eval_internal.h" "$d/lib/sim/solver_impl.h" \
      "$d/lib/include/jacgraph/eval.h"
printf '#include "jacgraph/eval.h"\n#include "block_impl.h"\n' >"$d/lib/compile/program_impl.h"
printf '#include "block_impl.h"\n' >"$d/lib/compile/goto.h"
printf '#include "jacgraph/eval.h"\n' >"$d/lib/compile/block_impl.h"
printf '#include "program_impl.h"\n' >"$d/lib/blocks/gain.c"
printf '#include "../compile/program_impl.h"\n#include "../eval/eval_internal.h"\n' >"$d/lib/sim/simulate.c"
check_tree "$d/lib" >/dev/null
ok $? "the checker passes a clean tree"
printf '#include "program_impl.h"\n#include "../eval/eval_impl.h"\n' >"$d/lib/compile/compile.c"
printf '#include "../sim/solver_impl.h"\n' >"$d/lib/blocks/sum.c"
printf '#include "../eval/eval_impl.h"\n' >"$d/lib/sim/plot.c"
printf '#include "sim_private.h"\n' >"$d/lib/sim/x.c"
printf '#include "jacgraph/eval.h"\n#include "compile_impl.h"\n' >"$d/lib/compile/block_impl.h"
touch "$d/lib/compile/compile_impl.h"
got=$(check_tree "$d/lib")
rc=$?
want="blocks/sum.c: #include \"../sim/solver_impl.h\" (sim/solver_impl.h: sim is not earlier than blocks)
compile/block_impl.h: #include \"compile_impl.h\" (compile/compile_impl.h: an interface includes only public headers and interfaces)
compile/compile.c: #include \"../eval/eval_impl.h\" (eval/eval_impl.h: eval is not earlier than compile)
sim/plot.c: #include \"../eval/eval_impl.h\" (eval/eval_impl.h: private to eval, not an internal interface)
sim/x.c: #include \"sim_private.h\" (not found in lib/)"
[ $rc -ne 0 ] && [ "$(sort <<<"$got")" = "$want" ]
ok $? "the checker reports planted violations"
[ "$(sort <<<"$got")" = "$want" ] || { echo "#   got:"; sed 's/^/#     /' <<<"$got"; }

tap_done
