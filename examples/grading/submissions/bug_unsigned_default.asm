; Bug: the same unsigned comparison as bug_unsigned.asm, written another way (start
; from $2, keep $1 when it is larger without sign).
add $3, $2, $0
sltu $7, $2, $1
beq $7, $0, done
add $3, $1, $0
done:
jr $31
