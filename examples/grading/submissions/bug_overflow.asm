; Bug: tests the sign of $1 - $2, which is wrong when the subtraction overflows
; (for example $1 = 2147483647, $2 = -1).
sub $4, $1, $2
slt $5, $4, $0        ; $5 = 1 when $1 - $2 < 0
beq $5, $0, first
add $3, $2, $0
jr $31
first:
add $3, $1, $0
jr $31
