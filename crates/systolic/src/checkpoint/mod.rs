//! Checkpoints: any pytree saved to a file and restored against a template of the same
//! structure, as `orbax.checkpoint`'s `save`/`restore` with a target and flax's
//! `serialization` do for JAX.
//!
//! Two formats, chosen by the file's extension:
//!
//! - `.safetensors` (Hugging Face's format, through the `safetensors` crate): one tensor per
//!   leaf, named by the leaf's key path ([`TreeDef::paths`]: `.layers[0].w`, `["bias"]`), and
//!   the tree's structure text ([`Tree::structure`]) in the header's metadata under
//!   `systolic.tree`. Python reads it with `safetensors.numpy.load_file` (or the flax/torch
//!   loaders for bf16).
//! - `.npz` (numpy's `np.savez`): one `.npy` member per leaf, `<key path>.npy`, so that
//!   `np.load(f)[".layers[0].w"]` is the leaf; the structure text is the archive's comment,
//!   which numpy ignores. bf16 and the sub-byte integers are stored as ml_dtypes writes them
//!   (`'<V2'`, `'<V1'`: view them with `ml_dtypes` types).
//!
//! A restore checks the file against the template, leaf by leaf: every leaf's key path must be
//! in the file with the template's dtype and shape, the file must hold no other tensors, and
//! a structure recorded in the file must be the template's (static values included). Files
//! written by other programs (numpy, Python's `safetensors`) carry no structure and are checked
//! by names, dtypes and shapes alone. A mismatch is an error naming each leaf, the file's type
//! and the template's. Restored leaves are placed like the template's: on its device, or with
//! its sharding, and with its weak type.
//!
//! Writes are atomic: the file is written completely beside the destination and renamed over
//! it, so a crash leaves the previous checkpoint, and a symlink at the destination is replaced,
//! never written through.
//!
//! Every dtype Systolic has round-trips: bool, the signed and unsigned integers (the 2- and
//! 4-bit ones too, one byte per element; safetensors has no such types, so they are stored as
//! int8/uint8 and named in the metadata under `systolic.dtypes`), f16, bf16, f32, f64.
//!
//! (This module is `systolic::checkpoint`; the function [`checkpoint`](fn@crate::checkpoint)
//! beside it is JAX's `jax.checkpoint`, rematerialisation, an unrelated thing of the same name.)
//!
//! ```
//! use std::collections::BTreeMap;
//! use systolic::{checkpoint, Array, Tree};
//!
//! #[derive(Tree, Clone)]
//! struct Params { w: Array, b: Option<Array>, extra: BTreeMap<String, Array> }
//!
//! let params = Params {
//!     w: Array::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[2, 2]),
//!     b: Some(Array::from_vec(vec![0.5f32, -0.5], &[2])),
//!     extra: BTreeMap::from([("step".to_string(), Array::scalar(7i32))]),
//! };
//! let dir = tempfile::tempdir().unwrap();
//! for name in ["params.safetensors", "params.npz"] {
//!     let path = dir.path().join(name);
//!     checkpoint::save(&path, &params).unwrap();
//!     // The template gives the structure, dtypes and shapes; its values are not read.
//!     let template = systolic::tree_map(&params, systolic::numpy::zeros_like).unwrap();
//!     let back = checkpoint::restore(&path, &template).unwrap();
//!     assert_eq!(back.w.to_vec::<f32>().unwrap(), vec![1.0, 2.0, 3.0, 4.0]);
//!     assert_eq!(back.extra["step"].to_vec::<i32>().unwrap(), vec![7]);
//! }
//! // A template that disagrees is refused, naming the leaf and both types.
//! let wrong = Params { w: Array::from_vec(vec![0.0f32; 6], &[2, 3]), ..params.clone() };
//! let err = checkpoint::restore(dir.path().join("params.npz"), &wrong).err().unwrap();
//! assert!(err.to_string().contains("`.w`: the file has float32[2,2], the template float32[2,3]"), "{err}");
//! ```

mod file;
pub(crate) mod npz;
mod safetensors;
pub(crate) mod stored;

use crate::array::{describe, Array, Repr};
use crate::device::client;
use crate::error::{Error, Result};
use crate::sharding::device_put;
use crate::tree::{tree_leaves, Tree};
pub(crate) use file::write_file;
use std::path::Path;
use stored::{Contents, Stored};
use systolic_cpu::CpuBuffer;
use systolic_ir::TensorType;

/// The file formats a checkpoint can be written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Hugging Face's safetensors (`.safetensors`).
    SafeTensors,
    /// numpy's `np.savez` archive (`.npz`).
    Npz,
}

impl Format {
    /// The format a path's extension names: `.safetensors` or `.npz`.
    ///
    /// ```
    /// use systolic::checkpoint::Format;
    /// assert_eq!(Format::of("run/step_100.safetensors").unwrap(), Format::SafeTensors);
    /// assert_eq!(Format::of("params.npz").unwrap(), Format::Npz);
    /// assert!(Format::of("params.bin").unwrap_err().to_string().contains(".safetensors or .npz"));
    /// ```
    pub fn of(path: impl AsRef<Path>) -> Result<Format> {
        let path = path.as_ref();
        match path.extension().and_then(|e| e.to_str()) {
            Some("safetensors") => Ok(Format::SafeTensors),
            Some("npz") => Ok(Format::Npz),
            _ => Err(Error::op(
                "checkpoint",
                format!(
                    "{}: the extension must name the format, .safetensors or .npz",
                    path.display()
                ),
            )),
        }
    }
}

/// Saves every leaf of `tree` to `path`, in the format its extension names (`.safetensors`
/// or `.npz`; see the [module docs](self)), atomically. Waits for leaves still being computed.
///
/// ```
/// use systolic::{checkpoint, Array};
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("state.safetensors");
/// checkpoint::save(&path, &(Array::scalar(1.5f32), vec![Array::scalar(2u8)])).unwrap();
/// // Traced values and failed arrays cannot be saved: the error says which leaf.
/// let failed = Array::from_vec(vec![1.0f32], &[2]);
/// let err = checkpoint::save(&path, &(Array::scalar(1.5f32), vec![failed])).unwrap_err();
/// assert!(err.to_string().contains("`[1][0]`"), "{err}");
/// ```
pub fn save<T: Tree>(path: impl AsRef<Path>, tree: &T) -> Result<()> {
    let path = path.as_ref();
    let format = Format::of(path)?;
    let fail = |message: String| Error::op("checkpoint.save", message);
    let def = tree.def();
    let names = def.paths();
    let mut tensors = Vec::with_capacity(names.len());
    for (name, leaf) in names.iter().zip(tree_leaves(tree)) {
        let data = leaf
            .buffer()
            .and_then(|b| Ok(b.to_cpu_buffer()?))
            .map_err(|e| fail(format!("{}: leaf `{name}`: {e}", path.display())))?;
        tensors.push(Stored {
            name: name.clone(),
            ty: data.ty().clone(),
            bytes: data.to_le_bytes(),
        });
    }
    if let Some(name) = stored::first_duplicate(&tensors) {
        return Err(fail(format!(
            "{}: two leaves have the key path `{name}` (map keys whose Debug texts are equal)",
            path.display()
        )));
    }
    let structure = def.to_string();
    let written = match format {
        Format::SafeTensors => safetensors::encode(&tensors, &structure)
            .and_then(|bytes| file::write_file(path, &bytes)),
        Format::Npz => file::write_atomically(path, |w| npz::write(w, &tensors, &structure)),
    };
    written.map_err(|e| fail(format!("{}: {e}", path.display())))
}

/// Reads the checkpoint at `path` (format by extension) into a tree shaped like `template`:
/// the template's structure, and each leaf's dtype and shape, must be what the file holds (see
/// the [module docs](self)); its values are not read. Each restored leaf goes where the
/// template's is (device or sharding) and keeps its weak type.
///
/// ```
/// use systolic::{checkpoint, numpy as np, Array};
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("w.npz");
/// checkpoint::save(&path, &vec![Array::from_vec(vec![1i64, 2, 3], &[3])]).unwrap();
/// let back = checkpoint::restore(&path, &vec![np::zeros(&[3], systolic_ir::DType::I64)]).unwrap();
/// assert_eq!(back[0].to_vec::<i64>().unwrap(), vec![1, 2, 3]);
/// // A template with another leaf is refused, naming what is missing and what is left over.
/// let err = checkpoint::restore(&path, &(Array::scalar(0i64),)).unwrap_err().to_string();
/// assert!(err.contains("no tensor for the leaf `[0]`") || err.contains("`[0]`"), "{err}");
/// ```
pub fn restore<T: Tree>(path: impl AsRef<Path>, template: &T) -> Result<T> {
    let path = path.as_ref();
    let format = Format::of(path)?;
    let fail = |message: String| Error::op("checkpoint.restore", message);
    let bytes =
        std::fs::read(path).map_err(|e| fail(format!("{}: cannot read: {e}", path.display())))?;
    let contents = match format {
        Format::SafeTensors => safetensors::decode(&bytes),
        Format::Npz => npz::read(&bytes),
    }
    .map_err(|e| fail(format!("{}: {e}", path.display())))?;
    let leaves =
        restore_leaves(template, contents).map_err(|e| fail(format!("{}: {e}", path.display())))?;
    template.rebuild(&mut leaves.into_iter())
}

/// The template's leaves, read from `contents` and checked against it.
fn restore_leaves<T: Tree>(
    template: &T,
    mut contents: Contents,
) -> std::result::Result<Vec<Array>, String> {
    let def = template.def();
    let names = def.paths();
    let leaves = tree_leaves(template);
    let mut problems = vec![];
    let mut found = Vec::with_capacity(leaves.len());
    for (name, leaf) in names.iter().zip(&leaves) {
        if let Some(e) = leaf.error() {
            return Err(format!("the template's leaf `{name}` failed: {e}"));
        }
        let want = leaf.aval();
        match contents.tensors.remove(name) {
            None => problems.push(format!(
                "no tensor for the leaf `{name}` ({})",
                describe(want)
            )),
            Some(entry) => match entry.into_bytes(want.dtype) {
                Ok((ty, _)) if ty != *want => problems.push(format!(
                    "`{name}`: the file has {}, the template {}",
                    describe(&ty),
                    describe(want)
                )),
                Ok((ty, bytes)) => found.push((leaf, ty, bytes)),
                Err(e) => problems.push(format!("`{name}`: {e}")),
            },
        }
    }
    if !contents.tensors.is_empty() {
        let extra: Vec<String> = contents.tensors.keys().map(|k| format!("`{k}`")).collect();
        problems.push(format!(
            "the file has tensors the template has no leaf for: {}",
            list(&extra)
        ));
    }
    if !problems.is_empty() {
        return Err(format!("does not fit the template: {}", list(&problems)));
    }
    if let Some(saved) = contents.structure
        && saved != def.to_string()
    {
        return Err(format!(
            "the checkpoint's tree is {saved}, the template's is {def} (the leaves agree; a \
             static value or container differs)"
        ));
    }
    found
        .into_iter()
        .map(|(like, ty, bytes)| placed_like(like, ty, &bytes))
        .collect()
}

/// At most eight items joined with "; ", and how many more there are.
fn list(items: &[String]) -> String {
    let shown = items.iter().take(8).cloned().collect::<Vec<_>>().join("; ");
    match items.len() {
        n if n > 8 => format!("{shown}; and {} more", n - 8),
        _ => shown,
    }
}

/// An array of `bytes` placed as `like` is: its device, or its sharding, and its weak type.
fn placed_like(like: &Array, ty: TensorType, bytes: &[u8]) -> std::result::Result<Array, String> {
    let host = CpuBuffer::from_le_bytes(ty.clone(), bytes).map_err(|e| format!("{e:?}"))?;
    let device = like.device();
    let buffer = client()
        .buffer_from_host(host, device)
        .map_err(|e| e.to_string())?;
    let array = Array::make(ty, like.weak_type(), device, Repr::Concrete(buffer));
    match like.sharding() {
        Some(sharding) => device_put(&array, sharding).map_err(|e| e.to_string()),
        None => Ok(array),
    }
}
