//! Helpers shared by the CPU backend's integration tests: parsing, compiling, running on the
//! interpreter and comparing.

#![allow(dead_code)] // each test binary uses a different subset

pub mod compare;
pub mod golden;
pub mod harness;
pub mod random;

use systolic_cpu::{compile, CompileOptions, CpuBuffer, CpuExecutable};
use systolic_interp::{Interpreter, Value};
use systolic_ir::{DType, Module, Tensor};

/// `x[i] += k·u`: a scatter whose update region reads `%k` from outside it, which region
/// programs cannot take (they take only their arguments), so it runs on the interpreter
/// fallback — the tests' example of a fallback that stays.
pub const SCATTER_READING_AN_OUTER_VALUE: &str = "func.func @main(%x: tensor<4xf32>, %i: tensor<2x1xi32>, %u: tensor<2xf32>, %k: tensor<f32>) -> tensor<4xf32> {
  %0 = \"stablehlo.scatter\"(%x, %i, %u) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = stablehlo.multiply %b, %k : tensor<f32>
    %d = stablehlo.add %a, %c : tensor<f32>
    stablehlo.return %d : tensor<f32>
  }) : (tensor<4xf32>, tensor<2x1xi32>, tensor<2xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}";

/// Parses module text, panicking with the parser's message (test inputs are ours).
pub fn parse(text: &str) -> Module {
    systolic_ir::text::parse_module(text, "test").unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// Compiles `main` with verification after every pass.
pub fn compile_main(module: &Module) -> CpuExecutable {
    compile_main_with(module, true)
}

/// Compiles `main`, with or without the optimisation pipeline.
pub fn compile_main_with(module: &Module, optimize: bool) -> CpuExecutable {
    let options = CompileOptions {
        verify_each: true,
        optimize,
        ..CompileOptions::default()
    };
    compile(module, &options)
        .unwrap_or_else(|e| panic!("compile failed (optimize {optimize}): {e}"))
}

/// Every dtype of the native kernels' domain: the real dtypes except the narrow floats (ops on
/// complex values and on f8/f6/f4 run on the interpreter fallback, see `tests/complex.rs` and
/// `tests/narrow_floats.rs`).
pub const REAL_DTYPES: [DType; 17] = {
    let mut out = [DType::Bool; 17];
    let mut i = 0;
    let mut k = 0;
    while i < DType::ALL.len() {
        let d = DType::ALL[i];
        let mut narrow = false;
        let mut j = 0;
        while j < DType::NARROW_FLOATS.len() {
            narrow |= DType::NARROW_FLOATS[j] as u8 == d as u8;
            j += 1;
        }
        if !narrow && !matches!(d, DType::C64 | DType::C128) {
            out[k] = d;
            k += 1;
        }
        i += 1;
    }
    assert!(k == out.len(), "REAL_DTYPES: update its length");
    out
};

/// Runs `main` on the reference interpreter.
pub fn interpret(module: &Module, inputs: &[Tensor]) -> Result<Vec<Tensor>, String> {
    let args = inputs.iter().cloned().map(Value::Tensor).collect();
    let out = Interpreter::new(module)
        .call("main", args)
        .map_err(|e| e.to_string())?;
    Ok(out
        .into_iter()
        .map(|v| v.into_tensor().expect("tests return tensors"))
        .collect())
}

/// Runs the compiled executable on copies of `inputs` (owned, so in-place paths are taken).
pub fn run_compiled(exe: &CpuExecutable, inputs: &[Tensor]) -> Result<Vec<Tensor>, String> {
    let args = inputs.iter().map(CpuBuffer::from_tensor).collect();
    let out = exe.execute(args).map_err(|e| e.to_string())?;
    Ok(out.iter().map(CpuBuffer::to_tensor).collect())
}
