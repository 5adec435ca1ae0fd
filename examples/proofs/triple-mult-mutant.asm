; MUTANT of triple-mult.asm: the upper check is n < 100 instead of n < 101, so
; n = 100 (and only n = 100) gives 0 instead of 300.
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
      slt $6, $1, $5      ; MUTANT: n < 100 ?
      beq $6, $0, done
      mult $1, $9
      mflo $3
done: jr $31
