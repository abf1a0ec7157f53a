#!/usr/bin/env bash
# Regenerate the seed corpora tests/fuzz/corpus/TARGET/ from the repository's
# own models (graphs/, tests/data/) and from small generated models, so the
# seeds follow the formats when they change.  Run from anywhere; uses
# JACGRAPH (default build/tools/jacgraph) for `jacgraph generate` and python3
# for the package conversions.  Inputs that the fuzzers found and kept are
# not here: those worth keeping go to tests/fuzz/regress/ (README.md).
#   tests/fuzz/make_corpus.sh
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
J=${JACGRAPH:-$top/build/tools/jacgraph}
c=$top/tests/fuzz/corpus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -rf "$c"
mkdir -p "$c"/model "$c"/opfile "$c"/mdl "$c"/slx "$c"/xml "$c"/expr

# model: every JSON model of graphs/ and tests/data/ (plugin models excepted:
# their block types exist only with the plugin loaded), small generated ones
for f in "$top"/graphs/*.json "$top"/tests/data/*.json; do
    grep -q '"plugins"' "$f" && continue
    cp "$f" "$c/model/$(basename "$(dirname "$f")")_$(basename "$f")"
done
for kind in aerospace power deep; do
    "$J" generate $kind --blocks 12 --quiet >"$c/model/gen_$kind.json"
    "$J" generate $kind --blocks 12 --format mdl --out "$tmp/$kind.mdl" --quiet
    "$J" generate $kind --blocks 12 --format slx --out "$tmp/$kind.slx" --quiet
done
"$J" generate brusselator --states 18 --quiet >"$c/model/gen_brusselator.json"

# opfile: operating points of the target's fixed model (fuzz_opfile.c)
w() { printf '%s\n' "$2" >"$c/$1"; }
w opfile/full.json '{"t": 1.5, "states": {"Plant/x": [1, 2], "x1": 3}, "inputs": {"In1": [0.5, 1], "u2": 2}}'
w opfile/elements.json '{"states": {"Plant/x(2)": -1e-3, "Plant/x(1)": 4}}'
w opfile/inputs.json '{"inputs": {"u2": -0.25, "In1": [1e300, -1e-300]}}'
w opfile/time.json '{"t": 0}'
w opfile/empty.json '{}'
w opfile/written.json '{"t": 0, "states": {"Plant/x(1)": 1,
  "Plant/x(2)": 2,
  "x1": 0
}}'
w opfile/unknown.json '{"states": {"Plant": 1}, "extra": true}'

# mdl: classic MDL and OPC-text files of our own (tests/data/simulink, the
# msd example, generated ones) and OPC-text versions of the generated packages
cp "$top"/tests/data/simulink/*.mdl "$c/mdl/"
cp "$top"/graphs/msd.mdl "$c/mdl/graphs_msd.mdl"
for kind in aerospace power deep; do cp "$tmp/$kind.mdl" "$c/mdl/gen_$kind.mdl"; done

# slx: the generated packages (deflated) and the same parts stored, plus the
# OPC-text example as a package; xml: each package's blockdiagram.xml with
# every <System Ref="X"/> replaced by its part (the part the xml target reads)
python3 - "$tmp" "$c" "$top/tests/data/simulink/tiny_opc.mdl" <<'PY'
import os, re, sys, zipfile
tmp, c, opc = sys.argv[1:4]

def opc_parts(path):
    parts, name, buf = {}, None, []
    for line in open(path, encoding="utf-8").read().split("\n"):
        if line.startswith("__MWOPC_PART_BEGIN__") or line.startswith("__MWOPC_PACKAGE_END__"):
            if name is not None and not name.endswith("BASE64"):
                parts[name.lstrip("/")] = "\n".join(buf).strip("\n") + "\n"
            f = line.split()
            name = " ".join(f[1:]) if len(f) > 1 and line.startswith("__MWOPC_PART") else None
            buf = []
        elif name is not None:
            buf.append(line)
    return parts

def inline(parts):
    bd = parts["simulink/blockdiagram.xml"]
    def sub(m):
        p = parts.get("simulink/systems/%s.xml" % m.group(1))
        if p is None:
            return m.group(0)
        return re.sub(r"<\?xml[^>]*\?>\s*", "", p)
    return re.sub(r'<System Ref="([^"]+)"\s*/>', sub, bd)

def write_zip(path, parts, method):
    with zipfile.ZipFile(path, "w", method) as z:
        for n, d in parts.items():
            z.writestr(n, d)

def opc_text(parts):
    out = ["# MathWorks OPC Text Package", "__MWOPC_PACKAGE_BEGIN__ R2019b"]
    for n, d in parts.items():
        out += ["__MWOPC_PART_BEGIN__ /" + n, d.rstrip("\n"), ""]
    out.append("__MWOPC_PACKAGE_END__")
    return "\n".join(out) + "\n"

for kind in ("aerospace", "power", "deep"):
    src = os.path.join(tmp, kind + ".slx")
    with zipfile.ZipFile(src) as z:
        parts = {n: z.read(n).decode("utf-8") for n in z.namelist()}
    open(os.path.join(c, "slx", "gen_%s.slx" % kind), "wb").write(open(src, "rb").read())
    write_zip(os.path.join(c, "slx", "gen_%s_stored.slx" % kind), parts, zipfile.ZIP_STORED)
    open(os.path.join(c, "mdl", "gen_%s_opc.mdl" % kind), "w").write(opc_text(parts))
    open(os.path.join(c, "xml", "gen_%s.xml" % kind), "w").write(inline(parts))
parts = opc_parts(opc)
write_zip(os.path.join(c, "slx", "tiny_opc.slx"), parts, zipfile.ZIP_DEFLATED)
open(os.path.join(c, "xml", "tiny_opc.xml"), "w").write(inline(parts))
PY

# expr: expressions of the kinds the tests use, and small scripts
i=0
while IFS= read -r e; do
    i=$((i + 1))
    printf '%s\n' "$e" >"$c/expr/e$(printf %03d $i).m"
done <<'EXPR'
1+2*3
-2^2 + 2^-1 - 2^3^2
[1, 2; 3 4]'
[a -b] + [a - b]
M\[1; 2] + [1 2]/M
M.^2 - M^2 + M^-1
v(end-1) + M(end,1) + M(:,2)'
0:0.25:1
5:-2:0
~v | (v > 1) & 1 || 0
1 ~= 2 && 2 >= 3
[M M; M M](2,:)
zeros(2,3) + ones(2,3) .* eye(2,3)
linspace(0, 1, 5)
repmat(v, 2, 1)
reshape(1:6, 2, 3)
diag([1 2 3]) * inv(M(1:2,1:2))
det(M) + norm(v) + trace_is_unknown(1)
max(v) + min(M(:)) + sum(M) + prod(v) + mean(v)
cumsum(fliplr(v)) ./ flipud(v')'
conv([1 2], [1 3]) + poly([1 2 3])(1:3)
polyval([1 2 3], 2) + atan2(1, 2) + hypot(3, 4)
mod(-7, 3) + rem(-7, 3) + fix(-2.5) + round(2.5) + floor(-0.5) + ceil(0.5)
sqrt(-1) + log(0) + log10(100) + log2(8) + exp(1)
sin(pi/6) + cos(0) + tan(1) + asin(1) + acos(0) + atan(1) + sinh(1) + cosh(1) + tanh(1)
deg2rad(180) + rad2deg(pi)
size(M, 1) + numel(v) + length(M) + isempty(e)
abs(-3) + sign(-2) + real(2)
any(v > 2) + all(v > 0)
logical(2) + double('a') + single(1.5)
'it''s a string'
['ab' 'cd']
s(2)
Inf - inf + NaN * nan + eps
1e308 * 10 - 1e-320
transpose(M) + times(M, M) + plus(M, 1) + minus(M, 1) + mtimes(M, M) + power(M, 2) + rdivide(M, 2)
[1 2 3](end)
EXPR
w expr/script_assign.m 'k = 2; x = k * [1 2 3]; x(5) = 1; y(2,3) = 4;
p.Kp = 3; w = p.Kp * 2'
w expr/script_syntax.m '% comment
a = 1 ...
  + 2; b = [1 2
3 4];
%{
block comment
%}
c = a'"'"';  % transpose, not a string
if k > 1, z = 1; end
for i = 1:3
  q(i) = i;
end
s = "double quoted";, t = {1, 2}; disp(a)'
echo "seeds: $(for t in "$c"/*; do printf '%s %d  ' "$(basename "$t")" "$(ls "$t" | wc -l)"; done)"
