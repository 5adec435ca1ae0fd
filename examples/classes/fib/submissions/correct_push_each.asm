; Correct, and slower: the procedure pushes its frame one register at a time on
; entry, before it looks at the base case, and pops it on every exit, so every call
; pays for the frame (twice the reference's steps: 10,702 at n = 12, more than
; the default fuel of 10,000).
        lis $4
        .word 4
        lis $11
        .word 1
        lis $12
        .word fib
        sw $31, -4($30)
        sub $30, $30, $4
        jalr $12
        add $30, $30, $4
        lw $31, -4($30)
        jr $31

fib:    sw $31, -4($30)     ; push $31
        sub $30, $30, $4
        sw $1, -4($30)      ; push $1
        sub $30, $30, $4
        sw $6, -4($30)      ; push $6
        sub $30, $30, $4
        sw $7, -4($30)      ; push $7
        sub $30, $30, $4
        slt $7, $11, $1
        bne $7, $0, rec
        add $3, $1, $0
        beq $0, $0, out
rec:    sub $1, $1, $11
        jalr $12
        add $6, $3, $0
        sub $1, $1, $11
        jalr $12
        add $3, $3, $6
out:    add $30, $30, $4    ; pop $7
        lw $7, -4($30)
        add $30, $30, $4    ; pop $6
        lw $6, -4($30)
        add $30, $30, $4    ; pop $1
        lw $1, -4($30)
        add $30, $30, $4    ; pop $31
        lw $31, -4($30)
        jr $31
