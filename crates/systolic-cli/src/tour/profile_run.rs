//! Tour stage: seed exercise 4, profiling a short run. A small MLP's step jitted data-parallel
//! over the host CPU devices runs a warm-up and 50 steps under `profiler::start_trace`; the
//! stage prints what the trace says (compile against execute, idle gaps, the top ops, the
//! collectives, the memory peak) and where the trace and its picture are. The full version
//! with its options is `crates/systolic/examples/profile_run.rs`; both run
//! `examples/shared/profiled_run.rs`.

use super::Stage;
use crate::error::CliError;
use systolic::profiler::{fmt_bytes, fmt_us};
use systolic_runtime::DeviceKind;

// The tour reads the summaries, not the rendered text.
#[allow(dead_code)]
#[path = "../../../systolic/examples/shared/profiled_run.rs"]
mod profiled_run;

/// Profiled steps (the seed's 50).
const STEPS: usize = 50;

fn fail(e: impl std::fmt::Display) -> CliError {
    CliError::msg(format!("tour profile: {e}"))
}

/// The stage.
pub struct ProfileRun;

impl Stage for ProfileRun {
    fn title(&self) -> &'static str {
        "Seed exercise 4: profile 50 training steps (a trace, its summary and its picture)"
    }

    fn run(&self) -> Result<(), CliError> {
        let devices = systolic::devices()
            .into_iter()
            .filter(|d| d.kind() == DeviceKind::Cpu)
            .count();
        let config = profiled_run::Config {
            batch: 16 * devices,
            features: 32,
            hidden: 64,
            steps: STEPS,
            devices,
            out: std::env::temp_dir().join(format!(
                "systolic-tour-{}.trace.json.gz",
                std::process::id()
            )),
        };
        outln!(
            "  MLP {}→{}→{}→{} SGD, batch {} split over {devices} CPU device(s): \
             1 warm-up step, then {STEPS} steps, all traced",
            config.features,
            config.hidden,
            config.hidden,
            profiled_run::CLASSES,
            config.batch
        );
        let out = profiled_run::run(&config).map_err(fail)?;
        let host = out
            .summaries
            .first()
            .ok_or_else(|| fail("the trace has no host process"))?;
        if out.step_spans != STEPS || host.executions < STEPS as u64 + 1 {
            return Err(fail(format!(
                "the trace holds {} step annotations and {} executions; expected {STEPS} and \
                 at least {}",
                out.step_spans,
                host.executions,
                STEPS + 1
            )));
        }
        if host.compiles.get("miss").copied().unwrap_or(0) == 0 {
            return Err(fail("the warm-up's compile is not in the trace"));
        }
        if devices > 1 && host.collective_us <= 0.0 {
            return Err(fail(
                "a data-parallel step on several devices recorded no collective",
            ));
        }
        let (first, last) = (out.losses[0], out.losses[out.losses.len() - 1]);
        if last >= first {
            return Err(fail(format!("the loss did not fall ({first} → {last})")));
        }
        outln!(
            "  warm-up {} (tracing, compiling, running); a step then takes {} (median); \
             loss {first:.3} → {last:.3}",
            fmt_us(out.warmup_us),
            fmt_us(out.step_median_us)
        );
        outln!(
            "  compile {} against execute {} over {} executions; idle between them {} \
             (longest gap {})",
            fmt_us(host.compile_us),
            fmt_us(host.execute_us),
            host.executions,
            fmt_us(host.gap_us),
            fmt_us(host.max_gap_us)
        );
        if devices > 1 {
            outln!(
                "  collectives (the gradients' all-reduce) {} in all",
                fmt_us(host.collective_us)
            );
        }
        outln!("  top ops by self time:");
        for (name, t, n) in host.top_ops.iter().take(3) {
            outln!("    {:>10} {:>5}×  {name}", fmt_us(*t), n);
        }
        if let Some(m) = &host.memory {
            outln!(
                "  memory peak {} with {} buffers alive",
                fmt_bytes(m.bytes),
                m.count
            );
        }
        outln!(
            "  trace:   {} (open in ui.perfetto.dev)",
            out.trace.display()
        );
        outln!("  picture: {}", out.svg.display());
        outln!(
            "  `systolic profile {}` prints the whole summary",
            out.trace.display()
        );
        Ok(())
    }
}
