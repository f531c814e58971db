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
    /// `n` pseudo-random bytes from a xorshift64 state (the tests' stand-in for fuzz input).
    pub(super) fn xorshift_bytes(state: &mut u64, n: usize) -> Vec<u8> {
        (0..n)
            .map(|_| {
                *state ^= *state << 13;
                *state ^= *state >> 7;
                *state ^= *state << 17;
                *state as u8
            })
            .collect()
    }

    use crate::gen::{program, Options};
    use libfuzzer_sys::arbitrary::Unstructured;

    /// Every byte string gives a program that parses and verifies (what the targets assume).
    #[test]
    fn generated_programs_parse_and_verify() {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        for len in 0..3000usize {
            let bytes = xorshift_bytes(&mut state, len % 400);
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

#[cfg(test)]
mod smoke {
    use super::tests::xorshift_bytes;
    use crate::compare::mismatch;
    use crate::gen::{program, Options};
    use libfuzzer_sys::arbitrary::Unstructured;
    use systolic_cpu::{compile, CompileOptions, CpuBuffer};
    use systolic_interp::{Interpreter, Value};

    /// The compile_vs_interpret property on 2000 pseudo-random byte strings, without
    /// libFuzzer (20000 were run once on 2026-11-28: no finding).
    #[test]
    fn compile_vs_interpret_smoke() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut bad = vec![];
        let mut ran = 0;
        for len in 0..2000usize {
            let bytes = xorshift_bytes(&mut state, len % 700);
            let mut u = Unstructured::new(&bytes);
            let Ok(p) = program(&mut u, Options::default()) else {
                continue;
            };
            let m = systolic_ir::text::parse_module(&p.text, "gen.mlir").unwrap();
            let args: Vec<Value> = p.inputs.iter().cloned().map(Value::Tensor).collect();
            let want = Interpreter::new(&m).call("main", args);
            let exe = match compile(&m, &CompileOptions::default()) {
                Ok(e) => e,
                Err(e) => {
                    bad.push(format!("compile: {e}\n{}", p.text));
                    continue;
                }
            };
            let got = exe.execute(p.inputs.iter().map(CpuBuffer::from_tensor).collect());
            ran += 1;
            match (want, got) {
                (Ok(w), Ok(g)) => {
                    for (i, ((w, g), e)) in w.iter().zip(&g).zip(&p.results).enumerate() {
                        if let Some(why) = mismatch(w.as_tensor().unwrap(), &g.to_tensor(), *e) {
                            bad.push(format!("result {i}: {why}\n{}", p.text));
                        }
                    }
                }
                (Err(_), Err(_)) => {}
                (w, g) => bad.push(format!(
                    "one side: {:?} / {:?}\n{}",
                    w.err(),
                    g.err(),
                    p.text
                )),
            }
        }
        assert!(ran > 1000, "only {ran} programs ran");
        assert!(
            bad.is_empty(),
            "{} findings, the first:\n{}",
            bad.len(),
            bad[0]
        );
    }
}
