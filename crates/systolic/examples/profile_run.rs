//! Seed exercise 4: profile a short run. An MLP's SGD step, jitted data-parallel over 8 host
//! devices (the batch split, the gradients all-reduced), runs one warm-up step and then 50
//! steps, all under `profiler::start_trace`; the example then reads the trace back and prints
//! what the seed asks: compile against execute time, the idle gaps between executions (input
//! stalls), the top ops by self time and the collectives' share, and the memory peak. The
//! trace (Chrome trace-event JSON, gzipped; open it in ui.perfetto.dev) and its SVG timeline
//! and memory plot are written under `--out`.
//!
//! ```text
//! cargo run -p systolic --example profile_run
//! cargo run -p systolic --example profile_run -- --devices 1 --steps 20 --json
//! systolic profile target/profile_run/profile_run.trace.json.gz
//! ```
//!
//! With `--json` the last stdout line is a JSON object: `trace`, `svg`, `devices`, `steps`,
//! `warmup_ms`, `step_median_ms`, and per trace process (`processes`): `name`, `compile_ms`,
//! `compiles` (by cache outcome), `execute_ms`, `executions`, `idle_ms`, `longest_gap_ms`,
//! `collective_ms`, `top_ops` (`name`, `self_ms`, `count`) and `memory_peak_bytes`.

#[path = "shared/profiled_run.rs"]
mod profiled_run;

use clap::Parser;
use profiled_run::Config;
use std::path::PathBuf;
use systolic::profiler::{fmt_bytes, fmt_us};

#[derive(Parser, Debug)]
#[command(about = "Profile 50 training steps: compile vs execute, gaps, top ops, collectives")]
struct Args {
    /// Profiled steps after the warm-up.
    #[arg(long, default_value_t = 50)]
    steps: usize,
    /// Host devices to run data-parallel on (1: one device, no collectives).
    #[arg(long, default_value_t = 8)]
    devices: usize,
    /// Examples per step.
    #[arg(long, default_value_t = 256)]
    batch: usize,
    /// Input features.
    #[arg(long, default_value_t = 256)]
    features: usize,
    /// Hidden units.
    #[arg(long, default_value_t = 512)]
    hidden: usize,
    /// The trace file (`.json` or `.json.gz`); its picture goes beside it as `.svg`.
    #[arg(long, default_value = "target/profile_run/profile_run.trace.json.gz")]
    out: PathBuf,
    /// Print a JSON object as the last line.
    #[arg(long)]
    json: bool,
}

fn ms(us: f64) -> f64 {
    us / 1e3
}

fn main() -> systolic::Result<()> {
    let args = Args::parse();
    if args.steps == 0 || args.devices == 0 || args.batch == 0 || args.hidden == 0 {
        return Err(systolic::Error::Runtime(
            "profile_run: --steps, --devices, --batch and --hidden must be positive".into(),
        ));
    }
    if args.devices > 1 {
        systolic::set_cpu_devices(args.devices)?;
    }
    let config = Config {
        batch: args.batch,
        features: args.features,
        hidden: args.hidden,
        steps: args.steps,
        devices: args.devices,
        out: args.out.clone(),
    };
    let out = profiled_run::run(&config)?;
    if out.step_spans != args.steps {
        return Err(systolic::Error::Runtime(format!(
            "profile_run: the trace holds {} step annotations, not {}",
            out.step_spans, args.steps
        )));
    }
    println!(
        "MLP {}→{}→{}→{} SGD, batch {} over {} device(s): 1 warm-up step, {} profiled steps",
        args.features,
        args.hidden,
        args.hidden,
        profiled_run::CLASSES,
        args.batch,
        args.devices,
        args.steps
    );
    println!(
        "warm-up (trace + compile + run) {}, then a step takes {} (median); loss {:.3} → {:.3}",
        fmt_us(out.warmup_us),
        fmt_us(out.step_median_us),
        out.losses[0],
        out.losses[out.losses.len() - 1]
    );
    println!();
    print!("{}", out.summary_text);
    println!();
    println!("trace:   {}", out.trace.display());
    println!("picture: {}", out.svg.display());
    println!("(open the trace in ui.perfetto.dev; `systolic profile TRACE` prints the summary)");
    let host = &out.summaries[0];
    if let Some(m) = &host.memory {
        println!(
            "host memory peak {} with {} buffers alive",
            fmt_bytes(m.bytes),
            m.count
        );
    }
    if args.json {
        let processes: Vec<serde_json::Value> = out
            .summaries
            .iter()
            .map(|s| {
                serde_json::json!({
                    "name": s.name,
                    "compile_ms": ms(s.compile_us),
                    "compiles": s.compiles,
                    "execute_ms": ms(s.execute_us),
                    "executions": s.executions,
                    "idle_ms": ms(s.gap_us),
                    "longest_gap_ms": ms(s.max_gap_us),
                    "collective_ms": ms(s.collective_us),
                    "top_ops": s.top_ops.iter().map(|(n, t, c)| serde_json::json!({
                        "name": n, "self_ms": ms(*t), "count": c,
                    })).collect::<Vec<_>>(),
                    "memory_peak_bytes": s.memory.as_ref().map(|m| m.bytes),
                })
            })
            .collect();
        let summary = serde_json::json!({
            "trace": out.trace,
            "svg": out.svg,
            "devices": args.devices,
            "steps": args.steps,
            "warmup_ms": ms(out.warmup_us),
            "step_median_ms": ms(out.step_median_us),
            "processes": processes,
        });
        println!("{summary}");
    }
    Ok(())
}
