; Reference solution: $3 = the larger of $1 and $2, compared as signed integers.
slt $4, $1, $2        ; $4 = 1 when $1 < $2
beq $4, $0, first     ; $1 >= $2: the answer is $1
add $3, $2, $0
jr $31
first:
add $3, $1, $0
jr $31
