; Correct: starts from $1 and replaces it with $2 when $2 is larger.
add $3, $1, $0
slt $4, $3, $2
beq $4, $0, done
add $3, $2, $0
done:
jr $31
