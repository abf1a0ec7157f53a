#!/usr/bin/env bash
# octave_peer.sh -- the same linearization computed by Octave's control package.
#
#   benchmarks/octave_peer.sh [BUILD_DIR] [MODEL.json...]     (default: build, graphs/*.json)
#
# For each model, build/benchmarks/export_octave writes an Octave script: every
# block's linear model as ss(...) with named signals, closed with connect; the
# script compares A, B, C, D with jacgraph's (embedded) and times Octave.
# Models with nonlinear blocks are skipped (the exporter exits 3).  Prints a
# markdown table; exit 1 when Octave disagrees.  Needs `octave-cli` with the
# control package (Debian: apt-get install octave octave-control); without it
# the script says so and exits 0.  Never a test dependency.
set -u
me=octave_peer prog=export_octave
. "$(dirname "$0")/octave_env.sh"
if [ $# -eq 0 ]; then set -- "$here"/graphs/*.json; fi
jacgraph=$build/tools/jacgraph
echo "| Model | # of blocks | states | Octave append+connect (s) | Octave total (s) | jacgraph graph algorithm (s) | max difference | result |"
echo "|---|--:|--:|--:|--:|--:|--:|---|"
rc=0
skipped=""
for m in "$@"; do
  name=$(basename "$m" .json)
  "$gen" "$m" -o "$tmp/$name.m" 2>"$tmp/err"
  e=$?
  if [ $e -eq 3 ]; then
    skipped="$skipped\n- $name: $(sed 's/^export_octave: [^:]*: //' "$tmp/err")"
    continue
  elif [ $e -ne 0 ]; then
    echo "| $name | | | | | | | export failed: $(head -1 "$tmp/err") |"
    rc=1
    continue
  fi
  t0=$(date +%s.%N)
  line=$(cd "$tmp" && octave-cli --no-gui --quiet "$name.m" 2>"$tmp/oerr" | grep '^octave_peer:')
  o=$?
  t1=$(date +%s.%N)
  total=$(echo "$t1 - $t0" | bc -l 2>/dev/null || echo "?")
  gt=""
  if [ -x "$jacgraph" ]; then
    gt=$("$jacgraph" bench "$m" --no-matrix --csv --repeat 5 2>/dev/null | awk -F, 'NR == 2 {printf "%.3g", $29}')
  fi
  if [ -z "$line" ]; then
    echo "| $name | | | | $(printf '%.2f' "$total") | $gt | | Octave failed: $(grep -m1 -v execution_exception "$tmp/oerr") |"
    rc=1
    continue
  fi
  # octave_peer: NAME: N blocks, S states: max difference D, octave append+connect T s: RESULT
  blocks=$(echo "$line" | sed -E 's/.*: ([0-9]+) blocks.*/\1/')
  states=$(echo "$line" | sed -E 's/.* ([0-9]+) states.*/\1/')
  diff=$(echo "$line" | sed -E 's/.*max difference ([^,]+),.*/\1/')
  tc=$(echo "$line" | sed -E 's/.*append\+connect ([0-9.e-]+) s.*/\1/')
  res=$(echo "$line" | sed -E 's/.*: ([A-Za-z]+)$/\1/')
  [ "$res" = agree ] || rc=1
  echo "| $name | $blocks | $states | $tc | $(printf '%.2f' "$total") | $gt | $diff | $res |"
done
if [ -n "$skipped" ]; then
  printf "\nSkipped (nonlinear blocks; the exporter handles the linear block types only):%b\n" "$skipped"
fi
exit $rc
