; Number of negative elements of the array at $1 with $2 elements: a forward scan
; adding slt(x, 0) for each element. Result in $3.
      lis $4
      .word 4
      add $3, $0, $0      ; count = 0
      add $5, $1, $0      ; p = base
      mult $2, $4
      mflo $8
      add $8, $1, $8      ; end = base + 4*len
loop: beq $5, $8, done
      lw $7, 0($5)
      slt $6, $7, $0      ; x < 0 ?
      add $3, $3, $6
      add $5, $5, $4
      beq $0, $0, loop
done: jr $31
