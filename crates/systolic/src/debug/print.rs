//! `debug::print!`: the macro and what it expands to.
//!
//! The macro turns its arguments into a list of arrays and a formatting function, a `fn` item
//! holding the caller's `format!` string: the string is checked by the compiler as usual, and
//! the function formats whatever values it is given — the concrete arrays at once outside a
//! trace, the values the compiled program hands its host callback inside one. A `fn` item
//! cannot capture locals, which is what turns an implicit `{y}` (a local the call did not
//! pass) into a compile error rather than a print of a traced value.

use crate::array::Array;
use crate::core::trace;
use crate::debug::callback::{host_arrays, in_callback, stage};
use crate::debug::format::Formatted;
use crate::debug::sink::emit;
use std::borrow::Borrow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use systolic_ir::host_callback::{self, CallbackId};

#[doc(hidden)]
#[macro_export]
macro_rules! __debug_print {
    ($fmt:literal $(,)?) => {
        $crate::__debug_print!(@go $fmt; __it; []; [];)
    };
    ($fmt:literal, $($rest:tt)+) => {
        $crate::__debug_print!(@go $fmt; __it; []; []; $($rest)+)
    };
    // A named argument, `name = value`.
    (@go $fmt:literal; $it:ident; [$($v:expr,)*]; [$($fa:tt)*]; $n:ident = $e:expr $(, $($rest:tt)*)?) => {
        $crate::__debug_print!(@go $fmt; $it; [$($v,)* $e,];
            [$($fa)* $n = $crate::debug::__next(&mut $it),]; $($($rest)*)?)
    };
    // A positional argument.
    (@go $fmt:literal; $it:ident; [$($v:expr,)*]; [$($fa:tt)*]; $e:expr $(, $($rest:tt)*)?) => {
        $crate::__debug_print!(@go $fmt; $it; [$($v,)* $e,];
            [$($fa)* $crate::debug::__next(&mut $it),]; $($($rest)*)?)
    };
    (@go $fmt:literal; $it:ident; [$($v:expr,)*]; [$($fa:tt)*];) => {
        $crate::debug::__print_impl(
            ::std::vec![$($crate::debug::__to_array(&$v)),*],
            {
                #[allow(unused_mut, unused_variables)]
                fn __format(__vals: &[$crate::Array]) -> ::std::string::String {
                    let mut $it = __vals.iter();
                    ::std::format!($fmt, $($fa)*)
                }
                __format
            },
        )
    };
}

/// An argument of `print!` as an array (`Array` or `&Array`).
#[doc(hidden)]
pub fn __to_array<A: Borrow<Array>>(a: &A) -> Array {
    a.borrow().clone()
}

/// The next value for the format string; the macro hands out exactly as many as it collected.
#[doc(hidden)]
pub fn __next<'a>(it: &mut std::slice::Iter<'a, Array>) -> Formatted<'a> {
    Formatted(
        it.next()
            .expect("debug::print! formats as many values as it was given"),
    )
}

/// The host callback formatting with `format`, registered once per `print!` call site (its
/// `fn` item), so that tracing the same function again stages the same op and the compile
/// cache recognises the program.
fn print_callback(format: fn(&[Array]) -> String) -> CallbackId {
    static SITES: OnceLock<Mutex<HashMap<usize, CallbackId>>> = OnceLock::new();
    let sites = SITES.get_or_init(Mutex::default);
    let mut sites = sites.lock().unwrap_or_else(|p| p.into_inner());
    *sites.entry(format as usize).or_insert_with(|| {
        host_callback::register(Arc::new(move |tensors: &[systolic_ir::Tensor]| {
            let arrays = host_arrays(tensors)?;
            emit(&format(&arrays));
            Ok(vec![])
        }))
    })
}

/// What `print!` expands to: formats `args` with `format` now (outside a trace) or stages a
/// host callback that does it when the program runs. An argument that failed (an op that
/// failed inside the traced function) ends the trace with its error, as reading its shape
/// would; outside a trace a failed array prints as its error, as its `Display` does.
#[doc(hidden)]
pub fn __print_impl(args: Vec<Array>, format: fn(&[Array]) -> String) {
    if trace::current().is_none() {
        if !in_callback() {
            crate::core::dispatch::drain();
        }
        emit(&format(&args));
        return;
    }
    let id = print_callback(format);
    if let Err(e) = stage(id, "print", &args) {
        crate::core::raise::raise(e);
    }
}
