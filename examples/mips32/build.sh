#!/bin/sh
# Rebuilds the objects of this directory (Debian: gcc-mips-linux-gnu).
set -eu
cd "$(dirname "$0")"
for src in divmod popcount grade extern needle; do
    for level in O0 O2; do
        mips-linux-gnu-gcc -$level -fno-pic -mno-abicalls -fwrapv -c "$src.c" -o "$src-$level.o"
    done
done
