; The domain of the tree task: $3 = 1 when the array at $1 of $2 words is a valid
; binary tree, else 0. The array holds one pair of words per node, its left and right
; children's indices (-1: none); node 0 is the root. Valid: an even length, every
; child an index of a node (or -1), the root nobody's child and every other node the
; child of exactly one, and every node reached from the root.
;
; Written for the merged encoding: every loop runs over node indices and every
; address is a fixed place (a mark per node below $30), never one computed from the
; inputs; the facts are added up without branches (sltu), so one encoding holds
; every tree.
        lis $4
        .word 4
        lis $11
        .word 1
        lis $10
        .word -1
        lis $17
        .word 0x10000        ; parent counts 64 KiB below the reached marks
        add $3, $0, $0
        lis $5
        .word 2
        divu $2, $5
        mflo $6              ; n, the nodes
        mfhi $7
        bne $7, $0, done     ; an odd length is no tree
        add $20, $11, $0     ; ok so far
        sub $21, $30, $17    ; counts: count[j] at -4-4j($21); reached[j] at -4-4j($30)

; Every child is -1 or a node, and counts its parent.
        add $12, $0, $0      ; word index k over the 2n children
kids:   sltu $7, $12, $2
        beq $7, $0, kidsdone
        mult $12, $4
        mflo $7
        add $7, $7, $1
        lw $8, 0($7)         ; c, a child
        sub $9, $8, $10
        sltu $9, $0, $9
        sub $9, $11, $9      ; c == -1
        sltu $13, $8, $6     ; c is a node
        add $9, $9, $13
        sltu $9, $0, $9      ; either
        add $9, $9, $20
        sltu $20, $11, $9    ; ok = ok and either
        add $14, $0, $0      ; j over the nodes
count:  beq $14, $6, counted
        sub $9, $8, $14
        sltu $9, $0, $9
        sub $9, $11, $9      ; c == j
        mult $14, $4
        mflo $13
        sub $13, $21, $13
        lw $15, -4($13)
        add $15, $15, $9
        sw $15, -4($13)
        add $14, $14, $11
        beq $0, $0, count
counted: add $12, $12, $11
        beq $0, $0, kids
kidsdone:

; Reached from the root: n rounds, each marking the children of every reached node.
        beq $6, $0, check
        sw $11, -4($30)      ; the root
        add $16, $0, $0      ; round
round:  beq $16, $6, check
        add $12, $0, $0      ; word index k of a child; its parent is k / 2
edges:  beq $12, $2, edged
        divu $12, $5
        mflo $13
        mult $13, $4
        mflo $13
        sub $13, $30, $13
        lw $18, -4($13)      ; the parent is reached
        mult $12, $4
        mflo $7
        add $7, $7, $1
        lw $8, 0($7)         ; c
        add $14, $0, $0
mark:   beq $14, $6, marked
        sub $9, $8, $14
        sltu $9, $0, $9
        sub $9, $11, $9      ; c == j
        add $9, $9, $18
        sltu $9, $11, $9     ; and the parent is reached
        mult $14, $4
        mflo $13
        sub $13, $30, $13
        lw $15, -4($13)
        add $15, $15, $9
        sltu $15, $0, $15    ; reached[j] or that
        sw $15, -4($13)
        add $14, $14, $11
        beq $0, $0, mark
marked: add $12, $12, $11
        beq $0, $0, edges
edged:  add $16, $16, $11
        beq $0, $0, round

; Every node reached, the root without a parent, every other node with one.
check:  add $14, $0, $0
final:  beq $14, $6, decide
        mult $14, $4
        mflo $13
        sub $7, $30, $13
        lw $15, -4($7)       ; reached
        add $15, $15, $20
        sltu $20, $11, $15
        sub $7, $21, $13
        lw $15, -4($7)       ; parents
        sltu $9, $0, $14     ; 1 but for the root
        sub $15, $15, $9
        sltu $15, $0, $15
        sub $15, $11, $15    ; parents as they should be
        add $15, $15, $20
        sltu $20, $11, $15
        add $14, $14, $11
        beq $0, $0, final
decide: add $3, $20, $0
done:   jr $31
