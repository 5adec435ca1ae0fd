; Wrong: returns the index of the largest element instead of its value.
        lis $11
        .word 4
        lis $12
        .word 1
        lis $15
        .word 0x80000000      ; m
        add $3, $0, $0        ; the index of m
        add $9, $0, $0        ; i = 0
for:    slt $10, $9, $2
        beq $10, $0, end
        mult $9, $11
        mflo $13
        add $13, $13, $1
        lw $14, 0($13)
        slt $10, $15, $14
        beq $10, $0, next
        add $15, $14, $0
        add $3, $9, $0        ; remembers where, and returns that
next:   add $9, $9, $12
        beq $0, $0, for
end:    jr $31
