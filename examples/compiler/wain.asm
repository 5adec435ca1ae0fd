; What a WLP4 compiler generates for
;     int wain(int a, int b) { println(a); println(b - a); return a + b; }
; It calls the runtime's print, which it imports: link it with the runtime, e.g.
;     tamarin compare --link examples/runtime/print.asm \
;         examples/compiler/wain.asm examples/compiler/hand_linked.asm --observe output,'$3'
.import print
; prologue: $4 = 4, $29 = the frame, the parameters pushed
lis $4
.word 4
sub $29, $30, $4
sw $1, -4($30)
sub $30, $30, $4
sw $2, -4($30)
sub $30, $30, $4
; println(a)
lw $3, 0($29)
add $1, $3, $0
sw $31, -4($30)
sub $30, $30, $4
lis $5
.word print
jalr $5
add $30, $30, $4
lw $31, -4($30)
; println(b - a)
lw $3, -4($29)
sw $3, -4($30)
sub $30, $30, $4
lw $3, 0($29)
add $30, $30, $4
lw $5, -4($30)
sub $3, $5, $3
add $1, $3, $0
sw $31, -4($30)
sub $30, $30, $4
lis $5
.word print
jalr $5
add $30, $30, $4
lw $31, -4($30)
; return a + b
lw $3, 0($29)
sw $3, -4($30)
sub $30, $30, $4
lw $3, -4($29)
add $30, $30, $4
lw $5, -4($30)
add $3, $5, $3
; epilogue
add $30, $29, $4
jr $31
