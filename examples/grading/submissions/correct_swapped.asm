; Correct: compares the other way round ($2 < $1) and branches to the $1 case.
slt $5, $2, $1
bne $5, $0, takefirst
add $3, $2, $0
jr $31
takefirst:
add $3, $1, $0
jr $31
