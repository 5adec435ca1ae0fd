; Digit extraction without remainders: q = m / 10 and the digit is m - 10*q; the
; digits are pushed on the stack ($30 moved and restored), then popped and printed.
        lis $10
        .word 0xFFFF000C
        lis $11
        .word 10
        lis $12
        .word 48
        lis $13
        .word 4
        add $20, $30, $0      ; remember the stack pointer
        add $5, $1, $0
        slt $6, $0, $5        ; positive?
        beq $6, $0, nonpos
        sub $5, $0, $5        ; m = -n <= 0
        beq $0, $0, push
nonpos: beq $5, $0, push
        lis $7
        .word 45
        sw $7, 0($10)
push:   div $5, $11
        mflo $16              ; q
        mult $16, $11
        mflo $17              ; 10q
        sub $7, $17, $5       ; 10q - m = -(m - 10q), in 0..9
        add $7, $7, $12
        sub $30, $30, $13
        sw $7, 0($30)
        add $5, $16, $0
        bne $5, $0, push
pop:    lw $7, 0($30)
        add $30, $30, $13
        sw $7, 0($10)
        bne $30, $20, pop
        sw $11, 0($10)
        jr $31
