.import print
    lis $4
    .word 4
    sw $31, -4($30)
    sub $30, $30, $4
    add $12, $1, $0
    add $13, $2, $0
    add $14, $0, $0
    sub $5, $12, $13
    add $14, $5, $0
    mult $12, $13
    mflo $5
    add $5, $5, $14
    add $1, $5, $0
    lis $3
    .word print
    jalr $3
    div $12, $13
    mflo $5
    add $1, $5, $0
    lis $3
    .word print
    jalr $3
    div $12, $13
    mfhi $5
    add $1, $5, $0
    lis $3
    .word print
    jalr $3
    add $5, $12, $13
    add $3, $5, $0
    add $30, $30, $4
    lw $31, -4($30)
    jr $31
