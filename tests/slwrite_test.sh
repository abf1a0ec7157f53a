#!/usr/bin/env bash
# Simulink writer (TAP): generated models written as JSON, classic MDL and SLX
# by `jacgraph generate --format` must linearize to the same A, B, C, D (names
# equal, values within 1e-12) once read back; the files have the Simulink
# structure (package parts, sections); bad options fail with exit 2.
# tests/test_io_slwrite.c does the same for every graphs/*.json.
set -u
. "$(dirname "$0")/tap.sh"
cd "$top"

# same_lin A.json B.json: equal names and shapes, entries within 1e-12
same_lin() {
    python3 - "$1" "$2" <<'EOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for k in ("states", "inputs", "outputs"):
    if a[k] != b[k]:
        sys.exit("%s differ: %s vs %s" % (k, a[k][:5], b[k][:5]))
for m in "ABCD":
    def dense(x):
        return {(i, j): v for i, j, v in zip(x["i"], x["j"], x["x"])}
    da, db = dense(a[m]), dense(b[m])
    if (a[m]["rows"], a[m]["cols"]) != (b[m]["rows"], b[m]["cols"]):
        sys.exit("%s shape differs" % m)
    for key in set(da) | set(db):
        x, y = da.get(key, 0.0), db.get(key, 0.0)
        if abs(x - y) > 1e-12 * max(1.0, abs(x)):
            sys.exit("%s%s: %r vs %r" % (m, key, x, y))
EOF
}

# the importer is needed to read the files back
importer=0
"$J" generate aerospace --blocks 20 --out "$d/probe.mdl" -q && "$J" info "$d/probe.mdl" >/dev/null 2>&1 &&
    importer=1

for spec in "aerospace 200 3" "power 300 5" "deep 400 2" "deep 150 7 --depth 12"; do
    set -- $spec
    kind=$1 nb=$2 seed=$3
    shift 3
    base="$d/${kind}_$nb"
    "$J" generate "$kind" --blocks "$nb" --seed "$seed" "$@" --out "$base.json" -q &&
        "$J" generate "$kind" --blocks "$nb" --seed "$seed" "$@" --out "$base.mdl" -q &&
        "$J" generate "$kind" --blocks "$nb" --seed "$seed" "$@" --format slx --out "$base.slx" -q
    ok $? "generate $kind $nb as json, mdl (from the extension) and slx"
    head -1 "$base.mdl" | grep -q '^Model {$' && grep -q '^  Version	8.1$' "$base.mdl" &&
        [ "$(grep -c 'BlockType	' "$base.mdl")" -gt "$nb" ]
    ok $? "$kind $nb: mdl is a classic Model with its blocks"
    python3 - "$base.slx" <<'EOF'
import sys, zipfile, xml.etree.ElementTree as ET
z = zipfile.ZipFile(sys.argv[1])
names = z.namelist()
assert names[0] == "[Content_Types].xml", names
rels = z.read("_rels/.rels").decode()
assert "relationships/blockDiagram" in rels and "simulink/blockdiagram.xml" in rels
assert "<cp:version>R2019b</cp:version>" in z.read("metadata/coreProperties.xml").decode()
bd = ET.fromstring(z.read("simulink/blockdiagram.xml"))
assert bd.tag == "ModelInformation" and bd.find("Model/System") is not None
sids = [b.get("SID") for b in bd.iter("Block")]
assert len(sids) == len(set(sids)), "SIDs repeat"
ET.fromstring(z.read("simulink/bddefaults.xml"))
EOF
    ok $? "$kind $nb: slx package parts, unique SIDs, well-formed XML"
    if [ $importer -eq 0 ]; then
        skip "$kind $nb: mdl linearizes like json" "no Simulink import in this build"
        skip "$kind $nb: slx linearizes like json" "no Simulink import in this build"
        continue
    fi
    "$J" linearize "$base.json" --format json --out "$base.lin.json" >/dev/null 2>&1
    for x in mdl slx; do
        out=$("$J" linearize "$base.$x" --format json --out "$base.$x.lin.json" 2>&1 >/dev/null) &&
            msg=$(same_lin "$base.lin.json" "$base.$x.lin.json" 2>&1)
        rc=$?
        ok $rc "$kind $nb: $x linearizes like json"
        [ $rc -ne 0 ] && echo "#   ${out:-}${msg:-}" | head -5
    done
done

# the same seed gives the same bytes, also as a zip
"$J" generate aerospace --blocks 100 --out "$d/a1.slx" -q && "$J" generate aerospace --blocks 100 --out "$d/a2.slx" -q &&
    cmp -s "$d/a1.slx" "$d/a2.slx"
ok $? "slx output is deterministic"
"$J" generate power --blocks 100 --format json --out "$d/p.mdl" -q && head -c1 "$d/p.mdl" | grep -q '{'
ok $? "--format json wins over the .mdl extension"

# ---- bad options
expect_err "unknown --format" 2 \
    "jacgraph generate: --format must be json, mdl or slx, not 'xml'
see 'jacgraph generate --help'" \
    "$J" generate aerospace --blocks 100 --format xml --out "$d/x.xml"
expect_err "mdl needs --out" 2 \
    "jacgraph generate: --format mdl needs --out FILE
see 'jacgraph generate --help'" \
    "$J" generate aerospace --blocks 100 --format mdl
mkdir -p "$d/dir.slx"
"$J" generate aerospace --blocks 100 --out "$d/dir.slx" -q 2>"$d/err"
rc=$?
[ $rc -eq 3 ] && grep -q "dir.slx" "$d/err"
ok $? "an unwritable slx path exits 3 and names the file"

tap_done
