//! Ahead-of-time compilation: `jit(f).lower(args)?.compile()?` gives a [`Compiled`] function
//! for one signature, which can be called, serialised to bytes or a file, and loaded by another
//! process of the same build — JAX's `jit(f).lower(x).compile()` with
//! `jax.experimental.serialize_executable`.
//!
//! The serialised form is the runtime's ([`systolic_runtime::SerializedExecutable`]: the
//! module after the passes, under a header naming the build, the formats and the device kind
//! and count) with the function's name, argument tree and result tree in its metadata. As in
//! JAX, whose `deserialize_and_load` takes the input and output tree definitions back, loading
//! takes a value shaped like the result (its leaves are not read), since a Rust type cannot be
//! built from a structure text; the argument tree is checked at each call.

use crate::array::{describe, Array};
use crate::core::dispatch;
use crate::device::{client, default_device};
use crate::error::{Error, Result};
use crate::tree::{tree_leaves, Tree, TreeDef};
use std::path::Path;
use systolic_ir::{TensorType, Type};
use systolic_runtime::{CompileOptions, Device, SerializedExecutable};

/// What a lowered function was traced for: its name, argument structure and device.
pub(crate) struct LoweredArgs {
    pub(crate) name: String,
    pub(crate) def: TreeDef,
    pub(crate) device: Device,
}

impl LoweredArgs {
    /// The record of tracing `name` on `args`, whose leaves are `leaves`.
    pub(crate) fn new<A: Tree>(name: &str, args: &A, leaves: &[Array]) -> LoweredArgs {
        LoweredArgs {
            name: name.to_string(),
            def: args.def(),
            device: leaves.first().map_or_else(default_device, Array::device),
        }
    }
}

/// The metadata keys of a serialised [`Compiled`].
const NAME: &str = "systolic.name";
const ARGS: &str = "systolic.args";
const RESULT: &str = "systolic.result";
const RESULT_WEAK: &str = "systolic.result_weak";

/// A function compiled ahead of time for one argument signature (JAX's `Compiled`): made by
/// [`Lowered::compile`](crate::Lowered::compile), or loaded from bytes another process wrote
/// ([`Compiled::deserialize`], [`Compiled::load`]). Calling it never traces or compiles; it
/// takes arguments of exactly the structure, dtypes and shapes it was compiled for.
///
/// ```
/// use systolic::{jit, Array, Compiled, Static};
/// let f = jit(|(x, k): &(Array, Static<f64>)| (x * k.0, x.clone()));
/// let args = (Array::from_vec(vec![1.0f32, 2.0], &[2]), Static(3.0));
/// let compiled = f.lower(&args).unwrap().compile().unwrap();
/// let (y, _) = compiled.call(&args).unwrap();
/// assert_eq!(y.to_vec::<f32>().unwrap(), vec![3.0, 6.0]);
///
/// // Saved, and loaded (in another process of the same build) with a value shaped like the
/// // result to rebuild it from: its leaves are not read.
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("scale.sxe");
/// compiled.save(&path).unwrap();
/// let like = (Array::scalar(0.0f32), Array::scalar(0.0f32));
/// let loaded = Compiled::load(&path, &like).unwrap();
/// let (y, x) = loaded.call(&(Array::from_vec(vec![0.5f32, -1.0], &[2]), Static(3.0))).unwrap();
/// assert_eq!(y.to_vec::<f32>().unwrap(), vec![1.5, -3.0]);
/// assert_eq!(x.to_vec::<f32>().unwrap(), vec![0.5, -1.0]);
///
/// // Other argument types, or another static value, are not what it was compiled for.
/// let err = loaded.call(&(Array::from_vec(vec![1.0f32; 3], &[3]), Static(3.0))).unwrap_err();
/// assert!(err.to_string().contains("`args[0]` is float32[3]; it was compiled for float32[2]"), "{err}");
/// let err = loaded.call(&(Array::from_vec(vec![1.0f32; 2], &[2]), Static(4.0))).unwrap_err();
/// assert!(err.to_string().contains("static 3.0"), "{err}");
/// ```
pub struct Compiled<R> {
    name: String,
    exe: SerializedExecutable,
    args: String,
    result: String,
    out_types: Vec<TensorType>,
    out_weak: Vec<bool>,
    template: R,
}

impl<R: Tree> Compiled<R> {
    /// Compiles a lowered module for `args.device` (the lowering's `template` gives the
    /// result's structure, `out_weak` its leaves' weak types).
    pub(crate) fn compile(
        module: &systolic_ir::Module,
        args: &LoweredArgs,
        template: &R,
        out_weak: &[bool],
    ) -> Result<Compiled<R>> {
        let label = format!("jit({})", args.name);
        if !module.meshes.is_empty() {
            return Err(Error::op(
                &label,
                "ahead-of-time compilation of a program with shardings is not supported yet \
                 (Jit::compile gives its per-device program and memory)",
            ));
        }
        let options = CompileOptions {
            device: Some(args.device),
            ..CompileOptions::no_disk_cache()
        };
        let exe = client()
            .compile_serializable(module, &options)
            .map_err(|e| Error::op(&label, e.to_string()))?;
        Compiled::from_parts(
            args.name.clone(),
            exe,
            args.def.to_string(),
            template,
            out_weak.to_vec(),
        )
    }

    fn from_parts(
        name: String,
        exe: SerializedExecutable,
        args: String,
        result_like: &R,
        out_weak: Vec<bool>,
    ) -> Result<Compiled<R>> {
        let out_types = tensor_types(exe.executable().result_types());
        let leaves = tree_leaves(result_like);
        if leaves.len() != out_types.len() || out_weak.len() != out_types.len() {
            return Err(Error::op(
                &format!("jit({name})"),
                format!(
                    "the executable returns {} arrays, the result tree {} has {}",
                    out_types.len(),
                    result_like.structure(),
                    leaves.len()
                ),
            ));
        }
        let template = result_like.rebuild(&mut leaves.into_iter())?;
        Ok(Compiled {
            name,
            result: template.structure(),
            exe,
            args,
            out_types,
            out_weak,
            template,
        })
    }

    /// The function's name (as [`Jit::named`](crate::Jit::named) gave it).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The device it runs on.
    pub fn device(&self) -> Device {
        self.exe.executable().device()
    }

    /// The argument tree's structure it was compiled for (static values included).
    pub fn args_structure(&self) -> &str {
        &self.args
    }

    /// The program after the passes, as StableHLO text (what the serialised form carries).
    ///
    /// ```
    /// use systolic::{jit, Array};
    /// let c = jit(|x: &Array| x * 2.0).lower(&Array::scalar(1.0f32)).unwrap().compile().unwrap();
    /// assert!(c.as_text().contains("@main") && c.as_text().contains("stablehlo.multiply"));
    /// ```
    pub fn as_text(&self) -> &str {
        self.exe.optimized_text()
    }

    /// Runs the compiled program on `args`, which must have the structure (static values
    /// included), dtypes and shapes it was compiled for and be on its device. Asynchronous as
    /// [`Jit::call`](crate::Jit::call): the results may still be being computed.
    pub fn call<A: Tree>(&self, args: &A) -> Result<R> {
        let label = format!("jit({})", self.name);
        let def = args.def();
        if def.to_string() != self.args {
            return Err(Error::op(
                &label,
                format!(
                    "the arguments are {def}; it was compiled for {} (compile it again for \
                     these)",
                    self.args
                ),
            ));
        }
        let leaves = tree_leaves(args);
        let params = tensor_types(self.exe.executable().param_types());
        let device = self.device();
        for ((leaf, path), want) in leaves.iter().zip(def.paths()).zip(&params) {
            leaf.check()?;
            if leaf.aval() != want {
                return Err(Error::op(
                    &label,
                    format!(
                        "argument `args{path}` is {}; it was compiled for {}",
                        describe(leaf.aval()),
                        describe(want)
                    ),
                ));
            }
            if leaf.device() != device || leaf.sharding().is_some() {
                return Err(Error::op(
                    &label,
                    format!(
                        "argument `args{path}` is on {}; it was compiled for {device} \
                         (device_put it there)",
                        leaf.sharding()
                            .map_or_else(|| leaf.device().to_string(), |s| s.to_string())
                    ),
                ));
            }
        }
        if leaves.len() != params.len() {
            return Err(Error::op(
                &label,
                format!(
                    "{} argument leaves; it was compiled for {}",
                    leaves.len(),
                    params.len()
                ),
            ));
        }
        let outs = dispatch::execute(
            &label,
            self.exe.executable().clone(),
            leaves,
            &self.out_types,
            &self.out_weak,
            device,
        );
        self.template.rebuild(&mut outs.into_iter())
    }

    /// The bytes [`Compiled::deserialize`] loads in another process of the same build: the
    /// optimised program with the build, formats, device kind and count, the function's name
    /// and its argument and result trees.
    pub fn serialize(&self) -> Vec<u8> {
        let weak: String = self
            .out_weak
            .iter()
            .map(|&w| if w { '1' } else { '0' })
            .collect();
        self.exe.serialize(&[
            (NAME, &self.name),
            (ARGS, &self.args),
            (RESULT, &self.result),
            (RESULT_WEAK, &weak),
        ])
    }

    /// Writes [`Compiled::serialize`]'s bytes to `path`, atomically (a temporary file beside
    /// it, renamed over it).
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        let bytes = self.serialize();
        crate::checkpoint::write_file(path, &bytes).map_err(|e| {
            Error::op(
                &format!("jit({}).save", self.name),
                format!("{}: {e}", path.display()),
            )
        })
    }

    /// Loads bytes written by [`Compiled::serialize`] onto the default device. `result_like`
    /// is a value of the result's type and structure (its leaves are not read; JAX's
    /// `deserialize_and_load` takes the output tree the same way). Errors say what does not
    /// match: the build, the formats, the device kind or count, the result's structure.
    pub fn deserialize(bytes: &[u8], result_like: &R) -> Result<Compiled<R>> {
        Compiled::deserialize_on(bytes, result_like, default_device())
    }

    /// [`Compiled::deserialize`] onto `device`.
    pub fn deserialize_on(bytes: &[u8], result_like: &R, device: Device) -> Result<Compiled<R>> {
        let (exe, metadata) = client()
            .deserialize_executable(bytes, device)
            .map_err(|e| Error::op("Compiled::deserialize", e.to_string()))?;
        let get = |key: &str| {
            metadata
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.clone())
                .ok_or_else(|| {
                    Error::op(
                        "Compiled::deserialize",
                        format!("the executable has no `{key}`: it was not serialised by Compiled"),
                    )
                })
        };
        let name = get(NAME)?;
        let result = get(RESULT)?;
        if result != result_like.structure() {
            return Err(Error::op(
                &format!("jit({name})"),
                format!(
                    "it returns {result}, and the result tree given to load it is {}",
                    result_like.structure()
                ),
            ));
        }
        let weak = get(RESULT_WEAK)?.chars().map(|c| c == '1').collect();
        Compiled::from_parts(name, exe, get(ARGS)?, result_like, weak)
    }

    /// Reads `path` and [`Compiled::deserialize`]s it.
    pub fn load(path: impl AsRef<Path>, result_like: &R) -> Result<Compiled<R>> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| {
            Error::op(
                "Compiled::load",
                format!("{}: cannot read: {e}", path.display()),
            )
        })?;
        Compiled::deserialize(&bytes, result_like).map_err(|e| match e {
            Error::Op { op, message } => Error::Op {
                op,
                message: format!("{}: {message}", path.display()),
            },
            other => other,
        })
    }
}

/// The tensor types among `types` (an entry function's parameters or results).
fn tensor_types(types: &[Type]) -> Vec<TensorType> {
    types
        .iter()
        .filter_map(|t| t.as_tensor().cloned())
        .collect()
}
