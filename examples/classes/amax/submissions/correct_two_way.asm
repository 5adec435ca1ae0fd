; Correct: a loop with the comparison's two arms each advancing the pointer, and the
; maximum kept in $9 and moved to $3 at the end.
        lis $4
        .word 4
        lis $9
        .word 0x80000000
        add $5, $1, $0
        mult $2, $4
        mflo $8
        add $8, $8, $1
loop:   beq $5, $8, done
        lw $7, 0($5)
        slt $6, $7, $9        ; x < m ?
        bne $6, $0, keep
        add $9, $7, $0        ; x >= m: take it
        add $5, $5, $4
        beq $0, $0, loop
keep:   add $5, $5, $4
        beq $0, $0, loop
done:   add $3, $9, $0
        jr $31
