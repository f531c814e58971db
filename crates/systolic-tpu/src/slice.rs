//! TPU slices: chips on a 2D or 3D torus, their device order, hosts and wraparound links, and
//! several identical slices joined over the data-center network (DCN).
//!
//! A slice is written `CHIP:AxB` (v5e, v6e, v2, v3: 2D) or `CHIP:AxBxC` (v4, v5p: 3D), with an
//! optional `*N` for `N` identical slices (`v5p:2x2x2*2`). Device `d` is the chip at row-major
//! position `d` of the shape (the last axis fastest), slice-major across slices: the order
//! `jax.make_mesh` gives a mesh of the topology's shape.
//!
//! What each generation's wiring is taken to be (sources in `docs/TPU_MODEL.md`, "Slices and
//! collectives"):
//!
//! - **Wraparound.** v5e/v6e: an axis has its wraparound link only when it spans the full pod
//!   axis of 16 chips (the registry's `FullAxisOnly`). v4/v5p: the wraparounds are the optical
//!   switches between whole 4x4x4 cubes, so *every* axis wraps when the slice is made of whole
//!   cubes (all sizes multiples of 4) and *none* does otherwise (a 2x2x4 has no wraparound, a
//!   4x4x8 wraps on all three axes). Chips without a published rule (v2, v3) never wrap.
//! - **Hosts.** The scaling book's TPU specs table gives each host's block of chips: 2x2x1 on
//!   v4/v5p, 4x2 on v5e/v6e and v3 (v2 is assumed like v3). Hosts tile the slice in row-major
//!   block order; a block that does not tile the shape is tried transposed, then shrunk per axis
//!   to the largest size that divides the slice.

use crate::chips::{chip, chip_names, ChipSpec, Wraparound};
use crate::error::TpuError;
use crate::interconnect::RingAxis;
use serde::Serialize;
use std::fmt;
use std::str::FromStr;
use thiserror::Error;

/// What can go wrong with a slice or with the device groups of a collective on it.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum SliceError {
    /// A slice string that does not parse or names a topology the generation does not have.
    #[error("bad TPU slice `{spec}`: {why}")]
    BadSlice {
        /// The string given.
        spec: String,
        /// What is wrong with it, naming the bad part.
        why: String,
    },
    /// Device groups (replica groups, permute pairs) that do not fit the slice.
    #[error("bad device groups for {slice}: {why}")]
    BadGroups {
        /// The slice, as its canonical string.
        slice: String,
        /// What is wrong.
        why: String,
    },
    /// The model needs a figure the registry does not have.
    #[error(transparent)]
    Model(#[from] TpuError),
}

/// One or more identical TPU slices of one generation.
///
/// ```
/// use systolic_tpu::slice::Slice;
///
/// let s = Slice::parse("v5e:8x4").unwrap();
/// assert_eq!(s.total_chips(), 32);
/// assert_eq!(s.coords(9).unwrap().coords, vec![2, 1]); // row-major: 9 = 2*4 + 1
/// assert_eq!(s.process_count(), 4); // 8-chip hosts
/// assert!(!s.wraps(0) && !s.wraps(1)); // v5e wraps only a full axis of 16
///
/// let pod = Slice::parse("v5p:4x4x8*2").unwrap();
/// assert!(pod.wraps(2)); // whole 4x4x4 cubes wrap on every axis
/// assert_eq!(pod.to_string(), "v5p:4x4x8*2");
/// assert!(Slice::parse("v5e:4x4x4").unwrap_err().to_string().contains("2D"));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Slice {
    chip: ChipSpec,
    shape: Vec<u32>,
    num_slices: u32,
    wraps: Vec<bool>,
    host_shape: Vec<u32>,
}

/// Where a device is: its slice and its torus coordinates within the slice.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChipCoord {
    /// Index of the slice (0 for a single slice).
    pub slice: u32,
    /// Coordinates along each axis of the slice, in the order of its shape.
    pub coords: Vec<u32>,
}

/// The host block of a generation as the scaling book's specs table gives it.
fn published_host_block(chip: &ChipSpec) -> (&'static [u32], &'static str) {
    match chip.name {
        "v4" | "v5p" => (&[2, 2, 1], "scaling book TPU specs table: host size 2x2x1"),
        "v5e" | "v6e" | "v3" => (&[4, 2], "scaling book TPU specs table: host size 4x2"),
        // Not in the table: assumed like v3.
        _ => (&[4, 2], "not published; assumed like v3 (4x2)"),
    }
}

fn largest_divisor_at_most(n: u32, cap: u32) -> u32 {
    (1..=cap.min(n))
        .rev()
        .find(|&d| n.is_multiple_of(d))
        .unwrap_or(1)
}

fn host_shape_for(block: &[u32], shape: &[u32]) -> Vec<u32> {
    let tiles = |b: &[u32]| {
        b.iter()
            .zip(shape)
            .all(|(&b, &s)| b <= s && s.is_multiple_of(b))
    };
    if tiles(block) {
        return block.to_vec();
    }
    let mut transposed = block.to_vec();
    if shape.len() >= 2 {
        transposed.swap(0, 1);
        if tiles(&transposed) {
            return transposed;
        }
    }
    block
        .iter()
        .zip(shape)
        .map(|(&b, &s)| largest_divisor_at_most(s, b))
        .collect()
}

/// Which axes of a slice of `shape` wrap around on `chip`.
fn wraparound_for(chip: &ChipSpec, shape: &[u32]) -> Vec<bool> {
    match chip.wraparound.value {
        // v4/v5p: the optical switches exist only between whole cubes, so the slice wraps on
        // every axis when it is made of whole cubes and on none otherwise.
        Some(Wraparound::MultipleOf { multiple }) => {
            let whole = shape
                .iter()
                .all(|&s| s >= multiple && s.is_multiple_of(multiple));
            vec![whole; shape.len()]
        }
        // v5e/v6e: each axis on its own (an 8x16 wraps on its 16 axis).
        Some(rule @ Wraparound::FullAxisOnly { .. }) => {
            shape.iter().map(|&s| rule.wraps(s)).collect()
        }
        None => vec![false; shape.len()],
    }
}

impl Slice {
    /// Parses `CHIP:AxB[xC][*N]`, e.g. `v5e:8x4`, `v5p:4x4x4`, `v4:2x2x2`, `v5p:2x2x2*2`.
    ///
    /// Fails naming the bad part: an unknown chip (with the known ones), a generation whose
    /// topology is not published, the wrong number of dimensions (v4/v5p are 3D tori, v5e/v6e
    /// 2D), a size of zero or one that is not a number, a shape beyond the generation's
    /// largest published slice (its pod, in any orientation), or a bad slice count.
    pub fn parse(spec: &str) -> Result<Slice, SliceError> {
        let bad = |why: String| SliceError::BadSlice {
            spec: spec.to_string(),
            why,
        };
        let text = spec.trim();
        let Some((chip_name, rest)) = text.split_once(':') else {
            return Err(bad(
                "expected CHIP:SHAPE such as `v5e:4x4` or `v5p:4x4x4*2`".into(),
            ));
        };
        let chip = chip(chip_name.trim()).map_err(|e| bad(e.to_string()))?;
        let (shape_text, count_text) = match rest.split_once('*') {
            Some((s, n)) => (s.trim(), Some(n.trim())),
            None => (rest.trim(), None),
        };
        let num_slices = match count_text {
            None => 1,
            Some(n) => match n.parse::<u32>() {
                Ok(0) => return Err(bad("the slice count after `*` must be at least 1".into())),
                Ok(n) => n,
                Err(_) => return Err(bad(format!("`*{n}`: the slice count is not a number"))),
            },
        };
        if shape_text.is_empty() {
            return Err(bad(format!(
                "the shape after `{}:` is missing",
                chip_name.trim()
            )));
        }
        let mut shape = Vec::new();
        for part in shape_text.split(['x', 'X']) {
            let size = part
                .trim()
                .parse::<u32>()
                .map_err(|_| bad(format!("`{part}` in `{shape_text}` is not a size")))?;
            if size == 0 {
                return Err(bad(format!("`{shape_text}` has a size of zero")));
            }
            shape.push(size);
        }
        Slice::new(&chip, &shape, num_slices).map_err(|e| match e {
            SliceError::BadSlice { why, .. } => bad(why),
            other => other,
        })
    }

    /// A slice of `chip` with `shape` (one size per torus axis), repeated `num_slices` times.
    pub fn new(chip: &ChipSpec, shape: &[u32], num_slices: u32) -> Result<Slice, SliceError> {
        let shape_text = shape
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join("x");
        let bad = |why: String| SliceError::BadSlice {
            spec: format!("{}:{shape_text}", chip.name),
            why,
        };
        let Some(topology) = chip.topology.value else {
            return Err(bad(format!(
                "the {} topology is not published ({}), so its slices cannot be modelled",
                chip.name,
                chip.topology.note.unwrap_or("no source")
            )));
        };
        let dims = topology.dims as usize;
        if shape.len() != dims {
            let example = if dims == 3 { "4x4x4" } else { "4x4" };
            return Err(bad(format!(
                "{} is a {dims}D torus: the shape needs {dims} sizes (e.g. `{}:{example}`), not {} (`{shape_text}`)",
                chip.name,
                chip.name,
                shape.len()
            )));
        }
        if shape.contains(&0) {
            return Err(bad(format!("`{shape_text}` has a size of zero")));
        }
        if num_slices == 0 {
            return Err(bad("the slice count must be at least 1".into()));
        }
        let mut sorted = shape.to_vec();
        sorted.sort_unstable();
        let mut pod = topology.pod_shape.to_vec();
        pod.sort_unstable();
        if sorted.iter().zip(&pod).any(|(s, p)| s > p) {
            let pod_text = topology
                .pod_shape
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join("x");
            return Err(bad(format!(
                "`{shape_text}` is larger than the largest published {} slice, {pod_text} (in any orientation); join slices with `*N` instead",
                chip.name
            )));
        }
        let (block, _) = published_host_block(chip);
        Ok(Slice {
            chip: chip.clone(),
            shape: shape.to_vec(),
            num_slices,
            wraps: wraparound_for(chip, shape),
            host_shape: host_shape_for(block, shape),
        })
    }

    /// The generation's figures.
    pub fn chip(&self) -> &ChipSpec {
        &self.chip
    }

    /// Chips per axis of one slice.
    pub fn shape(&self) -> &[u32] {
        &self.shape
    }

    /// How many identical slices (joined over DCN).
    pub fn num_slices(&self) -> u32 {
        self.num_slices
    }

    /// Chips in one slice.
    pub fn chips_per_slice(&self) -> u32 {
        self.shape.iter().product()
    }

    /// Chips in all slices.
    pub fn total_chips(&self) -> u32 {
        self.chips_per_slice() * self.num_slices
    }

    /// True if `axis` has its wraparound link (see the module docs for the rule).
    pub fn wraps(&self, axis: usize) -> bool {
        self.wraps.get(axis).copied().unwrap_or(false)
    }

    /// Per axis, whether it wraps around.
    pub fn wraparound(&self) -> &[bool] {
        &self.wraps
    }

    /// One axis as a ring of the interconnect model: its size and whether it wraps.
    pub fn ring_axis(&self, axis: usize) -> RingAxis {
        RingAxis {
            size: self.shape.get(axis).copied().unwrap_or(1),
            wraps: self.wraps(axis),
        }
    }

    /// The slice and torus coordinates of `device`, or `None` past the last device.
    pub fn coords(&self, device: u32) -> Option<ChipCoord> {
        if device >= self.total_chips() {
            return None;
        }
        let per = self.chips_per_slice();
        let slice = device / per;
        let mut rest = device % per;
        let mut coords = vec![0; self.shape.len()];
        for (axis, &size) in self.shape.iter().enumerate().rev() {
            coords[axis] = rest % size;
            rest /= size;
        }
        Some(ChipCoord { slice, coords })
    }

    /// The device at `coords` of slice `slice`, or `None` outside the slices.
    pub fn device_at(&self, slice: u32, coords: &[u32]) -> Option<u32> {
        if slice >= self.num_slices
            || coords.len() != self.shape.len()
            || coords.iter().zip(&self.shape).any(|(c, s)| c >= s)
        {
            return None;
        }
        let local = coords
            .iter()
            .zip(&self.shape)
            .fold(0, |acc, (&c, &s)| acc * s + c);
        Some(slice * self.chips_per_slice() + local)
    }

    /// ICI hops from `a` to `b` along one axis: the shorter way round where it wraps.
    pub fn axis_distance(&self, axis: usize, a: u32, b: u32) -> u32 {
        let d = a.abs_diff(b);
        if self.wraps(axis) {
            d.min(self.shape[axis] - d)
        } else {
            d
        }
    }

    /// ICI hops between two devices of the same slice (the torus distance, with wraparound
    /// where the axis has it); `None` if they are in different slices or do not exist.
    pub fn hops(&self, a: u32, b: u32) -> Option<u32> {
        let (ca, cb) = (self.coords(a)?, self.coords(b)?);
        if ca.slice != cb.slice {
            return None;
        }
        Some(
            (0..self.shape.len())
                .map(|axis| self.axis_distance(axis, ca.coords[axis], cb.coords[axis]))
                .sum(),
        )
    }

    /// The block of chips one host owns, per axis (see the module docs).
    pub fn host_shape(&self) -> &[u32] {
        &self.host_shape
    }

    /// Where the host block comes from.
    pub fn host_shape_source(&self) -> &'static str {
        published_host_block(&self.chip).1
    }

    fn hosts_per_axis(&self) -> Vec<u32> {
        self.shape
            .iter()
            .zip(&self.host_shape)
            .map(|(s, h)| s / h)
            .collect()
    }

    /// Hosts per slice.
    pub fn hosts_per_slice(&self) -> u32 {
        self.hosts_per_axis().iter().product()
    }

    /// Hosts (processes) in all slices.
    pub fn process_count(&self) -> u32 {
        self.hosts_per_slice() * self.num_slices
    }

    /// The host (process) that owns `device`: hosts are numbered row-major by block within a
    /// slice, slice-major across slices. `None` past the last device.
    pub fn process_index(&self, device: u32) -> Option<u32> {
        let c = self.coords(device)?;
        let local = c
            .coords
            .iter()
            .zip(&self.host_shape)
            .zip(self.hosts_per_axis())
            .fold(0, |acc, ((&x, &h), n)| acc * n + x / h);
        Some(c.slice * self.hosts_per_slice() + local)
    }

    /// The devices host `process` owns, in increasing order (empty past the last host).
    pub fn devices_of_process(&self, process: u32) -> Vec<u32> {
        (0..self.total_chips())
            .filter(|&d| self.process_index(d) == Some(process))
            .collect()
    }

    /// The device ids of slice `slice`, in order.
    pub fn devices_of_slice(&self, slice: u32) -> std::ops::Range<u32> {
        let per = self.chips_per_slice();
        let s = slice.min(self.num_slices);
        s * per..(s + 1).min(self.num_slices) * per
    }
}

impl fmt::Display for Slice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shape = self
            .shape
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join("x");
        write!(f, "{}:{shape}", self.chip.name)?;
        if self.num_slices > 1 {
            write!(f, "*{}", self.num_slices)?;
        }
        Ok(())
    }
}

impl FromStr for Slice {
    type Err = SliceError;
    fn from_str(s: &str) -> Result<Slice, SliceError> {
        Slice::parse(s)
    }
}

/// Parses a `SYSTOLIC_TPUS`-style list of slices: comma-separated slice strings
/// (`v5e:8x4,v5p:2x2x2*2`); an empty string or `none` is no slice. A bare device count such as
/// `v5p:4` (the runtime's form for independent devices) is refused with a hint, since it says
/// nothing about the torus.
pub fn parse_slices(list: &str) -> Result<Vec<Slice>, SliceError> {
    let list = list.trim();
    if list.is_empty() || list.eq_ignore_ascii_case("none") {
        return Ok(Vec::new());
    }
    list.split(',')
        .map(|item| {
            let item = item.trim();
            let shape = item.split_once(':').map(|(_, s)| s).unwrap_or("");
            if !shape.is_empty() && shape.chars().all(|c| c.is_ascii_digit()) {
                return Err(SliceError::BadSlice {
                    spec: item.to_string(),
                    why: format!(
                        "`{shape}` is a device count, not a topology: write a shape such as `v5e:2x2` or `v5p:2x2x1`"
                    ),
                });
            }
            if !item.contains(':') {
                return Err(SliceError::BadSlice {
                    spec: item.to_string(),
                    why: format!(
                        "a slice needs a shape after the chip (e.g. `{item}:2x2`); known chips: {}",
                        chip_names().join(", ")
                    ),
                });
            }
            Slice::parse(item)
        })
        .collect()
}
