; Wrong: advances the pointer only when it takes a new maximum, so it spins forever
; on the first element that is not larger than the maximum so far (such as [1, 0]);
; arrays that strictly increase come out right.
      lis $4
      .word 4
      lis $3
      .word 0x80000000
      add $5, $1, $0
      mult $2, $4
      mflo $8
      add $8, $1, $8
loop: beq $5, $8, done
      lw $7, 0($5)
      slt $6, $3, $7
      beq $6, $0, loop    ; not larger: tries the same element again
      add $3, $7, $0
      add $5, $5, $4
      beq $0, $0, loop
done: jr $31
