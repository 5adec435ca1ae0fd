#!/bin/sh
# Rebuilds the objects of this directory (Debian: gcc-mips-linux-gnu).
set -eu
cd "$(dirname "$0")"
for src in divmod popcount grade extern needle loops bytes; do
    for level in O0 O2; do
        mips-linux-gnu-gcc -$level -fno-pic -mno-abicalls -fwrapv -c "$src.c" -o "$src-$level.o"
    done
done

# A class for `grade --function clamp`: the reference at -O2, each submission at -O0
# (the level a course's build might use), and one correct one at -O2 too.
mips-linux-gnu-gcc -O2 -fno-pic -mno-abicalls -fwrapv -c class/reference.c -o class/reference.o
for sub in alice bob carol dave erin; do
    mips-linux-gnu-gcc -O0 -fno-pic -mno-abicalls -fwrapv -c "class/submissions/$sub.c" \
        -o "class/submissions/$sub.o"
done
mips-linux-gnu-gcc -O2 -fno-pic -mno-abicalls -fwrapv -c class/submissions/alice.c \
    -o class/submissions/alice-O2.o

# The corpus of scripts/bench-mips32-corpus.sh.
for level in O0 O2; do
    mips-linux-gnu-gcc -$level -fno-pic -mno-abicalls -fwrapv -c corpus/functions.c \
        -o "corpus/functions-$level.o"
done
mips-linux-gnu-gcc -O0 -fno-pic -mno-abicalls -fwrapv -c corpus/changed.c -o corpus/changed-O0.o
