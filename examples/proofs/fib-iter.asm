; Fibonacci F(n) for n = $1 in 0..=12 (F(0) = 0, F(1) = 1); 0 when n is outside
; 0..=12. Iterative: (a, b) = (0, 1), then n times (a, b) = (b, a + b); the result
; is a. Result in $3.
      lis $11
      .word 1
      lis $13
      .word 12            ; the bound
      add $3, $0, $0
      slt $6, $1, $0      ; n < 0 ?
      bne $6, $0, done
      slt $6, $13, $1     ; 12 < n ?
      bne $6, $0, done
      add $7, $0, $0      ; a = F(0)
      add $8, $11, $0     ; b = F(1)
      add $9, $1, $0      ; c = n
loop: beq $9, $0, end
      add $10, $7, $8     ; t = a + b
      add $7, $8, $0      ; a = b
      add $8, $10, $0     ; b = t
      sub $9, $9, $11
      beq $0, $0, loop
end:  add $3, $7, $0      ; F(n) = a
done: jr $31
