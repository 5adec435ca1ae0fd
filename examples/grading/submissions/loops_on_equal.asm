; Loops forever when $1 == $2 (it waits for them to differ); right otherwise. Under
; grade's default `--out-of-fuel different` it is wrong (the reference ends on $1 ==
; $2); under `--out-of-fuel same`, the report's rule, a run out of fuel is never a
; difference and it is not found wrong.
wait:
beq $1, $2, wait
slt $4, $1, $2
beq $4, $0, first
add $3, $2, $0
jr $31
first:
add $3, $1, $0
jr $31
