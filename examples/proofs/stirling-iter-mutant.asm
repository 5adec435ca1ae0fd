; MUTANT of stirling-iter.asm: r[0] is set to 1 instead of 0 after each row, so
; S(n, 0) comes out as 1 for n >= 1 and the error spreads to larger k
; (differs for example on n = 1, k = 0 and on n = 2, k = 1).
      lis $11
      .word 1
      lis $4
      .word 4
      lis $13
      .word 9             ; the bound on n
      add $3, $0, $0
      slt $6, $1, $0      ; n < 0 ?
      bne $6, $0, done
      slt $6, $13, $1     ; 9 < n ?
      bne $6, $0, done
      slt $6, $2, $0      ; k < 0 ?
      bne $6, $0, done
      slt $6, $1, $2      ; n < k ?
      bne $6, $0, done
      add $7, $2, $11
      mult $7, $4
      mflo $7
      sub $20, $30, $7    ; base of r: $30 - 4(k + 1); r[j] is at base + 4j
      sw $11, 0($20)      ; r[0] = 1
      add $5, $20, $4     ; p = &r[1]
init: beq $5, $30, rows
      sw $0, 0($5)        ; r[j] = 0 for j = 1..k
      add $5, $5, $4
      beq $0, $0, init
rows: add $9, $0, $0      ; i = 0
rowl: beq $9, $1, fin
      add $9, $9, $11     ; i += 1
      add $10, $2, $0     ; j = k
      sub $5, $30, $4     ; p = &r[k]
col:  beq $10, $0, col0
      lw $7, 0($5)
      mult $7, $10
      mflo $7             ; j * r[j]
      lw $8, -4($5)       ; r[j - 1]
      add $7, $7, $8
      sw $7, 0($5)        ; r[j] = j * r[j] + r[j - 1]
      sub $5, $5, $4
      sub $10, $10, $11
      beq $0, $0, col
col0: sw $11, 0($20)      ; MUTANT: r[0] = 1
      beq $0, $0, rowl
fin:  lw $3, -4($30)      ; r[k]
done: jr $31
