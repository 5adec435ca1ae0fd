; n! for n = $1 in 0..=12 (so that it fits in 32 bits); 0 when n is outside 0..=12.
; Iterative: r = 1, then r *= i for i = 1..n. Result in $3.
      lis $11
      .word 1
      lis $12
      .word 12            ; the bound
      add $3, $0, $0
      slt $6, $1, $0      ; n < 0 ?
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
