//! Shared pieces of the fuzz targets: a generator of valid StableHLO programs driven by the
//! fuzzer's bytes ([`gen`]) and the comparison of two backends' results ([`compare`]).
//!
//! Random bytes almost never parse as a program, let alone a well-typed one, so the targets
//! that test the compiler, the CPU backend and the cost model build their programs instead:
//! every byte string decodes to a program the verifier accepts (the generator only writes ops
//! whose types it has worked out), and small changes to the bytes make small changes to the
//! program, which is what lets coverage guidance work.

pub mod compare;
pub mod gen;

#[cfg(test)]
mod tests {
    use crate::gen::{program, Options};
    use libfuzzer_sys::arbitrary::Unstructured;

    /// Every byte string gives a program that parses and verifies (what the targets assume).
    #[test]
    fn generated_programs_parse_and_verify() {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        for len in 0..3000usize {
            let bytes: Vec<u8> = (0..len % 400)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    state as u8
                })
                .collect();
            let mut u = Unstructured::new(&bytes);
            let Ok(p) = program(&mut u, Options::default()) else {
                continue;
            };
            let m = systolic_ir::text::parse_module(&p.text, "gen.mlir")
                .unwrap_or_else(|e| panic!("{e}\n{}", p.text));
            if let Err(e) = systolic_ir::verify::verify_module(&m) {
                panic!("{e:?}\n{}", p.text);
            }
        }
    }
}
