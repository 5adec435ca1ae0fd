; hand-encoded words, labels, literals, hex and negative numbers
start: lis $4
.word end
.word 0x00221820   # add $3, $1, $2
a: b: beq $1, $2, a
bne $0,$0,-1
lw $5, -4($30)
sw $5, 0x10($30)
mult $1,$2
multu $1,$2
div $1,$2
divu $1,$2
mfhi $6
mflo $7
slt $8,$1,$2
sltu $9,$1,$2
sub $10,$1,$2
jalr $4
lis$31
.word 0xFFFFFFFF
.word -2147483648
end: jr $31
