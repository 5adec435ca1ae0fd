; Sum 1 + 2 + ... + n (modulo 2^32) for n = $1, by a loop counting n down to 1.
; No upper bound: only the fuel limits n (about 3300 with 10000 steps).
; For n <= 0 the result is 0. Result in $3.
      lis $11
      .word 1
      add $3, $0, $0      ; s = 0
      slt $6, $1, $11     ; n < 1 ?
      bne $6, $0, done
      add $7, $1, $0      ; i = n
loop: add $3, $3, $7      ; s += i
      sub $7, $7, $11     ; i -= 1
      bne $7, $0, loop
done: jr $31
