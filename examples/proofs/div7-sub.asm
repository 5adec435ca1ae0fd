; Quotient $1 / 7 by repeated subtraction, for $1 in 0..=7000 read as unsigned;
; for a larger $1 (unsigned) the result is 0. Result in $3.
      lis $7
      .word 7
      lis $5
      .word 7000          ; the bound
      lis $11
      .word 1
      add $3, $0, $0      ; q = 0
      sltu $6, $5, $1     ; 7000 < x (unsigned) ?
      bne $6, $0, done
      add $8, $1, $0      ; r = x
loop: sltu $6, $8, $7     ; r < 7 ?
      bne $6, $0, done
      sub $8, $8, $7      ; r -= 7
      add $3, $3, $11     ; q += 1
      beq $0, $0, loop
done: jr $31
