; Bug: compares without sign (sltu), so a negative number counts as larger than any
; positive one.
sltu $4, $1, $2
beq $4, $0, first
add $3, $2, $0
jr $31
first:
add $3, $1, $0
jr $31
