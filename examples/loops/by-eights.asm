; $3 = $1 + $2 (wrapping), by counting $1 down eight at a time, then one at a
; time: $1 / 8 trips of one loop and $1 % 8 of another, in no fixed ratio to the
; $1 trips of by-ones.asm (compare proves the pair one run after the other).
        add $3, $0, $0      ; s = 0
        add $4, $1, $0      ; k = $1
        lis $5
        .word 8
        lis $6
        .word 1
eights: sltu $7, $4, $5     ; k < 8?
        bne $7, $0, ones
        add $3, $3, $5      ; s += 8
        sub $4, $4, $5      ; k -= 8
        beq $0, $0, eights
ones:   beq $4, $0, done
        add $3, $3, $6      ; s += 1
        sub $4, $4, $6      ; k -= 1
        beq $0, $0, ones
done:   add $3, $3, $2  ; s += $2
        jr $31
