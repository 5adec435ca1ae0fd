; $3 = $1 * $2 (wrapping), by a loop inside a loop, both counting up:
; for i < $1, for j < $2, s += 1. Up to 2^64 - 2^33 + 1 trips of the inner loop.
        add $3, $0, $0      ; s = 0
        add $4, $0, $0      ; i = 0
        lis $6
        .word 1
outer:  beq $4, $1, done
        add $5, $0, $0      ; j = 0
inner:  beq $5, $2, next
        add $3, $3, $6      ; s += 1
        add $5, $5, $6      ; j += 1
        beq $0, $0, inner
next:   add $4, $4, $6      ; i += 1
        beq $0, $0, outer
done:   jr $31
