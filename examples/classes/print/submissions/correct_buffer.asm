; Iterative with a buffer in the program's data: the digits of |n| are written from
; the end of the buffer backward (unsigned division, so |INT_MIN| = 2^31 works), then
; the sign and the buffer are printed forward.
        lis $10
        .word 0xFFFF000C
        lis $11
        .word 10
        lis $12
        .word 48
        lis $13
        .word 4
        lis $8
        .word bufend          ; q = one past the buffer
        add $5, $1, $0
        slt $9, $5, $0        ; negative?
        beq $9, $0, fill
        sub $5, $0, $5        ; |n| as unsigned (INT_MIN stays 0x80000000 = 2^31)
fill:   divu $5, $11
        mflo $5
        mfhi $7
        add $7, $7, $12
        sub $8, $8, $13
        sw $7, 0($8)
        bne $5, $0, fill
        beq $9, $0, print
        lis $7
        .word 45
        sw $7, 0($10)
print:  lis $6
        .word bufend
out:    lw $7, 0($8)
        sw $7, 0($10)
        add $8, $8, $13
        bne $8, $6, out
        sw $11, 0($10)
        jr $31
buf:    .word 0
        .word 0
        .word 0
        .word 0
        .word 0
        .word 0
        .word 0
        .word 0
        .word 0
        .word 0
        .word 0
        .word 0
bufend:
