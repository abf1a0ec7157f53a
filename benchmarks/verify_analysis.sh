#!/usr/bin/env bash
# verify_analysis.sh -- jacgraph's answers about the linear model (lib/analysis:
# poles, invariant zeros, DC gain, frequency response) against Octave's
# control package (pole, zero, dcgain, freqresp) on the shipped models.
#
#   benchmarks/verify_analysis.sh [BUILD_DIR] [MODEL...]   (default: build, graphs/*.json graphs/*.mdl)
#
# For each model build/benchmarks/analysis_octave writes an Octave script with
# the linear model at the default operating point (root Inports/Outports) and
# jacgraph's results embedded; Octave computes its own and prints the largest
# differences, relative to max(1, |Octave's value|): roots are matched to the
# nearest root both ways; the frequency response at 60 frequencies of
# jacgraph's grid.  Prints a markdown table (benchmarks/results/analysis.md
# holds one); exit 1 when an error exceeds 1e-6 or the numbers of zeros
# differ.  Needs octave-cli and the control package (Debian: apt-get install
# octave octave-control); without them it says so and exits 0.  Never a test
# dependency.
set -u
me=verify_analysis prog=analysis_octave
. "$(dirname "$0")/octave_env.sh"
if [ $# -eq 0 ]; then set -- "$here"/graphs/*.json "$here"/graphs/*.mdl; fi
echo "| Model | states | inputs | outputs | poles: max rel. difference | zeros jacgraph/Octave | zeros: max rel. difference | DC gain: max rel. difference | H(jw), 60 frequencies: max rel. difference | result |"
echo "|---|--:|--:|--:|--:|--:|--:|--:|--:|---|"
rc=0
skipped=""
for m in "$@"; do
  name=$(basename "$m"); name=${name%.*}
  if ! "$gen" "$m" >"$tmp/$name.m" 2>"$tmp/err"; then
    skipped="$skipped\n- $name: $(sed 's/^analysis_octave: //' "$tmp/err" | head -1 | cut -c1-90)"
    continue
  fi
  line=$(cd "$tmp" && octave-cli --no-gui --quiet "$name.m" 2>"$tmp/oerr" | grep '^analysis_peer:')
  if [ -z "$line" ]; then
    echo "| $name | | | | | | | | | Octave failed: $(grep -m1 -v execution_exception "$tmp/oerr") |"
    rc=1
    continue
  fi
  set -- $line
  # analysis_peer: NAME nx nu ny np ep nz ez ed ef
  verdict=$(awk -v ep="$7" -v nz="$8" -v ez="$9" -v ed="${10}" -v ef="${11}" 'BEGIN {
    split(nz, z, "/"); ok = (ep + 0 <= 1e-6 && ez + 0 <= 1e-6 && ed + 0 <= 1e-6 && ef + 0 <= 1e-6 && z[1] == z[2]);
    print ok ? "agree" : "DISAGREE" }')
  [ "$verdict" = agree ] || rc=1
  echo "| $2 | $3 | $4 | $5 | $7 | $8 | $9 | ${10} | ${11} | $verdict |"
done
if [ -n "$skipped" ]; then
  echo
  echo "Not compared (no linear model at the default operating point):"
  printf "$skipped\n"
fi
exit $rc
