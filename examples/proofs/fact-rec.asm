; n! for n = $1 in 0..=12 (so that it fits in 32 bits); 0 when n is outside 0..=12.
; Recursive: fact(0) = 1, fact(n) = n * fact(n - 1), with a frame on the stack ($30)
; holding n and the return address, called with jalr. Result in $3.
      lis $11
      .word 1
      lis $12
      .word 12            ; the bound
      lis $14
      .word fact
      lis $4
      .word 4
      lis $8
      .word 8             ; frame size
      add $3, $0, $0
      slt $6, $1, $0      ; n < 0 ?
      bne $6, $0, done
      slt $6, $12, $1     ; 12 < n ?
      bne $6, $0, done
      sw $31, -4($30)
      sub $30, $30, $4
      jalr $14            ; $3 = fact($1)
      add $30, $30, $4
      lw $31, -4($30)
done: jr $31

; fact(n = $1) -> $3; keeps $1. Frame: 0($30) n, 4($30) the return address.
fact: bne $1, $0, rec
      add $3, $11, $0     ; fact(0) = 1
      jr $31
rec:  sub $30, $30, $8
      sw $31, 4($30)
      sw $1, 0($30)
      sub $1, $1, $11
      jalr $14            ; $3 = fact(n - 1)
      lw $1, 0($30)
      lw $31, 4($30)
      add $30, $30, $8
      mult $3, $1         ; n * fact(n - 1)
      mflo $3
      jr $31
