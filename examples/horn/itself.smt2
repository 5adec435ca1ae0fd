; count_up (examples/mips32/loops.c) against itself, one trip of each at a time: the
; baseline. sat means equivalent (li = ri and ls = rs is inductive).
(set-logic HORN)
(define-sort W () (_ BitVec 32))
(declare-fun inv (W W W W W W) Bool)
(assert (forall ((n W) (k W)) (inv n k #x00000000 #x00000000 #x00000000 #x00000000)))
(assert (forall ((n W) (k W) (li W) (ls W) (ri W) (rs W))
  (=> (and (inv n k li ls ri rs) (distinct li n) (distinct ri n))
      (inv n k (bvadd li #x00000001) (bvadd ls k) (bvadd ri #x00000001) (bvadd rs k)))))
(assert (forall ((n W) (k W) (li W) (ls W) (ri W) (rs W))
  (=> (and (inv n k li ls ri rs) (distinct (distinct li n) (distinct ri n))) false)))
(assert (forall ((n W) (k W) (li W) (ls W) (ri W) (rs W))
  (=> (and (inv n k li ls ri rs) (= li n) (= ri n) (distinct ls rs)) false)))
(check-sat)
