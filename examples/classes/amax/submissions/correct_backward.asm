; Correct: scans backward from the last element, which is the first candidate.
      lis $4
      .word 4
      lis $3
      .word 0x80000000    ; empty array: INT_MIN
      beq $2, $0, done
      mult $2, $4
      mflo $5
      add $5, $1, $5
      sub $5, $5, $4      ; p = &a[len-1]
      lw $3, 0($5)        ; m = a[len-1]
loop: beq $5, $1, done
      sub $5, $5, $4
      lw $7, 0($5)
      slt $6, $7, $3      ; x < m ?
      bne $6, $0, loop
      add $3, $7, $0      ; m = x (x >= m)
      beq $0, $0, loop
done: jr $31
