add $3, $1
bogus $1
x: x:
beq $1, $2, 40000
.word 0x1FFFFFFFF
lw $1, 3($99)
été: jr $31
