; Quotient $1 / 7 by divu, for $1 in 0..=7000 read as unsigned; for a larger $1
; (unsigned) the result is 0. Result in $3.
      lis $7
      .word 7
      lis $5
      .word 7000          ; the bound
      add $3, $0, $0
      sltu $6, $5, $1     ; 7000 < x (unsigned) ?
      bne $6, $0, done
      divu $1, $7
      mflo $3
done: jr $31
