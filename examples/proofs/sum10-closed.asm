; Sum 1 + 2 + ... + n for n = $1 by the closed form n(n+1)/2 (mult, then divu by 2).
; The input is bounded: when n is outside 1..=10 the result is 0.
; Result in $3.
      lis $11
      .word 1
      lis $12
      .word 2
      lis $5
      .word 10            ; the bound B
      add $3, $0, $0
      add $7, $1, $11     ; n + 1
      slt $6, $1, $11     ; n < 1 ?
      bne $6, $0, done
      slt $6, $5, $1      ; B < n ?
      bne $6, $0, done
      mult $1, $7         ; n(n+1)
      mflo $8
      divu $8, $12        ; / 2
      mflo $3
done: jr $31
