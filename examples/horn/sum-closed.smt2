; sum_of_i against sum_closed (examples/mips32/loops.c): the loop's trips against a
; closed form b + n (n - 1) / 2 taken in 64 bits: sat means equivalent.
(set-logic HORN)
(define-sort W () (_ BitVec 32))
(define-fun closed ((n W) (b W)) W
  (bvadd b ((_ extract 32 1) (bvmul ((_ zero_extend 32) n) (bvsub ((_ zero_extend 32) n) #x0000000000000001)))))
(declare-fun inv (W W W W) Bool)
(assert (forall ((n W) (b W)) (inv n b #x00000000 b)))
(assert (forall ((n W) (b W) (i W) (s W))
  (=> (and (inv n b i s) (bvult i n)) (inv n b (bvadd i #x00000001) (bvadd s i)))))
(assert (forall ((n W) (b W) (i W) (s W))
  (=> (and (inv n b i s) (not (bvult i n)) (distinct s (closed n b))) false)))
(check-sat)
