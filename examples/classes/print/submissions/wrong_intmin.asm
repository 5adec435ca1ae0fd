; Wrong for INT_MIN only: prints '-' and then the digits of -n, but -INT_MIN is
; INT_MIN again, whose remainders are negative: the digits come out as other bytes.
        lis $10
        .word 0xFFFF000C
        lis $11
        .word 10
        lis $12
        .word 48
        lis $13
        .word 4
        add $5, $1, $0
        slt $6, $5, $0
        beq $6, $0, digits
        lis $7
        .word 45
        sw $7, 0($10)
        sub $5, $0, $5        ; n = -n (overflows for INT_MIN)
digits: add $8, $30, $0
dloop:  div $5, $11
        mflo $5
        mfhi $7
        add $7, $12, $7       ; '0' + r
        sub $8, $8, $13
        sw $7, 0($8)
        bne $5, $0, dloop
ploop:  lw $7, 0($8)
        sw $7, 0($10)
        add $8, $8, $13
        bne $8, $30, ploop
        sw $11, 0($10)
        jr $31
