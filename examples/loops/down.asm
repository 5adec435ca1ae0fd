; $3 = 3 * $1 (wrapping), counting down: j = $1, ..., 1, 0.
        add $3, $0, $0      ; s = 0
        add $7, $1, $0      ; j = n
        lis $8
        .word 1
        lis $9
        .word 3
loop:   beq $7, $0, done
        sub $7, $7, $8      ; j -= 1
        add $3, $3, $9      ; s += 3
        beq $0, $0, loop
done:   jr $31
