; print: writes $1 as a signed decimal number and a newline to standard output
; (0xFFFF000C). Call it with `lis $5` / `.word print` / `jalr $5` after saving $31.
; Every register keeps its value (hi and lo do not: print divides). INT_MIN
; (-2147483648) prints as such: the digits are taken from the value made
; non-positive, which never overflows.
.export print
print:
        sw $1, -4($30)
        sw $2, -8($30)
        sw $3, -12($30)
        sw $4, -16($30)
        sw $5, -20($30)
        sw $6, -24($30)
        lis $2
        .word 24
        sub $30, $30, $2        ; the six saved words
        lis $4
        .word 0xFFFF000C        ; $4: the output address
        lis $5
        .word 10                ; $5: the base
        add $6, $0, $0          ; $6: bytes of digits pushed
        add $3, $1, $0          ; $3: the value
        slt $2, $3, $0
        beq $2, $0, print_positive
        lis $2
        .word 45                ; '-'
        sw $2, 0($4)
        beq $0, $0, print_digits
print_positive:
        sub $3, $0, $3          ; -value: at most 0
print_digits:                   ; $3 <= 0: push its digits, last first
        div $3, $5
        mfhi $2                 ; -9 .. 0
        sub $2, $0, $2
        lis $1
        .word 48                ; '0'
        add $2, $2, $1
        sw $2, -4($30)
        lis $1
        .word 4
        sub $30, $30, $1
        add $6, $6, $1
        mflo $3
        bne $3, $0, print_digits
print_pop:                      ; the digits, first first
        lw $2, 0($30)
        sw $2, 0($4)
        lis $1
        .word 4
        add $30, $30, $1
        sub $6, $6, $1
        bne $6, $0, print_pop
        lis $2
        .word 10                ; '\n'
        sw $2, 0($4)
        lis $2
        .word 24
        add $30, $30, $2
        lw $1, -4($30)
        lw $2, -8($30)
        lw $3, -12($30)
        lw $4, -16($30)
        lw $5, -20($30)
        lw $6, -24($30)
        jr $31
