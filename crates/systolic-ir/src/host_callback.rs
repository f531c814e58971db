//! `systolic.host_callback`: a call from a running program back into the host process, as
//! JAX's `debug_callback` (what `jax.debug.print` and `jax.debug.callback` lower to).
//!
//! The op is a `stablehlo.custom_call @systolic.host_callback` with `has_side_effect = true`:
//! the passes keep it although nothing reads its results (DCE), never merge two of them (CSE),
//! never fold it (constant folding) and never fuse it, so each one runs exactly once per
//! execution of its block, in program order. Its `backend_config` carries the number under
//! which the closure to call is registered in this process's registry (below) and a short
//! name for errors and profiles:
//!
//! ```text
//! stablehlo.custom_call @systolic.host_callback(%0) {api_version = 4 : i32,
//!     backend_config = {callback_id = 7 : i64, name = "debug.print"},
//!     has_side_effect = true} : (tensor<3xf32>) -> ()
//! ```
//!
//! The registry lives here, in the lowest layer, so that the interpreter and the CPU backend
//! call the closure the same way without depending on the front end that registered it. The
//! numbers are local to the process: a module holding a callback means nothing in another
//! process, which is why the runtime never stores such a module in its disk cache
//! ([`module_has_host_callback`]).
//!
//! ```
//! use std::sync::Arc;
//! use systolic_ir::host_callback::{self, CallbackId};
//! use systolic_ir::{DType, Tensor};
//! let id = host_callback::register(Arc::new(|args: &[Tensor]| {
//!     assert_eq!(args.len(), 1);
//!     Ok(vec![])
//! }));
//! let kind = host_callback::host_callback_kind(id, "demo");
//! assert!(host_callback::is_host_callback(&kind));
//! assert_eq!(host_callback::callback_id(&kind), Some(Ok(id)));
//! let x = Tensor::from_f64(vec![2], DType::F32, vec![1.0, 2.0]).unwrap();
//! assert!(host_callback::invoke(&kind, &[x.clone()], &[]).unwrap().is_empty());
//! // Once unregistered, a call says so, naming the op and the id.
//! assert!(host_callback::unregister(id));
//! let err = host_callback::invoke(&kind, &[x], &[]).unwrap_err();
//! assert!(err.contains("systolic.host_callback") && err.contains("no callback is registered"), "{err}");
//! # let _ = CallbackId(0);
//! ```

use crate::attrs::{find_attr, Attribute, NamedAttr};
use crate::module::Module;
use crate::ops::OpKind;
use crate::tensor::Tensor;
use crate::types::Type;
use crate::walk::walk_ops;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// The custom call target of a host callback.
pub const HOST_CALLBACK_TARGET: &str = "systolic.host_callback";

/// The `backend_config` key holding the registry number (an i64).
const ID_KEY: &str = "callback_id";
/// The `backend_config` key holding the callback's name (a string, for messages).
const NAME_KEY: &str = "name";

/// A callback: called with the op's operands as exact host tensors, returns its results (one
/// per result of the op, of the op's result types) or an error message.
pub type HostCallbackFn = dyn Fn(&[Tensor]) -> Result<Vec<Tensor>, String> + Send + Sync;

/// The number a callback is registered under in this process.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CallbackId(pub u64);

impl std::fmt::Display for CallbackId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

fn registry() -> &'static Mutex<HashMap<u64, Arc<HostCallbackFn>>> {
    static REGISTRY: OnceLock<Mutex<HashMap<u64, Arc<HostCallbackFn>>>> = OnceLock::new();
    REGISTRY.get_or_init(|| Mutex::new(HashMap::new()))
}

/// The registry map; a panic in another thread while it held the lock left the map itself
/// consistent (every operation is a single insert, remove or clone).
fn map() -> std::sync::MutexGuard<'static, HashMap<u64, Arc<HostCallbackFn>>> {
    registry().lock().unwrap_or_else(|p| p.into_inner())
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// Registers `f` under a fresh number (never reused in this process).
pub fn register(f: Arc<HostCallbackFn>) -> CallbackId {
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    map().insert(id, f);
    CallbackId(id)
}

/// Removes the callback registered under `id`; false if there was none. Programs still
/// holding the op then fail when they reach it, naming it.
pub fn unregister(id: CallbackId) -> bool {
    map().remove(&id.0).is_some()
}

/// The callback registered under `id`, if any.
pub fn lookup(id: CallbackId) -> Option<Arc<HostCallbackFn>> {
    map().get(&id.0).cloned()
}

/// The op kind of a host callback calling the closure registered under `id`; `name` says what
/// it is (`debug.print`, `debug.callback`) in errors and profiles.
pub fn host_callback_kind(id: CallbackId, name: &str) -> OpKind {
    let config = vec![
        NamedAttr::new(ID_KEY, Attribute::Int(id.0 as i64, None)),
        NamedAttr::new(NAME_KEY, Attribute::String(name.to_string())),
    ];
    OpKind::CustomCall {
        call_target_name: HOST_CALLBACK_TARGET.to_string(),
        has_side_effect: true,
        backend_config: Some(Attribute::Dict(config)),
        api_version: 4,
        called_computations: vec![],
    }
}

/// True for a `custom_call @systolic.host_callback`.
pub fn is_host_callback(kind: &OpKind) -> bool {
    matches!(kind, OpKind::CustomCall { call_target_name, .. }
        if call_target_name == HOST_CALLBACK_TARGET)
}

/// The registry number of a host callback: `None` for any other op, an error naming the op
/// when its `backend_config` holds no number.
pub fn callback_id(kind: &OpKind) -> Option<Result<CallbackId, String>> {
    if !is_host_callback(kind) {
        return None;
    }
    let OpKind::CustomCall { backend_config, .. } = kind else {
        return None;
    };
    let id = match backend_config {
        Some(Attribute::Dict(config)) => match find_attr(config, ID_KEY) {
            Some(Attribute::Int(id, _)) if *id > 0 => Some(CallbackId(*id as u64)),
            _ => None,
        },
        _ => None,
    };
    Some(id.ok_or_else(|| {
        format!(
            "stablehlo.custom_call @{HOST_CALLBACK_TARGET}: backend_config needs a positive \
             integer '{ID_KEY}'"
        )
    }))
}

/// The name a host callback was given (`debug.print`), or `"callback"`.
pub fn callback_name(kind: &OpKind) -> String {
    match kind {
        OpKind::CustomCall {
            backend_config: Some(Attribute::Dict(config)),
            ..
        } => match find_attr(config, NAME_KEY) {
            Some(Attribute::String(name)) => name.clone(),
            _ => "callback".to_string(),
        },
        _ => "callback".to_string(),
    }
}

/// Runs the host callback `kind` on `args`, checking that it returns one tensor of each of
/// `result_types`. Errors name the op, the callback and its number: no callback registered
/// under it (a module from another process, or one unregistered), the callback's own error, or
/// results of other types than the op declares.
pub fn invoke(
    kind: &OpKind,
    args: &[Tensor],
    result_types: &[Type],
) -> Result<Vec<Tensor>, String> {
    let id = match callback_id(kind) {
        Some(id) => id?,
        None => return Err(format!("{} is not a host callback", kind.name())),
    };
    let what = format!(
        "stablehlo.custom_call @{HOST_CALLBACK_TARGET} ({}, callback {id})",
        callback_name(kind)
    );
    let f = lookup(id).ok_or_else(|| {
        format!(
            "{what}: no callback is registered under this number in this process (callback \
             numbers are process-local: was the program made by another process, or its \
             callback unregistered?)"
        )
    })?;
    let results = f(args).map_err(|e| format!("{what}: {e}"))?;
    let got: Vec<Type> = results
        .iter()
        .map(|t| Type::Tensor(t.ty().clone()))
        .collect();
    if got.as_slice() != result_types {
        let list = |ts: &[Type]| {
            ts.iter()
                .map(Type::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        };
        return Err(format!(
            "{what}: the callback returned ({}) but the op declares ({})",
            list(&got),
            list(result_types)
        ));
    }
    Ok(results)
}

/// True when some function of `module` holds a host callback (at any depth). Such a module
/// is tied to this process's registry and must not be served from a cache shared with others.
pub fn module_has_host_callback(module: &Module) -> bool {
    let mut found = false;
    for func in &module.funcs {
        walk_ops(&func.body, &mut |op, _| found |= is_host_callback(&op.kind));
        if found {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::text::{parse_module, print_module};

    #[test]
    fn the_op_round_trips_through_text_and_keeps_its_number() {
        let id = register(Arc::new(|_: &[Tensor]| Ok(vec![])));
        let text = format!(
            "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {{\n  \
             stablehlo.custom_call @systolic.host_callback(%x) {{api_version = 4 : i32, \
             backend_config = {{callback_id = {id} : i64, name = \"debug.print\"}}, \
             has_side_effect = true}} : (tensor<2xf32>) -> ()\n  return %x : tensor<2xf32>\n}}"
        );
        let module = parse_module(&text, "test").unwrap();
        assert!(module_has_host_callback(&module));
        let printed = print_module(&module);
        let again = parse_module(&printed, "test").unwrap();
        let op = &again.funcs[0].body.blocks[0].ops[0];
        assert_eq!(callback_id(&op.kind), Some(Ok(id)));
        assert_eq!(callback_name(&op.kind), "debug.print");
        assert!(op.kind.must_keep());
        assert!(!op.kind.is_mergeable());
        unregister(id);
    }

    #[test]
    fn a_callback_error_and_wrong_results_name_the_op() {
        let failing = register(Arc::new(|_: &[Tensor]| Err("disk full".to_string())));
        let err = invoke(&host_callback_kind(failing, "save"), &[], &[]).unwrap_err();
        assert!(
            err.contains("@systolic.host_callback (save, callback"),
            "{err}"
        );
        assert!(err.ends_with("disk full"), "{err}");
        let scalar = Tensor::from_f64(vec![], DType::F32, vec![1.0]).unwrap();
        let returns = register(Arc::new(move |_: &[Tensor]| Ok(vec![scalar.clone()])));
        let err = invoke(&host_callback_kind(returns, "r"), &[], &[]).unwrap_err();
        assert!(
            err.contains("returned (tensor<f32>) but the op declares ()"),
            "{err}"
        );
        unregister(failing);
        unregister(returns);
    }

    #[test]
    fn a_config_without_a_number_is_an_error_and_other_calls_are_not_callbacks() {
        let kind = OpKind::CustomCall {
            call_target_name: HOST_CALLBACK_TARGET.to_string(),
            has_side_effect: true,
            backend_config: None,
            api_version: 4,
            called_computations: vec![],
        };
        assert!(callback_id(&kind)
            .unwrap()
            .unwrap_err()
            .contains("callback_id"));
        let other = crate::pvary::pvary_kind(&[vec![0, 1]], true);
        assert_eq!(callback_id(&other), None);
        assert!(!is_host_callback(&other));
    }
}
