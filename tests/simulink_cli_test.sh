#!/usr/bin/env bash
# Simulink import through the CLI (TAP): every command takes .mdl/.slx,
# `jacgraph import` round-trips to the same linearization, and every bad input
# of the import gets a clear message and its exit code, never a crash.
set -u
. "$(dirname "$0")/tap.sh"
cd "$top"
msd=graphs/msd.mdl

# ---- every command takes a Simulink file
for c in "linearize" "info" "check" "graph --reduced" "jacobian" "simulate --stop 0.5 --out $d/t.csv"; do
    "$J" $c "$msd" >/dev/null 2>&1
    ok $? "jacgraph ${c%% *} on an .mdl"
done

# ---- import writes a JSON model that linearizes to the same numbers
"$J" import "$msd" -o "$d/msd.json" 2>/dev/null
ok $? "jacgraph import -o"
a=$("$J" linearize "$msd" --format json 2>/dev/null)
b=$("$J" linearize "$d/msd.json" --format json 2>/dev/null)
[ -n "$a" ] && [ "$a" = "$b" ]
ok $? "linearize model.json == linearize model.mdl"
python3 - "$d/msd.json" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
blocks = {b["name"]: b for b in m["blocks"]}
assert blocks["1/m"]["Gain"] == "1/m", blocks["1/m"]            # expressions kept
assert m["workspace"]["m"] == 2 and m["workspace"]["kspring"] == 8  # values the callbacks gave
assert blocks["Spring"]["parameters"]["k"] == "kspring"          # the mask
assert blocks["v"]["InitialCondition"] == 0                      # from BlockParameterDefaults
assert any(l.get("name") == "velocity" for l in m["lines"])      # signal names
EOF
ok $? "the JSON keeps expressions, workspace values, masks, defaults and signal names"

# ---- the same for every model of the external corpus that imports
corpus="$top/../shared/simulink"
if [ -d "$corpus" ]; then
    for f in "$corpus"/*.mdl "$corpus"/*.slx; do
        b=$(basename "$f")
        if "$J" import "$f" -o "$d/c.json" 2>/dev/null; then
            a=$("$J" linearize "$f" --format json 2>/dev/null)
            ra=$?
            c=$("$J" linearize "$d/c.json" --format json 2>/dev/null)
            rc=$?
            # the same matrices, or the same failure (sldemo_tc needs table data)
            [ "$ra" -eq "$rc" ] && [ "$a" = "$c" ]
            ok $? "corpus $b: linearize of the imported JSON equals linearize of the file (exit $ra)"
        fi
    done
else
    echo "# skipped: external corpus not present"
    skip "corpus round trips" "external corpus not present"
fi

# ---- a failed import leaves no half-written file (and never removes what is not a regular file)
"$J" import "$d/missing.mdl" -o "$d/half.json" 2>/dev/null
[ ! -e "$d/half.json" ]
ok $? "a failed import writes nothing"
"$J" import "$d/missing.mdl" -o /dev/null 2>/dev/null
[ -c /dev/null ]
ok $? "a failed import to /dev/null leaves the device alone"

# ---- --workspace and --set apply to JSON models too
printf 'm = 4;\n' >"$d/w.m"
"$J" linearize "$d/msd.json" --workspace "$d/w.m" --set kspring=16 --format json 2>/dev/null |
    python3 -c "import json,sys; m=json.load(sys.stdin); A=m['A']; s=m['states']; v=s.index('v'); x=s.index('x'); d={(i,j):a for i,j,a in zip(A['i'],A['j'],A['x'])}; assert d[(v,x)]==-4.0 and abs(d[(v,v)]+0.3)<1e-15, d"
ok $? "--workspace and --set on a JSON model"

# ---- bad input: message and exit code
printf 'Model {\n  Name "x"\n  System {\n    Block {\n' >"$d/unbalanced.mdl"
expect_fail "unbalanced MDL braces name the line" 4 "unbalanced.mdl:" "$J" info "$d/unbalanced.mdl"
head -c 600 "$msd" >"$d/trunc.mdl"
expect_fail "a truncated MDL" 4 "trunc.mdl" "$J" info "$d/trunc.mdl"
printf 'PK\003\004garbage' >"$d/bad.slx"
expect_fail "a corrupt zip" 4 "bad.slx" "$J" info "$d/bad.slx"
(cd "$d" && mkdir -p z/_rels && printf '<x/>' >z/_rels/.rels && cd z && python3 -c "
import zipfile; z = zipfile.ZipFile('../nobd.slx', 'w'); z.write('_rels/.rels'); z.close()")
expect_fail "an SLX without blockdiagram.xml" 4 "blockdiagram.xml" "$J" info "$d/nobd.slx"
python3 - "$d" <<'EOF'
import sys, zipfile
d = sys.argv[1]
z = zipfile.ZipFile(d + "/badxml.slx", "w")
z.writestr("simulink/blockdiagram.xml", '<?xml version="1.0"?>\n<ModelInformation>\n<Model>\n<System>\n<Block BlockType="Gain" Name="a">\n</System>\n')
z.close()
z = zipfile.ZipFile(d + "/trunc.slx", "w")
z.writestr("simulink/blockdiagram.xml", "<ModelInformation><Model><System/></Model></ModelInformation>" * 50)
z.close()
data = open(d + "/trunc.slx", "rb").read()
open(d + "/trunc.slx", "wb").write(data[: len(data) // 2])
EOF
expect_fail "malformed XML names part, line and column" 4 "simulink/blockdiagram.xml:" "$J" info "$d/badxml.slx"
expect_fail "a truncated zip" 4 "trunc.slx" "$J" info "$d/trunc.slx"
mkdir -p "$d/adir"
expect_fail "a directory" 4 "is a directory" "$J" info "$d/adir"
mkfifo "$d/fifo" 2>/dev/null && expect_fail "a FIFO (no hang)" 4 "is a FIFO" timeout 10 "$J" info "$d/fifo"
cat >"$d/noblock.mdl" <<'EOF'
Model {
  Name "noblock"
  System {
    Name "noblock"
    Block {
      BlockType Constant
      Name "C"
    }
    Line {
      SrcBlock "C"
      SrcPort 1
      DstBlock "Nowhere"
      DstPort 1
    }
  }
}
EOF
expect_fail "a line to a missing block" 4 "missing block 'Nowhere'" "$J" info "$d/noblock.mdl"
sed 's/"Nowhere"/"G"/; s/DstPort 1/DstPort 3/' "$d/noblock.mdl" | sed 's/^    Line {/    Block {\n      BlockType Gain\n      Name "G"\n    }\n    Line {/' >"$d/noport.mdl"
expect_fail "a line to a missing port" 4 "block 'G' (Gain) has 1 input port" "$J" info "$d/noport.mdl"
sed 's/"1\/m"$/"1\/(m"/' "$msd" >"$d/syntax.mdl"
grep -q '"1/(m"' "$d/syntax.mdl"
expect_fail "an expression syntax error names block, parameter and column" 4 "parameter 'Gain'" "$J" linearize "$d/syntax.mdl"
sed 's/"c"$/"c_undefined"/' "$msd" >"$d/undef.mdl"
expect_fail "an undefined variable names it" 4 "c_undefined" "$J" linearize "$d/undef.mdl"
cat >"$d/self.mdl" <<'EOF'
Model {
  Name "self"
  System {
    Name "self"
    Block {
      BlockType ModelReference
      Name "Again"
      ModelNameDialog "self"
    }
  }
}
EOF
expect_fail "a model-reference cycle" 4 "cycle" "$J" info "$d/self.mdl"
printf 'not a model\n' >"$d/junk.txt"
expect_fail "a file of no known format" 4 "not a model" "$J" info "$d/junk.txt"
expect_fail "a missing file" 3 "cannot open" "$J" info "$d/missing.slx"
expect_fail "--set without '='" 2 "NAME=EXPR" "$J" linearize "$msd" --set k
expect_fail "--substitute of a missing block" 2 "no block 'Nope'" "$J" linearize "$msd" --substitute "Nope=$d/x.json"

tap_done
