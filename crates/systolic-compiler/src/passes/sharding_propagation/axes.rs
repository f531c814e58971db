//! Mesh axes and sub-axes as propagation handles them: sizes, overlap (an axis may shard a
//! tensor once), splitting an axis where a reshape needs part of it for one dimension and the
//! rest for the next, and merging the parts back when they end up side by side.
//!
//! A full axis of size `n` is the sub-axis `(pre 1, size n)`; `"x":(m)k` is the slice of
//! `"x"` with `m` devices' worth of major sub-axes before it. Two references overlap when
//! their ranges `[m, m·k)` of the same axis intersect.

use systolic_ir::{AxisRef, SdyMesh};

/// `(pre-size, size)` of an axis reference on `mesh` (a full axis is `(1, n)`); `None` when
/// the mesh has no such axis.
pub(crate) fn span(a: &AxisRef, mesh: &SdyMesh) -> Option<(i64, i64)> {
    let n = mesh.axis_size(&a.name)?;
    Some(a.sub_axis.unwrap_or((1, n)))
}

/// The number of devices `a` spans (1 for an axis the mesh lacks, which the checks of
/// [`super::propagate_shardings`] rule out before propagation starts).
pub(crate) fn size(a: &AxisRef, mesh: &SdyMesh) -> i64 {
    span(a, mesh).map_or(1, |(_, k)| k)
}

/// The product of the sizes of `axes`.
pub(crate) fn product(axes: &[AxisRef], mesh: &SdyMesh) -> i64 {
    axes.iter().map(|a| size(a, mesh)).product()
}

/// Whether `a` and `b` cover some common part of one mesh axis.
pub(crate) fn overlaps(a: &AxisRef, b: &AxisRef, mesh: &SdyMesh) -> bool {
    if a.name != b.name {
        return false;
    }
    match (span(a, mesh), span(b, mesh)) {
        (Some((pa, ka)), Some((pb, kb))) => pa < pb * kb && pb < pa * ka,
        _ => true,
    }
}

/// Whether `a` overlaps any of `axes`.
pub(crate) fn overlaps_any(a: &AxisRef, axes: &[AxisRef], mesh: &SdyMesh) -> bool {
    axes.iter().any(|b| overlaps(a, b, mesh))
}

/// `a` as written canonically: a sub-axis spanning its whole axis is the axis.
pub(crate) fn canonical(a: &AxisRef, mesh: &SdyMesh) -> AxisRef {
    match (a.sub_axis, mesh.axis_size(&a.name)) {
        (Some((1, k)), Some(n)) if k == n => AxisRef {
            name: a.name.clone(),
            sub_axis: None,
        },
        _ => a.clone(),
    }
}

/// Two references to the same axis equal once canonical.
pub(crate) fn same(a: &AxisRef, b: &AxisRef, mesh: &SdyMesh) -> bool {
    canonical(a, mesh) == canonical(b, mesh)
}

/// Splits `a` (of size divisible by `major`) into its major part of size `major` and the
/// minor rest.
pub(crate) fn split(a: &AxisRef, major: i64, mesh: &SdyMesh) -> (AxisRef, AxisRef) {
    let (pre, k) = span(a, mesh).unwrap_or((1, major));
    let part = |pre: i64, k: i64| {
        canonical(
            &AxisRef {
                name: a.name.clone(),
                sub_axis: Some((pre, k)),
            },
            mesh,
        )
    };
    (part(pre, major), part(pre * major, k / major))
}

/// `axes` with each run of consecutive sub-axes of one axis (`"x":(1)2, "x":(2)2`) merged
/// into one reference (`"x"`), as Shardy's invariants require.
pub(crate) fn merge_adjacent(axes: Vec<AxisRef>, mesh: &SdyMesh) -> Vec<AxisRef> {
    let mut out: Vec<AxisRef> = Vec::with_capacity(axes.len());
    for a in axes {
        if let Some(last) = out.last_mut() {
            if let (true, Some((pl, kl)), Some((pa, ka))) =
                (last.name == a.name, span(last, mesh), span(&a, mesh))
            {
                if pl * kl == pa {
                    *last = canonical(
                        &AxisRef {
                            name: a.name.clone(),
                            sub_axis: Some((pl, kl * ka)),
                        },
                        mesh,
                    );
                    continue;
                }
            }
        }
        out.push(canonical(&a, mesh));
    }
    out
}

/// `"x"`, `"x":(2)2` for messages.
pub(crate) fn describe(axes: &[AxisRef]) -> String {
    let names: Vec<String> = axes
        .iter()
        .map(|a| match a.sub_axis {
            Some((pre, k)) => format!("\"{}\":({pre}){k}", a.name),
            None => format!("\"{}\"", a.name),
        })
        .collect();
    format!("{{{}}}", names.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mesh() -> SdyMesh {
        SdyMesh {
            name: "m".into(),
            axes: vec![("x".into(), 8), ("y".into(), 2)],
            device_ids: None,
        }
    }

    fn sub(name: &str, pre: i64, k: i64) -> AxisRef {
        AxisRef {
            name: name.into(),
            sub_axis: Some((pre, k)),
        }
    }

    fn full(name: &str) -> AxisRef {
        AxisRef {
            name: name.into(),
            sub_axis: None,
        }
    }

    #[test]
    fn sub_axes_overlap_split_and_merge() {
        let m = mesh();
        assert!(overlaps(&full("x"), &sub("x", 2, 2), &m));
        assert!(!overlaps(&sub("x", 1, 2), &sub("x", 2, 4), &m));
        assert!(overlaps(&sub("x", 1, 4), &sub("x", 2, 4), &m));
        assert!(!overlaps(&full("x"), &full("y"), &m));
        let (major, minor) = split(&full("x"), 2, &m);
        assert_eq!(
            (major.clone(), minor.clone()),
            (sub("x", 1, 2), sub("x", 2, 4))
        );
        assert_eq!(merge_adjacent(vec![major, minor], &m), vec![full("x")]);
        assert_eq!(
            merge_adjacent(vec![sub("x", 1, 2), full("y"), sub("x", 2, 4)], &m),
            vec![sub("x", 1, 2), full("y"), sub("x", 2, 4)]
        );
        assert_eq!(product(&[sub("x", 2, 4), full("y")], &m), 8);
        assert_eq!(
            describe(&[sub("x", 2, 4), full("y")]),
            "{\"x\":(2)4, \"y\"}"
        );
    }
}
