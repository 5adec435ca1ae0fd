#!/usr/bin/env bash
# Installs what building tamarin needs beyond a Rust toolchain, on Debian or Ubuntu:
#
# - Z3 5.4.1, the library of the `z3-solver` wheel (no compiling), unpacked into `.z3/`
#   in this checkout, and `.cargo/config.toml` written so that cargo links it by path,
#   with a run path, so the binaries and tests find it without LD_LIBRARY_PATH. Z3 5.4
#   proves more of the benchmarks, faster, than Debian's 4.8.12, and it keeps to its
#   deterministic resource limit where 4.8.12 does not (docs/benchmarks-history.md, "Z3 4.8.12 and
#   5.4.1 on the proof corpus").
# - pip, a C linker, and (only when the wheel cannot be had) Debian's libz3-dev with
#   pkg-config, which cargo then links instead.
#
# Installs only what is missing; works as root (CI) and as a user with sudo.
# TAMARIN_SYSTEM_Z3=1 skips the wheel and links Debian's libz3-dev (Z3 4.8.12).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

Z3_WHEEL_VERSION=5.4.1.0
Z3_VERSION=5.4.1

if ! command -v cargo >/dev/null 2>&1; then
    echo "setup: cargo not found; install Rust stable first: https://rustup.rs" >&2
    exit 1
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
    sudo=(sudo)
fi
updated=0
apt_install() {
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "setup: please install $* with your package manager" >&2
        exit 1
    fi
    echo "setup: installing $*"
    if [ "$updated" = 0 ]; then
        "${sudo[@]}" apt-get update -qq
        updated=1
    fi
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@"
}

if ! command -v cc >/dev/null 2>&1; then
    apt_install build-essential
fi

# The MIPS32 profile's oracles, which its tests use: gcc's MIPS cross compiler and
# binutils, and qemu-mips. Optional for the tool itself.
if ! command -v mips-linux-gnu-gcc >/dev/null 2>&1 || ! command -v qemu-mips >/dev/null 2>&1; then
    apt_install gcc-mips-linux-gnu binutils-mips-linux-gnu qemu-user ||
        echo "setup: gcc-mips-linux-gnu or qemu-user could not be installed; the MIPS32 tests need them" >&2
fi

# The wheel's library, unpacked into .z3/ (pip --target installs nothing elsewhere).
wheel_z3() {
    local lib=$root/.z3/z3/lib
    if [ -f "$lib/libz3.so" ] && [ "$(cat "$root/.z3/VERSION" 2>/dev/null)" = "$Z3_WHEEL_VERSION" ]; then
        return 0
    fi
    if ! python3 -m pip --version >/dev/null 2>&1; then
        apt_install python3-pip || return 1
    fi
    rm -rf "$root/.z3"
    local pip=(python3 -m pip install -q --no-deps --only-binary=:all: --target "$root/.z3"
        "z3-solver==$Z3_WHEEL_VERSION")
    # Debian's own Python refuses installs outside a virtual environment; with
    # --target nothing of the system is touched, so that guard does not apply.
    "${pip[@]}" 2>/dev/null || "${pip[@]}" --break-system-packages || return 1
    [ -f "$lib/libz3.so" ] || return 1
    echo "$Z3_WHEEL_VERSION" >"$root/.z3/VERSION"
}

write_cargo_config() {
    local lib=$root/.z3/z3/lib
    mkdir -p .cargo
    cat >.cargo/config.toml <<EOF
# Written by scripts/setup.sh: link the z3-solver wheel's Z3 $Z3_VERSION from .z3/ by
# path, with a run path so that binaries, tests and doctests find it. Delete this file
# (or run setup with TAMARIN_SYSTEM_Z3=1) to link the system's libz3 instead.
[env]
Z3_NO_PKG_CONFIG = "1"
Z3_LIBRARY_PATH_OVERRIDE = "$lib"
Z3_SYS_Z3_VERSION = "$Z3_VERSION"

[build]
rustflags = ["-C", "link-arg=-Wl,-rpath,$lib"]
rustdocflags = ["-C", "link-arg=-Wl,-rpath,$lib"]
EOF
}

if [ "${TAMARIN_SYSTEM_Z3:-0}" != 1 ] && wheel_z3; then
    write_cargo_config
    echo "setup: Z3 $Z3_VERSION (z3-solver wheel) in .z3/, linked by .cargo/config.toml"
    exit 0
fi

if [ "${TAMARIN_SYSTEM_Z3:-0}" != 1 ]; then
    echo "setup: the z3-solver wheel could not be installed; falling back to Debian's libz3-dev" >&2
fi
rm -f .cargo/config.toml
if ! command -v pkg-config >/dev/null 2>&1; then
    apt_install pkg-config libz3-dev
elif ! pkg-config --exists z3; then
    apt_install libz3-dev
fi
echo "setup: system Z3 $(pkg-config --modversion z3) linked through pkg-config"
