; Like unrolled.asm, except on the trip where i = 3,000,000, which adds one more:
; the result differs from 3 * $1 for every $1 above 3,000,000 (and only there).
        add $3, $0, $0      ; s = 0
        add $4, $0, $0      ; i = 0
        lis $5
        .word 3
        lis $6
        .word 1
        lis $11
        .word 2
        lis $12
        .word 6
        lis $13
        .word -2
        lis $16
        .word 3000000
        add $14, $1, $0     ; m = n & ~1: n - (n mod 2)
        divu $1, $11
        mfhi $15
        sub $14, $14, $15
loop:   beq $4, $14, tail
        bne $4, $16, next
        add $3, $3, $6      ; the needle: one more when i = 3,000,000
next:   add $3, $3, $12     ; s += 6
        add $4, $4, $11     ; i += 2
        beq $0, $0, loop
tail:   beq $15, $0, done
        add $3, $3, $5      ; the odd trip
done:   jr $31
