; Quotient $1 / 7 ($1 read as unsigned) by divu, for every $1. Result in $3.
      lis $7
      .word 7
      divu $1, $7
      mflo $3
      jr $31
