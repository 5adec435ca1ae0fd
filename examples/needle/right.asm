jr $31
