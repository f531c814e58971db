//! `systolic run`: run one function of an MLIR file on `.npy` inputs.

use crate::backend::{Backend, PrepareOptions};
use crate::error::CliError;
use crate::inputs::{load_inputs, param_tensor_types};
use crate::outputs::{summary, write_outputs, OutputInfo};
use crate::program::{entry_func, load_module};
use crate::spmd::{self, SpmdPlan};
use crate::timing::{time_ms, RunStats};
use serde::Serialize;
use std::path::PathBuf;
use systolic_ir::TensorType;

/// Arguments of `systolic run`.
#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// The program: StableHLO/MLIR text, e.g. from `jax.jit(f).lower(*args).as_text()`.
    pub file: PathBuf,
    /// The function to run.
    #[arg(long, default_value = "main")]
    pub entry: String,
    /// An input `.npy` file; give one per parameter, in order.
    #[arg(long = "input", value_name = "FILE.npy")]
    pub inputs: Vec<PathBuf>,
    /// Write the outputs here as out0.npy, out1.npy, …
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// Where to run: `cpu` (compiled for this machine) or `interp` (the reference
    /// interpreter).
    #[arg(long, default_value = "cpu")]
    pub backend: String,
    /// Write the module after every compiler pass to this directory (`cpu` only); for a
    /// program sharded over several devices (Shardy form) also `spmd-propagated.mlir` (the
    /// global program with every value's propagated sharding) and `spmd-per-device.mlir`
    /// (the program each device runs).
    #[arg(long, value_name = "DIR")]
    pub dump_dir: Option<PathBuf>,
    /// The disk compile cache (`cpu` only; default: $SYSTOLIC_CACHE_DIR, else none).
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// Timed runs after the first one (for steady-state timing; at most 1000000, each
    /// run's time is kept for the median).
    #[arg(long, default_value_t = 0, value_name = "N", value_parser = parse_repeat)]
    pub repeat: usize,
    /// After the runs, run the program step by step with every kernel timed and print where
    /// the time went (`cpu` only): `--repeat` rounds (at least 3), the median per step.
    #[arg(long)]
    pub profile: bool,
    /// Stop the command when it has run this many seconds (compiling included): a clear
    /// error naming how far a `while` loop got, instead of running on without end.
    #[arg(long, value_name = "SECONDS", value_parser = parse_timeout)]
    pub timeout: Option<std::time::Duration>,
    /// Record a trace of the command (compile passes, each run's kernels, transfers,
    /// memory) to this file — Chrome trace-event JSON, gzipped if it ends in `.gz` — with an
    /// SVG picture beside it, and print its summary (`systolic profile`) at the end.
    #[arg(long, value_name = "FILE.json")]
    pub trace: Option<PathBuf>,
    /// Print the timing report as JSON on the last line.
    #[arg(long)]
    pub json: bool,
    /// After the runs, compile the program again from its text this many times in this
    /// process (parse, passes, lowering; no disk cache) and run each once, timing compile +
    /// first run (`cpu`, one device), then run each once more: the start-up of a process whose
    /// memory earlier runs have touched, as JAX's compile trials in one Python process are.
    /// At most 1000.
    #[arg(long, default_value_t = 0, value_name = "N", value_parser = parse_startup_trials)]
    pub startup_trials: usize,
}

/// The timing report `--json` prints.
#[derive(Serialize, Debug)]
struct Report<'a> {
    file: String,
    entry: &'a str,
    backend: &'static str,
    /// Parse, verify and prepare (compile, or load from the compile cache).
    compile_ms: f64,
    /// Where the compiled program came from (`compiled`, `disk cache`), for `cpu`.
    #[serde(skip_serializing_if = "Option::is_none")]
    compile_source: Option<&'static str>,
    /// Bytes for temporaries and results as buffer assignment planned them, for `cpu`.
    #[serde(skip_serializing_if = "Option::is_none")]
    peak_memory_bytes: Option<u64>,
    /// Devices the program ran on, when more than one (`mhlo.num_replicas` ×
    /// `mhlo.num_partitions`).
    #[serde(skip_serializing_if = "Option::is_none")]
    devices: Option<usize>,
    /// On several devices, for `cpu`: the most bytes one device holds at once — its argument
    /// pieces plus the planned peak of its temporaries and results.
    #[serde(skip_serializing_if = "Option::is_none")]
    device_memory_bytes: Option<u64>,
    /// The first run, with the inputs already on the device.
    first_run_ms: f64,
    /// Over the `--repeat` runs after the first, or the first run alone without `--repeat`;
    /// inputs stay on the device and outputs are not copied back between runs.
    run_ms: RunStats,
    /// Start-up: compile + first run less the run right after it (with `--repeat`). Paired
    /// this way, a slow or fast spell of a shared host falls on both terms alike, where a
    /// difference against the median of later runs takes the spell's drift with it.
    #[serde(skip_serializing_if = "Option::is_none")]
    startup_ms: Option<f64>,
    /// Compile + first run of each `--startup-trials` trial, in this process after the runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    warm_startup_ms: Option<RunStats>,
    /// Each trial's start-up: its compile + first run less its own second run.
    #[serde(skip_serializing_if = "Option::is_none")]
    warm_startup_over_next_ms: Option<RunStats>,
    outputs: Vec<OutputInfo>,
}

/// Runs the command, printing summaries (and the JSON report) to stdout.
pub fn run(args: &RunArgs) -> Result<(), CliError> {
    keep_freed_memory();
    // The whole command, compiling included, must end within the limit.
    systolic_ir::deadline::set_timeout(args.timeout);
    let backend = Backend::from_name(&args.backend)?;
    let file = args.file.display().to_string();
    let entry = args.entry.as_str();
    let (module, parse_ms) = time_ms(|| load_module(&args.file));
    let module = module?;
    if let Some(dir) = &args.out_dir {
        crate::outputs::check_out_dir(dir)?;
    }
    if let Some(dir) = args
        .cache_dir
        .as_ref()
        .filter(|d| d.exists() && !d.is_dir())
    {
        return Err(CliError::msg(format!(
            "--cache-dir {} is not a directory",
            dir.display()
        )));
    }
    let func = entry_func(&module, entry, &file)?;
    crate::trace_file::start(args.trace.as_deref())?;
    let options = PrepareOptions {
        dump_dir: args.dump_dir.clone(),
        cache_dir: args.cache_dir.clone(),
    };
    // Several devices when the module asks for more than one replica or partition.
    let plan = SpmdPlan::new(&module, entry, &file)?;
    for warning in plan.iter().flat_map(|p| &p.warnings) {
        eprintln!("warning: {file}: {warning}");
    }
    let inputs = match &plan {
        Some(plan) => spmd::load_inputs(plan, &args.inputs)?,
        None => load_inputs(&args.inputs, &param_tensor_types(func)?, entry)?,
    };
    if plan.is_some() && args.profile {
        return Err(CliError::msg(
            "--profile runs one device's program; it is not available on several devices yet",
        ));
    }
    if args.startup_trials > 0 && (plan.is_some() || backend != Backend::Cpu) {
        return Err(CliError::msg(
            "--startup-trials compiles for the cpu backend on one device only",
        ));
    }
    let (executable, prepare_ms) = time_ms(|| match plan {
        Some(plan) => spmd::prepare(backend, plan, &file, &options),
        None => backend.prepare(&module, entry, &file, &options),
    });
    let mut executable = executable?;
    let compile_ms = parse_ms + prepare_ms;

    for note in executable.notes() {
        outln!("{note}");
    }
    executable.put_inputs(inputs)?;
    let (first, first_run_ms) = time_ms(|| executable.execute());
    first?;
    let mut times = Vec::with_capacity(args.repeat);
    for _ in 0..args.repeat {
        let (result, ms) = time_ms(|| executable.execute());
        result?;
        times.push(ms);
    }
    let outputs = executable.outputs()?;
    crate::trace_file::finish(args.trace.as_deref(), args.json)?;
    if args.profile {
        print_profile(&executable.profile(args.repeat.max(PROFILE_MIN_ROUNDS))?);
    }
    let run_ms = RunStats::of(&times)
        .or_else(|| RunStats::of(&[first_run_ms]))
        .expect("one time at least");
    let startup_ms = times.first().map(|next| compile_ms + first_run_ms - next);
    let (warm_startup_ms, warm_startup_over_next_ms) = if args.startup_trials > 0 {
        let params = param_tensor_types(func)?;
        let trials = startup_trials(args, backend, entry, &file, &params)?;
        let firsts: Vec<f64> = trials.iter().map(|t| t.first_ms).collect();
        let over_next: Vec<f64> = trials.iter().map(|t| t.first_ms - t.next_ms).collect();
        (RunStats::of(&firsts), RunStats::of(&over_next))
    } else {
        (None, None)
    };

    for (i, t) in outputs.iter().enumerate() {
        outln!("{}", summary(&format!("out{i}"), t));
    }
    if let Some(dir) = &args.out_dir {
        let written = write_outputs(dir, &outputs)?;
        outln!("wrote {}", written.join(", "));
    }
    if args.json {
        let report = Report {
            file,
            entry,
            backend: backend.name(),
            compile_ms,
            compile_source: executable.compile_source(),
            peak_memory_bytes: executable.peak_memory_bytes(),
            devices: (executable.devices() > 1).then(|| executable.devices()),
            device_memory_bytes: executable.device_memory_bytes(),
            first_run_ms,
            run_ms,
            startup_ms,
            warm_startup_ms,
            warm_startup_over_next_ms,
            outputs: outputs.iter().map(OutputInfo::of).collect(),
        };
        let line = serde_json::to_string(&report)
            .map_err(|e| CliError::msg(format!("cannot format the JSON report: {e}")))?;
        outln!("{line}");
    } else {
        if let Some(bytes) = executable.device_memory_bytes() {
            outln!(
                "device memory (argument pieces, temporaries and results, the largest of {} \
                 devices): {}",
                executable.devices(),
                systolic_tpu::error::human_bytes(bytes as f64)
            );
        } else if let Some(bytes) = executable.peak_memory_bytes() {
            outln!(
                "peak memory (temporaries and results, as planned): {}",
                systolic_tpu::error::human_bytes(bytes as f64)
            );
        }
        outln!(
            "compile {compile_ms:.2} ms, first run {first_run_ms:.2} ms{}",
            if args.repeat > 0 {
                format!(
                    ", {} runs: min {:.2} / median {:.2} / max {:.2} ms",
                    run_ms.count, run_ms.min, run_ms.median, run_ms.max
                )
            } else {
                String::new()
            }
        );
        if let (Some(t), Some(over)) = (warm_startup_ms, warm_startup_over_next_ms) {
            outln!(
                "compile + first run again in this process, {} trials: min {:.2} / median \
                 {:.2} / max {:.2} ms; less each trial's second run: median {:.2} ms",
                t.count,
                t.min,
                t.median,
                t.max,
                over.median
            );
        }
    }
    Ok(())
}

/// One `--startup-trial`: compile + first run, and the run right after it.
struct StartupTrial {
    first_ms: f64,
    next_ms: f64,
}

/// `--startup-trials`: compile + first run, then a second run, of programs compiled afresh
/// from the file in this process. Each trial's executable and results are dropped before the
/// next, so their memory returns to the buffer pool as a long-running process's would.
fn startup_trials(
    args: &RunArgs,
    backend: Backend,
    entry: &str,
    file: &str,
    params: &[TensorType],
) -> Result<Vec<StartupTrial>, CliError> {
    let options = PrepareOptions {
        dump_dir: None,
        cache_dir: None,
    };
    // Read once; each trial places its own copy (a trial's executable consumes its inputs).
    let inputs = load_inputs(&args.inputs, params, entry)?;
    let mut times = Vec::with_capacity(args.startup_trials);
    for _ in 0..args.startup_trials {
        let inputs = inputs.clone();
        // Timed as the main compile is: parse, then prepare (the executable borrows the module).
        let (module, parse_ms) = time_ms(|| load_module(&args.file));
        let module = module?;
        let (executable, prepare_ms) = time_ms(|| backend.prepare(&module, entry, file, &options));
        let mut executable = executable?;
        executable.put_inputs(inputs)?;
        let (first, first_ms) = time_ms(|| executable.execute());
        first?;
        let (next, next_ms) = time_ms(|| executable.execute());
        next?;
        times.push(StartupTrial {
            first_ms: parse_ms + prepare_ms + first_ms,
            next_ms,
        });
    }
    Ok(times)
}

/// Rounds `--profile` runs at least: the first round's kernels find cold caches and a cold
/// pool, so one round alone overstates them.
const PROFILE_MIN_ROUNDS: usize = 3;

/// The most `--repeat` runs: each keeps its time for the median, and a count past this is a
/// typo rather than a benchmark (2e9 runs would keep 16 GB of times).
const MAX_REPEAT: usize = 1_000_000;

/// `--repeat N`: a count from 0 to [`MAX_REPEAT`].
fn parse_repeat(text: &str) -> Result<usize, String> {
    let n: usize = text
        .parse()
        .map_err(|_| format!("'{text}' is not a count of runs"))?;
    if n > MAX_REPEAT {
        return Err(format!("{n} runs is more than the {MAX_REPEAT} it allows"));
    }
    Ok(n)
}

/// Rows of each profile table.
const PROFILE_ROWS: usize = 12;

/// Where one run's time went: per op kind, then the slowest steps.
fn print_profile(profile: &systolic_runtime::Profile) {
    let total = profile.total_ms();
    let share = |ms: f64| 100.0 * ms / total.max(1e-9);
    outln!(
        "profile: {} steps, {total:.2} ms (median of {} rounds per step, each step timed alone, \
         operands handed over at their last use as in a run)",
        profile.steps.len(),
        profile.rounds()
    );
    outln!("  by op:");
    for (op, ms, n) in profile.by_op().into_iter().take(PROFILE_ROWS) {
        outln!("  {ms:10.3} ms {:5.1}%  {op} ×{n}", share(ms));
    }
    let paired = profile.steps.iter().filter(|s| s.paired).count();
    if paired > 0 {
        outln!("  ({paired} steps marked ∥ run two at a time in a normal run)");
    }
    outln!("  slowest steps:");
    for step in profile.slowest(PROFILE_ROWS) {
        outln!(
            "  {:10.3} ms {:5.1}% {} {}",
            step.ms,
            share(step.ms),
            if step.paired { "∥" } else { " " },
            step.kernel
        );
    }
}

/// Keeps memory the program frees for its next allocations instead of returning it to the
/// system: glibc serves large allocations (≥ 128 KiB to 32 MiB, adaptively) by `mmap` and
/// unmaps them on free, so every repeated run faulted its outputs and large temporaries in
/// afresh (about 4,000 page faults per run for a 2048² f32 product's result). With `mmap` off
/// and trimming at 1 GiB, freed blocks stay in the heap and are reused.
fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        use libc::{mallopt, M_MMAP_MAX, M_TRIM_THRESHOLD};
        // SAFETY: mallopt only changes glibc's allocation policy; it is called before this
        // command allocates anything large and while no other thread allocates.
        unsafe {
            mallopt(M_MMAP_MAX, 0);
            mallopt(M_TRIM_THRESHOLD, 1 << 30);
        }
    }
}

/// The most `--startup-trials`.
const MAX_STARTUP_TRIALS: usize = 1000;

/// `--startup-trials N`: a count from 0 to [`MAX_STARTUP_TRIALS`].
fn parse_startup_trials(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n <= MAX_STARTUP_TRIALS => Ok(n),
        _ => Err(format!(
            "expected a number of trials from 0 to {MAX_STARTUP_TRIALS}, got {text:?}"
        )),
    }
}

/// `--timeout SECONDS`: a positive number of seconds (fractions allowed), at most a year.
fn parse_timeout(text: &str) -> Result<std::time::Duration, String> {
    match text.parse::<f64>() {
        Ok(s) if s > 0.0 && s <= 365.0 * 86400.0 => Ok(std::time::Duration::from_secs_f64(s)),
        _ => Err(format!(
            "expected a positive number of seconds (at most a year), got {text:?}"
        )),
    }
}
