; $3 = 3 * $1 (wrapping), two trips of up.asm's loop per trip, then one more
; when $1 is odd.
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
        add $14, $1, $0     ; m = n & ~1: n - (n mod 2)
        divu $1, $11
        mfhi $15
        sub $14, $14, $15
loop:   beq $4, $14, tail
        add $3, $3, $12     ; s += 6
        add $4, $4, $11     ; i += 2
        beq $0, $0, loop
tail:   beq $15, $0, done
        add $3, $3, $5      ; the odd trip
done:   jr $31
