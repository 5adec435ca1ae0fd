; Wrong for negative numbers: prints $1 read as unsigned (divu, no sign), so -1
; prints as 4294967295.
        lis $10
        .word 0xFFFF000C
        lis $11
        .word 10
        lis $12
        .word 48
        lis $13
        .word 4
        add $5, $1, $0
        add $8, $30, $0
dloop:  divu $5, $11
        mflo $5
        mfhi $7
        add $7, $7, $12
        sub $8, $8, $13
        sw $7, 0($8)
        bne $5, $0, dloop
ploop:  lw $7, 0($8)
        sw $7, 0($10)
        add $8, $8, $13
        bne $8, $30, ploop
        sw $11, 0($10)
        jr $31
