; $3 = $1 * $2 (wrapping), by a loop inside a loop, both counting down.
        add $3, $0, $0      ; s = 0
        add $7, $1, $0      ; i = $1
        lis $8
        .word 1
outer:  beq $7, $0, done
        sub $7, $7, $8      ; i -= 1
        add $9, $2, $0      ; j = $2
inner:  beq $9, $0, outer
        sub $9, $9, $8      ; j -= 1
        add $3, $3, $8      ; s += 1
        beq $0, $0, inner
done:   jr $31
