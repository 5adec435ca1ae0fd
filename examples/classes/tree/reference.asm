; The tree task: $3 = the height of the binary tree in the array at $1 of $2 words
; (one pair per node: its left and right children's indices, -1 for none; node 0 is
; the root; the empty array is the empty tree, of height 0). Recursive.
        lis $4
        .word 4
        lis $11
        .word 1
        lis $12
        .word height
        add $3, $0, $0
        beq $2, $0, end
        sw $31, -4($30)
        sub $30, $30, $4
        add $5, $0, $0       ; the root
        jalr $12
        add $30, $30, $4
        lw $31, -4($30)
end:    jr $31

; $3 = the height of the subtree at node $5 (0 for -1).
height: lis $6
        .word -1
        bne $5, $6, inner
        add $3, $0, $0
        jr $31
inner:  sw $31, -4($30)
        sw $5, -8($30)
        lis $6
        .word 12
        sub $30, $30, $6
        lis $6
        .word 8
        mult $5, $6
        mflo $7
        add $7, $7, $1
        lw $5, 0($7)         ; the left child
        jalr $12
        sw $3, 0($30)
        lw $5, 4($30)
        lis $6
        .word 8
        mult $5, $6
        mflo $7
        add $7, $7, $1
        lw $5, 4($7)         ; the right child
        jalr $12
        lw $8, 0($30)
        slt $9, $8, $3
        bne $9, $0, right
        add $3, $8, $0
right:  add $3, $3, $11
        lis $6
        .word 12
        add $30, $30, $6
        lw $31, -4($30)
        jr $31
