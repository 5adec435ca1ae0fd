; Sum 1 + 2 + ... + n (modulo 2^32) for n = $1 by the closed form n(n+1)/2, exact for
; every n in 1..=2147483647: multu gives the 64-bit product hi:lo, and
; (hi:lo)/2 mod 2^32 = lo/2 + hi*2^31 (divu by 2, and mult by 0x80000000 keeps the
; low bit of hi in bit 31). For n <= 0 the result is 0. Result in $3.
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
      divu $9, $12        ; lo / 2
      mflo $3
      mult $8, $13        ; hi * 2^31 mod 2^32
      mflo $8
      add $3, $3, $8
done: jr $31
