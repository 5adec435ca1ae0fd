; Fibonacci F(n) for n = $1 in 0..=12 (F(0) = 0, F(1) = 1); 0 when n is outside
; 0..=12. Recursive: F(n) = F(n - 1) + F(n - 2) for n >= 2, with a three-word frame
; on the stack ($30) and jalr. Result in $3.
      lis $11
      .word 1
      lis $12
      .word 2
      lis $13
      .word 12            ; the bound
      lis $14
      .word fib
      lis $4
      .word 4
      lis $16
      .word 12            ; frame size
      add $3, $0, $0
      slt $6, $1, $0      ; n < 0 ?
      bne $6, $0, done
      slt $6, $13, $1     ; 12 < n ?
      bne $6, $0, done
      sw $31, -4($30)
      sub $30, $30, $4
      jalr $14            ; $3 = fib($1)
      add $30, $30, $4
      lw $31, -4($30)
done: jr $31

; fib(n = $1) -> $3; keeps $1.
; Frame: 0($30) F(n - 1), 4($30) n, 8($30) the return address.
fib:  slt $6, $1, $12     ; n < 2 ?
      beq $6, $0, rec
      add $3, $1, $0      ; F(0) = 0, F(1) = 1
      jr $31
rec:  sub $30, $30, $16
      sw $31, 8($30)
      sw $1, 4($30)
      sub $1, $1, $11
      jalr $14            ; $3 = F(n - 1)
      sw $3, 0($30)
      sub $1, $1, $11
      jalr $14            ; $3 = F(n - 2)
      lw $7, 0($30)
      add $3, $3, $7
      lw $1, 4($30)
      lw $31, 8($30)
      add $30, $30, $16
      jr $31
