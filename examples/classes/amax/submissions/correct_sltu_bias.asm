; Correct: compares with sltu after adding 0x80000000 to both sides (which flips the
; sign bit and turns the signed order into the unsigned one), and keeps the biased
; maximum until the end.
        lis $4
        .word 4
        lis $9
        .word 0x80000000      ; the bias
        add $3, $0, $0        ; biased m = 0, i.e. INT_MIN
        add $5, $1, $0
        mult $2, $4
        mflo $8
        add $8, $8, $1
loop:   beq $5, $8, done
        lw $7, 0($5)
        add $7, $7, $9        ; biased x
        add $5, $5, $4
        sltu $6, $3, $7
        beq $6, $0, loop
        add $3, $7, $0
        beq $0, $0, loop
done:   sub $3, $3, $9        ; unbias
        jr $31
