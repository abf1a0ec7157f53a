#!/usr/bin/env bash
# Bounded resources (TAP): sizes from input beyond the documented limits
# (docs/cli.md, "Limits") fail up front naming the block and the option that
# raises them, files are read up to a byte limit, steps and sample times
# below the time resolution of a run are refused, and the reproducers of the
# hostile-input trial (tests/data/reliability) stay small and fast.
set -u
. "$(dirname "$0")/tap.sh"
cd "$top"
R=tests/data/reliability

# run CMD... under a 2 GB address-space cap and 60 s: what the limits promise
# (a sanitizer build reserves terabytes of shadow memory: no cap there)
if ldd "$J" 2>/dev/null | grep -q 'libasan'; then
    capped() { timeout 60 "$@"; }
else
    capped() { (ulimit -v 2000000; timeout 60 "$@"); }
fi

# ---- element limit: widths, states, buffers, the whole model
expect_fail "Inport of width 1e9: exit 4 naming the block and the option" 4 \
    "block 'x' (Integrator): input 1 has width 1000000000, beyond the limit of 10000000 elements per signal (--max-elements)" \
    capped "$J" info $R/mem_inport_width1e9.json
expect_fail "Transport Delay buffer 1e8 x 16: exit 4" 4 \
    "block 'T' (TransportDelay), parameter 'BufferSize': 1700000018 discrete states ((BufferSize + 1) x width + width + 2) exceed the limit" \
    capped "$J" simulate $R/mem_transportdelay_buffer.json --stop 0.1
expect_fail "Pade order 10 of width 1e6: exit 4" 4 "block 'T' (TransportDelay)" \
    capped "$J" linearize $R/mem_pade10_width1e6.json --format json
# variants: a Constant's own width, a Gain's output, the sum over many blocks
cat >"$d/const.json" <<'J'
{"name": "c", "blocks": [{"name": "K", "type": "Constant", "Value": 1, "VectorParams1D": "on"},
 {"name": "M", "type": "Mux", "Inputs": 3},
 {"name": "Out1", "type": "Outport", "Port": 1}],
 "lines": [{"src": "K:1", "dst": ["M:1", "M:2", "M:3"]}, {"src": "M:1", "dst": "Out1:1"}]}
J
cat >"$d/sum.json" <<'J'
{"name": "s", "blocks": [{"name": "In1", "type": "Inport", "Port": 1, "PortDimensions": 400},
 {"name": "A", "type": "Integrator"}, {"name": "B", "type": "Integrator"},
 {"name": "Out1", "type": "Outport", "Port": 1}],
 "lines": [{"src": "In1:1", "dst": "A:1"}, {"src": "A:1", "dst": "B:1"}, {"src": "B:1", "dst": "Out1:1"}]}
J
"$J" info "$d/sum.json" >/dev/null
ok $? "a model of 2000 elements compiles under the default limit"
expect_fail "the same under --max-elements 1000: the sum passes the limit (exit 4)" 4 \
    "the model needs more than 1000 signal elements, states, discrete states and zero crossings in all" \
    "$J" info "$d/sum.json" --max-elements 1000
expect_fail "one signal over --max-elements 300 names the block" 4 \
    "input 1 has width 400, beyond the limit of 300 elements per signal (--max-elements)" \
    "$J" info --max-elements=300 "$d/sum.json"
"$J" info --max-elements 2000 "$d/sum.json" >/dev/null
ok $? "--max-elements raises the limit (2000 elements fit in 2000)"
expect_fail "a bad --max-elements is a usage error" 2 "--max-elements expects a positive whole number" \
    "$J" info --max-elements -3 "$d/sum.json"
echo '{"name": "d", "blocks": [{"name": "In1", "type": "Inport", "Port": 1}, {"name": "T", "type": "DiscreteTransferFcn", "Numerator": [1], "Denominator": [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.5], "SampleTime": 1}, {"name": "Out1", "type": "Outport", "Port": 1}], "lines": [{"src": "In1:1", "dst": "T:1"}, {"src": "T:1", "dst": "Out1:1"}]}' >"$d/dtf.json"
expect_fail "a DiscreteTransferFcn whose dense realization passes the limit" 4 \
    "parameter 'Denominator': 10000 entries of the dense state-space realization" \
    "$J" info --max-elements 5000 "$d/dtf.json"

# ---- sizes a block reads from a parameter: tables, index vectors, port counts, delays
expect_fail "Lookup1D Table zeros(1, 1e9): the evaluator refuses it before allocating (exit 4)" 4 \
    "block 'L' (Lookup1D), parameter 'Table': matrix of 1x1000000000 elements is too large (at most 10000000 elements, --max-elements)" \
    capped "$J" info $R/mem_lookup_table_zeros1e9.json
expect_fail "LookupNDDirect Table ones(5000, 5000): beyond the element limit (exit 4)" 4 \
    "block 'L' (LookupNDDirect), parameter 'Table': matrix of 5000x5000 elements is too large (at most 10000000 elements, --max-elements)" \
    capped "$J" info $R/mem_lookup_direct_table.json
expect_fail "Mux Inputs 1e9: a port count beyond the limit (exit 4)" 4 \
    "block 'M' (Mux), parameter 'Inputs': 1e+09 ports, beyond the limit of 100000 ports per block" \
    capped "$J" info $R/mem_mux_inputs1e9.json
expect_fail "Selector Indices ones(1, 2e7): beyond the element limit (exit 4)" 4 \
    "block 'S' (Selector), parameter 'Indices': matrix of 1x20000000 elements is too large (at most 10000000 elements, --max-elements)" \
    capped "$J" info $R/mem_selector_indices.json
expect_fail "Delay DelayLength 1e9 x width 4: exit 4 naming the parameter" 4 \
    "block 'D' (Delay), parameter 'DelayLength': 4000000000 discrete states (DelayLength x width) exceed the limit" \
    capped "$J" info $R/mem_delay_length1e9.json
sed 's/"zeros(1, 1e9)"/"zeros(3000) * zeros(3000)"/' $R/mem_lookup_table_zeros1e9.json >"$d/mtimes.json"
expect_fail "Table zeros(3000) * zeros(3000): 2.7e10 multiply-adds refused up front (was a minute)" 4 \
    "parameter 'Table': a matrix product of this size needs 2.7e+10 multiply-adds, more than the 2.68e+08 left of the limit of one evaluation" \
    timeout 20 "$J" info "$d/mtimes.json"
# the evaluator's matrices (tests/test_expr.c: the work limit summed over an expression)
echo '{"name": "c", "blocks": [{"name": "C", "type": "Constant", "Value": "sum(zeros(1, 2000))"}, {"name": "Out1", "type": "Outport", "Port": 1}], "lines": [{"src": "C:1", "dst": "Out1:1"}]}' >"$d/zel.json"
"$J" info "$d/zel.json" >/dev/null
ok $? "a parameter expression building 2000 elements compiles under the default limit"
expect_fail "the evaluator's matrices are held to --max-elements too" 4 \
    "block 'C' (Constant), parameter 'Value': matrix of 1x2000 elements is too large (at most 1000 elements, --max-elements)" \
    "$J" info --max-elements 1000 "$d/zel.json"
# variants: the other parameters, the vector forms, the limit lowered
sed 's/"Table": "zeros(1, 1e9)", "BreakpointsForDimension1": "\[0 1\]"/"Table": "zeros(1, 2000)", "BreakpointsForDimension1": "1:2000"/' \
    $R/mem_lookup_table_zeros1e9.json >"$d/lut.json"
"$J" info "$d/lut.json" >/dev/null
ok $? "a Lookup1D of 2000 breakpoints compiles under the default limit"
expect_fail "the same under --max-elements 1000 names the breakpoints" 4 \
    "block 'L' (Lookup1D), parameter 'BreakpointsForDimension1': matrix of 1x2000 elements is too large (at most 1000 elements, --max-elements)" \
    "$J" info --max-elements 1000 "$d/lut.json"
sed 's/"Inputs": 1000000000/"Inputs": "ones(1, 200000)"/' $R/mem_mux_inputs1e9.json >"$d/muxv.json"
expect_fail "Mux Inputs as a vector of 2e5 widths (exit 4)" 4 \
    "block 'M' (Mux), parameter 'Inputs': a vector of 200000 widths (ports), beyond the limit of 100000 ports per block" \
    capped "$J" info "$d/muxv.json"
sed 's/"Mux", "Inputs": 1000000000/"Demux", "Outputs": 100001/' $R/mem_mux_inputs1e9.json >"$d/demux.json"
expect_fail "Demux Outputs 100001 (exit 4)" 4 \
    "block 'M' (Demux), parameter 'Outputs': 100001 ports, beyond the limit of 100000 ports per block" \
    "$J" info "$d/demux.json"
sed 's/"type": "Selector", "Indices": "ones(1, 2e7)"/"type": "Assignment", "Indices": "ones(1, 2e7)"/' \
    $R/mem_selector_indices.json >"$d/asg.json"
expect_fail "Assignment Indices ones(1, 2e7) (exit 4)" 4 \
    "block 'S' (Assignment), parameter 'Indices': matrix of 1x20000000 elements is too large (at most 10000000 elements, --max-elements)" \
    capped "$J" info "$d/asg.json"

# ---- SubSystems nest at most 1000 deep (generated: a chain of SubSystems around a Gain)
deep() {   # deep N: the model, N SubSystems deep
    python3 - "$1" <<'P'
import sys
n = int(sys.argv[1])
inner = ('{"name": "S", "type": "SubSystem", "blocks": [{"name": "In1", "type": "Inport", "Port": 1}, '
         '{"name": "G", "type": "Gain", "Gain": 2}, {"name": "Out1", "type": "Outport", "Port": 1}], '
         '"lines": [{"src": "In1:1", "dst": "G:1"}, {"src": "G:1", "dst": "Out1:1"}]}')
pre = ('{"name": "S", "type": "SubSystem", "blocks": [{"name": "In1", "type": "Inport", "Port": 1}, '
       '{"name": "Out1", "type": "Outport", "Port": 1}, ')
post = '], "lines": [{"src": "In1:1", "dst": "S:1"}, {"src": "S:1", "dst": "Out1:1"}]}'
print('{"name": "deep", "blocks": [{"name": "In1", "type": "Inport", "Port": 1}, '
      '{"name": "Out1", "type": "Outport", "Port": 1}, ' + pre * (n - 1) + inner + post * n)
P
}
deep 1000 >"$d/deep1000.json"
out=$(capped "$J" linearize "$d/deep1000.json" --format json | python3 -c 'import json, sys; print(json.load(sys.stdin)["D"]["x"])')
[ "$out" = "[2.0]" ]
ok $? "SubSystems 1000 deep linearize (D = $out)"
deep 1001 >"$d/deep1001.json"
expect_fail "1001 deep: exit 4 naming the SubSystem and the level" 4 \
    "deep1001.json: SubSystem 'S' at nesting level 1001: SubSystems nest at most 1000 deep" \
    capped "$J" linearize "$d/deep1001.json"
deep 100000 >"$d/deep1e5.json"
expect_fail "100000 deep (a 22 MB file): the JSON parser's depth limit, no stack overflow (exit 4)" 4 \
    "maximum parsing depth reached" capped "$J" linearize "$d/deep1e5.json"

# ---- TransferFcn stored by its coefficients: degree 50000 in little memory
out=$(capped "$J" info $R/mem_tf_deg50000.json 2>&1)
ok $? "TransferFcn of degree 50000 compiles under a 2 GB cap"
t0=$(date +%s%N)
capped "$J" linearize $R/slow_tf_deg5000.json --method perturb --format json >"$d/tf.json"
rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ $rc -eq 0 ] && [ $ms -lt 20000 ]
ok $? "degree 5000 linearizes by perturbation in $ms ms (was minutes)"
# the companion form against hand-derived values: (2s^2 + 3s + 0.5)/(4s^3 + s^2 + 0.5s + 0.25)
cat >"$d/tf3.json" <<'J'
{"name": "t", "blocks": [{"name": "In1", "type": "Inport", "Port": 1},
 {"name": "T", "type": "TransferFcn", "Numerator": [2, 3, 0.5], "Denominator": [4, 1, 0.5, 0.25]},
 {"name": "Z", "type": "ZeroPole", "Zeros": [-1], "Poles": [-2, -3], "Gain": 2},
 {"name": "Out1", "type": "Outport", "Port": 1}, {"name": "Out2", "type": "Outport", "Port": 2}],
 "lines": [{"src": "In1:1", "dst": ["T:1", "Z:1"]}, {"src": "T:1", "dst": "Out1:1"}, {"src": "Z:1", "dst": "Out2:1"}]}
J
"$J" linearize "$d/tf3.json" --format json >"$d/tf3.out"
python3 - "$d/tf3.out" <<'P'
import json, sys
s = json.load(open(sys.argv[1]))
def dense(M):
    a = [[0.0] * M["cols"] for _ in range(M["rows"])]
    for i, j, x in zip(M["i"], M["j"], M["x"]): a[i][j] += x
    return a
A, B, C, D = (dense(s[k]) for k in "ABCD")
assert A == [[-0.25, -0.125, -0.0625, 0, 0], [1, 0, 0, 0, 0], [0, 1, 0, 0, 0],
             [0, 0, 0, -5, -6], [0, 0, 0, 1, 0]], A
assert B == [[1], [0], [0], [1], [0]], B
assert C == [[0.5, 0.75, 0.125, 0, 0], [0, 0, 0, 2, 2]], C
assert D == [[0], [0]], D
P
ok $? "TransferFcn and ZeroPole: MATLAB's tf2ss companion form (hand-derived A, B, C, D)"
"$J" check "$d/tf3.json" >/dev/null
ok $? "check agrees on them (graph, matrix, perturbation)"

# ---- files read whole: a byte limit, devices included
expect_fail "FromWorkspace File /dev/zero stops at the file limit (exit 3)" 3 \
    "parameter 'File': /dev/zero: larger than the limit of 268435456 bytes for a file read whole (--max-file-size)" \
    capped "$J" info $R/mem_fromworkspace_devzero.json
expect_fail "the same with --max-file-size 1M" 3 "larger than the limit of 1048576 bytes" \
    "$J" info --max-file-size 1M $R/mem_fromworkspace_devzero.json
expect_fail "a model larger than --max-file-size is refused by its size (exit 3)" 3 \
    "graphs/vdp.json: larger than the limit of 100 bytes for a file read whole (--max-file-size)" \
    "$J" linearize graphs/vdp.json --max-file-size 100
expect_fail "a workspace file too (exit 3)" 3 "larger than the limit of 10 bytes" \
    "$J" info graphs/vdp.json --workspace tests/data/regress_gain.json --max-file-size 10
printf '{' >"$d/big.json"
truncate -s 300M "$d/big.json"
expect_fail "a 300 MB sparse model file: refused before it is read" 3 "larger than the limit of 268435456 bytes" \
    capped "$J" linearize "$d/big.json"
expect_fail "linearize /dev/zero: not a model file (exit 4)" 4 "/dev/zero: is a device or socket, not a model file" \
    capped "$J" linearize /dev/zero
"$J" linearize graphs/vdp.json --max-file-size 1G >/dev/null
ok $? "--max-file-size 1G reads the model"

# ---- time must advance
expect_fail "SampleTime 1e-300 with stop 1: refused naming the block (exit 2)" 2 \
    "the sample time of block 'U' (SampleTime) 1e-300 is below the time resolution of the run: at t = 1, t + 1e-300 == t" \
    timeout 20 "$J" simulate $R/hang_sampletime_1e-300.json --stop 1
expect_fail "--step 1e-300 at t = 2e6 (exit 2)" 2 \
    "the fixed step (--step) 1e-300 is below the time resolution of the run: at t = 2e+06" \
    timeout 20 "$J" simulate graphs/vdp.json --solver ode4 --start 1e6 --stop 2e6 --step 1e-300
expect_fail "--out-step 1e-300 at t = 2e6 (exit 2)" 2 "the output step (--out-step) 1e-300" \
    timeout 20 "$J" simulate graphs/vdp.json --start 1e6 --stop 2e6 --out-step 1e-300
expect_fail "--max-step 1e-300 (exit 2)" 2 "the largest step (--max-step) 1e-300" \
    timeout 20 "$J" simulate graphs/vdp.json --max-step 1e-300 --stop 1
expect_fail "--initial-step 1e-20 at t = 1e6 (exit 2)" 2 "the initial step (--initial-step) 1e-20" \
    timeout 20 "$J" simulate graphs/vdp.json --start 1e6 --stop 1.5e6 --initial-step 1e-20
echo '{"name": "h", "blocks": [{"name": "C", "type": "Constant"}, {"name": "U", "type": "UnitDelay", "SampleTime": 1e-12}, {"name": "Out1", "type": "Outport", "Port": 1}], "lines": [{"src": "C:1", "dst": "U:1"}, {"src": "U:1", "dst": "Out1:1"}]}' >"$d/st.json"
expect_fail "a sample time of 1e-12 at t = 1e5 (variant: resolvable at 0, not at the end)" 2 \
    "the sample time of block 'U' (SampleTime) 1e-12" \
    timeout 20 "$J" simulate "$d/st.json" --stop 1e5
rows=$(timeout 20 "$J" simulate $R/hang_sampletime_1e-300.json --stop 1e-299 | wc -l)
[ "$rows" -gt 5 ]
ok $? "the same 1e-300 sample time over [0, 1e-299] runs ($rows rows)"

# ---- out of memory in the loop solver (ASan build: a wild write before)
if ldd "$J" 2>/dev/null | grep -q libasan; then
    ASAN_OPTIONS=allocator_may_return_null=1:max_allocation_size_mb=100:detect_leaks=1 \
        "$J" linearize $R/oom_solve_loop_segv.json >/dev/null 2>"$d/asan.err"
    rc=$?
    { [ $rc -eq 0 ] || [ $rc -eq 70 ]; } && ! grep -q "ERROR: AddressSanitizer\|runtime error" "$d/asan.err"
    ok $? "vector loop under a 100 MB allocation cap: exit 0 or 70, no ASan report (exit $rc)"
else
    out=$("$J" linearize $R/oom_solve_loop_segv.json --format json 2>&1 | head -c 100)
    ok $? "vector loop of width 3000 linearizes"
fi
# ---- counts that evaluate to NaN (NaN passes "x < 1 || x > N"; the fuzzer found the Sum)
F=tests/fuzz/regress/model
expect_fail "Sum Inputs NaN (exit 4)" 4 "block 'S' (Sum), parameter 'Inputs': expected a sign string" \
    "$J" info $F/nan-sum-inputs.json
expect_fail "Product Inputs NaN (exit 4)" 4 "block 'S' (Product), parameter 'Inputs': expected an operator string" \
    "$J" info $F/nan-product-inputs.json
expect_fail "Inport Port NaN (exit 4)" 4 "block 'In1' (Inport), parameter 'Port': expected a positive integer" \
    "$J" info $F/nan-inport-port.json
expect_fail "Demux Outputs NaN (exit 4)" 4 "block 'D' (Demux), parameter 'Outputs': expected a port count" \
    "$J" info $F/nan-demux-outputs.json
tap_done
