; $3 = $1 / $2 (unsigned; 0 for $2 = 0), by subtracting $2 from $1 while it fits:
; $1 / $2 trips, up to 2^32 - 1 (compare --unbounded proves it against div-divu.asm
; with an invariant in the integers, $1 = q * $2 + r without wrap-around).
        add $3, $0, $0      ; q = 0
        beq $2, $0, done    ; no quotient by zero
        add $4, $1, $0      ; r = $1
        lis $5
        .word 1
loop:   sltu $6, $4, $2     ; r < $2?
        bne $6, $0, done
        sub $4, $4, $2      ; r -= $2
        add $3, $3, $5      ; q += 1
        beq $0, $0, loop
done:   jr $31
