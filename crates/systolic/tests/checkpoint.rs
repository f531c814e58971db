//! Checkpoints (`systolic::checkpoint`): round trips of nested trees and of every dtype in both
//! formats, restore errors that name the leaf, files written by numpy and by Python's
//! `safetensors` (goldens from `scripts/checkpoint_goldens.py`), atomic writes, and a training
//! run resumed from a checkpoint that continues bit for bit as the uninterrupted one.

use half::{bf16, f16};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use systolic::{
    checkpoint, jit, numpy as np, random, tree_leaves, value_and_grad, Array, Static, Tree,
};
use systolic_ir::{DType, Tensor, TensorType};

const FORMATS: [&str; 2] = ["safetensors", "npz"];

/// The dense little-endian bytes of an array: equal bytes are equal bits (NaN payloads and
/// signed zeros included).
fn bits(a: &Array) -> (TensorType, Vec<u8>) {
    let host = a.buffer().unwrap().to_cpu_buffer().unwrap();
    (host.ty().clone(), host.to_le_bytes())
}

/// Asserts two trees have equal structures and bit-equal leaves.
fn assert_same<T: Tree>(a: &T, b: &T, what: &str) {
    assert_eq!(a.structure(), b.structure(), "{what}");
    let paths = a.def().paths();
    for ((x, y), path) in tree_leaves(a).iter().zip(tree_leaves(b)).zip(paths) {
        assert_eq!(bits(x), bits(&y), "{what}: leaf {path}");
        assert_eq!(x.weak_type(), y.weak_type(), "{what}: weak type of {path}");
    }
}

/// The tree with every leaf zeroed: a template whose values a restore must not use.
fn zeroed<T: Tree>(tree: &T) -> T {
    systolic::tree_map(tree, np::zeros_like).unwrap()
}

fn temp_dir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

#[derive(Tree, Clone)]
struct Layer {
    w: Array,
    b: Option<Array>,
}

#[derive(Tree, Clone)]
struct Model {
    layers: Vec<Layer>,
    norms: BTreeMap<String, Array>,
    head: (Array, Option<Array>),
    #[tree(static)]
    activation: &'static str,
}

fn model(activation: &'static str) -> Model {
    let ramp = |n: usize, k: f32| (0..n).map(|i| i as f32 * k - 1.0).collect::<Vec<_>>();
    Model {
        layers: vec![
            Layer {
                w: Array::from_vec(ramp(12, 0.25), &[3, 4]),
                b: Some(Array::from_vec(ramp(4, 0.5), &[4])),
            },
            Layer {
                w: Array::from_vec(ramp(8, -0.125), &[4, 2]),
                b: None,
            },
        ],
        norms: BTreeMap::from([
            (
                "ln_f".to_string(),
                Array::from_vec(vec![bf16::from_f32(1.5); 2], &[2]),
            ),
            ("scale".to_string(), Array::scalar(0.5f64)),
        ]),
        head: (
            Array::from_vec(vec![7i32, -8], &[2]),
            Some(Array::scalar(true)),
        ),
        activation,
    }
}

#[test]
fn nested_trees_round_trip_in_both_formats() {
    let dir = temp_dir();
    let saved = model("gelu");
    for format in FORMATS {
        let path = dir.path().join(format!("model.{format}"));
        checkpoint::save(&path, &saved).unwrap();
        let back = checkpoint::restore(&path, &zeroed(&saved)).unwrap();
        assert_same(&saved, &back, format);
        assert_eq!(back.activation, "gelu");
        assert!(back.layers[1].b.is_none());
    }
}

#[test]
fn the_safetensors_header_names_leaves_by_key_path_and_records_the_structure() {
    let dir = temp_dir();
    let path = dir.path().join("model.safetensors");
    let saved = model("relu");
    checkpoint::save(&path, &saved).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    let header: serde_json::Value = serde_json::from_slice(&bytes[8..8 + n]).unwrap();
    let mut names: Vec<&str> = header
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .filter(|k| *k != "__metadata__")
        .collect();
    names.sort();
    let mut paths = saved.def().paths();
    paths.sort();
    assert_eq!(names, paths);
    assert_eq!(header[".layers[0].w"]["dtype"], "F32");
    assert_eq!(header[".layers[0].w"]["shape"], serde_json::json!([3, 4]));
    assert_eq!(header[r#".norms["ln_f"]"#]["dtype"], "BF16");
    assert_eq!(
        header["__metadata__"]["systolic.tree"],
        saved.structure().as_str()
    );
}

#[test]
fn npz_members_are_named_as_np_savez_names_them() {
    let dir = temp_dir();
    let path = dir.path().join("model.npz");
    let saved = model("relu");
    checkpoint::save(&path, &saved).unwrap();
    let zip = zip::ZipArchive::new(std::fs::File::open(&path).unwrap()).unwrap();
    let mut names: Vec<String> = zip.file_names().map(str::to_string).collect();
    names.sort();
    let mut want: Vec<String> = saved
        .def()
        .paths()
        .iter()
        .map(|p| format!("{p}.npy"))
        .collect();
    want.sort();
    assert_eq!(names, want);
    assert_eq!(
        std::str::from_utf8(zip.comment()).unwrap(),
        format!("systolic.tree={}", saved.structure())
    );
}

/// One array of every dtype, with the values that are easy to lose: extremes, NaN, infinities,
/// signed zeros, subnormals, the ends of the sub-byte ranges.
fn every_dtype() -> BTreeMap<String, Array> {
    let sub_byte = |dtype: DType, values: &[i64]| {
        let bits: Vec<u64> = values.iter().map(|&v| v as u64).collect();
        Array::from_tensor(
            Tensor::from_bits(TensorType::new(vec![values.len() as i64], dtype), &bits).unwrap(),
        )
    };
    let mut out = BTreeMap::new();
    let mut put = |a: Array| {
        out.insert(a.dtype().numpy_name().to_string(), a);
    };
    put(Array::from_vec(vec![true, false, true], &[3]));
    put(Array::from_vec(vec![i8::MIN, -1, 0, i8::MAX], &[2, 2]));
    put(Array::from_vec(vec![i16::MIN, 3, i16::MAX], &[3, 1]));
    put(Array::from_vec(vec![i32::MIN, -7, i32::MAX], &[3]));
    put(Array::from_vec(vec![i64::MIN, 1 << 40, i64::MAX], &[3]));
    put(Array::from_vec(vec![0u8, 128, u8::MAX], &[3]));
    put(Array::from_vec(vec![0u16, 40000, u16::MAX], &[3]));
    put(Array::from_vec(vec![0u32, 3_000_000_000, u32::MAX], &[3]));
    put(Array::from_vec(vec![0u64, 1 << 63, u64::MAX], &[3]));
    put(Array::from_vec(
        vec![
            f16::NAN,
            f16::NEG_INFINITY,
            f16::from_f32(-0.0),
            f16::from_bits(1),
            f16::MAX,
        ],
        &[5],
    ));
    put(Array::from_vec(
        vec![
            bf16::NAN,
            bf16::INFINITY,
            bf16::from_f32(-0.0),
            bf16::from_bits(1),
            bf16::MIN,
        ],
        &[5],
    ));
    put(Array::from_vec(
        vec![
            f32::from_bits(0x7fc0_1234),
            f32::NEG_INFINITY,
            -0.0,
            f32::from_bits(1),
            1.0 / 3.0,
        ],
        &[5],
    ));
    put(Array::from_vec(
        vec![f64::NAN, f64::INFINITY, -0.0, f64::from_bits(1), 0.1],
        &[5],
    ));
    put(sub_byte(DType::I4, &[-8, -1, 0, 7]));
    put(sub_byte(DType::U4, &[0, 9, 15]));
    put(sub_byte(DType::I2, &[-2, -1, 0, 1]));
    put(sub_byte(DType::U2, &[0, 1, 2, 3]));
    let complex = |dtype: DType| {
        let z = [(f64::NAN, -0.0), (f64::INFINITY, 1e-40), (0.1, -2.5)];
        let z = z
            .map(|(re, im)| systolic_ir::Complex64::new(re, im))
            .to_vec();
        Array::from_tensor(Tensor::from_complex(vec![3], dtype, z).unwrap())
    };
    put(complex(DType::C64));
    put(complex(DType::C128));
    // Every code of each narrow float (NaNs, infinities and signed zeros among them).
    for dtype in DType::NARROW_FLOATS {
        let codes: Vec<i64> = (0..1i64 << dtype.bit_width()).collect();
        put(sub_byte(dtype, &codes));
    }
    out.insert("empty".into(), Array::from_vec(Vec::<f32>::new(), &[0, 3]));
    out
}

#[test]
fn every_dtype_round_trips_bit_for_bit() {
    let saved = every_dtype();
    let kinds: std::collections::BTreeSet<DType> = saved.values().map(Array::dtype).collect();
    assert_eq!(kinds.len(), DType::ALL.len(), "the test covers every dtype");
    assert_eq!(saved["float32"].shape(), &[5]);
    let dir = temp_dir();
    for format in FORMATS {
        let mut saved = saved.clone();
        if format == "safetensors" {
            // safetensors has no complex128: saving one is an error that names it.
            let path = dir.path().join("c128.safetensors");
            let err = checkpoint::save(&path, &saved).unwrap_err().to_string();
            assert!(err.contains("complex<f64>"), "{err}");
            saved.remove("complex128");
        }
        let path = dir.path().join(format!("dtypes.{format}"));
        checkpoint::save(&path, &saved).unwrap();
        let back = checkpoint::restore(&path, &zeroed(&saved)).unwrap();
        assert_same(&saved, &back, format);
    }
}

#[test]
fn sub_byte_integers_read_as_int8_values_in_safetensors() {
    // safetensors has no 4-bit integers: they are stored as int8 values (a reader that knows
    // nothing of Systolic sees -8, not the low bits 0x8) and named in the metadata.
    let dir = temp_dir();
    let path = dir.path().join("int4.safetensors");
    let mut saved = every_dtype();
    saved.remove("complex128");
    checkpoint::save(&path, &saved).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    let header: serde_json::Value = serde_json::from_slice(&bytes[8..8 + n]).unwrap();
    let entry = &header[r#"["int4"]"#];
    assert_eq!(entry["dtype"], "I8");
    let (start, end) = (
        entry["data_offsets"][0].as_u64().unwrap() as usize,
        entry["data_offsets"][1].as_u64().unwrap() as usize,
    );
    let data: Vec<i8> = bytes[8 + n + start..8 + n + end]
        .iter()
        .map(|&b| b as i8)
        .collect();
    assert_eq!(data, vec![-8, -1, 0, 7]);
    let dtypes: serde_json::Value =
        serde_json::from_str(header["__metadata__"]["systolic.dtypes"].as_str().unwrap()).unwrap();
    assert_eq!(dtypes[r#"["int4"]"#], "int4");
    assert_eq!(dtypes[r#"["uint2"]"#], "uint2");
}

/// The message of a restore of `path` into `template`.
fn restore_error<T: Tree>(path: &Path, template: &T) -> String {
    match checkpoint::restore(path, template) {
        Ok(_) => panic!(
            "restoring {} into a mismatched template succeeded",
            path.display()
        ),
        Err(e) => e.to_string(),
    }
}

#[test]
fn restores_into_a_mismatched_template_name_the_leaf_and_both_types() {
    let dir = temp_dir();
    let saved = model("relu");
    for format in FORMATS {
        let path = dir.path().join(format!("model.{format}"));
        checkpoint::save(&path, &saved).unwrap();

        let mut wrong_shape = saved.clone();
        wrong_shape.layers[0].w = np::zeros(&[4, 3], DType::F32);
        let e = restore_error(&path, &wrong_shape);
        assert!(e.starts_with("checkpoint.restore: "), "{e}");
        assert!(e.contains(&path.display().to_string()), "{e}");
        assert!(
            e.contains("`.layers[0].w`: the file has float32[3,4], the template float32[4,3]"),
            "{e}"
        );

        let mut wrong_dtype = saved.clone();
        wrong_dtype
            .norms
            .insert("ln_f".into(), np::zeros(&[2], DType::F32));
        let e = restore_error(&path, &wrong_dtype);
        assert!(
            e.contains(r#"`.norms["ln_f"]`: the file has bfloat16[2], the template float32[2]"#),
            "{e}"
        );

        // A leaf the file lacks (a bias the saved layer did not have), and so a structure
        // that differs.
        let mut extra_leaf = saved.clone();
        extra_leaf.layers[1].b = Some(np::zeros(&[2], DType::F32));
        let e = restore_error(&path, &extra_leaf);
        assert!(
            e.contains("no tensor for the leaf `.layers[1].b` (float32[2])"),
            "{e}"
        );

        // A template without a leaf the file has.
        let mut fewer = saved.clone();
        fewer.norms.remove("scale");
        let e = restore_error(&path, &fewer);
        assert!(
            e.contains(r#"the file has tensors the template has no leaf for: `.norms["scale"]`"#),
            "{e}"
        );

        // Same leaves, another static value: the recorded structure differs.
        let e = restore_error(&path, &model("tanh"));
        assert!(
            e.contains(r#"activation:static "relu""#) && e.contains(r#"activation:static "tanh""#),
            "{e}"
        );
    }
}

#[test]
fn unreadable_files_are_errors_naming_the_file() {
    let dir = temp_dir();
    let template = (Array::scalar(1.0f32),);
    let missing = dir.path().join("missing.npz");
    assert!(restore_error(&missing, &template).contains("cannot read"));
    for format in FORMATS {
        let path = dir.path().join(format!("t.{format}"));
        checkpoint::save(&path, &template).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
        let e = restore_error(&path, &template);
        assert!(
            e.contains(&path.display().to_string()) && e.contains("not a valid"),
            "{e}"
        );
    }
    let other = dir.path().join("t.pickle");
    let e = checkpoint::save(&other, &template).unwrap_err().to_string();
    assert!(e.contains(".safetensors or .npz"), "{e}");
}

#[test]
fn restored_leaves_keep_the_templates_weak_type_and_device() {
    let dir = temp_dir();
    let saved = (systolic::weak_float(0.25), Array::scalar(1.0f32));
    let path = dir.path().join("weak.safetensors");
    checkpoint::save(&path, &saved).unwrap();
    let back = checkpoint::restore(&path, &saved).unwrap();
    assert!(back.0.weak_type() && !back.1.weak_type());
    assert_eq!(back.0.device(), saved.0.device());
}

#[test]
fn a_single_array_and_an_empty_tree_round_trip() {
    let dir = temp_dir();
    for format in FORMATS {
        let path = dir.path().join(format!("one.{format}"));
        let one = Array::from_vec(vec![1u16, 2, 3], &[3]);
        checkpoint::save(&path, &one).unwrap();
        assert_same(
            &one,
            &checkpoint::restore(&path, &zeroed(&one)).unwrap(),
            format,
        );
        let path = dir.path().join(format!("empty.{format}"));
        checkpoint::save(&path, &(Static(3), Vec::<Array>::new())).unwrap();
        let back = checkpoint::restore(&path, &(Static(3), Vec::<Array>::new())).unwrap();
        assert_eq!(*back.0, 3);
    }
}

#[cfg(unix)]
#[test]
fn writes_replace_the_file_whole_and_never_write_through_a_symlink() {
    let dir = temp_dir();
    let victim = dir.path().join("victim.txt");
    std::fs::write(&victim, b"keep me").unwrap();
    for format in FORMATS {
        let path = dir.path().join(format!("ckpt.{format}"));
        std::os::unix::fs::symlink(&victim, &path).unwrap();
        checkpoint::save(&path, &model("relu")).unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep me");
        assert!(!std::fs::symlink_metadata(&path)
            .unwrap()
            .file_type()
            .is_symlink());

        // A save that fails (a leaf that failed) leaves the previous checkpoint as it was.
        let before = std::fs::read(&path).unwrap();
        let mut broken = model("relu");
        broken.layers[0].w = Array::from_vec(vec![1.0f32], &[2]);
        let e = checkpoint::save(&path, &broken).unwrap_err().to_string();
        assert!(e.contains("`.layers[0].w`"), "{e}");
        assert_eq!(std::fs::read(&path).unwrap(), before);
    }
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    assert_eq!(names.len(), 3, "no temporary files are left: {names:?}");
}

// ---- Files written by numpy and by Python's safetensors (scripts/checkpoint_goldens.py) ----

#[derive(Tree, Clone)]
struct GoldenLayer {
    w: Array,
    b: Array,
}

#[derive(Tree, Clone)]
struct Golden {
    layers: Vec<GoldenLayer>,
    dtypes: BTreeMap<String, Array>,
    scale: Option<Array>,
}

fn golden_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/checkpoint")
        .join(name)
}

fn golden_layers() -> Vec<GoldenLayer> {
    vec![
        GoldenLayer {
            w: Array::from_vec((0..6).map(|i| i as f32 * 0.5).collect(), &[2, 3]),
            b: Array::from_vec(vec![0.25f32, -0.25, 1.0], &[3]),
        },
        GoldenLayer {
            w: Array::from_vec(vec![1.5f32, -2.0, 0.125], &[3, 1]),
            b: Array::from_vec(vec![-1.0f32], &[1]),
        },
    ]
}

/// The values the script computes: element `i` of each `[2, 3]` array by the same formulas.
fn golden_values(sub_byte: bool) -> Golden {
    let i = || 0..6i64;
    let shape = [2, 3];
    let mut dtypes = BTreeMap::new();
    let mut put = |name: &str, a: Array| {
        assert_eq!(a.dtype().numpy_name(), name);
        dtypes.insert(name.to_string(), a);
    };
    put(
        "bool",
        Array::from_vec(i().map(|i| i % 3 == 0).collect(), &shape),
    );
    put(
        "int8",
        Array::from_vec(i().map(|i| (i - 3) as i8).collect(), &shape),
    );
    put(
        "int16",
        Array::from_vec(i().map(|i| ((i - 3) * 1000) as i16).collect(), &shape),
    );
    put(
        "int32",
        Array::from_vec(i().map(|i| ((i - 3) * 1_000_000) as i32).collect(), &shape),
    );
    put(
        "int64",
        Array::from_vec(i().map(|i| (i - 3) * 1_000_000_000_000).collect(), &shape),
    );
    put(
        "uint8",
        Array::from_vec(i().map(|i| (i * 40) as u8).collect(), &shape),
    );
    put(
        "uint16",
        Array::from_vec(i().map(|i| (i * 10_000) as u16).collect(), &shape),
    );
    put(
        "uint32",
        Array::from_vec(i().map(|i| (i * 800_000_000) as u32).collect(), &shape),
    );
    put(
        "uint64",
        Array::from_vec(
            i().map(|i| i as u64 * 3_000_000_000_000_000_000).collect(),
            &shape,
        ),
    );
    let exact = || i().map(|i| (i as f64 - 2.5) * 0.375);
    put(
        "float16",
        Array::from_vec(exact().map(f16::from_f64).collect(), &shape),
    );
    put(
        "bfloat16",
        Array::from_vec(exact().map(bf16::from_f64).collect(), &shape),
    );
    put(
        "float32",
        Array::from_vec(
            i().map(|i| ((i as f64 - 2.5) / 3.0) as f32).collect(),
            &shape,
        ),
    );
    put(
        "float64",
        Array::from_vec(i().map(|i| (i as f64 - 2.5) / 3.0).collect(), &shape),
    );
    if sub_byte {
        let small = |dtype: DType, f: &dyn Fn(i64) -> i64| {
            let bits: Vec<u64> = i().map(|i| f(i) as u64).collect();
            Array::from_tensor(
                Tensor::from_bits(TensorType::new(shape.to_vec(), dtype), &bits).unwrap(),
            )
        };
        put("int4", small(DType::I4, &|i| i - 3));
        put("uint4", small(DType::U4, &|i| i * 2));
        put("int2", small(DType::I2, &|i| i % 4 - 2));
        put("uint2", small(DType::U2, &|i| i % 4));
    }
    Golden {
        layers: golden_layers(),
        dtypes,
        scale: Some(Array::scalar(2.0f32)),
    }
}

#[test]
fn reads_an_npz_written_by_numpy_savez() {
    let want = golden_values(true);
    let got = checkpoint::restore(golden_path("numpy_savez.npz"), &zeroed(&want)).unwrap();
    assert_same(&want, &got, "np.savez");
}

#[test]
fn reads_an_npz_written_by_numpy_savez_compressed() {
    let want = golden_layers();
    // np.savez_compressed(**{".layers[0].w": …}): the keys of a struct's `layers` field.
    #[derive(Tree)]
    struct Layers {
        layers: Vec<GoldenLayer>,
    }
    let want = Layers { layers: want };
    let got =
        checkpoint::restore(golden_path("numpy_savez_compressed.npz"), &zeroed(&want)).unwrap();
    assert_same(&want, &got, "np.savez_compressed");
}

#[test]
fn reads_a_safetensors_file_written_by_python_safetensors() {
    let want = golden_values(false);
    let got = checkpoint::restore(golden_path("python.safetensors"), &zeroed(&want)).unwrap();
    assert_same(&want, &got, "safetensors.numpy.save_file");
    // The file records no structure: a template whose static parts differ cannot be told
    // apart, but one with another leaf can.
    let mut other = zeroed(&want);
    other.scale = None;
    let e = restore_error(&golden_path("python.safetensors"), &other);
    assert!(e.contains("`.scale`"), "{e}");
}

// ---- A resumed training run continues exactly as the uninterrupted one ----

#[derive(Tree, Clone)]
struct Mlp {
    w1: Array,
    b1: Array,
    w2: Array,
    b2: Array,
}

/// What a training step carries: parameters, SGD momentum, the step count and the PRNG key
/// that draws each step's input noise (so integer leaves are restored too).
#[derive(Tree, Clone)]
struct TrainState {
    params: Mlp,
    velocity: Mlp,
    step: Array,
    key: Array,
}

fn init_state() -> TrainState {
    let keys = random::split(&random::key(42), 2);
    let params = Mlp {
        w1: random::normal(&keys[0], &[4, 8], DType::F32) * 0.5,
        b1: np::zeros(&[8], DType::F32),
        w2: random::normal(&keys[1], &[8, 1], DType::F32) * 0.5,
        b2: np::zeros(&[1], DType::F32),
    };
    TrainState {
        velocity: zeroed(&params),
        params,
        step: Array::scalar(0i32),
        key: random::key(7),
    }
}

fn batch() -> (Array, Array) {
    let x: Vec<f32> = (0..64)
        .map(|i| ((i * 37 % 17) as f32 - 8.0) / 8.0)
        .collect();
    let y: Vec<f32> = (0..16)
        .map(|r| {
            (0..4)
                .map(|c| x[r * 4 + c] * (c as f32 - 1.5))
                .sum::<f32>()
                .sin()
        })
        .collect();
    (Array::from_vec(x, &[16, 4]), Array::from_vec(y, &[16, 1]))
}

/// One step of SGD with momentum 0.9 on a mean squared error, with noise from the state's key
/// added to the inputs.
fn train_step((state, x, y): &(TrainState, Array, Array)) -> (TrainState, Array) {
    let keys = random::split(&state.key, 2);
    let noisy = x + &(random::normal(&keys[1], &[16, 4], DType::F32) * 0.05);
    let loss = |p: &Mlp| {
        let h = np::tanh(&(&np::matmul(&noisy, &p.w1) + &p.b1));
        let out = &np::matmul(&h, &p.w2) + &p.b2;
        let err = &out - y;
        np::mean(&(&err * &err), None, false)
    };
    let (value, grads) = value_and_grad(loss).call(&state.params).unwrap();
    let momentum = |v: &Array, g: &Array| &(v * 0.9) + g;
    let velocity = Mlp {
        w1: momentum(&state.velocity.w1, &grads.w1),
        b1: momentum(&state.velocity.b1, &grads.b1),
        w2: momentum(&state.velocity.w2, &grads.w2),
        b2: momentum(&state.velocity.b2, &grads.b2),
    };
    let update = |p: &Array, v: &Array| p - &(v * 0.1);
    let params = Mlp {
        w1: update(&state.params.w1, &velocity.w1),
        b1: update(&state.params.b1, &velocity.b1),
        w2: update(&state.params.w2, &velocity.w2),
        b2: update(&state.params.b2, &velocity.b2),
    };
    let next = TrainState {
        params,
        velocity,
        step: &state.step + 1,
        key: keys[0].clone(),
    };
    (next, value)
}

#[test]
fn a_run_resumed_from_a_checkpoint_continues_bit_for_bit() {
    let step = jit(train_step);
    let (x, y) = batch();
    let run = |mut state: TrainState, steps: usize| {
        let mut losses = vec![];
        for _ in 0..steps {
            let (next, loss) = step.call(&(state, x.clone(), y.clone())).unwrap();
            losses.push(loss.to_vec::<f32>().unwrap()[0]);
            state = next;
        }
        (state, losses)
    };
    let (uninterrupted, all_losses) = run(init_state(), 6);
    assert!(
        all_losses[5] < all_losses[0],
        "the model learns: {all_losses:?}"
    );
    assert_eq!(uninterrupted.step.to_vec::<i32>().unwrap(), vec![6]);

    let dir = temp_dir();
    for format in FORMATS {
        let (halfway, first) = run(init_state(), 3);
        let path = dir.path().join(format!("train_state.{format}"));
        checkpoint::save(&path, &halfway).unwrap();
        drop(halfway);
        // A fresh process would build its template the same way, from the initial state.
        let restored = checkpoint::restore(&path, &zeroed(&init_state())).unwrap();
        assert_eq!(restored.step.to_vec::<i32>().unwrap(), vec![3]);
        let (resumed, rest) = run(restored, 3);
        assert_eq!([first, rest].concat(), all_losses, "{format}: losses");
        assert_same(&uninterrupted, &resumed, format);
    }
}
