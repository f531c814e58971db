//! `systolic simulate`: how a program would run on a simulated TPU chip — the modelled time of
//! every kernel, the step time, MFU, HBM traffic and peak HBM use. With `--cost-only` from
//! shapes alone; otherwise the program also runs on a simulated `tpu:CHIP:0` device of the
//! runtime, on the given inputs, with TPU numerics (bf16 passes in products), and the device's
//! simulated clock (PCIe transfers and modelled step time) is reported beside the outputs.
//! With `--slice v5e:8x4 --cost-only` an SPMD module (`mhlo.num_partitions` ×
//! `mhlo.num_replicas` processes, one per chip) is costed on every chip of the slice, its
//! collectives on the slice's interconnect (`systolic_tpu::spmd`).

use crate::error::CliError;
use crate::inputs::{load_inputs, param_tensor_types};
use crate::outputs::{summary, write_outputs};
use crate::program::{entry_func, load_module};
use std::path::PathBuf;
use systolic_cpu::CpuBuffer;
use systolic_ir::Module;
use systolic_runtime::{Client, CompileOptions};
use systolic_tpu::slice::Slice;
use systolic_tpu::{ChipSpec, SimOptions, SimReport, TpuError};

/// Arguments of `systolic simulate`.
#[derive(clap::Args, Debug)]
pub struct SimulateArgs {
    /// The program: StableHLO/MLIR text, e.g. from `jax.jit(f).lower(*args).as_text()`.
    pub file: PathBuf,
    /// The chip to model: v2, v3, v4, v5e, v5p, v6e or tpu7x (see `systolic chips`).
    #[arg(long, required_unless_present = "slice", conflicts_with = "slice")]
    pub chip: Option<String>,
    /// A slice of chips to run an SPMD module on, one process (replica × partition) per chip:
    /// `CHIP:AxB` (v5e, v6e), `CHIP:AxBxC` (v4, v5p), `*N` for N slices over DCN, e.g.
    /// `v5e:8x4`. Its chip count must be the module's `mhlo.num_replicas ×
    /// mhlo.num_partitions`. Collectives are costed on the slice's ICI/DCN. Needs --cost-only.
    #[arg(long, value_name = "SLICE")]
    pub slice: Option<String>,
    /// Model time and memory from shapes only, without running the program.
    #[arg(long)]
    pub cost_only: bool,
    /// Cost the program exactly as written: skip the TPU compile pipeline (simplification,
    /// constant folding, CSE, DCE, fusion), so every op is a kernel of its own.
    #[arg(long)]
    pub no_compile: bool,
    /// The function to simulate.
    #[arg(long, default_value = "main")]
    pub entry: String,
    /// Report even when the program's buffers exceed the chip's HBM (instead of failing with
    /// RESOURCE_EXHAUSTED as the chip would).
    #[arg(long)]
    pub ignore_hbm_capacity: bool,
    /// Show only the N slowest kernels in the table (the totals and JSON keep them all).
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// An input `.npy` file for a numerical run; give one per parameter, in order (not with
    /// `--cost-only`, which computes nothing).
    #[arg(long = "input", value_name = "FILE.npy", conflicts_with = "cost_only")]
    pub inputs: Vec<PathBuf>,
    /// Write the outputs of a numerical run here as out0.npy, out1.npy, … (not with
    /// `--cost-only`).
    #[arg(long, value_name = "DIR", conflicts_with = "cost_only")]
    pub out_dir: Option<PathBuf>,
    /// Print the report as JSON on the last line.
    #[arg(long)]
    pub json: bool,
    /// Record a trace to this file (`systolic run --trace`'s format): each chip a process on
    /// its simulated clock, kernels marked compute- or memory-bound, collectives on the ICI
    /// track, PCIe transfers; an SVG picture beside it and the summary printed at the end.
    #[arg(long, value_name = "FILE.json")]
    pub trace: Option<PathBuf>,
}

fn tpu_error(file: &str, e: TpuError) -> CliError {
    match e {
        // Op errors already carry their place; the rest gain the file.
        TpuError::Unsupported { .. } => CliError::msg(e.to_string()),
        other => CliError::msg(format!("{file}: {other}")),
    }
}

/// Runs the command: the per-kernel table and summary, then the JSON report with `--json`.
pub fn run(args: &SimulateArgs) -> Result<(), CliError> {
    crate::trace_file::start(args.trace.as_deref())?;
    let result = simulate(args);
    // Written even when the simulation failed part-way: the trace shows how far it got.
    let written = crate::trace_file::finish(args.trace.as_deref(), args.json);
    result.and(written)
}

fn simulate(args: &SimulateArgs) -> Result<(), CliError> {
    let file = args.file.display().to_string();
    if let Some(dir) = &args.out_dir {
        crate::outputs::check_out_dir(dir)?;
    }
    if let Some(spec) = &args.slice {
        let slice = Slice::parse(spec).map_err(|e| CliError::msg(e.to_string()))?;
        if !args.cost_only {
            return Err(CliError::msg(
                "--slice needs --cost-only: running an SPMD program numerically on simulated \
                 TPU chips is not supported yet (`systolic run` runs it on CPU devices)",
            ));
        }
        let module = load_module(&args.file)?;
        return cost_only_slice(args, &module, &slice, &file);
    }
    let name = args.chip.as_deref().unwrap_or_default();
    let chip = systolic_tpu::chip(name).map_err(|e| CliError::msg(e.to_string()))?;
    let module = load_module(&args.file)?;
    if args.cost_only {
        return cost_only(args, &module, &chip, &file);
    }
    for (flag, given) in [
        ("--no-compile", args.no_compile),
        ("--ignore-hbm-capacity", args.ignore_hbm_capacity),
    ] {
        if given {
            return Err(CliError::msg(format!(
                "{flag} applies to --cost-only: a numerical run compiles with the TPU pipeline \
                 and enforces HBM capacity as the device would"
            )));
        }
    }
    numerical(args, &module, &chip, &file)
}

/// The module as the TPU costs it: after the TPU pipeline, or as written with `--no-compile`.
fn tpu_module(args: &SimulateArgs, module: &Module, file: &str) -> Result<Module, CliError> {
    if args.no_compile {
        Ok(module.clone())
    } else {
        systolic_tpu::compile::compile(module, Default::default()).map_err(|e| tpu_error(file, e))
    }
}

fn sim_options(args: &SimulateArgs) -> SimOptions {
    SimOptions {
        entry: args.entry.clone(),
        enforce_hbm: !args.ignore_hbm_capacity,
        ..SimOptions::default()
    }
}

/// Costs an SPMD program on every chip of a slice, from its shapes
/// ([`systolic_tpu::simulate_global`]): a global program (automatic `sdy.sharding`s, or
/// `sdy.manual_computation`s) is first turned into the program each device runs, device `d` of
/// its mesh on the slice's chip at row-major position `d`, and its MFU is taken over the global
/// program's FLOPs; a program already written per device is costed as it is.
fn cost_only_slice(
    args: &SimulateArgs,
    module: &Module,
    slice: &Slice,
    file: &str,
) -> Result<(), CliError> {
    let report = systolic_tpu::simulate_global(module, slice, &sim_options(args), !args.no_compile)
        .map_err(|e| tpu_error(file, e))?;
    for chip in &report.chips {
        let name = format!("{} chip {}", report.slice, chip.device);
        let dev = systolic_runtime::tpu_trace::Chip {
            pid: systolic_trace::DEVICE_PID + chip.device,
            name: &name,
        };
        systolic_runtime::tpu_trace::spmd_execution(dev, 0.0, &report, chip, chip.wait_s);
    }
    out!("{}", systolic_tpu::report::render_spmd(&report, args.top));
    if args.json {
        print_json(serde_json::to_value(&report))?;
    }
    Ok(())
}

/// Costs the program from its shapes.
fn cost_only(
    args: &SimulateArgs,
    module: &Module,
    chip: &ChipSpec,
    file: &str,
) -> Result<(), CliError> {
    let module = tpu_module(args, module, file)?;
    let report = systolic_tpu::simulate(&module, chip, &sim_options(args))
        .map_err(|e| tpu_error(file, e))?;
    let name = format!("tpu:{} (cost only)", chip.name);
    let dev = systolic_runtime::tpu_trace::Chip {
        pid: systolic_trace::DEVICE_PID,
        name: &name,
    };
    systolic_runtime::tpu_trace::execution(dev, 0.0, &report);
    print_report(&report, args.top);
    if args.json {
        print_json(serde_json::to_value(&report))?;
    }
    Ok(())
}

/// Runs the program on a simulated device of the chip and reports its outputs, the modelled
/// cost of the execution and the device's clock.
fn numerical(
    args: &SimulateArgs,
    module: &Module,
    chip: &ChipSpec,
    file: &str,
) -> Result<(), CliError> {
    let client = Client::with_tpus(&[(chip.name, 1)]).map_err(|e| {
        CliError::msg(format!(
            "tpu:{} cannot be simulated numerically ({e}); --cost-only still models it",
            chip.name
        ))
    })?;
    let device = client
        .device(&format!("tpu:{}:0", chip.name))
        .map_err(|e| CliError::msg(e.to_string()))?;
    let func = entry_func(module, &args.entry, file)?;
    let params = param_tensor_types(func)?;
    let inputs = load_inputs(&args.inputs, &params, &args.entry)?;
    let mut options = CompileOptions {
        device: Some(device),
        ..CompileOptions::no_disk_cache()
    };
    options.cpu.entry = args.entry.clone();
    let exe = client
        .compile(module, &options)
        .map_err(|e| CliError::msg(format!("{file}: {e}")))?;
    let buffers = inputs
        .into_iter()
        .enumerate()
        .map(|(i, b)| {
            client
                .buffer_from_host(b, device)
                .map_err(|e| CliError::msg(format!("input {i}: {e}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let refs: Vec<_> = buffers.iter().collect();
    let outs = exe
        .execute(&refs)
        .map_err(|e| CliError::msg(format!("{file}: {e}")))?;
    let tensors = outs
        .iter()
        .map(|b| b.to_cpu_buffer().map_err(|e| CliError::msg(e.to_string())))
        .collect::<Result<Vec<CpuBuffer>, _>>()?;
    let cost = exe
        .tpu_cost()
        .ok_or_else(|| CliError::msg(format!("{} did not record a modelled cost", device)))?;
    print_report(&cost.report, args.top);
    let clock = device.simulated_clock().unwrap_or_default();
    outln!(
        "simulated clock of {device}: {} in all = {} host→device ({} B) + {} compute ({} \
         execution) + {} device→host ({} B)",
        seconds(clock.time_s),
        seconds(clock.host_to_device_s),
        clock.bytes_to_device,
        seconds(clock.compute_s),
        clock.executions,
        seconds(clock.device_to_host_s),
        clock.bytes_from_device,
    );
    outln!("outputs (TPU numerics: f32 products at DEFAULT precision use one bf16 pass):");
    let names: Vec<String> = (0..tensors.len()).map(|i| format!("out{i}")).collect();
    for (name, t) in names.iter().zip(&tensors) {
        outln!("  {}", summary(name, t));
    }
    if let Some(dir) = &args.out_dir {
        let written = write_outputs(dir, &tensors)?;
        outln!("wrote {}", written.join(", "));
    }
    if args.json {
        let mut value = serde_json::to_value(&cost.report)
            .map_err(|e| CliError::msg(format!("cannot write the report as JSON: {e}")))?;
        if let Some(obj) = value.as_object_mut() {
            obj.insert(
                "device".into(),
                serde_json::Value::String(device.to_string()),
            );
            obj.insert(
                "clock".into(),
                serde_json::json!({
                    "time_s": clock.time_s,
                    "compute_s": clock.compute_s,
                    "host_to_device_s": clock.host_to_device_s,
                    "device_to_host_s": clock.device_to_host_s,
                    "bytes_to_device": clock.bytes_to_device,
                    "bytes_from_device": clock.bytes_from_device,
                    "executions": clock.executions,
                }),
            );
            obj.insert(
                "outputs".into(),
                serde_json::Value::Array(tensors.iter().map(output_json).collect()),
            );
        }
        print_json(Ok(value))?;
    }
    Ok(())
}

/// An output's shape, dtype, first values and sum, for the JSON report.
fn output_json(b: &CpuBuffer) -> serde_json::Value {
    let info = crate::outputs::OutputInfo::of(b);
    let values = b.to_tensor().to_f64_vec();
    serde_json::json!({
        "shape": info.shape,
        "dtype": info.dtype,
        "first": values.iter().take(5).collect::<Vec<_>>(),
        "sum": values.iter().sum::<f64>(),
    })
}

fn seconds(s: f64) -> String {
    if s >= 1.0 {
        format!("{s:.3} s")
    } else if s >= 1e-3 {
        format!("{:.3} ms", s * 1e3)
    } else {
        format!("{:.3} µs", s * 1e6)
    }
}

fn print_report(report: &SimReport, top: Option<usize>) {
    out!("{}", systolic_tpu::report::render_simulation(report, top));
}

fn print_json(value: serde_json::Result<serde_json::Value>) -> Result<(), CliError> {
    let line = value
        .and_then(|v| serde_json::to_string(&v))
        .map_err(|e| CliError::msg(format!("cannot write the report as JSON: {e}")))?;
    outln!("{line}");
    Ok(())
}
