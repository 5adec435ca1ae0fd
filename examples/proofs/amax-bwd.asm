; Maximum (signed) of the array at $1 with $2 elements, scanning backward from the
; last element; the maximum of the empty array is INT_MIN (0x80000000). Result in $3.
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
