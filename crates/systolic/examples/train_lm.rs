//! Trains a GPT-style character-level language model on the King James Bible's Genesis and
//! Exodus (`data/kjv_genesis_exodus.txt`, public domain, 367 KB): AdamW with warmup-cosine
//! decay, bf16 compute from f32 parameters, a progress bar with the loss and tokens/s,
//! checkpoints every N steps, `--resume`, and sampled text at the end.
//!
//! ```text
//! cargo run --release -p systolic --example train_lm
//! cargo run --release -p systolic --example train_lm -- --steps 200 --checkpoint-dir ckpt
//! cargo run --release -p systolic --example train_lm -- --steps 400 --checkpoint-dir ckpt --resume
//! cargo run --release -p systolic --example train_lm -- --steps 20 --device tpu:v5e --json
//! ```
//!
//! The model and its step are `examples/shared/gpt.rs`; `scripts/train_lm_golden.py` is the same
//! model in flax and optax, and `tests/train_lm.rs` checks that the first 10 losses agree.
//! A batch depends only on the seed and the step number, so a resumed run trains on exactly the
//! batches the uninterrupted run would have.
//!
//! With `--device tpu:v5e` (any chip `systolic chips` lists) the step is also compiled for that
//! simulated chip and its modelled step time, MFU and peak HBM are reported. With `--json` the
//! last line of stdout is a JSON object: the configuration, `losses` (every step's), `val_loss`,
//! `tokens_per_s`, `step_ms` (median), `compile_ms`, `sample`, and `tpu` when asked for.

#[path = "shared/gpt.rs"]
mod gpt;

use clap::Parser;
use gpt::{Config, Corpus, Params, State};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::time::Instant;
use systolic::{checkpoint, jit, jit_fallible, numpy as np, random, Array};
use systolic_ir::DType;

/// The bundled text.
const TEXT: &str = include_str!("../../../data/kjv_genesis_exodus.txt");

#[derive(Parser, Debug)]
#[command(about = "Train a character-level GPT on Genesis and Exodus (KJV)")]
struct Args {
    /// Training steps (in total, counting the steps of a resumed checkpoint).
    #[arg(long, default_value_t = 800)]
    steps: i64,
    /// Windows per step.
    #[arg(long, default_value_t = 16)]
    batch: i64,
    /// Peak learning rate.
    #[arg(long, default_value_t = 2e-3)]
    lr: f64,
    /// Linear warmup steps (at most a fifth of `--steps`).
    #[arg(long, default_value_t = 80)]
    warmup: i64,
    /// Compute dtype: bf16 or f32 (parameters and optimizer state are f32 either way).
    #[arg(long, default_value = "bf16")]
    compute: String,
    /// Model size: `standard` (4 layers, d 256, context 128) or `tiny` (2 layers, d 64, 32).
    #[arg(long, default_value = "standard")]
    model: String,
    /// Seed of the initialisation and of the batches.
    #[arg(long, default_value_t = 0)]
    seed: i64,
    /// Evaluate the validation loss every this many steps (and at the end).
    #[arg(long, default_value_t = 200)]
    eval_every: i64,
    /// Validation batches per evaluation.
    #[arg(long, default_value_t = 16)]
    eval_batches: i64,
    /// Where checkpoints go (`state.safetensors`, replaced atomically).
    #[arg(long)]
    checkpoint_dir: Option<PathBuf>,
    /// Save a checkpoint every this many steps (and at the end) when `--checkpoint-dir` is set.
    #[arg(long, default_value_t = 200)]
    checkpoint_every: i64,
    /// Continue from `--checkpoint-dir`'s checkpoint.
    #[arg(long)]
    resume: bool,
    /// Stop after this step, as an interrupted run would (the schedule is still `--steps`'s;
    /// a checkpoint is written there): `--resume` then continues it.
    #[arg(long)]
    stop_at: Option<i64>,
    /// Characters to sample at the end.
    #[arg(long, default_value_t = 400)]
    sample: usize,
    /// Sampling temperature.
    #[arg(long, default_value_t = 0.8)]
    temperature: f64,
    /// The text the sample starts from.
    #[arg(long, default_value = "And God said")]
    prompt: String,
    /// Also compile the step for this simulated TPU (`tpu:v5e`) and report its step time.
    #[arg(long)]
    device: Option<String>,
    /// Time every kernel of one training step and print the slowest (after training).
    #[arg(long)]
    profile: bool,
    /// With `--profile`: write the step's module after every compiler pass to this directory.
    #[arg(long)]
    dump_dir: Option<PathBuf>,
    /// Print a JSON summary as the last line.
    #[arg(long)]
    json: bool,
}

fn fail(what: &str) -> impl Fn(String) -> systolic::Error + '_ {
    move |m| systolic::Error::Host(format!("{what}: {m}"))
}

/// The mean loss over `n` fixed validation batches.
fn validation_loss(
    eval: &impl Fn(&(Params, Array, Array)) -> systolic::Result<Array>,
    params: &Params,
    cfg: &Config,
    val: &[i32],
    n: i64,
) -> systolic::Result<f64> {
    let key = random::key(1234);
    let mut sum = 0.0;
    for i in 0..n {
        let starts = gpt::batch_starts(cfg, &key, i, val.len())?;
        let (x, y) = gpt::batch(cfg, val, &starts);
        sum += f64::from(eval(&(params.clone(), x, y))?.to_vec::<f32>()?[0]);
    }
    Ok(sum / n as f64)
}

/// `--sample` characters drawn after `--prompt` at `--temperature`: one forward pass per
/// character over the last `context` characters, padded on the right to the context (the model
/// is causal, so the padding does not change the prediction read at the last real position)
/// and so compiled once.
fn sample(
    params: &Params,
    cfg: &Config,
    corpus: &Corpus,
    compute: DType,
    args: &Args,
) -> systolic::Result<String> {
    let t = cfg.context as usize;
    let next = jit(|(p, window, pos, key): &(Params, Array, Array, Array)| {
        let logits = gpt::logits(p, window, compute);
        let row = np::take(
            &np::reshape(&logits, &[cfg.context, cfg.vocab]),
            pos,
            Some(0),
            np::TakeMode::Clip,
        );
        random::categorical(key, &(&row / args.temperature), -1, None)
    });
    let mut ids = corpus.encode(&args.prompt);
    if ids.is_empty() {
        ids.push(0);
    }
    let key = random::key(args.seed);
    for i in 0..args.sample {
        let tail = &ids[ids.len().saturating_sub(t)..];
        let mut window = tail.to_vec();
        window.resize(t, tail[tail.len() - 1]);
        let window = Array::from_vec(window, &[1, cfg.context]);
        let pos = Array::scalar(tail.len() as i32 - 1);
        let k = random::fold_in(&key, i as i64);
        let id = next
            .call(&(params.clone(), window, pos, k))?
            .to_vec::<i32>()?[0];
        ids.push(id);
    }
    Ok(corpus.decode(&ids))
}

fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(f64::total_cmp);
    if xs.is_empty() {
        0.0
    } else {
        xs[xs.len() / 2]
    }
}

fn main() -> systolic::Result<()> {
    let args = Args::parse();
    let compute = match args.compute.as_str() {
        "bf16" => DType::BF16,
        "f32" => DType::F32,
        other => {
            return Err(fail("--compute")(format!(
                "expected bf16 or f32, got {other}"
            )))
        }
    };
    let corpus = Corpus::new(TEXT);
    let vocab = corpus.chars.len() as i64;
    let mut cfg = match args.model.as_str() {
        "standard" => Config::standard(vocab),
        "tiny" => Config::tiny(vocab),
        other => {
            return Err(fail("--model")(format!(
                "expected standard or tiny, got {other}"
            )))
        }
    };
    cfg.batch = args.batch;
    let (train, val) = corpus.split();
    eprintln!(
        "train_lm: {} parameters ({} layers, d {}, {} heads, context {}), vocabulary {}, \
         {} training / {} validation characters, batch {}, {} compute, {} on {}",
        cfg.params(),
        cfg.layers,
        cfg.d_model,
        cfg.heads,
        cfg.context,
        vocab,
        train.len(),
        val.len(),
        cfg.batch,
        compute.numpy_name(),
        args.steps,
        systolic::default_device()
    );

    if args.steps < 1 {
        return Err(fail("--steps")(format!(
            "must be positive, got {}",
            args.steps
        )));
    }
    // A device that does not exist is an error now, not after the training.
    let tpu_device = args.device.as_deref().map(systolic::device).transpose()?;
    let opt = gpt::optimizer(args.lr, args.warmup.min(args.steps / 5), args.steps);
    let params = gpt::init(&cfg, &random::key(args.seed))?;
    let opt_state = opt.init(&params)?;
    let mut state: State = (params, opt_state);
    let mut first_step = 0i64;
    let ckpt_path = args
        .checkpoint_dir
        .as_ref()
        .map(|d| d.join("state.safetensors"));
    if args.resume {
        let path = ckpt_path
            .as_ref()
            .ok_or_else(|| fail("--resume")("needs --checkpoint-dir".into()))?;
        let (restored, step) = checkpoint::restore(path, &(state.clone(), Array::scalar(0i64)))?;
        state = restored;
        first_step = step.to_vec::<i64>()?[0];
        eprintln!("resumed from {} at step {first_step}", path.display());
    }
    if let Some(dir) = &args.checkpoint_dir {
        std::fs::create_dir_all(dir).map_err(|e| fail("--checkpoint-dir")(e.to_string()))?;
    }

    let step =
        jit_fallible(|(s, x, y): &(State, Array, Array)| gpt::train_step(&opt, s, x, y, compute))
            .named("train_step");
    let eval = jit(|(p, x, y): &(Params, Array, Array)| gpt::loss(p, x, y, compute));
    let eval = |a: &(Params, Array, Array)| eval.call(a);
    let data_key = random::key(args.seed + 1);

    let last = args
        .stop_at
        .map_or(args.steps, |s| s.clamp(first_step, args.steps));
    let bar = ProgressBar::new((last - first_step) as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:30} {pos}/{len} [{elapsed_precise}<{eta_precise}] {msg}",
        )
        .map_err(|e| fail("progress")(e.to_string()))?,
    );
    let mut losses = vec![];
    let mut step_s = vec![];
    let mut compile_ms = 0.0;
    let mut val_loss = None;
    let tokens = (cfg.batch * cfg.context) as f64;
    let started = Instant::now();
    for i in first_step..last {
        let starts = gpt::batch_starts(&cfg, &data_key, i, train.len())?;
        let (x, y) = gpt::batch(&cfg, train, &starts);
        let t0 = Instant::now();
        let (next, loss) = step.call(&(state, x, y))?;
        let loss = f64::from(loss.to_vec::<f32>()?[0]);
        let dt = t0.elapsed().as_secs_f64();
        if i == first_step {
            compile_ms = dt * 1e3;
        } else {
            step_s.push(dt);
        }
        state = next;
        losses.push(loss);
        bar.inc(1);
        let recent = &step_s[step_s.len().saturating_sub(20)..];
        let rate = if recent.is_empty() {
            0.0
        } else {
            tokens * recent.len() as f64 / recent.iter().sum::<f64>()
        };
        bar.set_message(format!("loss {loss:.4}  {rate:.0} tokens/s"));
        let done = i + 1;
        if bar.is_hidden() && done % 50 == 0 {
            // No terminal to draw the bar on (a log file): a line now and then instead.
            eprintln!("step {done}/{last}: loss {loss:.4}, {rate:.0} tokens/s");
        }
        if done % args.eval_every == 0 || done == last {
            let v = validation_loss(&eval, &state.0, &cfg, val, args.eval_batches)?;
            bar.suspend(|| eprintln!("step {done}: train loss {loss:.4}, validation loss {v:.4}"));
            val_loss = Some(v);
        }
        if let Some(path) = &ckpt_path
            && (done % args.checkpoint_every == 0 || done == last)
        {
            checkpoint::save(path, &(state.clone(), Array::scalar(done)))?;
        }
    }
    bar.finish();
    let wall = started.elapsed().as_secs_f64();
    let step_ms = median(&mut step_s.clone()) * 1e3;
    let tokens_per_s = if step_ms > 0.0 {
        tokens / step_ms * 1e3
    } else {
        0.0
    };
    eprintln!(
        "{} steps in {wall:.1} s: compile + first step {compile_ms:.0} ms, median step {step_ms:.1} \
         ms, {tokens_per_s:.0} tokens/s, {:.1} GFLOP/s",
        losses.len(),
        cfg.step_flops() / step_ms * 1e-6
    );

    let text = sample(&state.0, &cfg, &corpus, compute, &args)?;
    println!("--- sample ---\n{text}\n---");

    if args.profile {
        let starts = gpt::batch_starts(&cfg, &data_key, 0, train.len())?;
        let (x, y) = gpt::batch(&cfg, train, &starts);
        let inputs = (state.clone(), x, y);
        let lowered = step.lower(&inputs)?;
        let mut options = systolic_runtime::CompileOptions::no_disk_cache();
        options.cpu.dump_dir = args.dump_dir.clone();
        let exe = systolic::client().compile(&lowered.module, &options)?;
        let buffers: Vec<_> = systolic::tree::leaves(&inputs)
            .iter()
            .map(Array::buffer)
            .collect::<systolic::Result<_>>()?;
        let refs: Vec<_> = buffers.iter().collect();
        let profile = exe.profile_rounds(&refs, 5)?;
        let total = profile.total_ms();
        println!(
            "profile of one step: {total:.1} ms in {} kernels",
            profile.steps.len()
        );
        for (op, ms, n) in profile.by_op().into_iter().take(8) {
            println!("  {ms:9.2} ms {:5.1}%  {op} ×{n}", 100.0 * ms / total);
        }
        for k in profile.slowest(
            std::env::var("TRAIN_LM_PROFILE_ROWS")
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(25),
        ) {
            println!(
                "  {:9.2} ms {:5.1}%  {}",
                k.ms,
                100.0 * k.ms / total,
                k.kernel
            );
        }
    }

    let mut tpu = None;
    if let (Some(name), Some(device)) = (&args.device, tpu_device) {
        let starts = gpt::batch_starts(&cfg, &data_key, 0, train.len())?;
        let (x, y) = gpt::batch(&cfg, train, &starts);
        let lowered = step.lower(&(state.clone(), x, y))?;
        let options = systolic_runtime::CompileOptions {
            device: Some(device),
            ..Default::default()
        };
        let exe = systolic::client().compile(&lowered.module, &options)?;
        let cost = exe
            .tpu_cost()
            .ok_or_else(|| fail("--device")(format!("{name} is not a simulated TPU")))?;
        let r = &cost.report;
        println!(
            "simulated {} step: {:.3} ms, MFU {:.1}%, peak HBM {:.1} MiB ({:.0} tokens/s)",
            r.chip,
            r.time_s * 1e3,
            r.mfu * 100.0,
            r.peak_hbm_bytes as f64 / (1 << 20) as f64,
            tokens / r.time_s
        );
        tpu = Some(serde_json::json!({
            "device": name,
            "step_ms": r.time_s * 1e3,
            "mfu": r.mfu,
            "peak_hbm_bytes": r.peak_hbm_bytes,
        }));
    }

    if args.json {
        let summary = serde_json::json!({
            "params": cfg.params(),
            "layers": cfg.layers,
            "d_model": cfg.d_model,
            "context": cfg.context,
            "batch": cfg.batch,
            "compute": compute.numpy_name(),
            "first_step": first_step,
            "steps": args.steps,
            "losses": losses,
            "val_loss": val_loss,
            "compile_ms": compile_ms,
            "step_ms": step_ms,
            "tokens_per_s": tokens_per_s,
            "sample": text,
            "tpu": tpu,
            "host": systolic::default_device().to_string(),
        });
        println!("{summary}");
    }
    Ok(())
}
