; Reference: $3 = the largest element (signed) of the array at $1 with $2 elements,
; scanning forward from INT_MIN (the task guarantees at least one element).
      lis $4
      .word 4
      lis $3
      .word 0x80000000    ; m = INT_MIN
      add $5, $1, $0      ; p = base
      mult $2, $4
      mflo $8
      add $8, $1, $8      ; end = base + 4*len
loop: beq $5, $8, done
      lw $7, 0($5)
      add $5, $5, $4
      slt $6, $3, $7      ; m < x ?
      beq $6, $0, loop
      add $3, $7, $0      ; m = x
      beq $0, $0, loop
done: jr $31
