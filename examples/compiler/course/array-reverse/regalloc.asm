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
    lis $6
    .word 1
    sub $5, $13, $6
    add $15, $5, $0
    beq $0, $0, r2
r1:
    add $5, $14, $14
    add $5, $5, $5
    add $5, $12, $5
    lw $5, 0($5)
    add $16, $5, $0
    add $5, $14, $14
    add $5, $5, $5
    add $5, $12, $5
    add $6, $15, $15
    add $6, $6, $6
    add $6, $12, $6
    lw $6, 0($6)
    sw $6, 0($5)
    add $5, $15, $15
    add $5, $5, $5
    add $5, $12, $5
    sw $16, 0($5)
    lis $6
    .word 1
    add $5, $14, $6
    add $14, $5, $0
    lis $6
    .word 1
    sub $5, $15, $6
    add $15, $5, $0
r2:
    slt $3, $14, $15
    bne $3, $0, r1
    add $5, $0, $0
    add $14, $5, $0
    beq $0, $0, r4
r3:
    add $5, $14, $14
    add $5, $5, $5
    add $5, $12, $5
    lw $5, 0($5)
    add $1, $5, $0
    lis $3
    .word print
    jalr $3
    lis $6
    .word 1
    add $5, $14, $6
    add $14, $5, $0
r4:
    slt $3, $14, $13
    bne $3, $0, r3
    add $3, $13, $0
    add $30, $30, $4
    lw $31, -4($30)
    jr $31
