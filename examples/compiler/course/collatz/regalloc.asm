.import print
    lis $4
    .word 4
    sw $31, -4($30)
    sub $30, $30, $4
    add $12, $1, $0
    add $13, $2, $0
    add $14, $0, $0
    add $15, $0, $0
    add $14, $12, $0
    lis $6
    .word 1
    slt $3, $14, $6
    bne $3, $0, r1
    beq $0, $0, r2
r1:
    lis $5
    .word 1
    add $14, $5, $0
r2:
    lis $6
    .word 100
    slt $3, $6, $14
    bne $3, $0, r3
    beq $0, $0, r4
r3:
    lis $5
    .word 100
    add $14, $5, $0
r4:
    beq $0, $0, r6
r5:
    lis $6
    .word 2
    div $14, $6
    mfhi $5
    add $6, $0, $0
    beq $5, $6, r7
    lis $5
    .word 3
    mult $5, $14
    mflo $5
    lis $6
    .word 1
    add $5, $5, $6
    add $14, $5, $0
    beq $0, $0, r8
r7:
    lis $6
    .word 2
    div $14, $6
    mflo $5
    add $14, $5, $0
r8:
    lis $6
    .word 1
    add $5, $15, $6
    add $15, $5, $0
r6:
    lis $6
    .word 1
    bne $14, $6, r5
    add $1, $15, $0
    lis $3
    .word print
    jalr $3
    add $3, $14, $0
    add $30, $30, $4
    lw $31, -4($30)
    jr $31
