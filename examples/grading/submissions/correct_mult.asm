; Correct, without a branch: $3 = $1 + ($1 < $2) * ($2 - $1). The difference may wrap,
; but $1 + ($2 - $1) is $2 modulo 2^32, so the sum is exact.
slt $4, $1, $2
sub $5, $2, $1
mult $4, $5
mflo $6
add $3, $1, $6
jr $31
