; $3 = $1 + $2 (wrapping), by counting $1 down one at a time.
; Runs $1 trips: up to 2^32 - 1.
        add $3, $0, $0      ; s = 0
        add $4, $1, $0      ; k = $1
        lis $6
        .word 1
loop:   beq $4, $0, done
        add $3, $3, $6      ; s += 1
        sub $4, $4, $6      ; k -= 1
        beq $0, $0, loop
done:   add $3, $3, $2  ; s += $2
        jr $31
