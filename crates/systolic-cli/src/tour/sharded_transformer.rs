//! Tour stage: automatic sharding. A small transformer's training step written once, for the
//! global arrays, and run with `jit(...).in_shardings(...).out_shardings(...)` under data
//! parallelism, FSDP and FSDP + tensor parallelism on a 4×2 mesh of the 8 host CPU devices:
//! the compiler propagates the shardings and partitions the step, and the losses equal the
//! one-device step's. The same step at a larger size, in bf16, is then partitioned for a v5p
//! slice and costed on every chip. `examples/sharded_transformer.rs` is the full version
//! (timings, more slices and mesh shapes).

use super::Stage;
use crate::error::CliError;
use systolic::{jit, make_mesh, random};
use systolic_ir::DType;

#[path = "../../../systolic/examples/shared/transformer.rs"]
mod transformer;
use transformer::{batch, cost_on_slice, init, step, zeros, Config, Params, StepArgs, Strategy};

/// Training steps on each side.
const STEPS: usize = 3;

fn fail(e: impl std::fmt::Display) -> CliError {
    CliError::msg(format!("sharded transformer: {e}"))
}

/// The stage.
pub struct ShardedTransformer;

impl Stage for ShardedTransformer {
    fn title(&self) -> &'static str {
        "Automatic sharding: a transformer step under jit with shardings (DP, FSDP, FSDP + TP)"
    }

    fn run(&self) -> Result<(), CliError> {
        let mesh = make_mesh(&[4, 2], &["data", "model"]).map_err(fail)?;
        let cfg = Config::TOUR;
        let params = init(&cfg, &random::key(0), DType::F32);
        outln!(
            "  {} parameters, d_model {}, {} layers, batch {}×{} tokens, {STEPS} SGD steps",
            cfg.params(),
            cfg.d_model,
            cfg.layers,
            cfg.batch,
            cfg.seq
        );
        type Run<'a> = &'a dyn Fn(&StepArgs) -> systolic::Result<(Params, systolic::Array)>;
        let losses = |start: &Params, run: Run| -> Result<Vec<f32>, CliError> {
            let mut p = start.clone();
            let mut out = vec![];
            for i in 0..STEPS {
                let (next, l) = run(&(p, batch(&cfg, i))).map_err(fail)?;
                out.push(l.to_vec::<f32>().map_err(fail)?[0]);
                p = next;
            }
            Ok(out)
        };
        let single = jit(step);
        let want = losses(&params, &|a| single.call(a))?;
        outln!("  one device: losses {want:.4?}");
        for strategy in Strategy::ALL {
            let sharded = jit(step)
                .in_shardings(strategy.in_shardings(&mesh, &cfg))
                .out_shardings(strategy.out_shardings(&mesh, &cfg));
            let pinned = strategy.pin_activations(&params, &mesh);
            let got = losses(&pinned, &|a| sharded.call(a))?;
            let diff = got
                .iter()
                .zip(&want)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0f32, f32::max);
            if diff > 1e-4 * want[0].abs().max(1.0) {
                return Err(fail(format!(
                    "{}: losses {got:?} differ from one device's {want:?}",
                    strategy.name()
                )));
            }
            outln!(
                "  {:<14} on 8 devices: losses equal the one-device run's (max |Δ| {diff:.1e})",
                strategy.name()
            );
        }
        let big = Config::TOUR_SLICE;
        let text = jit(step)
            .in_shardings(Strategy::FsdpTp.in_shardings(&mesh, &big))
            .out_shardings(Strategy::FsdpTp.out_shardings(&mesh, &big))
            .lower(&(
                Strategy::FsdpTp.pin_activations(&zeros(&big, DType::BF16), &mesh),
                batch(&big, 0),
            ))
            .map_err(fail)?
            .as_text();
        let global = systolic_ir::text::parse_module(&text, "step.mlir").map_err(fail)?;
        outln!(
            "  {:.0}M parameters in bf16, batch {}×{} tokens, FSDP + TP, costed on v5p:2x2x2:",
            big.params() as f64 / 1e6,
            big.batch,
            big.seq
        );
        for (d, m) in [(8, 1), (4, 2), (2, 4)] {
            let r = cost_on_slice(&global, "v5p:2x2x2", d, m).map_err(fail)?;
            outln!(
                "    mesh {d}×{m}: step {:.2} ms, MFU {:.1}%, communication {:.1}% of the step, \
                 {:.2} GiB HBM per chip",
                r.time_s * 1e3,
                r.mfu * 100.0,
                100.0 * r.collective_s / r.time_s.max(f64::MIN_POSITIVE),
                r.peak_hbm_bytes as f64 / (1u64 << 30) as f64
            );
        }
        Ok(())
    }
}
