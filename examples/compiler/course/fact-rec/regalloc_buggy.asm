.import print
    lis $4
    .word 4
    sw $31, -4($30)
    sub $30, $30, $4
    add $12, $1, $0
    add $13, $2, $0
    add $6, $0, $0
    add $1, $12, $0
    add $2, $6, $0
    lis $3
    .word P0
    jalr $3
    add $5, $3, $0
    add $1, $5, $0
    lis $3
    .word print
    jalr $3
    add $6, $0, $0
    add $1, $13, $0
    add $2, $6, $0
    lis $3
    .word P0
    jalr $3
    add $5, $3, $0
    add $1, $5, $0
    lis $3
    .word print
    jalr $3
    add $5, $0, $0
    add $3, $5, $0
    add $30, $30, $4
    lw $31, -4($30)
    jr $31
P0:
    sw $1, -4($30)
    sw $2, -8($30)
    sw $5, -12($30)
    sw $6, -16($30)
    sw $7, -20($30)
    sw $13, -24($30)
    sw $14, -28($30)
    sw $31, -32($30)
    lis $3
    .word 32
    sub $30, $30, $3
    add $12, $1, $0
    add $13, $2, $0
    add $14, $0, $0
    lis $6
    .word 12
    slt $3, $6, $12
    bne $3, $0, r1
    beq $0, $0, r2
r1:
    lis $5
    .word 12
    add $12, $5, $0
r2:
    lis $6
    .word 1
    slt $3, $6, $12
    beq $3, $0, r3
    lis $7
    .word 1
    sub $6, $12, $7
    add $1, $6, $0
    add $2, $13, $0
    lis $3
    .word P0
    jalr $3
    add $6, $3, $0
    mult $12, $6
    mflo $5
    add $14, $5, $0
    beq $0, $0, r4
r3:
    lis $5
    .word 1
    add $14, $5, $0
r4:
    add $3, $14, $0
    lis $31
    .word 32
    add $30, $30, $31
    lw $1, -4($30)
    lw $2, -8($30)
    lw $5, -12($30)
    lw $6, -16($30)
    lw $7, -20($30)
    lw $13, -24($30)
    lw $14, -28($30)
    lw $31, -32($30)
    jr $31
