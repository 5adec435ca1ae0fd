mod common;
use common::*;
#[test]
fn t() {
    let l = asm(
        "l",
        "lis $4\n.word 16\nsw $2, 0($4)\nbeq $0, $0, 0\nadd $3, $0, $0\njr $31\n",
    );
    let r = asm("r", ".word 0\n");
    let add = 0x0000_1820u32; // add $3, $0, $0
    eprintln!("{:?}", tamarin_mips::Instr::decode(add));
    eprintln!("{:?}", exec(&l, 0, add).status);
    eprintln!("{:?}", exec(&l, 0, 0).status);
    let rep = check(&l, &r);
    eprintln!("{:?}", rep.verdict);
    let (l, r) = (named("MULT_HI"), named("MULTU_HI"));
    for i in 0..8 {
        let t0 = std::time::Instant::now();
        let rep = check(&l, &r);
        eprintln!("fwd {i} {:?} {}", t0.elapsed(), rep.verdict.name());
        let t0 = std::time::Instant::now();
        let rep = check(&r, &l);
        eprintln!("back {i} {:?} {}", t0.elapsed(), rep.verdict.name());
    }
}
