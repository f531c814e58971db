//! Tour stage: a language model trained end to end from Rust. The GPT-style character model of
//! `examples/train_lm.rs` (its model and step are `examples/shared/gpt.rs`, included here by
//! path), small, trained with AdamW and warmup-cosine decay in bf16 on Genesis and Exodus: its
//! first 10 losses are checked against the same model written in flax and optax
//! (`scripts/train_lm_golden.py`; the stage fails if they differ), then it trains on, reports
//! its validation loss and writes a sample. The example's full-size model is then compiled for
//! a simulated v5e chip and costed.

use super::Stage;
use crate::error::CliError;
use serde_json::Value;
use std::time::Instant;
use systolic::{jit, jit_fallible, random, Array};
use systolic_ir::DType;

#[path = "../../../systolic/examples/shared/gpt.rs"]
mod gpt;
use gpt::{Config, Corpus, Params, State};

const TEXT: &str = include_str!("../../../../data/kjv_genesis_exodus.txt");
const GOLDEN: &str = include_str!("../../../systolic/tests/data/train_lm/golden.json");

/// Steps in all (the golden's first 10 among them).
const STEPS: usize = 100;
/// How far bf16 losses may be from JAX's (`tests/train_lm.rs` uses the same).
const BF16_TOL: f64 = 3e-3;
/// Characters sampled at the end.
const SAMPLE: usize = 120;

fn fail(e: impl std::fmt::Display) -> CliError {
    CliError::msg(format!("language model: {e}"))
}

/// The stage.
pub struct LanguageModel;

impl Stage for LanguageModel {
    fn title(&self) -> &'static str {
        "Training a character-level GPT with nn + optim in bf16, checked against flax/optax"
    }

    fn run(&self) -> Result<(), CliError> {
        let g: Value = serde_json::from_str(GOLDEN).map_err(fail)?;
        let int = |v: &Value| {
            v.as_i64()
                .ok_or_else(|| fail("golden: expected an integer"))
        };
        let corpus = Corpus::new(TEXT);
        let cfg = Config::tiny(corpus.chars.len() as i64);
        let seed = int(&g["seed"])?;
        let want: Vec<f64> = g["losses_bf16"]
            .as_array()
            .ok_or_else(|| fail("golden: no losses"))?
            .iter()
            .filter_map(Value::as_f64)
            .collect();
        outln!(
            "  model: GPT ({} layers, d {}, {} heads, context {}, tied head), {} parameters; \
             {} characters of Genesis and Exodus (KJV), vocabulary {}",
            cfg.layers,
            cfg.d_model,
            cfg.heads,
            cfg.context,
            cfg.params(),
            corpus.ids.len(),
            cfg.vocab
        );
        let opt = gpt::optimizer(
            g["peak_lr"]
                .as_f64()
                .ok_or_else(|| fail("golden: no peak_lr"))?,
            int(&g["warmup"])?,
            int(&g["total_steps"])?,
        );
        let params = gpt::init(&cfg, &random::key(seed)).map_err(fail)?;
        let opt_state = opt.init(&params).map_err(fail)?;
        let mut state: State = (params, opt_state);
        let compute = DType::BF16;
        let step = jit_fallible(|(s, x, y): &(State, Array, Array)| {
            gpt::train_step(&opt, s, x, y, compute)
        });
        let (train, val) = corpus.split();
        let key = random::key(seed + 1);
        outln!(
            "  AdamW (warmup-cosine, clipped, decay on matrices), batch {}×{} characters, bf16 \
             compute from f32 parameters; JAX's losses from the same init and batches:",
            cfg.batch,
            cfg.context
        );
        let mut losses = vec![];
        let mut steady = vec![];
        for i in 0..STEPS {
            let starts = gpt::batch_starts(&cfg, &key, i as i64, train.len()).map_err(fail)?;
            let (x, y) = gpt::batch(&cfg, train, &starts);
            let t0 = Instant::now();
            let (next, loss) = step.call(&(state, x, y)).map_err(fail)?;
            let loss = f64::from(loss.to_vec::<f32>().map_err(fail)?[0]);
            if i > 0 {
                steady.push(t0.elapsed().as_secs_f64());
            }
            state = next;
            losses.push(loss);
        }
        let mut worst = 0.0f64;
        for (i, (got, jax)) in losses.iter().zip(&want).enumerate() {
            worst = worst.max((got - jax).abs());
            if i < 3 || i + 1 == want.len() {
                outln!("    step {:2}: loss {got:.5}   JAX {jax:.5}", i + 1);
            } else if i == 3 {
                outln!("    …");
            }
        }
        if worst > BF16_TOL {
            return Err(fail(format!(
                "the first {} losses differ from JAX's by up to {worst:.2e} (tolerance \
                 {BF16_TOL:.0e}): {losses:?} vs {want:?}",
                want.len()
            )));
        }
        outln!(
            "  the first {} losses agree with JAX's (largest difference {worst:.1e})",
            want.len()
        );
        steady.sort_by(f64::total_cmp);
        let median = steady.get(steady.len() / 2).copied().unwrap_or(0.0);
        let eval = jit(|(p, x, y): &(Params, Array, Array)| gpt::loss(p, x, y, compute));
        let mut val_loss = 0.0;
        let eval_key = random::key(1234);
        for i in 0..4 {
            let starts = gpt::batch_starts(&cfg, &eval_key, i, val.len()).map_err(fail)?;
            let (x, y) = gpt::batch(&cfg, val, &starts);
            let v = eval.call(&(state.0.clone(), x, y)).map_err(fail)?;
            val_loss += f64::from(v.to_vec::<f32>().map_err(fail)?[0]) / 4.0;
        }
        outln!(
            "  after {STEPS} steps: training loss {:.3} (from {:.3}), validation loss \
             {val_loss:.3}; {:.1} ms a step, {:.0} characters/s",
            losses[STEPS - 1],
            losses[0],
            median * 1e3,
            (cfg.batch * cfg.context) as f64 / median.max(1e-9)
        );
        let text = sample(&state.0, &cfg, &corpus, compute)?;
        outln!("  sample: {:?}", text);
        outln!("  (examples/train_lm.rs trains the full model for minutes: see the README)");
        cost_on_v5e(&corpus, compute)
    }
}

/// `SAMPLE` characters after "And God", each drawn from the model's distribution at
/// temperature 0.8 (`random::categorical`, key folded with the position).
fn sample(
    params: &Params,
    cfg: &Config,
    corpus: &Corpus,
    compute: DType,
) -> Result<String, CliError> {
    let t = cfg.context as usize;
    let next = jit(|(p, window, key): &(Params, Array, Array)| {
        let logits = gpt::logits(p, window, compute);
        random::categorical(key, &(&logits / 0.8), -1, None)
    });
    let mut ids = corpus.encode("And God");
    let key = random::key(7);
    for i in 0..SAMPLE {
        let tail = &ids[ids.len().saturating_sub(t)..];
        let n = tail.len();
        let window = Array::from_vec(tail.to_vec(), &[1, n as i64]);
        let k = random::fold_in(&key, i as i64);
        let picked = next.call(&(params.clone(), window, k)).map_err(fail)?;
        ids.push(picked.to_vec::<i32>().map_err(fail)?[n - 1]);
    }
    Ok(corpus.decode(&ids))
}

/// The example's full model (`Config::standard`) compiled for one simulated v5e chip and
/// costed: a step's modelled time, MFU and HBM.
fn cost_on_v5e(corpus: &Corpus, compute: DType) -> Result<(), CliError> {
    let cfg = Config::standard(corpus.chars.len() as i64);
    let opt = gpt::optimizer(2e-3, 100, 1500);
    let params = gpt::init(&cfg, &random::key(0)).map_err(fail)?;
    let opt_state = opt.init(&params).map_err(fail)?;
    let (train, _) = corpus.split();
    let starts = gpt::batch_starts(&cfg, &random::key(1), 0, train.len()).map_err(fail)?;
    let (x, y) = gpt::batch(&cfg, train, &starts);
    let step =
        jit_fallible(|(s, x, y): &(State, Array, Array)| gpt::train_step(&opt, s, x, y, compute));
    let lowered = step.lower(&((params, opt_state), x, y)).map_err(fail)?;
    let r = &super::simulated_step(&lowered.module, "tpu:v5e")?;
    outln!(
        "  the example's model ({} parameters, batch {}×{}) on a simulated v5e chip: step {:.2} \
         ms, MFU {:.0}%, peak HBM {:.0} MiB",
        cfg.params(),
        cfg.batch,
        cfg.context,
        r.time_s * 1e3,
        r.mfu * 100.0,
        r.peak_hbm_bytes as f64 / (1u64 << 20) as f64
    );
    Ok(())
}
