; MUTANT of fact-iter.asm: the lower check is n < 1 instead of n < 0, so n = 0
; (and only n = 0) gives 0 instead of 0! = 1.
      lis $11
      .word 1
      lis $12
      .word 12            ; the bound
      add $3, $0, $0
      slt $6, $1, $11     ; MUTANT: n < 1 ?
      bne $6, $0, done
      slt $6, $12, $1     ; 12 < n ?
      bne $6, $0, done
      add $3, $11, $0     ; r = 1
      add $7, $11, $0     ; i = 1
loop: slt $6, $1, $7      ; n < i ?
      bne $6, $0, done
      mult $3, $7
      mflo $3             ; r *= i
      add $7, $7, $11     ; i += 1
      beq $0, $0, loop
done: jr $31
