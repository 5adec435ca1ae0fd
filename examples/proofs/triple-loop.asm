; 3 * n for n = $1 in 0..=100 by a countdown loop that runs n times, adding 3 each
; time; 0 when n is outside 0..=100. Result in $3.
      lis $11
      .word 1
      lis $5
      .word 100           ; the bound
      lis $9
      .word 3
      add $3, $0, $0      ; acc = 0
      slt $6, $1, $0      ; n < 0 ?
      bne $6, $0, done
      slt $6, $5, $1      ; 100 < n ?
      bne $6, $0, done
      add $8, $1, $0      ; c = n
loop: beq $8, $0, done
      add $3, $3, $9      ; acc += 3
      sub $8, $8, $11     ; c -= 1
      beq $0, $0, loop
done: jr $31
