; Stirling number of the second kind S(n, k) for n = $1 in 0..=9 and k = $2 (S is 0
; when k < 0 or k > n); 0 when n is outside 0..=9. Recursive, with a three-word frame
; on the stack ($30) and jalr:
;   S(n, 0) = [n = 0],  S(n, k) = 0 for k > n,  S(n, n) = 1,
;   S(n, k) = k * S(n - 1, k) + S(n - 1, k - 1).
; Result in $3.
      lis $11
      .word 1
      lis $13
      .word 9             ; the bound on n
      lis $14
      .word st
      lis $4
      .word 4
      lis $16
      .word 12            ; frame size
      add $3, $0, $0
      slt $6, $1, $0      ; n < 0 ?
      bne $6, $0, done
      slt $6, $13, $1     ; 9 < n ?
      bne $6, $0, done
      slt $6, $2, $0      ; k < 0 ?
      bne $6, $0, done
      sw $31, -4($30)
      sub $30, $30, $4
      jalr $14            ; $3 = S($1, $2)
      add $30, $30, $4
      lw $31, -4($30)
done: jr $31

; st(n = $1, k = $2) -> $3, for n >= 0 and k >= 0; keeps $1 and $2.
; Frame: 0($30) k * S(n - 1, k), 4($30) n, 8($30) the return address.
st:   bne $2, $0, knz
      sltu $3, $1, $11    ; S(n, 0) = 1 if n = 0, else 0
      jr $31
knz:  slt $6, $1, $2      ; n < k ?
      beq $6, $0, ge
      add $3, $0, $0      ; S(n, k) = 0 for k > n
      jr $31
ge:   bne $1, $2, rec
      add $3, $11, $0     ; S(n, n) = 1
      jr $31
rec:  sub $30, $30, $16
      sw $31, 8($30)
      sw $1, 4($30)
      sub $1, $1, $11
      jalr $14            ; $3 = S(n - 1, k)
      mult $3, $2
      mflo $7
      sw $7, 0($30)       ; k * S(n - 1, k)
      sub $2, $2, $11
      jalr $14            ; $3 = S(n - 1, k - 1)
      add $2, $2, $11
      lw $7, 0($30)
      add $3, $3, $7
      lw $1, 4($30)
      lw $31, 8($30)
      add $30, $30, $16
      jr $31
