//! Moving pieces of buffers for the collectives: concatenation and equal splits along a
//! dimension, and copies between storages of one type.

use crate::buffer::{CpuBuffer, Storage};
use crate::error::{CpuError, Result};
use systolic_ir::TensorType;

/// Copies `len` elements from `src[src_at..]` to `dst[dst_at..]` (storages of one type).
pub fn copy(dst: &mut Storage, dst_at: usize, src: &Storage, src_at: usize, len: usize) {
    macro_rules! go {
        ($($v:ident),*) => {
            match (dst, src) {
                $((Storage::$v(d), Storage::$v(s)) => {
                    d[dst_at..dst_at + len].copy_from_slice(&s[src_at..src_at + len])
                })*
                _ => panic!("collective copy between storages of different types"),
            }
        };
    }
    go!(Bool, I8, I16, I32, I64, U8, U16, U32, U64, F16, BF16, F32, F64)
}

/// Concatenates buffers of one rank and dtype along `dim`.
pub fn concat(parts: &[&CpuBuffer], dim: usize) -> Result<CpuBuffer> {
    let first = parts[0];
    let shape = first.shape();
    let outer: usize = shape[..dim].iter().map(|&d| d as usize).product();
    let mut out_shape = shape.to_vec();
    out_shape[dim] = 0;
    for p in parts {
        let s = p.shape();
        if s.len() != shape.len()
            || p.dtype() != first.dtype()
            || s.iter()
                .zip(shape)
                .enumerate()
                .any(|(i, (a, b))| i != dim && a != b)
        {
            return Err(CpuError::new(format!(
                "cannot concatenate {} and {} along dimension {dim}",
                first.ty(),
                p.ty()
            )));
        }
        out_shape[dim] += s[dim];
    }
    let ty = TensorType::new(out_shape, first.dtype());
    let mut out = Storage::zeros(ty.dtype, ty.num_elements());
    let mut at = 0;
    for o in 0..outer {
        for p in parts {
            let chunk = p.num_elements() / outer;
            copy(&mut out, at, p.storage(), o * chunk, chunk);
            at += chunk;
        }
    }
    buffer(ty, out)
}

/// Part `k` of `n` equal parts of `t` along `dim`.
pub fn split_part(t: &CpuBuffer, dim: usize, n: usize, k: usize, what: &str) -> Result<CpuBuffer> {
    let shape = t.shape();
    let size = shape[dim] as usize;
    if n == 0 || !size.is_multiple_of(n) {
        return Err(CpuError::new(format!(
            "dimension {dim} ({what}) of {} does not split into {n} equal parts",
            t.ty()
        )));
    }
    let outer: usize = shape[..dim].iter().map(|&d| d as usize).product();
    let inner: usize = shape[dim + 1..].iter().map(|&d| d as usize).product();
    let part = size / n;
    let mut part_shape = shape.to_vec();
    part_shape[dim] = part as i64;
    let ty = TensorType::new(part_shape, t.dtype());
    let mut out = Storage::zeros(ty.dtype, ty.num_elements());
    let run = part * inner;
    for o in 0..outer {
        copy(
            &mut out,
            o * run,
            t.storage(),
            (o * size + k * part) * inner,
            run,
        );
    }
    buffer(ty, out)
}

/// A buffer of a type and storage built to match it.
pub fn buffer(ty: TensorType, storage: Storage) -> Result<CpuBuffer> {
    CpuBuffer::new(ty, storage)
        .map_err(|e| CpuError::new(format!("internal: {} from {} elements", e.ty, e.got)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concat_and_split_are_inverse() {
        let a = CpuBuffer::from_f32(vec![2, 2], vec![1.0, 2.0, 3.0, 4.0]);
        let b = CpuBuffer::from_f32(vec![2, 1], vec![5.0, 6.0]);
        let c = concat(&[&a, &b], 1).unwrap();
        assert_eq!(c.shape(), &[2, 3]);
        assert_eq!(c.as_f32().unwrap(), &[1.0, 2.0, 5.0, 3.0, 4.0, 6.0]);
        let p = split_part(&c, 1, 3, 2, "test").unwrap();
        assert_eq!(p.as_f32().unwrap(), &[5.0, 6.0]);
        assert!(split_part(&c, 1, 2, 0, "test").is_err());
    }
}
