; Wrong: the digit loop tests the value before the division, so it runs once more
; than it should and pushes a leading 0: 42 prints as "042" (0 alone is right).
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
        beq $6, $0, pos
        lis $7
        .word 45
        sw $7, 0($10)
        beq $0, $0, digits
pos:    sub $5, $0, $5
digits: add $8, $30, $0
dloop:  add $9, $5, $0        ; the value before this digit
        div $5, $11
        mflo $5
        mfhi $7
        sub $7, $12, $7
        sub $8, $8, $13
        sw $7, 0($8)
        bne $9, $0, dloop     ; should test the quotient ($5)
ploop:  lw $7, 0($8)
        sw $7, 0($10)
        add $8, $8, $13
        bne $8, $30, ploop
        sw $11, 0($10)
        jr $31
