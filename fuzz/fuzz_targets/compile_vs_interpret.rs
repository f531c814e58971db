//! Fuzz target: a generated valid program (`systolic_fuzz::gen`) compiled for the CPU gives
//! the interpreter's results: bit for bit for integers, booleans and exactly rounded floats,
//! within a tolerance where fusion may reorder float work, NaN equal to NaN. Neither side may
//! panic; a compile error on a program the verifier accepts is a finding too.

#![no_main]

use libfuzzer_sys::arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use systolic_cpu::{compile, CompileOptions, CpuBuffer};
use systolic_fuzz::compare::mismatch;
use systolic_fuzz::gen::{program, Options};
use systolic_interp::{Interpreter, Value};

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(p) = program(&mut u, Options::default()) else {
        return;
    };
    let module = systolic_ir::text::parse_module(&p.text, "gen.mlir")
        .unwrap_or_else(|e| panic!("generated text does not parse: {e}\n{}", p.text));
    if let Err(e) = systolic_ir::verify::verify_module(&module) {
        panic!("generated module does not verify: {e:?}\n{}", p.text);
    }
    let args: Vec<Value> = p.inputs.iter().cloned().map(Value::Tensor).collect();
    let want = Interpreter::new(&module).call("main", args);
    let exe = compile(&module, &CompileOptions::default())
        .unwrap_or_else(|e| panic!("compile failed: {e}\n{}", p.text));
    let got = exe.execute(p.inputs.iter().map(CpuBuffer::from_tensor).collect());
    match (want, got) {
        (Ok(want), Ok(got)) => {
            assert_eq!(want.len(), got.len(), "{}", p.text);
            for (i, ((w, g), e)) in want.iter().zip(&got).zip(&p.results).enumerate() {
                let w = w.as_tensor().expect("a tensor result");
                if let Some(why) = mismatch(w, &g.to_tensor(), *e) {
                    panic!("result {i} differs: {why}\n{}", p.text);
                }
            }
        }
        (Err(_), Err(_)) => {}
        (w, g) => panic!(
            "one side failed: interpreter {:?}, cpu {:?}\n{}",
            w.err(),
            g.err(),
            p.text
        ),
    }
});
