//! `systolic::optim` against optax 0.2.8 (goldens from `scripts/optim_goldens.py`): every
//! optimizer runs the same steps on the same params and gradients as in optax, eagerly and
//! with the update step under `jit` (params, state and gradients in, params and state out),
//! and the params after each step must match optax's; each state's leaf paths must be optax's
//! (same named tuples, fields and order). Schedules are compared at every step 0..=120.
//!
//! Tolerance: `|ours - optax| <= 1e-6 * max(1, |optax|)` for params, and `1e-6` times the
//! schedule's largest value for schedules. Both sides compute in f32 with the same ops in the
//! same order, so what is left are last-bit differences between XLA's CPU code and ours: its
//! transcendental kernels (pow, rsqrt, sqrt, cos), its division by a constant (a multiplication
//! by the reciprocal) and the order of f32 sums (global norm, Adafactor's means). The largest
//! error seen is 1.8e-7 (sgd with momentum after six steps, about 1.5 ulp of |p| <= 1); the test
//! prints them with `--nocapture`.

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use systolic::optim::{self, GradientTransformation, Mask, MultiSteps, OptState, Schedule};
use systolic::{jit, tree_flatten_with_path, Array};

type Params = BTreeMap<String, Array>;

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/optim")
}

fn golden() -> Value {
    let text = std::fs::read_to_string(data_dir().join("optax0.2.8.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The shapes of a case's leaves, in sorted key order.
fn shapes(case: &Value) -> Vec<(String, Vec<i64>)> {
    case["shapes"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| {
            let s = v
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_i64().unwrap())
                .collect();
            (k.clone(), s)
        })
        .collect()
}

/// The script's integer formulas: exact in f32 on both sides.
fn fill(shapes: &[(String, Vec<i64>)], f: impl Fn(i64, i64) -> f64) -> Params {
    shapes
        .iter()
        .enumerate()
        .map(|(l, (k, s))| {
            let n: i64 = s.iter().product();
            let v: Vec<f32> = (0..n).map(|i| f(i, l as i64) as f32).collect();
            (k.clone(), Array::from_vec(v, s))
        })
        .collect()
}

fn params_of(shapes: &[(String, Vec<i64>)]) -> Params {
    fill(shapes, |i, l| ((5 * i + 11 * l) % 13 - 6) as f64 / 8.0)
}

fn grads_of(shapes: &[(String, Vec<i64>)], t: i64) -> Params {
    fill(shapes, |i, l| {
        ((7 * i + 5 * t + 3 * l) % 17 - 8) as f64 / 4.0
    })
}

/// The optimizer of each case, as the script builds it with optax.
fn optimizer(name: &str) -> GradientTransformation {
    match name {
        "sgd" => optim::sgd(0.1),
        "sgd_momentum" => optim::Sgd {
            momentum: Some(0.9),
            nesterov: false,
        }
        .build(0.1),
        "sgd_nesterov" => optim::Sgd {
            momentum: Some(0.9),
            nesterov: true,
        }
        .build(0.1),
        "sgd_schedule" => optim::sgd(optim::piecewise_constant_schedule(
            0.1,
            &[(2, 0.5), (4, 0.1)],
        )),
        "adam" => optim::adam(1e-2),
        "adam_nesterov" => optim::Adam {
            b1: 0.8,
            b2: 0.99,
            nesterov: true,
            ..Default::default()
        }
        .build(1e-2),
        "adamw_masked" => optim::Adamw {
            weight_decay: 0.1,
            mask: Some(Mask::new(|_, p| p.ndim() >= 2)),
            ..Default::default()
        }
        .build(1e-2),
        "adamw_warmup_cosine" => optim::Adamw {
            weight_decay: 1e-2,
            ..Default::default()
        }
        .build(optim::warmup_cosine_decay_schedule(
            0.0, 1e-2, 2, 10, 1e-4, 1.0,
        )),
        "lion" => optim::lion(1e-2),
        "rmsprop" => optim::rmsprop(1e-2),
        "rmsprop_centered_momentum" => optim::Rmsprop {
            centered: true,
            momentum: Some(0.9),
            ..Default::default()
        }
        .build(1e-2),
        "rmsprop_bias_corrected" => optim::Rmsprop {
            eps_in_sqrt: false,
            bias_correction: true,
            initial_scale: 0.1,
            ..Default::default()
        }
        .build(1e-2),
        "clip_adam" => optim::chain(vec![optim::clip_by_global_norm(1.0), optim::adam(1e-2)]),
        "multi_steps_adam" => MultiSteps::new(optim::adam(1e-2), 2).build(),
        "multi_steps_sum_sgd" => MultiSteps::new(
            optim::Sgd {
                momentum: Some(0.5),
                nesterov: false,
            }
            .build(0.1),
            3,
        )
        .use_grad_mean(false)
        .build(),
        "adafactor_small" | "adafactor" => optim::adafactor(1e-2),
        "adafactor_momentum_decay" => optim::Adafactor {
            momentum: Some(0.9),
            weight_decay_rate: Some(1e-3),
            clipping_threshold: None,
            ..Default::default()
        }
        .build(1e-2),
        other => panic!("no optimizer for case {other}"),
    }
}

/// The golden values of one leaf at one step (inline, or an .npy file), `None` if not kept.
fn expected(v: &Value) -> Option<Vec<f32>> {
    match v {
        Value::Null => None,
        Value::String(file) => {
            let t = systolic_npy::read(&data_dir().join(file), None).unwrap();
            Some(Array::from_tensor(t).to_vec::<f32>().unwrap())
        }
        Value::Array(xs) => Some(xs.iter().map(|x| x.as_f64().unwrap() as f32).collect()),
        other => panic!("unexpected golden {other}"),
    }
}

const TOL: f32 = 1e-6;

/// The largest error relative to `max(1, |optax|)` over all compared values.
fn compare(case: &str, how: &str, step: usize, got: &Params, want: &Value) -> f32 {
    let mut worst = 0.0f32;
    for (k, v) in want.as_object().unwrap() {
        let Some(want) = expected(v) else { continue };
        let got = got[k].to_vec::<f32>().unwrap();
        assert_eq!(got.len(), want.len(), "{case} {how} step {step} leaf {k}");
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            let err = (g - w).abs() / w.abs().max(1.0);
            assert!(
                err <= TOL,
                "{case} ({how}) step {step}: leaf {k}[{i}] = {g}, optax {w} (error {err:e})"
            );
            worst = worst.max(err);
        }
    }
    worst
}

type Step<'a> = Box<dyn Fn(&Params, &OptState, &Params) -> (Params, OptState) + 'a>;

fn run_case(case: &Value, how: &str, step_fn: &Step) -> f32 {
    let name = case["name"].as_str().unwrap();
    let shapes = shapes(case);
    let opt = optimizer(name);
    let mut params = params_of(&shapes);
    let mut state = opt.init(&params).unwrap();
    let mut worst = 0.0f32;
    for (t, want) in case["steps"].as_array().unwrap().iter().enumerate() {
        let grads = grads_of(&shapes, t as i64 + 1);
        (params, state) = step_fn(&params, &state, &grads);
        worst = worst.max(compare(name, how, t + 1, &params, want));
    }
    worst
}

#[test]
fn optimizers_match_optax_eagerly_and_under_jit() {
    let g = golden();
    let mut report = vec![];
    for case in g["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let opt = optimizer(name);
        let eager: Step = Box::new(|p, s, g| {
            let (u, s) = opt.update(g, s, p).unwrap();
            (optim::apply_updates(p, &u).unwrap(), s)
        });
        let e = run_case(case, "eager", &eager);
        let jitted = jit(|(p, s, g): &(Params, OptState, Params)| {
            let (u, s) = opt.update(g, s, p).unwrap();
            (optim::apply_updates(p, &u).unwrap(), s)
        });
        let under_jit: Step =
            Box::new(|p, s, g| jitted.call(&(p.clone(), s.clone(), g.clone())).unwrap());
        let j = run_case(case, "jit", &under_jit);
        // One trace for all steps: the count is a traced int32 leaf of the state.
        assert_eq!(jitted.trace_count(), 1, "{name}");
        report.push(format!("{name}: eager {e:.1e}, jit {j:.1e}"));
    }
    eprintln!(
        "largest relative errors vs optax:\n  {}",
        report.join("\n  ")
    );
}

#[test]
fn states_have_optax_leaf_paths() {
    let g = golden();
    for case in g["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let params = params_of(&shapes(case));
        let state = optimizer(name).init(&params).unwrap();
        let (pairs, _) = tree_flatten_with_path(&state);
        let ours: Vec<String> = pairs.iter().map(|(p, _)| p.to_string()).collect();
        let theirs: Vec<String> = case["state_paths"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_str().unwrap().to_string())
            .collect();
        assert_eq!(ours, theirs, "{name}");
        // Counts are int32 scalars, as in optax.
        for (path, leaf) in &pairs {
            if path.to_string().ends_with("count") || path.to_string().ends_with("_step") {
                assert_eq!(leaf.dtype(), systolic_ir::DType::I32, "{name} {path}");
                assert_eq!(leaf.shape(), &[] as &[i64], "{name} {path}");
            }
        }
    }
}

/// The schedules of the script, built with `systolic::optim`.
fn schedule(name: &str) -> Schedule {
    match name {
        "constant" => optim::constant_schedule(0.3),
        "linear" => optim::linear_schedule(1.0, 0.1, 50, 10),
        "polynomial_2" => optim::polynomial_schedule(1.0, 0.0, 2.0, 80, 5),
        "polynomial_half" => optim::polynomial_schedule(1.0, 0.2, 0.5, 64, 0),
        "cosine_decay" => optim::cosine_decay_schedule(1.0, 100, 0.1, 1.0),
        "cosine_decay_exp2" => optim::cosine_decay_schedule(0.5, 90, 0.0, 2.0),
        "warmup_cosine_decay" => optim::warmup_cosine_decay_schedule(0.0, 1e-3, 10, 100, 1e-5, 1.0),
        "piecewise_constant" => {
            optim::piecewise_constant_schedule(0.1, &[(20, 0.5), (50, 0.1), (80, 2.0)])
        }
        "join" => optim::join_schedules(
            vec![
                optim::constant_schedule(1.0),
                optim::linear_schedule(1.0, 0.0, 30, 0),
            ],
            &[40],
        ),
        "exponential_decay" => optim::exponential_decay(1.0, 10, 0.5, 5, false, None),
        "exponential_decay_staircase" => optim::exponential_decay(2.0, 7, 0.8, 0, true, Some(0.7)),
        other => panic!("no schedule {other}"),
    }
}

#[test]
fn schedules_match_optax_at_every_step() {
    let g = golden();
    for (name, values) in g["schedules"].as_object().unwrap() {
        let s = schedule(name);
        let f = jit(|c: &Array| systolic::numpy::astype(&s.at(c), systolic_ir::DType::F32));
        let values: Vec<f32> = values
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap() as f32)
            .collect();
        // Relative to the schedule's largest value: near a zero of a schedule XLA's last-bit
        // differences (it divides by a constant as a multiplication by the reciprocal) are
        // large relative to the value itself.
        let scale = values.iter().fold(0.0f32, |m, v| m.max(v.abs()));
        for (c, &want) in values.iter().enumerate() {
            let eager = s.value(c as i32).unwrap();
            let jitted = f
                .call(&Array::scalar(c as i32))
                .unwrap()
                .to_vec::<f32>()
                .unwrap()[0];
            for (how, got) in [("eager", eager), ("jit", jitted)] {
                let err = (got - want).abs() / scale;
                assert!(
                    err <= 1e-6,
                    "{name} at {c} ({how}): {got}, optax {want} (error {err:e} of {scale})"
                );
            }
        }
        assert_eq!(f.trace_count(), 1, "{name}");
    }
}

#[test]
fn a_state_from_another_optimizer_is_an_error_naming_it() {
    let shapes = vec![("w".to_string(), vec![2i64])];
    let p = params_of(&shapes);
    let sgd_state = optim::sgd(0.1).init(&p).unwrap();
    let err = optim::adam(0.1).update(&p, &sgd_state, &p).unwrap_err();
    assert!(
        err.to_string().contains("optim.scale_by_adam")
            && err
                .to_string()
                .contains("pass the state this optimizer's init returned"),
        "{err}"
    );
    let other = params_of(&[("v".to_string(), vec![2i64])]);
    let err = optim::adam(0.1)
        .update(&other, &optim::adam(0.1).init(&p).unwrap(), &p)
        .unwrap_err();
    assert!(
        err.to_string()
            .contains(r#"optim.update: grads has structure {"v":*}, params has {"w":*}"#),
        "{err}"
    );
}

#[test]
fn multi_steps_reports_when_it_applied_the_inner_optimizer() {
    let shapes = vec![("w".to_string(), vec![2i64])];
    let p = params_of(&shapes);
    let opt = MultiSteps::new(optim::sgd(1.0), 3).build();
    let mut s = opt.init(&p).unwrap();
    let mut flags = vec![];
    for t in 1..=6 {
        (_, s) = opt.update(&grads_of(&shapes, t), &s, &p).unwrap();
        flags.push(
            MultiSteps::has_updated(&s)
                .unwrap()
                .to_vec::<bool>()
                .unwrap()[0],
        );
    }
    assert_eq!(flags, [false, false, true, false, false, true]);
}

/// Not a check: the time of one jitted AdamW step (update and apply) on 1.05M f32 params in
/// four 512x512 matrices and their biases. Run it with
/// `cargo test -p systolic --test optim_golden -- --ignored --nocapture adamw_step_time`;
/// `scripts/optim_goldens.py --bench` times the same step with optax.
#[test]
#[ignore]
fn adamw_step_time() {
    let shapes: Vec<(String, Vec<i64>)> = (0..4)
        .flat_map(|l| {
            [
                (format!("b{l}"), vec![512i64]),
                (format!("w{l}"), vec![512i64, 512]),
            ]
        })
        .collect();
    let opt = optim::adamw(optim::warmup_cosine_decay_schedule(
        0.0, 1e-3, 10, 1000, 1e-5, 1.0,
    ));
    let step = jit(|(p, s, g): &(Params, OptState, Params)| {
        let (u, s) = opt.update(g, s, p).unwrap();
        (optim::apply_updates(p, &u).unwrap(), s)
    });
    let (mut params, grads) = (params_of(&shapes), grads_of(&shapes, 1));
    let mut state = opt.init(&params).unwrap();
    let t0 = std::time::Instant::now();
    (params, state) = step.call(&(params, state, grads.clone())).unwrap();
    params["w0"].block_until_ready().unwrap();
    let first = t0.elapsed();
    let n = 50;
    let t1 = std::time::Instant::now();
    for _ in 0..n {
        (params, state) = step.call(&(params, state, grads.clone())).unwrap();
    }
    params["w0"].block_until_ready().unwrap();
    let per = t1.elapsed() / n;
    eprintln!(
        "adamw step, 1.05M params: first call (trace+compile+run) {first:?}, then {per:?} per step"
    );
}

/// The state is a pytree for `grad` too: differentiating one SGD-momentum step with respect
/// to the params and the state gives the step's Jacobian diagonal (p' = p - 0.1 * (g + 0.9 t)
/// with g = p: 0.9 for p, -0.09 for the trace t).
#[test]
fn grad_flows_through_an_update_and_its_state() {
    let opt = optim::Sgd {
        momentum: Some(0.9),
        nesterov: false,
    }
    .build(0.1);
    let p = vec![Array::from_vec(vec![1.0f32, -2.0], &[2])];
    let state = opt.init(&p).unwrap();
    let stepped_sum = |(p, s): &(Vec<Array>, OptState)| {
        let (u, _) = opt.update(p, s, p).unwrap();
        let new = optim::apply_updates(p, &u).unwrap();
        systolic::numpy::sum(&new[0], None, false)
    };
    let (dp, ds) = systolic::grad(stepped_sum).call(&(p, state)).unwrap();
    let dt = ds.get("[0].trace[0]").and_then(|n| n.as_leaf()).unwrap();
    for (got, want) in [(&dp[0], 0.9f32), (dt, -0.09)] {
        for g in got.to_vec::<f32>().unwrap() {
            assert!((g - want).abs() < 1e-6, "{g} vs {want}");
        }
    }
}

/// Params and AdamW state (with a schedule, so the count matters) saved to a checkpoint in
/// both formats mid-run and restored: the resumed run ends bit for bit where the uninterrupted
/// one does.
#[test]
fn a_run_resumed_from_a_checkpoint_continues_exactly() {
    let shapes = vec![
        ("b".to_string(), vec![3i64]),
        ("w".to_string(), vec![4i64, 3]),
    ];
    let opt = optim::Adamw {
        weight_decay: 0.1,
        ..Default::default()
    }
    .build(optim::warmup_cosine_decay_schedule(
        0.0, 1e-2, 2, 8, 1e-4, 1.0,
    ));
    let step = |p: &Params, s: &OptState, t: i64| {
        let (u, s) = opt.update(&grads_of(&shapes, t), s, p).unwrap();
        (optim::apply_updates(p, &u).unwrap(), s)
    };
    let run = |mut p: Params, mut s: OptState, from: i64, to: i64| {
        for t in from..to {
            (p, s) = step(&p, &s, t);
        }
        (p, s)
    };
    let p0 = params_of(&shapes);
    let s0 = opt.init(&p0).unwrap();
    let (whole, _) = run(p0.clone(), s0.clone(), 1, 7);
    let (mid_p, mid_s) = run(p0.clone(), s0.clone(), 1, 4);
    let dir = std::env::temp_dir().join(format!("optim_resume_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for ext in ["safetensors", "npz"] {
        let path = dir.join(format!("ckpt.{ext}"));
        systolic::checkpoint::save(&path, &(mid_p.clone(), mid_s.clone())).unwrap();
        let (p, s) = systolic::checkpoint::restore(&path, &(p0.clone(), s0.clone())).unwrap();
        let (resumed, _) = run(p, s, 4, 7);
        for k in ["b", "w"] {
            assert_eq!(
                resumed[k].to_vec::<f32>().unwrap(),
                whole[k].to_vec::<f32>().unwrap(),
                "{ext} {k}"
            );
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}
