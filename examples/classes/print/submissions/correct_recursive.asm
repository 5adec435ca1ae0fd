; Recursive: print the sign, then digits(-|n|), where digits(m) for m <= 0 prints
; digits(m / 10) first when m / 10 is not 0, then its last digit.
        lis $10
        .word 0xFFFF000C
        lis $11
        .word 10
        lis $12
        .word 48
        lis $13
        .word 4
        lis $14
        .word digits
        add $5, $1, $0
        slt $6, $5, $0
        bne $6, $0, neg
        sub $5, $0, $5        ; m = -n
        beq $0, $0, go
neg:    lis $7
        .word 45              ; '-'
        sw $7, 0($10)
go:     sw $31, -4($30)
        sub $30, $30, $13
        jalr $14
        add $30, $30, $13
        lw $31, -4($30)
        sw $11, 0($10)        ; newline
        jr $31

; digits: prints -$5 ($5 <= 0); keeps $5 as it found it
digits: sw $31, -4($30)
        sw $5, -8($30)
        sub $30, $30, $13
        sub $30, $30, $13
        div $5, $11
        mflo $5
        beq $5, $0, last
        jalr $14
last:   add $30, $30, $13
        add $30, $30, $13
        lw $5, -8($30)
        lw $31, -4($30)
        div $5, $11
        mfhi $7
        sub $7, $12, $7
        sw $7, 0($10)
        jr $31
