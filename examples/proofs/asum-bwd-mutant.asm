; MUTANT of asum-bwd.asm: loads from p + 4 instead of p, so it adds a[1..len] where
; a[len] is the zero word after the array: the result misses a[0] (differs when
; len >= 1 and a[0] != 0).
      lis $4
      .word 4
      add $3, $0, $0      ; s = 0
      mult $2, $4
      mflo $5
      add $5, $1, $5      ; p = base + 4*len
loop: beq $5, $1, done
      sub $5, $5, $4      ; p -= 4
      lw $7, 4($5)        ; MUTANT: 4(p) instead of 0(p)
      add $3, $3, $7      ; s += *p
      beq $0, $0, loop
done: jr $31
