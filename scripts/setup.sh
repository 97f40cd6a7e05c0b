#!/usr/bin/env bash
# setup.sh - takes a fresh Debian 12 machine to a full toolgate build:
# Debian packages, npm packages, and cJSON's pinned source for the wasm builds.
# Idempotent; prints nothing but a final line when everything is present.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(cmake make gcc pkg-config valgrind libcjson-dev dpkg-dev python3
  emscripten node-acorn clang-14 lld-14 libclang-rt-14-dev wasi-libc libclang-rt-14-dev-wasm32 binaryen wabt
  chromium fonts-dejavu-core)
# cJSON: the Debian source package matching libcjson-dev (same patches as native).
CJSON_VERSION="1.7.15-1+deb12u4"
CJSON_SHA256=(
  "764c2de141d680f4fb4cada30c526dacaa30ead061b9b9c34f2b81e2df0f8439  cjson_1.7.15-1+deb12u4.dsc"
  "5308fd4bd90cef7aa060558514de6a1a4a0819974a26e6ed13973c5f624c24b2  cjson_1.7.15.orig.tar.gz"
  "afd19a970966cf534ff1e9ec077d710a5e7e78eb4ec9b499c8bdc32e55da12cb  cjson_1.7.15-1+deb12u4.debian.tar.xz"
)
DEPS=.deps
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi

log() { echo "setup: $*"; }

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -f "$DEPS/cjson/include/cjson/cJSON.h" ]; then
  # A deb-src entry derived from the machine's own apt sources (no host named here).
  src_list=/etc/apt/sources.list.d/toolgate-deb-src.sources
  if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ && ! grep -qs '^deb-src' /etc/apt/sources.list; then
    log "adding deb-src entries derived from the machine's apt sources"
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
      sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources | $SUDO tee "$src_list" >/dev/null
    else
      grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' | $SUDO tee /etc/apt/sources.list.d/toolgate-deb-src.list >/dev/null
    fi
    $SUDO apt-get update -qq
  fi
  log "fetching cJSON source $CJSON_VERSION"
  work="$DEPS/cjson-src"
  rm -rf "$work" && mkdir -p "$work"
  (cd "$work" && apt-get source --download-only "cjson=$CJSON_VERSION" >/dev/null 2>&1)
  (cd "$work" && printf '%s\n' "${CJSON_SHA256[@]}" | sha256sum --check --quiet)
  (cd "$work" && dpkg-source --no-check -x "cjson_${CJSON_VERSION}.dsc" tree >/dev/null)
  rm -rf "$DEPS/cjson" && mkdir -p "$DEPS/cjson/include/cjson"
  cp "$work/tree/cJSON.c" "$DEPS/cjson/"
  cp "$work/tree/cJSON.h" "$DEPS/cjson/include/cjson/"
  cp "$work/tree/LICENSE" "$DEPS/cjson/"
  rm -rf "$work"
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  log "installing npm packages"
  npm ci --no-audit --no-fund --loglevel=error >/dev/null
fi
log "ready"
