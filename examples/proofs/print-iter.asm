; Print $1, read as unsigned, in decimal on standard output (no sign, no newline),
; iteratively: the digits, least significant first, are pushed into a buffer on the
; stack below $30, then popped and printed. Every value of $1 is valid.
      lis $10
      .word 10
      lis $12
      .word 48            ; '0'
      lis $13
      .word 0xFFFF000C    ; output
      lis $4
      .word 4
      add $5, $30, $0     ; p = top of the buffer
      add $8, $1, $0      ; n
push: divu $8, $10
      mfhi $6             ; digit = n % 10
      mflo $8             ; n = n / 10
      sub $5, $5, $4
      sw $6, 0($5)        ; push the digit
      bne $8, $0, push
pop:  lw $6, 0($5)
      add $6, $6, $12
      sw $6, 0($13)       ; putchar('0' + digit)
      add $5, $5, $4
      bne $5, $30, pop
      jr $31
