//! Host-side splitting of a global array into the pieces each device holds, and the inverse,
//! by a [`ShardLayout`]: how inputs reach the processes of an SPMD program and how its results
//! become global arrays again (the front end's sharded arrays, `systolic run` on N devices).

use crate::buffer::CpuBuffer;
use systolic_ir::{ShardLayout, TensorType};

/// Bytes per element of `b` in its little-endian form (`bytes`).
pub fn element_bytes(b: &CpuBuffer, bytes: &[u8]) -> usize {
    match b.num_elements() {
        0 => b.dtype().byte_size().max(1),
        n => bytes.len() / n,
    }
}

/// Copies the block of `extent` elements at `src_origin` of a row-major `src` array to
/// `dst_origin` of `dst` (element size `esize` bytes).
pub fn copy_block(
    (src, src_shape, src_origin): (&[u8], &[i64], &[i64]),
    (dst, dst_shape, dst_origin): (&mut [u8], &[i64], &[i64]),
    extent: &[i64],
    esize: usize,
) {
    if extent.contains(&0) {
        return;
    }
    let rank = extent.len();
    if rank == 0 {
        dst[..esize].copy_from_slice(&src[..esize]);
        return;
    }
    let strides = |shape: &[i64]| -> Vec<i64> {
        systolic_ir::row_major_strides(shape)
            .into_iter()
            .map(|s| s as i64)
            .collect()
    };
    let (ss, ds) = (strides(src_shape), strides(dst_shape));
    let run = extent[rank - 1] as usize * esize;
    let mut index = vec![0i64; rank];
    loop {
        let offset = |origin: &[i64], st: &[i64]| -> usize {
            index
                .iter()
                .zip(origin)
                .zip(st)
                .map(|((i, o), s)| (i + o) * s)
                .sum::<i64>() as usize
                * esize
        };
        let (so, dof) = (offset(src_origin, &ss), offset(dst_origin, &ds));
        dst[dof..dof + run].copy_from_slice(&src[so..so + run]);
        // Next row: every dimension but the last.
        let mut d = rank - 1;
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            index[d] += 1;
            if index[d] < extent[d] {
                break;
            }
            index[d] = 0;
        }
    }
}

/// Each device's piece of `global` under `layout` (one buffer per device of the layout, of
/// the layout's shard shape; elements past the array's end, and devices that hold no piece,
/// are zeros).
///
/// ```
/// use systolic_cpu::{shards, CpuBuffer};
/// use systolic_ir::{HloSharding, ShardLayout};
/// let global = CpuBuffer::from_f32(vec![4], vec![1.0, 2.0, 3.0, 4.0]);
/// let layout = ShardLayout::from_hlo(&HloSharding::Replicated, &[4], 2).unwrap();
/// let pieces = shards::split(&global, &layout).unwrap();
/// assert_eq!(pieces.len(), 2);
/// assert_eq!(pieces[1].as_f32().unwrap(), &[1.0, 2.0, 3.0, 4.0]);
/// ```
pub fn split(global: &CpuBuffer, layout: &ShardLayout) -> Result<Vec<CpuBuffer>, String> {
    if global.shape() != layout.shape() {
        return Err(format!(
            "an array of shape {:?} cannot be split by a layout of shape {:?}",
            global.shape(),
            layout.shape()
        ));
    }
    let bytes = global.to_le_bytes();
    let esize = element_bytes(global, &bytes);
    let local = TensorType::new(layout.shard_shape(), global.dtype());
    (0..layout.num_devices())
        .map(|d| {
            let mut out = vec![0u8; local.num_elements() * esize];
            if let Some(ranges) = layout.piece(d) {
                let origin: Vec<i64> = ranges.iter().map(|r| r.start).collect();
                let extent: Vec<i64> = ranges.iter().map(|r| r.end - r.start).collect();
                copy_block(
                    (&bytes, global.shape(), &origin),
                    (&mut out, &local.shape, &vec![0; extent.len()]),
                    &extent,
                    esize,
                );
            }
            CpuBuffer::from_le_bytes(local.clone(), &out).map_err(|e| e.to_string())
        })
        .collect()
}

/// The global array `layout` lays out, from each device's piece (`pieces[d]` of device `d`;
/// of copies, the lowest device's is taken). Also returns the devices whose copies differ
/// from the one taken, as `(taken, differing)` pairs, where the layout says copies agree.
///
/// ```
/// use systolic_cpu::{shards, CpuBuffer};
/// use systolic_ir::ShardLayout;
/// let sharding = systolic_ir::text::parse_sharding::parse_hlo_sharding("{devices=[2]0,1}").unwrap();
/// let layout = ShardLayout::from_hlo(&sharding, &[4], 2).unwrap();
/// let pieces = [CpuBuffer::from_f32(vec![2], vec![1.0, 2.0]), CpuBuffer::from_f32(vec![2], vec![3.0, 4.0])];
/// let (global, differing) = shards::assemble(&pieces, &layout).unwrap();
/// assert_eq!(global.as_f32().unwrap(), &[1.0, 2.0, 3.0, 4.0]);
/// assert!(differing.is_empty());
/// ```
pub fn assemble(
    pieces: &[CpuBuffer],
    layout: &ShardLayout,
) -> Result<(CpuBuffer, Vec<(usize, usize)>), String> {
    let Some(first) = pieces.first() else {
        return Err("no pieces to assemble".into());
    };
    if pieces.len() != layout.num_devices() {
        return Err(format!(
            "{} pieces for a layout over {} devices",
            pieces.len(),
            layout.num_devices()
        ));
    }
    let local = layout.shard_shape();
    if let Some((d, p)) = pieces
        .iter()
        .enumerate()
        .find(|(_, p)| p.shape() != local.as_slice() || p.dtype() != first.dtype())
    {
        return Err(format!(
            "device {d}'s piece is {}, but the layout's pieces are {:?} of {}",
            p.ty(),
            local,
            first.dtype().numpy_name()
        ));
    }
    let device_bytes: Vec<Vec<u8>> = pieces.iter().map(CpuBuffer::to_le_bytes).collect();
    let esize = element_bytes(first, &device_bytes[0]);
    let ty = TensorType::new(layout.shape().to_vec(), first.dtype());
    let mut bytes = vec![0u8; ty.num_elements() * esize];
    let mut differing = vec![];
    for group in layout.copies() {
        let ranges = layout.piece(group[0]).expect("a group holds a piece");
        let origin: Vec<i64> = ranges.iter().map(|r| r.start).collect();
        let extent: Vec<i64> = ranges.iter().map(|r| r.end - r.start).collect();
        let zero = vec![0; extent.len()];
        let piece_of = |d: usize| {
            let mut piece = vec![0u8; extent.iter().product::<i64>() as usize * esize];
            copy_block(
                (&device_bytes[d], &local, &zero),
                (&mut piece, &extent, &zero),
                &extent,
                esize,
            );
            piece
        };
        let taken = piece_of(group[0]);
        if layout.copies_agree() {
            if let Some(&d) = group[1..].iter().find(|&&d| piece_of(d) != taken) {
                differing.push((group[0], d));
            }
        }
        copy_block(
            (&taken, &extent, &zero),
            (&mut bytes, layout.shape(), &origin),
            &extent,
            esize,
        );
    }
    let global = CpuBuffer::from_le_bytes(ty, &bytes).map_err(|e| e.to_string())?;
    Ok((global, differing))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_block_moves_a_tile() {
        // 3x4 source, the 2x2 block at (1, 1) into a 2x3 destination at (0, 1).
        let src: Vec<u8> = (0..12).collect();
        let mut dst = vec![0u8; 6];
        copy_block(
            (&src, &[3, 4], &[1, 1]),
            (&mut dst, &[2, 3], &[0, 1]),
            &[2, 2],
            1,
        );
        assert_eq!(dst, vec![0, 5, 6, 0, 9, 10]);
    }

    #[test]
    fn split_then_assemble_is_the_identity_on_a_2d_tiling() {
        let sharding =
            systolic_ir::text::parse_sharding::parse_hlo_sharding("{devices=[2,2]0,1,2,3}")
                .unwrap();
        let layout = ShardLayout::from_hlo(&sharding, &[4, 6], 4).unwrap();
        let values: Vec<f32> = (0..24).map(|i| i as f32).collect();
        let global = CpuBuffer::from_f32(vec![4, 6], values.clone());
        let pieces = split(&global, &layout).unwrap();
        assert_eq!(
            pieces[1].as_f32().unwrap(),
            &[3.0, 4.0, 5.0, 9.0, 10.0, 11.0]
        );
        let (back, differing) = assemble(&pieces, &layout).unwrap();
        assert_eq!(back.as_f32().unwrap(), values.as_slice());
        assert!(differing.is_empty());
    }
}
