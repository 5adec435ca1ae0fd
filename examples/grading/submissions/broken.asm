; Does not assemble: slt needs three registers.
slt $4, $1
beq $4, $0, first
add $3, $2, $0
jr $31
first:
add $3, $1, $0
jr $31
