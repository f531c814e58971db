//! Transposed panels of a loop operand, kept on a thread while it runs consecutive blocks of
//! one loop stage.
//!
//! A rank-2 loop that reads an operand transposed (`x + xᵀ`: one output row is a source
//! column) loads [`PANEL_ROWS`] output rows together, so each source cache line it touches
//! gives 8 elements instead of 1 ([`super::access`]). That needs 8 whole rows in one block;
//! rows longer than a block / 8 (64 f32 lanes) never have them, and each element then cost a
//! cache-line fill: 2.1 ns per element for the two `(a + aᵀ)/2` fusions of a 512² eigh on an
//! AMD EPYC Zen 4, 5% of that program. Here the first block of a group of 8 rows gathers the
//! whole group into a per-thread panel, and the next blocks copy their rows from it.
//!
//! A panel is only reused inside a [`scope`], which `exec::run_range` opens for the blocks it
//! runs: a stage's operands do not change while it runs (an operand read transposed is never
//! written in place, see `in_place`), and the panel is dropped when the scope ends, so a later
//! run never sees an earlier run's data at a reused address. Outside a scope, loads gather
//! directly.

use crate::kernels::shape::tile8;
use std::any::{Any, TypeId};
use std::cell::RefCell;
use std::marker::PhantomData;

/// Output rows per panel: 8 neighbouring source elements (32 bytes of f32) per column.
pub const PANEL_ROWS: usize = 8;

/// What a panel holds: the source, the transposed view of it and the group of rows.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct PanelKey {
    /// Address and length of the source slice, and its element type.
    pub source: (usize, usize, TypeId),
    /// The view: output element `(row, col)` is `source[offset + row + col · step]`.
    pub offset: usize,
    pub step: usize,
    pub cols: usize,
    /// The panel's first output row (a multiple of [`PANEL_ROWS`]) and how many it has.
    pub first_row: usize,
    pub rows: usize,
}

struct Cache {
    /// Open scopes on this thread.
    depth: usize,
    key: Option<PanelKey>,
    /// A `Vec<T>` of the key's element type.
    data: Option<Box<dyn Any>>,
}

thread_local! {
    static CACHE: RefCell<Cache> = const {
        RefCell::new(Cache {
            depth: 0,
            key: None,
            data: None,
        })
    };
}

/// While the returned guard lives, transposed loads on this thread may keep a panel between
/// blocks; when it drops, the panel is forgotten.
pub fn scope() -> Scope {
    CACHE.with(|c| c.borrow_mut().depth += 1);
    Scope(PhantomData)
}

/// See [`scope`] (not `Send`: it belongs to the thread whose cache it opened).
pub struct Scope(PhantomData<*const ()>);

impl Drop for Scope {
    fn drop(&mut self) {
        CACHE.with(|c| {
            let mut c = c.borrow_mut();
            c.depth -= 1;
            c.key = None;
        });
    }
}

/// The key of the panel holding output row `row` of the transposed view
/// `source[offset + row + col · step]` of a loop of `rows` × `cols`.
pub fn key_of<T: 'static>(
    source: &[T],
    (offset, step): (usize, usize),
    (rows, cols): (usize, usize),
    row: usize,
) -> PanelKey {
    let first_row = row / PANEL_ROWS * PANEL_ROWS;
    PanelKey {
        source: (source.as_ptr() as usize, source.len(), TypeId::of::<T>()),
        offset,
        step,
        cols,
        first_row,
        rows: PANEL_ROWS.min(rows - first_row),
    }
}

/// `read(panel)` with the panel `key` (`key.rows` × `key.cols`, row-major) of `source`,
/// gathered first unless this thread holds it already; `None` (nothing read) outside a
/// [`scope`].
pub fn with_panel<T: Copy + 'static, R>(
    source: &[T],
    key: PanelKey,
    read: impl FnOnce(&[T]) -> R,
) -> Option<R> {
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.depth == 0 || key.rows == 0 || key.cols == 0 {
            return None;
        }
        let cached = c.key == Some(key);
        if !c.data.as_ref().is_some_and(|d| d.is::<Vec<T>>()) {
            c.data = Some(Box::new(Vec::<T>::new()));
        }
        let panel = c
            .data
            .as_mut()
            .and_then(|d| d.downcast_mut::<Vec<T>>())
            .expect("the panel holds this element type");
        if !cached {
            gather(source, &key, panel);
        }
        let result = read(panel);
        c.key = Some(key);
        Some(result)
    })
}

/// Fills `panel` with `key`'s rows: column by column, each column's `key.rows` source
/// elements read together; a full panel of 4-byte elements by 8 × 8 register transposes
/// (`tile8`) where the CPU has AVX, the columns past the last whole 8 one by one.
fn gather<T: Copy>(source: &[T], key: &PanelKey, panel: &mut Vec<T>) {
    let (rows, cols) = (key.rows, key.cols);
    panel.clear();
    panel.resize(rows * cols, source[key.offset + key.first_row]);
    let base = key.offset + key.first_row;
    let mut done = 0;
    if std::mem::size_of::<T>() == 4 && rows == 8 && tile8::available() {
        while done + 8 <= cols {
            // The tile's last source row, bounds-checked: the others lie before it.
            let _ = &source[base + (done + 7) * key.step..][..8];
            // SAFETY: AVX is available; the 8 source rows of 8 elements (`step` apart,
            // checked above) and the 8 panel rows of 8 (`cols` apart, `done + 8 <= cols`,
            // 8 rows in a panel of 8 · cols) are in bounds, in two different allocations; T
            // is 4 bytes, moved as bits.
            unsafe {
                tile8::transpose8x8(
                    source.as_ptr().add(base + done * key.step).cast::<u32>(),
                    key.step as isize,
                    panel.as_mut_ptr().add(done).cast::<u32>(),
                    cols as isize,
                );
            }
            done += 8;
        }
    }
    for c in done..cols {
        let column = &source[base + c * key.step..][..rows];
        for (j, &x) in column.iter().enumerate() {
            panel[j * cols + c] = x;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows_of(panel: &[i32]) -> Vec<i32> {
        panel.to_vec()
    }

    /// A panel is gathered once per scope and key, forgotten when the scope ends (a new
    /// source at the same address is read afresh), and never kept outside a scope.
    #[test]
    fn panels_live_only_inside_a_scope() {
        let (rows, cols, step) = (10, 3, 10);
        let mut source: Vec<i32> = (0..rows + cols * step).map(|i| i as i32).collect();
        let want = |source: &[i32], first: usize, h: usize| -> Vec<i32> {
            (0..h)
                .flat_map(|j| (0..cols).map(move |c| (first + j, c)))
                .map(|(r, c)| source[r + c * step])
                .collect()
        };
        let key = key_of(&source, (0, step), (rows, cols), 9);
        assert_eq!((key.first_row, key.rows), (8, 2));
        assert_eq!(with_panel(&source, key, rows_of), None);
        {
            let _scope = scope();
            let got = with_panel(&source, key, rows_of).expect("inside a scope");
            assert_eq!(got, want(&source, 8, 2));
            let key0 = key_of(&source, (0, step), (rows, cols), 3);
            assert_eq!(
                with_panel(&source, key0, rows_of),
                Some(want(&source, 0, 8))
            );
        }
        source.iter_mut().for_each(|x| *x = -*x);
        let _scope = scope();
        let got = with_panel(&source, key, rows_of).expect("inside a scope");
        assert_eq!(got, want(&source, 8, 2), "a stale panel was read");
    }
}
