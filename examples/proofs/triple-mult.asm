; 3 * n for n = $1 in 0..=100 by mult; 0 when n is outside 0..=100. The upper check
; is written as n < 101. Result in $3.
      lis $11
      .word 1
      lis $5
      .word 100           ; the bound
      lis $9
      .word 3
      add $3, $0, $0
      add $12, $5, $11    ; 101
      slt $6, $1, $0      ; n < 0 ?
      bne $6, $0, done
      slt $6, $1, $12     ; n < 101 ?
      beq $6, $0, done
      mult $1, $9
      mflo $3
done: jr $31
