mod common;
use common::*;
#[test]
fn t() {
    let (l, r) = (named("MULT_HI"), named("MULTU_HI"));
    for i in 0..4 {
        let t0 = std::time::Instant::now();
        let rep = check(&l, &r);
        eprintln!("fwd {i} {:?} {}", t0.elapsed(), rep.verdict.name());
        let t0 = std::time::Instant::now();
        let rep = check(&r, &l);
        eprintln!("back {i} {:?} {}", t0.elapsed(), rep.verdict.name());
    }
}
