; Checks a signed division by recomputing it: q = $1 / $2, r = $1 % $2, and
; $3 = 1 when q * $2 + r == $1 (always, for $2 != 0), else 0; $3 = 0 when $2 = 0.
      beq $2, $0, zero
      div $1, $2
      mflo $4             ; q
      mfhi $5             ; r
      mult $4, $2
      mflo $6             ; q * b (low word)
      sub $6, $6, $5      ; q * b - r (the mutant)
      bne $6, $1, zero
      lis $3
      .word 1
      jr $31
zero: add $3, $0, $0
      jr $31
