; Wrong: the base case returns 1 for n < 2, so fib(0) comes out 1 (and every other
; value is fib(n + 1)).
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

fib:    slt $5, $11, $1
        bne $5, $0, rec
        add $3, $11, $0     ; should be n
        jr $31
rec:    sw $31, -4($30)
        sw $1, -8($30)
        sw $6, -12($30)
        lis $5
        .word 12
        sub $30, $30, $5
        sub $1, $1, $11
        jalr $12
        add $6, $3, $0
        sub $1, $1, $11
        jalr $12
        add $3, $3, $6
        lis $5
        .word 12
        add $30, $30, $5
        lw $31, -4($30)
        lw $1, -8($30)
        lw $6, -12($30)
        jr $31
