//! Tour stage: the MLP of the first stage compiled for this CPU (passes, fused kernels,
//! AVX-512 products) through the runtime, timed beside the reference interpreter on the same
//! inputs, and checked against JAX again.

use super::mlp::{check_against_jax, generated_inputs, reference, MODULE, NAME};
use super::Stage;
use crate::backend::{Backend, PrepareOptions};
use crate::error::CliError;
use crate::program::parse_and_verify;
use crate::timing::{time_ms, RunStats};
use systolic_cpu::CpuBuffer;

/// Timed runs of the compiled program after the first.
const RUNS: usize = 20;

/// The stage.
pub struct CompiledMlp;

impl Stage for CompiledMlp {
    fn title(&self) -> &'static str {
        "The same MLP compiled for this CPU, beside the interpreter"
    }

    fn run(&self) -> Result<(), CliError> {
        let r = reference()?;
        let module = parse_and_verify(MODULE, NAME)?;
        let inputs = generated_inputs(&r);
        let macs: i64 = r.sizes.windows(2).map(|p| r.batch * p[0] * p[1]).sum();
        let gflops = |ms: f64| 2.0 * macs as f64 / (ms * 1e6);

        // The disk cache stays off: the tour shows a real compile.
        let (exe, compile_ms) =
            time_ms(|| Backend::Cpu.prepare(&module, "main", NAME, &PrepareOptions::default()));
        let mut exe = exe?;
        exe.put_inputs(inputs.iter().map(CpuBuffer::from_tensor).collect())?;
        let (first, first_ms) = time_ms(|| exe.execute());
        first?;
        let mut times = Vec::with_capacity(RUNS);
        for _ in 0..RUNS {
            let (result, ms) = time_ms(|| exe.execute());
            result?;
            times.push(ms);
        }
        let stats = RunStats::of(&times).expect("RUNS > 0");
        let outputs = exe.outputs()?;
        let out = outputs
            .first()
            .ok_or_else(|| CliError::msg(format!("{NAME}: @main returned no result")))?;
        let diff = check_against_jax(&out.to_tensor(), &r)?;

        let mut interp = Backend::Interp.prepare(&module, "main", NAME, &Default::default())?;
        let (interp_out, interp_ms) = time_ms(|| interp.run(&inputs));
        interp_out?;

        outln!(
            "  compile (passes, fusion, lowering to kernels): {compile_ms:.1} ms, first run {first_ms:.2} ms"
        );
        outln!(
            "  compiled CPU: median {:.3} ms over {RUNS} runs ({:.1} GFLOP/s)",
            stats.median,
            gflops(stats.median)
        );
        outln!(
            "  interpreter:  {interp_ms:.1} ms ({:.2} GFLOP/s): the compiled program is {:.0}× faster",
            gflops(interp_ms),
            interp_ms / stats.median.max(1e-6)
        );
        outln!("  compiled logits agree with JAX (checksum difference {diff:.1e})");
        Ok(())
    }
}
