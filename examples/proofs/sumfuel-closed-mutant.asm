; MUTANT of sumfuel-closed.asm: the low word of n(n+1) is divided by 1 instead of 2,
; so $3 = n(n+1) instead of n(n+1)/2 for small n >= 1 (differs for every n >= 1 that
; the loop can reach). For n <= 0 the result is 0. Result in $3.
      lis $11
      .word 1
      lis $12
      .word 2
      lis $13
      .word 0x80000000
      add $3, $0, $0
      slt $6, $1, $11     ; n < 1 ?
      bne $6, $0, done
      add $7, $1, $11     ; n + 1 (at most 2^31, fits unsigned)
      multu $1, $7        ; hi:lo = n(n+1), exactly
      mfhi $8
      mflo $9
      divu $9, $11        ; MUTANT: lo / 1 instead of lo / 2
      mflo $3
      mult $8, $13        ; hi * 2^31 mod 2^32
      mflo $8
      add $3, $3, $8
done: jr $31
