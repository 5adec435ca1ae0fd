; Digits by descending powers of ten, from 10^9 down, leading zeros skipped (the last
; digit is always printed). Works on m = -|n| <= 0 so that INT_MIN fits.
        lis $10
        .word 0xFFFF000C
        lis $11
        .word 10
        lis $12
        .word 48
        lis $15
        .word 1
        add $5, $1, $0
        slt $6, $5, $0
        bne $6, $0, neg
        sub $5, $0, $5
        beq $0, $0, start
neg:    lis $7
        .word 45
        sw $7, 0($10)
start:  lis $9
        .word 1000000000      ; p
        add $14, $0, $0       ; printed anything yet?
loop:   div $5, $9
        mflo $7               ; q = m / p, in -9..0
        mfhi $5               ; m = m % p
        bne $7, $0, emit
        bne $14, $0, emit
        beq $9, $15, emit     ; p = 1: the last digit, even 0
        beq $0, $0, next
emit:   sub $7, $12, $7       ; '0' - q
        sw $7, 0($10)
        add $14, $15, $0
next:   beq $9, $15, done
        div $9, $11
        mflo $9
        beq $0, $0, loop
done:   sw $11, 0($10)
        jr $31
