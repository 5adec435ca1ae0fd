lis $4
.word 12345
add $5, $1, $2
bne $5, $4, done
lis $3
.word 1
done:
jr $31
