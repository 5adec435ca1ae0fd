#!/usr/bin/env bash
# Installs what building tamarin needs beyond a Rust toolchain: Z3's C library (found
# with pkg-config) and a C linker. Installs only what is missing; works as root (CI)
# and as a user with sudo. Debian/Ubuntu (apt-get).
set -euo pipefail

if ! command -v cargo >/dev/null 2>&1; then
    echo "setup: cargo not found; install Rust stable first: https://rustup.rs" >&2
    exit 1
fi

missing=()
if ! command -v pkg-config >/dev/null 2>&1; then
    missing+=(pkg-config libz3-dev)
elif ! pkg-config --exists z3; then
    missing+=(libz3-dev)
fi
if ! command -v cc >/dev/null 2>&1; then
    missing+=(build-essential)
fi

if [ "${#missing[@]}" -eq 0 ]; then
    echo "setup: nothing to install (z3 $(pkg-config --modversion z3) found)"
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "setup: please install ${missing[*]} (Z3's C library and pkg-config) with your package manager" >&2
    exit 1
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
    sudo=(sudo)
fi
echo "setup: installing ${missing[*]}"
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
