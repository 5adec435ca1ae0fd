; A bump allocator with the conventions of the course's alloc.merl.
;
; The heap runs from 0x00800000 (8 MiB), or from the end of the array when init is
; given one that ends later, up to 0x00C00000 (12 MiB): 4 MiB, below the 4 MiB the
; stack may use under 0x01000000. Programs (with everything linked) must end below
; 0x00800000.
;
; init    $1: the array's address, $2: its length (0 when wain takes no array).
;         Call it once, before new. Changes no register.
; new     $1: the number of words wanted (at least 1). $3: the address of that many
;         fresh words, or 0 when they do not fit (or $1 < 1). Changes only $3.
; delete  $1: an address new gave. Does nothing: memory is never reused.
;
; Memory is not cleared: words new hands out are zero because nothing wrote them.
.export init
.export new
.export delete

init:
        sw $1, -4($30)
        sw $2, -8($30)
        sw $3, -12($30)
        sw $4, -16($30)
        lis $3
        .word 0x00800000        ; the heap's lowest start
        beq $2, $0, init_store
        add $2, $2, $2
        add $2, $2, $2          ; the array's length in bytes
        add $2, $1, $2          ; the array's end
        sltu $4, $3, $2
        beq $4, $0, init_store
        add $3, $2, $0          ; start after the array
init_store:
        lis $4
        .word alloc_next
        sw $3, 0($4)
        lw $1, -4($30)
        lw $2, -8($30)
        lw $3, -12($30)
        lw $4, -16($30)
        jr $31

new:
        sw $1, -4($30)
        sw $2, -8($30)
        sw $4, -12($30)
        add $3, $0, $0          ; 0 until it fits
        slt $2, $0, $1
        beq $2, $0, new_done    ; $1 < 1
        lis $2
        .word 0x00100000        ; the heap's size in words
        slt $2, $2, $1
        bne $2, $0, new_done    ; more than the whole heap
        lis $4
        .word alloc_next
        lw $3, 0($4)            ; the block's address
        add $1, $1, $1
        add $1, $1, $1
        add $1, $3, $1          ; the next free address
        lis $2
        .word 0x00C00000        ; the heap's end
        sltu $2, $2, $1
        beq $2, $0, new_fits
        add $3, $0, $0
        beq $0, $0, new_done
new_fits:
        sw $1, 0($4)
new_done:
        lw $1, -4($30)
        lw $2, -8($30)
        lw $4, -12($30)
        jr $31

delete:
        jr $31

alloc_next:
        .word 0x00800000        ; the next free address (init sets it again)
