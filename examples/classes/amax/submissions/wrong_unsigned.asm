; Wrong: compares with sltu, so a negative element beats every non-negative one
; (and INT_MIN, read as 2^31, is never replaced by a non-negative one).
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
      sltu $6, $3, $7     ; m < x ? (unsigned: wrong)
      beq $6, $0, loop
      add $3, $7, $0      ; m = x
      beq $0, $0, loop
done: jr $31
