; Correct: a loop, (a, b) = (b, a + b) n times; a is fib(n).
        lis $11
        .word 1
        add $3, $0, $0      ; a = fib(0)
        add $5, $11, $0     ; b = fib(1)
        add $6, $1, $0      ; i = n
loop:   beq $6, $0, done
        add $7, $3, $5
        add $3, $5, $0
        add $5, $7, $0
        sub $6, $6, $11
        beq $0, $0, loop
done:   jr $31
