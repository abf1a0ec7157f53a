#!/usr/bin/env bash
# bench_batch_mpi: `jacgraph batch` points per second with 1 and 2 MPI ranks
# (one thread each) on the 10,000-block aerospace model, through the CLI as a
# user runs it: model read, compiled, symbolic phase, every point, the file
# written by rank 0.
#
#   benchmarks/bench_batch_mpi.sh JACGRAPH [--points N] [--repeat R] [--ranks 1,2] [--out EXT] [--csv FILE]
#                                  [--bench BENCH_BATCH]
#
# JACGRAPH: a binary built with -Dmpi=enabled.  The model is `jacgraph
# generate aerospace --blocks 10k --seed 1`; point k sets t = k/1000 and
# twenty states to small values that differ from point to point (default
# 10,000 points).  Each rank count runs --repeat times (default 3) in
# interleaved rounds, writing FILE.EXT (default h5); reported: the median wall
# time, points per second, the speedup over one rank, the same with each
# rank count's fixed cost (a run of one point with as many ranks: launch,
# MPI_Init, load, compile, symbolic phase) taken off,
# and the CPU time of all ranks (user + system, /usr/bin/time) and of rank 0
# and the busiest other rank: on a loaded machine the wall times say little,
# the CPU time shows the work per rank (rank 0 also writes the file).
# Each round also runs the batch alone, as bench_batch measures threads:
# `mpirun -np K bench_batch --jobs 1 --ref 0 --repeat 1` (BENCH_BATCH, default
# the bench_batch beside JACGRAPH's build, built with MPI too): the same
# model generated in memory in every rank, the ranks at a barrier, then
# jg_batch_mpi_run with rank 0's sink counting every rank's points (their
# results still come in by MPI) until the ranks meet again; no launch,
# MPI_Init, load or file in the time.  Its points (t and twenty states) are
# bench_batch's own.
# --csv FILE: the tables as CSV too (ranks, wall_s, points_per_s, speedup,
# net_points_per_s, net_speedup, batch_wall_s, batch_points_per_s,
# batch_speedup), which `bench_batch --ranks FILE` plots beside the threads.
# Environment: PML (default ob1, the shared-memory transport; empty: Open
# MPI's own choice).
# Every run writes a new file (the last run's is removed before the clock
# starts: replacing it would time the release of its pages, not the batch).
# The output is the one-rank file every time (checked with cmp).  Markdown on
# stdout.  Exit status 0; 1 when a run failed or the files differ; 2 usage.
set -u
usage() { sed -n 4,6p "$0" | sed 's/^# *//' >&2; exit 2; }
[ $# -ge 1 ] || usage
J=$1
shift
npts=10000 repeat=3 ranks=1,2 ext=h5 csv=
bench=$(dirname "$J")/../benchmarks/bench_batch
while [ $# -gt 0 ]; do
    case $1 in
    --points) npts=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    --out) ext=$2; shift 2 ;;
    --csv) csv=$2; shift 2 ;;
    --bench) bench=$2; shift 2 ;;
    *) usage ;;
    esac
done
if [ ! -x "$bench" ]; then
    echo "bench_batch_mpi: no bench_batch at $bench (--bench PATH: the one of an MPI build)" >&2
    exit 2
fi
py=/usr/bin/python3
mpi=(mpirun --oversubscribe)
[ "$(id -u)" -eq 0 ] && mpi+=(--allow-run-as-root)
# One machine: Open MPI's ob1 transport over shared memory.  Left to itself,
# Open MPI 4.1 first tries UCX, which costs each launch of two or more ranks
# 0.2 s of MPI_Init here (a single rank does not call MPI_Init at all), a
# fixed cost that says nothing about throughput.  PML=  (empty) keeps Open
# MPI's own choice.
pml=${PML-ob1}
[ -n "$pml" ] && mpi+=(--mca pml "$pml")
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT

"$J" generate aerospace --blocks 10k --seed 1 --out "$d/m.json" --quiet || exit 1
"$J" linearize "$d/m.json" --format json --out "$d/ref.json" || exit 1
"$py" - "$d" "$npts" <<'EOF' || exit 1
import json, sys
d, n = sys.argv[1], int(sys.argv[2])
names = json.load(open(d + "/ref.json"))["states"]
pts = [{"t": 0.001 * k, "states": {names[(k * 7 + j * 13) % len(names)]: 0.01 * ((k + j) % 11 - 5)
                                   for j in range(20)}} for k in range(n)]
json.dump({"points": pts}, open(d + "/pts.json", "w"))
json.dump({"points": pts[:1]}, open(d + "/pts1.json", "w"))
EOF
nx=$("$py" -c 'import json,sys; r=json.load(open(sys.argv[1])); print(len(r["states"]), len(r["inputs"]), len(r["outputs"]))' "$d/ref.json")

# each rank under /usr/bin/time: its CPU time in $d/rank.R
printf '#!/bin/sh\nexec /usr/bin/time -f "%%U %%S" -o "%s/rank.${OMPI_COMM_WORLD_RANK:-0}" "$@"\n' "$d" >"$d/timed"
chmod +x "$d/timed"
now() { date +%s.%N; }
run() {   # run RANKS POINTSFILE OUT: "wall cpu cpu0 cpuother" in seconds (cpu: user + system of
          # every rank; cpu0 rank 0's, cpuother the busiest other rank's, 0 with one rank)
    rm -f "$d"/rank.* "$3"
    /usr/bin/time -f '%e %U %S' -o "$d/time" "${mpi[@]}" -np "$1" "$d/timed" "$J" batch "$d/m.json" --points "$2" \
        --jobs 1 --no-progress --out "$3" >/dev/null 2>"$d/err" || { cat "$d/err" >&2; return 1; }
    local c0 co
    c0=$(awk '{printf "%.3f", $1 + $2}' "$d/rank.0")
    co=$(for f in "$d"/rank.*; do [ "$f" = "$d/rank.0" ] || awk '{printf "%.3f\n", $1 + $2}' "$f"; done |
         sort -g | tail -1)
    awk -v c0="$c0" -v co="${co:-0}" '{printf "%s %.3f %s %s\n", $1, $2 + $3, c0, co}' "$d/time"
}
batch() {   # batch RANKS: the wall time of bench_batch's one run across RANKS ranks
    local row
    row=$("${mpi[@]}" -np "$1" "$bench" --points "$npts" --jobs 1 --ref 0 --repeat 1 2>"$d/err" |
          grep '^| 1 |') || { cat "$d/err" >&2; return 1; }
    echo "$row" | awk -F'|' '{gsub(/ /, "", $3); gsub(/ /, "", $6); print $3, $6}'
}
median() { tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

IFS=, read -r -a rlist <<<"$ranks"
declare -A times cpus cpu0 cpuo fixed btimes bcpus
for ((i = 0; i < repeat; i++)); do
    for r in "${rlist[@]}"; do
        read -r bw bc <<<"$(batch "$r")" || exit 1
        [ -n "$bw" ] || exit 1
        btimes[$r]="${btimes[$r]:-} $bw"
        bcpus[$r]="${bcpus[$r]:-} $bc"
        t=$(run "$r" "$d/pts1.json" "$d/one_point.$ext") || exit 1
        fixed[$r]="${fixed[$r]:-} ${t%% *}"
        read -r tw tc t0 to <<<"$(run "$r" "$d/pts.json" "$d/r$r.$ext")" || exit 1
        [ -n "$tw" ] || exit 1
        times[$r]="${times[$r]:-} $tw"
        cpus[$r]="${cpus[$r]:-} $tc"
        cpu0[$r]="${cpu0[$r]:-} $t0"
        cpuo[$r]="${cpuo[$r]:-} $to"
    done
done
status=0
base=${rlist[0]}
for r in "${rlist[@]}"; do
    [ "$ext" = mat ] && continue   # matio stamps times into the file
    if ! cmp -s "$d/r$base.$ext" "$d/r$r.$ext"; then
        echo "bench_batch_mpi: $r ranks wrote another file than $base" >&2
        status=1
    fi
done
echo "### MPI ranks (\`mpirun${pml:+ --mca pml $pml} -np K jacgraph batch --jobs 1 --out FILE.$ext\`)"
echo
echo "aerospace 10,000 blocks ($nx states, inputs, outputs), $npts points, median of $repeat;"
echo "fixed cost: a run of one point with as many ranks (launch, load, compile, symbolic phase, file); $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)."
echo
echo "| ranks | wall s | points/s | speedup | fixed cost s | points/s without the fixed cost | speedup | CPU s (all ranks) | CPU s per rank | CPU s rank 0 | CPU s busiest other rank |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
t1=$(echo "${times[$base]}" | median)
tf1=$(echo "${fixed[$base]}" | median)
[ -n "$csv" ] && echo "ranks,wall_s,points_per_s,speedup,net_points_per_s,net_speedup,batch_wall_s,batch_points_per_s,batch_speedup" >"$csv"
tb1=$(echo "${btimes[$base]}" | median)
for r in "${rlist[@]}"; do
    t=$(echo "${times[$r]}" | median)
    tf=$(echo "${fixed[$r]}" | median)
    c=$(echo "${cpus[$r]}" | median)
    c0=$(echo "${cpu0[$r]}" | median)
    co=$(echo "${cpuo[$r]}" | median)
    printf '| %s | %.2f | %.0f | %.2f | %.2f | %.0f | %.2f | %.2f | %.2f | %.2f | %s |\n' "$r" "$t" "$(echo "$npts / $t" | bc -l)" \
        "$(echo "$t1 / $t" | bc -l)" "$tf" "$(echo "$npts / ($t - $tf)" | bc -l)" \
        "$(echo "($t1 - $tf1) / ($t - $tf)" | bc -l)" "$c" "$(echo "$c / $r" | bc -l)" "$c0" \
        "$([ "$r" -gt 1 ] && printf '%.2f' "$co" || echo -)"
    tb=$(echo "${btimes[$r]}" | median)
    [ -n "$csv" ] && printf '%s,%.3f,%.1f,%.3f,%.1f,%.3f,%.3f,%.1f,%.3f\n' "$r" "$t" "$(echo "$npts / $t" | bc -l)" \
        "$(echo "$t1 / $t" | bc -l)" "$(echo "$npts / ($t - $tf)" | bc -l)" \
        "$(echo "($t1 - $tf1) / ($t - $tf)" | bc -l)" "$tb" "$(echo "$npts / $tb" | bc -l)" \
        "$(echo "$tb1 / $tb" | bc -l)" >>"$csv"
done
echo
echo "CPU s per rank is the work each rank does; on an idle machine with a core per rank"
echo "the wall time approaches it (the one-rank CPU over the per-rank CPU bounds the speedup)."
echo "Rank 0 computes its share and writes every point; the other ranks only compute and send."
echo
echo "### The batch alone (\`mpirun${pml:+ --mca pml $pml} -np K bench_batch --jobs 1 --ref 0 --repeat 1\`)"
echo
echo "As \`bench_batch\` measures threads: the model generated in memory in every rank, the ranks at a"
echo "barrier, \`jg_batch_mpi_run\` with rank 0's sink counting every rank's points (their results"
echo "still sent to rank 0), until the ranks meet at a second barrier; no launch, MPI_Init, load or"
echo "file. bench_batch's own $npts points; median of $repeat, in the same rounds as the runs above."
echo
echo "| ranks | wall s | points/s | speedup | CPU s (all ranks) |"
echo "|---|---|---|---|---|"
for r in "${rlist[@]}"; do
    tb=$(echo "${btimes[$r]}" | median)
    cb=$(echo "${bcpus[$r]}" | median)
    printf '| %s | %.3f | %.0f | %.2f | %.2f |\n' "$r" "$tb" "$(echo "$npts / $tb" | bc -l)" \
        "$(echo "$tb1 / $tb" | bc -l)" "$cb"
done
exit $status
