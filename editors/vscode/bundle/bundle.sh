#!/usr/bin/env bash
# Fill editors/vscode/bundled/ with the server for one VS Code platform target: the panic-lens
# wheel built from this checkout, the pinned wheels of requirements.txt for every supported
# CPython version of that platform, a pip wheel to install them with, and manifest.json.
# On first start the extension creates a private venv from these with the user's Python
# (src/environment.ts), so a .vsix carries the server the way Microsoft's Python tools
# extensions carry theirs.
# Usage: bundle.sh TARGET   (linux-x64 linux-arm64 darwin-x64 darwin-arm64 win32-x64; win32-arm64
# and alpine-* are not offered: ahocorasick-rs and others publish no wheels for them)
# Downloads are cached in .tools/wheels/TARGET/ (per requirements.txt), so a rebuild is seconds.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
EXT=$ROOT/editors/vscode
TOOLS=${PANIC_LENS_TOOLS:-$ROOT/.tools}
PYTHON=${PYTHON:-python3}
TARGET=${1:?usage: bundle.sh TARGET}
# CPython versions the .vsix carries wheels for; regex, orjson, tree-sitter, ahocorasick-rs and
# cel-expr-python ship one native wheel per version.
PY_VERSIONS=(3.11 3.12 3.13 3.14)
PIP_PKG="pip==26.3" # installs the wheels into the user's venv, run straight from its wheel

# vsce's target -> pip's platform tags (pip widens manylinux2014 to older manylinux tags and
# macosx_11_0 to every older macOS tag and universal2).
case $TARGET in
  # cel-expr-python's Linux wheels are manylinux_2_28 (glibc 2.28, 2018)
  linux-x64) PLATFORMS=(manylinux_2_28_x86_64 manylinux_2_17_x86_64 manylinux2014_x86_64) ;;
  linux-arm64) PLATFORMS=(manylinux_2_28_aarch64 manylinux_2_17_aarch64 manylinux2014_aarch64) ;;
  darwin-x64) PLATFORMS=(macosx_11_0_x86_64) ;;
  darwin-arm64) PLATFORMS=(macosx_11_0_arm64) ;;
  win32-x64) PLATFORMS=(win_amd64) ;;
  *)
    echo "bundle.sh: unknown target '$TARGET'" >&2
    exit 2
    ;;
esac

log() { printf '[vsix bundle %s] %s\n' "$TARGET" "$*" >&2; }

# pip prints a warning for every machine-configured local index that is absent: noise here
pip_quiet() {
  "$PYTHON" -m pip --disable-pip-version-check -q "$@" \
    2> >(grep -v "is ignored: it is neither a file nor a directory" >&2)
}

download() {
  local cache=$TOOLS/wheels/$TARGET
  local want
  want="$(sha256sum "$HERE/requirements.txt" | cut -c1-16) $PIP_PKG ${PY_VERSIONS[*]} ${PLATFORMS[*]}"
  if [ -f "$cache/.stamp" ] && [ "$(cat "$cache/.stamp")" = "$want" ]; then
    log "wheels cached in ${cache#"$ROOT"/}"
    return
  fi
  rm -rf "$cache"
  mkdir -p "$cache/deps" "$cache/pip"
  local platform_args=() v start=$SECONDS
  for p in "${PLATFORMS[@]}"; do platform_args+=(--platform "$p"); done
  for v in "${PY_VERSIONS[@]}"; do
    # --no-deps: requirements.txt pins the whole tree; the first start proves it complete
    pip_quiet download --only-binary=:all: --no-deps "${platform_args[@]}" \
      --python-version "$v" --implementation cp -r "$HERE/requirements.txt" -d "$cache/deps"
  done
  pip_quiet download --only-binary=:all: --no-deps "$PIP_PKG" -d "$cache/pip"
  echo "$want" >"$cache/.stamp"
  log "downloaded $(ls "$cache/deps" | wc -l) wheels in $((SECONDS - start)) s"
}

main() {
  download
  local cache=$TOOLS/wheels/$TARGET out=$EXT/bundled
  rm -rf "$out"
  mkdir -p "$out/wheels" "$out/pip"
  cp "$cache/deps/"*.whl "$out/wheels/"
  cp "$cache/pip/"*.whl "$out/pip/"
  local start=$SECONDS
  pip_quiet wheel --no-deps -w "$out/wheels" "$ROOT"
  log "built the panic-lens wheel in $((SECONDS - start)) s"
  "$PYTHON" - "$out" "$TARGET" "${PY_VERSIONS[@]}" <<'PY'
import hashlib, json, sys
from pathlib import Path

out, target, versions = Path(sys.argv[1]), sys.argv[2], sys.argv[3:]
wheels = sorted(p.name for p in (out / "wheels").glob("*.whl"))
[ours] = [w for w in wheels if w.startswith("panic_lens-")]
[pip] = [p.name for p in (out / "pip").glob("pip-*.whl")]
digest = hashlib.sha256()
for folder, names in (("wheels", wheels), ("pip", [pip])):
    for name in names:
        digest.update(name.encode() + b"\0" + (out / folder / name).read_bytes())
manifest = {
    # the extension compares these with the machine and the user's Python before installing
    "target": target,
    "pythonVersions": versions,
    "panicLensVersion": ours.split("-")[1],
    "pip": pip,
    "wheels": wheels,
    # names the private environment: a new bundle gets a new one
    "id": digest.hexdigest()[:16],
}
(out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
PY
  log "$(ls "$out/wheels" | wc -l) wheels, $(du -sh "$out" | cut -f1) in ${out#"$ROOT"/}"
}

main
