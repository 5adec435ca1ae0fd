; MUTANT of div7-divu.asm: the range check is signed (slt) instead of unsigned, so
; every $1 >= 2^31 (negative as signed) passes it and gets $1 / 7 instead of 0.
      lis $7
      .word 7
      lis $5
      .word 7000          ; the bound
      add $3, $0, $0
      slt $6, $5, $1      ; MUTANT: signed 7000 < x ?
      bne $6, $0, done
      divu $1, $7
      mflo $3
done: jr $31
