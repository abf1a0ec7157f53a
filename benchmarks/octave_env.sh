# octave_env.sh -- what the comparisons with Octave's control package
# (octave_peer.sh, verify_analysis.sh) start with; sourced, not run.
#
# Before sourcing, set `me` (the script's name in messages) and `prog` (the
# program in BUILD_DIR/benchmarks that writes the Octave scripts).  Takes the
# optional BUILD_DIR (default build) off the positional parameters and sets
# `here` (the repository), `build` and `gen` (the program); without octave-cli
# and the control package it says so and exits 0 (never a test dependency),
# without the program exits 2.  Makes `tmp` (removed at exit) and prints the
# Octave and control versions and a blank line, the head of the report.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-build}
[ $# -gt 0 ] && shift
case $build in /*) ;; *) build=$here/$build ;; esac
gen=$build/benchmarks/$prog
if ! command -v octave-cli >/dev/null 2>&1; then
  echo "$me: octave-cli not installed (apt-get install octave octave-control); nothing done"
  exit 0
fi
if ! octave-cli --no-gui --quiet --eval 'pkg load control' >/dev/null 2>&1; then
  echo "$me: the Octave control package is not installed (apt-get install octave-control); nothing done"
  exit 0
fi
[ -x "$gen" ] || { echo "$me: $gen not built (ninja -C $build)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "Octave $(octave-cli --no-gui --quiet --eval 'printf("%s", version())' 2>/dev/null), control $(octave-cli --no-gui --quiet --eval 'p = pkg("list", "control"); printf("%s", p{1}.version)' 2>/dev/null)"
echo
