; Print $1, read as unsigned, in decimal on standard output (no sign, no newline),
; with a recursive procedure: pr(n) calls pr(n / 10) when n >= 10, then prints the
; digit n % 10. Each call keeps its return address and its digit in a frame on the
; stack ($30). Every value of $1 is valid (at most 10 digits).
      lis $10
      .word 10
      lis $12
      .word 48            ; '0'
      lis $13
      .word 0xFFFF000C    ; output
      lis $14
      .word pr
      lis $15
      .word 8             ; frame size
      lis $4
      .word 4
      sw $31, -4($30)     ; save the return address
      sub $30, $30, $4
      jalr $14            ; pr($1)
      add $30, $30, $4
      lw $31, -4($30)
      jr $31

; pr(n = $1): prints n. Frame: 0($30) the digit, 4($30) the return address.
pr:   sub $30, $30, $15
      sw $31, 4($30)
      divu $1, $10
      mfhi $16            ; digit = n % 10
      mflo $1             ; n = n / 10
      sw $16, 0($30)
      beq $1, $0, emit
      jalr $14            ; pr(n / 10)
emit: lw $16, 0($30)
      add $16, $16, $12
      sw $16, 0($13)      ; putchar('0' + digit)
      lw $31, 4($30)
      add $30, $30, $15
      jr $31
