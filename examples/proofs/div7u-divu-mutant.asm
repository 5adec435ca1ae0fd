; MUTANT of div7u-divu.asm: returns the remainder (mfhi) instead of the quotient,
; which differs whenever the two differ (for example $1 = 1: quotient 0, remainder 1).
      lis $7
      .word 7
      divu $1, $7
      mfhi $3             ; MUTANT: remainder instead of quotient
      jr $31
