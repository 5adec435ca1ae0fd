; Reference: print $1 as a signed decimal number, then a newline, to standard output
; (each byte stored to 0xFFFF000C). The digits are taken from the non-positive value
; (-|n|), so INT_MIN needs no special case: `div` truncates toward zero and its
; remainder takes the dividend's sign, so each remainder lies in -9..0.
; The digits are pushed below $30 (the stack) and printed back in order.
        lis $10
        .word 0xFFFF000C    ; output
        lis $11
        .word 10
        lis $12
        .word 48            ; '0'
        lis $13
        .word 4
        add $5, $1, $0      ; n = $1
        slt $6, $5, $0
        beq $6, $0, pos
        lis $7
        .word 45            ; '-'
        sw $7, 0($10)
        beq $0, $0, digits
pos:    sub $5, $0, $5      ; n = -n: from here n <= 0
digits: add $8, $30, $0     ; p = top of the stack
dloop:  div $5, $11
        mflo $5             ; n = n / 10
        mfhi $7             ; r in -9..0
        sub $7, $12, $7     ; '0' - r
        sub $8, $8, $13
        sw $7, 0($8)        ; push the digit
        bne $5, $0, dloop
ploop:  lw $7, 0($8)        ; pop and print, most significant first
        sw $7, 0($10)
        add $8, $8, $13
        bne $8, $30, ploop
        sw $11, 0($10)      ; '\n' is 10
        jr $31
