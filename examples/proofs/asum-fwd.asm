; Sum (modulo 2^32) of the array at $1 with $2 elements, scanning forward by index.
; Result in $3.
      lis $4
      .word 4
      lis $11
      .word 1
      add $3, $0, $0      ; s = 0
      add $5, $1, $0      ; p = base
      add $6, $0, $0      ; i = 0
loop: beq $6, $2, done
      lw $7, 0($5)
      add $3, $3, $7      ; s += a[i]
      add $5, $5, $4
      add $6, $6, $11
      beq $0, $0, loop
done: jr $31
