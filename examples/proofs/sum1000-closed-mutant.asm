; MUTANT of sum1000-closed.asm: the upper range check compares B with n + 1 instead of n,
; so n = 1000 gives 0 instead of the sum (and n = 2147483647, where n + 1 wraps, escapes the check).
; Result in $3.
      lis $11
      .word 1
      lis $12
      .word 2
      lis $5
      .word 1000          ; the bound B
      add $3, $0, $0
      add $7, $1, $11     ; n + 1
      slt $6, $1, $11     ; n < 1 ?
      bne $6, $0, done
      slt $6, $5, $7      ; MUTANT: B < n + 1 ?
      bne $6, $0, done
      mult $1, $7         ; n(n+1)
      mflo $8
      divu $8, $12        ; / 2
      mflo $3
done: jr $31
