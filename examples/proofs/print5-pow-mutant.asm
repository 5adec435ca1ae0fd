; MUTANT of print5-pow.asm: the "started" flag is never set, so zero digits after
; the first printed one are skipped, except the units digit (101 prints "11", 100
; prints "10"); numbers whose zeros are all leading or in the units place print the same.
      lis $10
      .word 10
      lis $11
      .word 1
      lis $12
      .word 48            ; '0'
      lis $13
      .word 0xFFFF000C    ; output
      lis $9
      .word 99999         ; the bound
      slt $6, $1, $0      ; n < 0 ?
      bne $6, $0, out
      slt $6, $9, $1      ; 99999 < n ?
      bne $6, $0, out
      lis $5
      .word 10000         ; p = 10000
      add $8, $0, $0      ; started = 0
      add $7, $1, $0      ; rest = n
loop: divu $7, $5
      mflo $6             ; digit = rest / p
      mfhi $7             ; rest = rest % p
      bne $6, $0, emit    ; a nonzero digit is printed
      bne $8, $0, emit    ; so is any digit after the first printed one
      beq $5, $11, emit   ; and the units digit
      beq $0, $0, next
emit: add $8, $0, $0      ; MUTANT: started stays 0
      add $6, $6, $12
      sw $6, 0($13)       ; putchar('0' + digit)
next: divu $5, $10
      mflo $5             ; p = p / 10
      bne $5, $0, loop
out:  jr $31
