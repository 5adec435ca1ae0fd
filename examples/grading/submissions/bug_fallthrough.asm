; Bug: no `jr $31` after the $2 case, so it falls through and always returns $1.
slt $4, $1, $2
beq $4, $0, first
add $3, $2, $0
first:
add $3, $1, $0
jr $31
