; div_by_subtraction against div_by_divu (examples/mips32/loops.c): the loop's trips
; against n / d: sat means equivalent.
(set-logic HORN)
(define-sort W () (_ BitVec 32))
(declare-fun inv (W W W W) Bool)
(assert (forall ((n W) (d W)) (=> (distinct d #x00000000) (inv n d n #x00000000))))
(assert (forall ((n W) (d W) (r W) (q W))
  (=> (and (inv n d r q) (bvuge r d)) (inv n d (bvsub r d) (bvadd q #x00000001)))))
(assert (forall ((n W) (d W) (r W) (q W))
  (=> (and (inv n d r q) (bvult r d) (distinct q (bvudiv n d))) false)))
(check-sat)
