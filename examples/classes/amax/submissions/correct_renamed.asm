; Correct: the reference with its registers renamed and its labels changed.
        lis $20
        .word 4
        lis $3
        .word -2147483648
        add $21, $1, $0
        mult $2, $20
        mflo $22
        add $22, $22, $1
top:    beq $21, $22, out
        lw $23, 0($21)
        add $21, $21, $20
        slt $24, $3, $23
        beq $24, $0, top
        add $3, $23, $0
        beq $0, $0, top
out:    jr $31
