; $3 = $1 / $2 (unsigned; 0 for $2 = 0), by divu.
        add $3, $0, $0
        beq $2, $0, done    ; no quotient by zero
        divu $1, $2
        mflo $3
done:   jr $31
