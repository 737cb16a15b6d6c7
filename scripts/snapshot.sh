#!/bin/sh
# Behaviour snapshot for refactors that must change nothing observable: runs the example kernels
# and the Python test suite with every launch's report appended to DIR/reports.jsonl and traced
# under DIR/traces/, the examples' output in DIR/examples.txt, and the generated docs/isa.md and
# asc/_isa.py copied in. Take one before and one after a change and compare them:
#     scripts/snapshot.sh /tmp/before; ...change, make build...; scripts/snapshot.sh /tmp/after
#     diff -r /tmp/before /tmp/after
# Wall-clock fields (wall_*), if any, are dropped from the reports so two runs compare.
set -eu
DIR=${1:?usage: scripts/snapshot.sh DIR}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD_DIR:-build}
PYTHON=${PYTHON:-/usr/bin/python3}
rm -rf "$DIR"
mkdir -p "$DIR/traces"
export PYTHONPATH="$ROOT/clients/python"
export AICORE_SIM_REPORT="$DIR/reports.raw.jsonl" AICORE_SIM_TRACE="$DIR/traces"
cd "$ROOT"
for example in examples/*.py; do
  echo "== $example" >> "$DIR/examples.txt"
  "$PYTHON" "$example" | sed -E 's/[0-9.]+ (ms|us|s) wall/<wall>/g' >> "$DIR/examples.txt"
done
AICORE_SIMD="$ROOT/$BUILD/bin/aicore-simd" "$PYTHON" -m pytest -q -p no:cacheprovider \
  tests/python > "$DIR/pytest.txt" 2>&1 || true
sed -i -E 's/in [0-9.]+s/in <wall>/' "$DIR/pytest.txt"
"$PYTHON" - "$DIR" <<'PY'
import json, sys
d = sys.argv[1]
with open(f"{d}/reports.raw.jsonl") as f, open(f"{d}/reports.jsonl", "w") as out:
    for line in f:
        r = json.loads(line)
        for k in [k for k in r if k.startswith("wall")]:
            del r[k]
        out.write(json.dumps(r, sort_keys=True) + "\n")
PY
rm "$DIR/reports.raw.jsonl"
cp docs/isa.md "$DIR/isa.md"
"$ROOT/$BUILD/bin/aicore-isa" markdown > "$DIR/isa.generated.md"
echo "snapshot in $DIR: $(wc -l < "$DIR/reports.jsonl") launches, $(ls "$DIR/traces" | wc -l) traces"
