; $3 = 3 * $1 (wrapping), counting up: i = 0, 1, ..., $1.
; Runs $1 trips: up to 2^32 - 1.
        add $3, $0, $0      ; s = 0
        add $4, $0, $0      ; i = 0
        lis $5
        .word 3
        lis $6
        .word 1
loop:   beq $4, $1, done
        add $3, $3, $5      ; s += 3
        add $4, $4, $6      ; i += 1
        beq $0, $0, loop
done:   jr $31
