; Reference: $3 = fib($1) by naive double recursion. The procedure saves its frame
; only when it recurses: 4 steps for a base case, 20 for any other call.
        lis $4
        .word 4
        lis $11
        .word 1
        lis $12
        .word fib
        sw $31, -4($30)
        sub $30, $30, $4
        jalr $12            ; $3 = fib($1)
        add $30, $30, $4
        lw $31, -4($30)
        jr $31

; fib: $3 = fib($1); keeps $1 and $6.
fib:    slt $5, $11, $1     ; 1 < n ?
        bne $5, $0, rec
        add $3, $1, $0      ; fib(0) = 0, fib(1) = 1
        jr $31
rec:    sw $31, -4($30)
        sw $1, -8($30)
        sw $6, -12($30)
        lis $5
        .word 12
        sub $30, $30, $5
        sub $1, $1, $11     ; n - 1
        jalr $12
        add $6, $3, $0      ; fib(n - 1)
        sub $1, $1, $11     ; n - 2
        jalr $12
        add $3, $3, $6      ; fib(n - 1) + fib(n - 2)
        lis $5
        .word 12
        add $30, $30, $5
        lw $31, -4($30)
        lw $1, -8($30)
        lw $6, -12($30)
        jr $31
