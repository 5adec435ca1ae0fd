; Like up.asm, except on the trip where i = 3,000,000: that trip adds 4, so the
; result differs from 3 * $1 for every $1 above 3,000,000, and only there.
        add $3, $0, $0      ; s = 0
        add $4, $0, $0      ; i = 0
        lis $5
        .word 3
        lis $6
        .word 1
        lis $10
        .word 3000000
loop:   beq $4, $1, done
        add $3, $3, $5      ; s += 3
        bne $4, $10, next
        add $3, $3, $6      ; the needle: one more
next:   add $4, $4, $6      ; i += 1
        beq $0, $0, loop
done:   jr $31
