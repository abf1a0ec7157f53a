#!/usr/bin/env bash
# CLI side of user-defined blocks (TAP): the global --plugin option (before or
# after the command, repeatable, for every subcommand), a model's "plugins"
# list found through JACGRAPH_PLUGIN_PATH (tap.sh points it at the build's
# examples/), the exact loader errors with their exit codes, and the
# predator-prey models of graphs/ (Simulink, "mdlProjection"): the residual
# column drifts without projection and stays at round-off with it.
set -u
. "$(dirname "$0")/tap.sh"
cd "$top"
so=$(dirname "$(dirname "$J")")/examples/predprey.so
inline='{"name":"inl","blocks":[{"name":"PP","type":"PredPrey"},{"name":"Out1","type":"Outport","Port":1}],"lines":[{"src":"PP:1","dst":"Out1:1"}]}'
printf '%s\n' "$inline" > "$d/inl.json"

# --plugin anywhere, for every subcommand that reads a model
for cmd in info check linearize graph; do
    "$J" --plugin "$so" $cmd "$d/inl.json" >/dev/null 2>&1
    ok $? "--plugin before '$cmd'"
done
"$J" simulate "$d/inl.json" --stop 1 --plugin="$so" >/dev/null 2>&1
ok $? "--plugin=FILE after the command"
"$J" --plugin "$so" simulate "$d/inl.json" --stop 1 --plugin "$so" >/dev/null 2>&1
ok $? "--plugin twice with the same file"

# without the plugin the type is unknown; the model's own list needs the path
first=$("$J" info "$d/inl.json" 2>&1 >/dev/null | cut -d';' -f1)
[ "$first" = "jacgraph: error: block 'PP': unknown block type 'PredPrey'" ]
ok $? "no plugin: unknown block type"
"$J" info "$d/inl.json" >/dev/null 2>&1
[ $? -eq 4 ]
ok $? "no plugin: exit 4"
expect_err "a model's plugin not on JACGRAPH_PLUGIN_PATH" 4 \
    "jacgraph: error: model 'predprey' needs plugin 'predprey': no predprey.so in JACGRAPH_PLUGIN_PATH (/nonexistent); load it with --plugin FILE.so" \
    env JACGRAPH_PLUGIN_PATH=/nonexistent "$J" info graphs/predprey.json
expect_err "a missing plugin file: exit 3" 3 \
    "jacgraph: error: plugin '$d/none.so': cannot load: $d/none.so: cannot open shared object file: No such file or directory" \
    "$J" --plugin "$d/none.so" info graphs/vdp.json
expect_err "--plugin without a value" 2 \
    "jacgraph: option --plugin needs a value
see 'jacgraph --help'" \
    "$J" info graphs/vdp.json --plugin
printf 'not a library\n' > "$d/junk.so"
"$J" --plugin "$d/junk.so" info graphs/vdp.json >/dev/null 2>"$d/err"
rc=$?
[ $rc -eq 3 ] && grep -q "^jacgraph: error: plugin '$d/junk.so': cannot load: " "$d/err"
ok $? "a file that is not a shared library: exit 3, named"

# graphs/predprey*.json: residual (column 'Residual') without / with projection
"$J" simulate graphs/predprey.json --stop 30 > "$d/off.csv" 2>/dev/null
ok $? "simulate graphs/predprey.json"
"$J" simulate graphs/predprey_projected.json --stop 30 > "$d/on.csv" 2>/dev/null
ok $? "simulate graphs/predprey_projected.json"
maxres() {   # max |Residual| after t0
    awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "Residual") c = i; next}
             NR > 2 {r = $c < 0 ? -$c : $c; if (r > m) m = r} END {printf "%.3g\n", m}' "$1"
}
off=$(maxres "$d/off.csv")
on=$(maxres "$d/on.csv")
echo "# max |R| for t in (0, 30]: $off without projection, $on with"
awk -v r="$off" 'BEGIN {exit !(r > 1e-4)}'
ok $? "without projection the invariant residual drifts (max |R| = $off > 1e-4)"
awk -v r="$on" 'BEGIN {exit !(r < 1e-10)}'
ok $? "with projection it stays at round-off (max |R| = $on < 1e-10)"

tap_done
