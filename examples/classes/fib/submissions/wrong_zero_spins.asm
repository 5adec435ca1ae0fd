; Wrong: a loop whose counter starts at n - 1 and is tested after the body (n rounds),
; so for n = 0 the counter starts at -1 and the loop runs about 4 billion times (out of fuel
; at any fuel where the reference ends); right for 1 <= n <= 12.
        lis $11
        .word 1
        add $3, $0, $0      ; a = fib(0)
        add $5, $11, $0     ; b = fib(1)
        sub $6, $1, $11     ; i = n - 1
loop:   add $7, $3, $5
        add $3, $5, $0
        add $5, $7, $0
        beq $6, $0, done
        sub $6, $6, $11
        beq $0, $0, loop
done:   jr $31              ; after n rounds a is fib(n)
