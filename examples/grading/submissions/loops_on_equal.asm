; Loops forever when $1 == $2 (it waits for them to differ); right otherwise. A run
; that never ends is out of fuel, which the comparison rules never count as a
; difference.
wait:
beq $1, $2, wait
slt $4, $1, $2
beq $4, $0, first
add $3, $2, $0
jr $31
first:
add $3, $1, $0
jr $31
