.import print
    lis $4
    .word 4
    sw $31, -4($30)
    sub $30, $30, $4
    add $12, $1, $0
    add $13, $2, $0
    add $14, $0, $0
    add $15, $0, $0
    add $16, $0, $0
    add $14, $12, $0
    add $15, $13, $0
    beq $0, $0, r2
r1:
    div $14, $15
    mfhi $5
    add $16, $5, $0
    add $14, $15, $0
    add $15, $16, $0
r2:
    add $6, $0, $0
    bne $15, $6, r1
    add $1, $14, $0
    lis $3
    .word print
    jalr $3
    add $3, $14, $0
    add $30, $30, $4
    lw $31, -4($30)
    jr $31
