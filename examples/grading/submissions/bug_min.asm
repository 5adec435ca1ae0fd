; Bug: the branch is the wrong way round, so it returns the smaller number.
slt $4, $1, $2
bne $4, $0, first
add $3, $2, $0
jr $31
first:
add $3, $1, $0
jr $31
