//! The `.npz` layout, as `np.savez(file, **leaves)` writes it: a zip archive with one stored
//! (uncompressed) `.npy` member per leaf, named `<key path>.npy`, which `np.load` lists under
//! the key path. The tree's structure text is the archive's comment (`systolic.tree=…`), which
//! numpy ignores. Reading also takes deflated members (`np.savez_compressed`).

use super::stored::{Contents, Entry, Stored};
use std::collections::BTreeMap;
use std::io::{Cursor, Read, Seek, Write};
use systolic_npy::{descr, header, Header};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipArchive, ZipWriter};

/// What the archive comment starts with when it holds the tree's structure.
const TREE_PREFIX: &str = "systolic.tree=";
/// A zip comment's size limit; a longer structure is not recorded (the leaves still are).
const MAX_COMMENT: usize = u16::MAX as usize;

/// Writes the archive of `tensors` of a tree whose structure is `structure` to `out`.
pub(crate) fn write<W: Write + Seek>(
    out: W,
    tensors: &[Stored],
    structure: &str,
) -> Result<(), String> {
    let io = |e: std::io::Error| format!("cannot write: {e}");
    let zip_error = |e: zip::result::ZipError| format!("cannot write the zip archive: {e}");
    let mut zip = ZipWriter::new(out);
    let comment = format!("{TREE_PREFIX}{structure}");
    if comment.len() <= MAX_COMMENT {
        zip.set_comment(comment);
    }
    for t in tensors {
        let head = header::format(&Header {
            element: descr::element_type_of(t.ty.dtype),
            big_endian: false,
            fortran_order: false,
            shape: t.ty.shape.iter().map(|&d| d.max(0) as usize).collect(),
        });
        let size = head.len() + t.bytes.len();
        let options = SimpleFileOptions::default()
            .compression_method(CompressionMethod::Stored)
            .large_file(size >= u32::MAX as usize);
        zip.start_file(format!("{}.npy", t.name), options)
            .map_err(zip_error)?;
        zip.write_all(&head).map_err(io)?;
        zip.write_all(&t.bytes).map_err(io)?;
    }
    zip.finish().map_err(zip_error)?;
    Ok(())
}

/// The members (by key: the name less `.npy`, as `np.load` lists them) and recorded structure
/// of an `.npz` file's bytes.
pub(crate) fn read(bytes: &[u8]) -> Result<Contents, String> {
    let mut zip = ZipArchive::new(Cursor::new(bytes))
        .map_err(|e| format!("not a valid .npz (zip) file: {e}"))?;
    let structure = std::str::from_utf8(zip.comment())
        .ok()
        .and_then(|c| c.strip_prefix(TREE_PREFIX))
        .map(str::to_string);
    let mut tensors = BTreeMap::new();
    for i in 0..zip.len() {
        let mut member = zip
            .by_index(i)
            .map_err(|e| format!("cannot read member {i}: {e}"))?;
        let name = member.name().to_string();
        let key = name.strip_suffix(".npy").unwrap_or(&name).to_string();
        let mut data = Vec::with_capacity(member.size() as usize);
        member
            .read_to_end(&mut data)
            .map_err(|e| format!("cannot read member `{name}`: {e}"))?;
        if tensors.insert(key, Entry::Npy(data)).is_some() {
            return Err(format!("the member `{name}` appears twice"));
        }
    }
    Ok(Contents { tensors, structure })
}
