//! [`visualize_sharding`]: the device layout of an array as a grid of boxes, as
//! `jax.debug.visualize_array_sharding` draws it.

use crate::array::Array;
use crate::error::{Error, Result};
use std::ops::Range;

/// `CPU 0` / `TPU 3`, as JAX labels a device in the picture.
fn label(d: systolic_runtime::Device) -> String {
    format!("{} {}", d.kind().name().to_uppercase(), d.index())
}

/// The layout of a rank 0, 1 or 2 array over its devices: one box per distinct piece (a 1-D
/// array is one row), labelled with the devices holding it (`CPU 0,1` when a piece is
/// replicated on two devices). Returns the picture; print it to see it.
///
/// ```
/// use systolic::{make_mesh, device_put, visualize_sharding, Array, NamedSharding, P};
/// let x = Array::from_vec(vec![0.0f32; 8], &[4, 2]);
/// let pic = visualize_sharding(&x).unwrap();
/// assert_eq!(pic, "┌───────┐\n│ CPU 0 │\n└───────┘\n");
/// ```
pub fn visualize_sharding(x: &Array) -> Result<String> {
    x.check()?;
    if x.rank() > 2 {
        return Err(Error::op(
            "visualize_sharding",
            format!(
                "only arrays of rank 0, 1 or 2 can be drawn, got {} (as JAX)",
                crate::array::describe(x.aval())
            ),
        ));
    }
    let shards = x.addressable_shards();
    // The distinct starts along each dimension give the grid's rows and columns.
    let starts = |dim: usize| -> Vec<i64> {
        let mut v: Vec<i64> = shards
            .iter()
            .map(|s| s.index.get(dim).map_or(0, |r: &Range<i64>| r.start))
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let (rows, cols) = match x.rank() {
        2 => (starts(0), starts(1)),
        1 => (vec![0], starts(0)),
        _ => (vec![0], vec![0]),
    };
    let position = |index: &[Range<i64>]| -> (usize, usize) {
        let find = |v: &[i64], s: i64| v.iter().position(|&x| x == s).unwrap_or(0);
        match index.len() {
            2 => (find(&rows, index[0].start), find(&cols, index[1].start)),
            1 => (0, find(&cols, index[0].start)),
            _ => (0, 0),
        }
    };
    let mut cells: Vec<Vec<Vec<systolic_runtime::Device>>> =
        vec![vec![vec![]; cols.len()]; rows.len()];
    for s in &shards {
        let (r, c) = position(&s.index);
        cells[r][c].push(s.device);
    }
    let text: Vec<Vec<String>> = cells
        .iter()
        .map(|row| {
            row.iter()
                .map(|devs| {
                    let kind = devs.first().map_or("?".to_string(), |&d| label(d));
                    let kind = kind.split(' ').next().unwrap_or("?").to_string();
                    let ids: Vec<String> = devs.iter().map(|d| d.index().to_string()).collect();
                    format!("{kind} {}", ids.join(","))
                })
                .collect()
        })
        .collect();
    let width = text
        .iter()
        .flatten()
        .map(|t| t.chars().count())
        .max()
        .unwrap_or(1)
        + 2;
    let line = |l: &str, m: &str, r: &str| -> String {
        let seg = "─".repeat(width);
        format!("{l}{}{r}\n", vec![seg; cols.len()].join(m))
    };
    let mut out = line("┌", "┬", "┐");
    for (i, row) in text.iter().enumerate() {
        out.push('│');
        for t in row {
            let pad = width - t.chars().count();
            let left = pad / 2;
            out.push_str(&format!(
                "{}{t}{}│",
                " ".repeat(left),
                " ".repeat(pad - left)
            ));
        }
        out.push('\n');
        out.push_str(&if i + 1 < text.len() {
            line("├", "┼", "┤")
        } else {
            line("└", "┴", "┘")
        });
    }
    Ok(out)
}
