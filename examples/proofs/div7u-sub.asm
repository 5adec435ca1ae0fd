; Quotient $1 / 7 ($1 read as unsigned) by repeated subtraction, with no range check:
; only the fuel bounds the loop (about 14000 with 10000 steps). Result in $3.
      lis $7
      .word 7
      lis $11
      .word 1
      add $3, $0, $0      ; q = 0
      add $8, $1, $0      ; r = x
loop: sltu $6, $8, $7     ; r < 7 ?
      bne $6, $0, done
      sub $8, $8, $7      ; r -= 7
      add $3, $3, $11     ; q += 1
      beq $0, $0, loop
done: jr $31
