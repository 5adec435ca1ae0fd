; Sum (modulo 2^32) of the array at $1 with $2 elements, scanning backward with a
; pointer from base + 4*len down to base. Result in $3.
      lis $4
      .word 4
      add $3, $0, $0      ; s = 0
      mult $2, $4
      mflo $5
      add $5, $1, $5      ; p = base + 4*len
loop: beq $5, $1, done
      sub $5, $5, $4      ; p -= 4
      lw $7, 0($5)
      add $3, $3, $7      ; s += *p
      beq $0, $0, loop
done: jr $31
