; Correct: by index, i from 0 to len - 1, the address of a[i] computed each time
; as base + 4*i with mult.
        lis $11
        .word 4
        lis $12
        .word 1
        lis $3
        .word 0x80000000
        add $9, $0, $0        ; i = 0
for:    slt $10, $9, $2       ; i < len ?
        beq $10, $0, end
        mult $9, $11
        mflo $13
        add $13, $13, $1      ; &a[i]
        lw $14, 0($13)
        slt $10, $3, $14
        beq $10, $0, next
        add $3, $14, $0
next:   add $9, $9, $12
        beq $0, $0, for
end:    jr $31
