//! The language model of `examples/train_lm.rs` against the same model in flax and optax
//! (`scripts/train_lm_golden.py`, `tests/data/train_lm/golden.json`): the same parameter tree
//! and batches, and the first 10 training losses equal JAX's from the same initialisation, with
//! f32 compute and with bf16 compute.

#[path = "../examples/shared/gpt.rs"]
mod gpt;

use gpt::{Config, Corpus, State};
use serde_json::Value;
use systolic::{jit_fallible, random, Array};
use systolic_ir::DType;

const TEXT: &str = include_str!("../../../data/kjv_genesis_exodus.txt");
const GOLDEN: &str = include_str!("data/train_lm/golden.json");

fn golden() -> Value {
    serde_json::from_str(GOLDEN).unwrap()
}

fn config(g: &Value) -> Config {
    let c = &g["config"];
    let int = |k: &str| c[k].as_i64().unwrap();
    Config {
        vocab: int("vocab"),
        d_model: int("d_model"),
        heads: int("heads"),
        layers: int("layers") as usize,
        context: int("context"),
        batch: int("batch"),
    }
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

#[test]
fn vocabulary_parameters_and_batches_are_the_goldens() {
    let g = golden();
    let corpus = Corpus::new(TEXT);
    assert_eq!(
        corpus.chars.len() as i64,
        g["vocab_chars"].as_i64().unwrap()
    );
    let cfg = config(&g);
    assert_eq!(cfg, Config::tiny(corpus.chars.len() as i64));
    let params = gpt::init(&cfg, &random::key(g["seed"].as_i64().unwrap())).unwrap();
    let (leaves, _) = systolic::tree::flatten_with_path(&params);
    let want = g["leaves"].as_array().unwrap();
    assert_eq!(leaves.len(), want.len());
    for ((path, leaf), w) in leaves.iter().zip(want) {
        assert_eq!(path.to_string(), w[0].as_str().unwrap());
        let shape: Vec<i64> = w[1]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_i64().unwrap())
            .collect();
        assert_eq!(leaf.shape(), &shape[..], "{path}");
    }
    let n: i64 = leaves.iter().map(|(_, l)| l.size() as i64).sum();
    assert_eq!(n, cfg.params());
    let (train, _) = corpus.split();
    let key = random::key(g["seed"].as_i64().unwrap() + 1);
    for (step, want) in g["batch_starts"].as_array().unwrap().iter().enumerate() {
        let starts = gpt::batch_starts(&cfg, &key, step as i64, train.len()).unwrap();
        let want: Vec<i32> = want
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_i64().unwrap() as i32)
            .collect();
        assert_eq!(starts, want, "batch {step}");
    }
    // The windows and their targets, one character on.
    let (x, y) = gpt::batch(&cfg, train, &[0, 5]);
    let (x, y) = (x.to_vec::<i32>().unwrap(), y.to_vec::<i32>().unwrap());
    assert_eq!(corpus.decode(&x[..16]), "In the beginning");
    assert_eq!(&x[1..32], &y[..31]);
    assert_eq!(x[32], train[5]);
}

/// The first losses of `steps` training steps with `compute`.
fn losses(g: &Value, compute: DType, steps: usize) -> Vec<f64> {
    let corpus = Corpus::new(TEXT);
    let cfg = config(g);
    let seed = g["seed"].as_i64().unwrap();
    let opt = gpt::optimizer(
        g["peak_lr"].as_f64().unwrap(),
        g["warmup"].as_i64().unwrap(),
        g["total_steps"].as_i64().unwrap(),
    );
    let params = gpt::init(&cfg, &random::key(seed)).unwrap();
    let opt_state = opt.init(&params).unwrap();
    let mut state: State = (params, opt_state);
    let step =
        jit_fallible(|(s, x, y): &(State, Array, Array)| gpt::train_step(&opt, s, x, y, compute));
    let (train, _) = corpus.split();
    let key = random::key(seed + 1);
    let mut out = vec![];
    for i in 0..steps {
        let starts = gpt::batch_starts(&cfg, &key, i as i64, train.len()).unwrap();
        let (x, y) = gpt::batch(&cfg, train, &starts);
        let (next, loss) = step.call(&(state, x, y)).unwrap();
        state = next;
        out.push(f64::from(loss.to_vec::<f32>().unwrap()[0]));
    }
    assert_eq!(step.trace_count(), 1);
    out
}

fn check(got: &[f64], want: &[f64], tol: f64, what: &str) {
    let worst = got
        .iter()
        .zip(want)
        .map(|(g, w)| (g - w).abs())
        .fold(0.0, f64::max);
    eprintln!("{what}: largest difference from JAX's losses {worst:.2e}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol,
            "{what} step {i}: {g} vs JAX's {w} (tolerance {tol})\n{got:?}\n{want:?}"
        );
    }
    // Not a flat line that happens to start right: the loss falls as JAX's does.
    assert!(got[got.len() - 1] < got[0] - 0.5, "{what}: {got:?}");
}

#[test]
fn first_ten_losses_equal_flax_optax_in_f32() {
    let g = golden();
    let want = floats(&g["losses_f32"]);
    check(&losses(&g, DType::F32, want.len()), &want, 1e-5, "f32");
}

#[test]
fn first_ten_losses_equal_flax_optax_in_bf16() {
    let g = golden();
    let want = floats(&g["losses_bf16"]);
    check(&losses(&g, DType::BF16, want.len()), &want, 3e-3, "bf16");
}
