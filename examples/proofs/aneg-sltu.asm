; Number of negative elements of the array at $1 with $2 elements: a backward scan by
; index with an unsigned sign test, x < 0 <=> 0x7FFFFFFF <u x. Result in $3.
      lis $4
      .word 4
      lis $11
      .word 1
      lis $9
      .word 0x80000000
      sub $9, $9, $11     ; 0x7FFFFFFF
      add $3, $0, $0      ; count = 0
      add $6, $2, $0      ; i = len
loop: beq $6, $0, done
      sub $6, $6, $11     ; i -= 1
      mult $6, $4
      mflo $5
      add $5, $1, $5      ; p = &a[i]
      lw $7, 0($5)
      sltu $10, $9, $7    ; 0x7FFFFFFF <u x ?
      add $3, $3, $10
      beq $0, $0, loop
done: jr $31
