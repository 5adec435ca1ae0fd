; count_down against count_up (examples/mips32/loops.c), one trip of each at a time:
; sat (an invariant exists) means equivalent for every n, k.
(set-logic HORN)
(define-sort W () (_ BitVec 32))
(declare-fun inv (W W W W W W) Bool)
(assert (forall ((n W) (k W)) (inv n k n #x00000000 #x00000000 #x00000000)))
(assert (forall ((n W) (k W) (ln W) (ls W) (ri W) (rs W))
  (=> (and (inv n k ln ls ri rs) (distinct ln #x00000000) (distinct ri n))
      (inv n k (bvsub ln #x00000001) (bvadd ls k) (bvadd ri #x00000001) (bvadd rs k)))))
(assert (forall ((n W) (k W) (ln W) (ls W) (ri W) (rs W))
  (=> (and (inv n k ln ls ri rs) (distinct (distinct ln #x00000000) (distinct ri n))) false)))
(assert (forall ((n W) (k W) (ln W) (ls W) (ri W) (rs W))
  (=> (and (inv n k ln ls ri rs) (= ln #x00000000) (= ri n) (distinct ls rs)) false)))
(check-sat)
