//! Call inlining, shared by the compiler's `inline` pass and by the two transformations
//! (autodiff and vmap), which need one call-free function before their rules can see every op.
//!
//! Every `func.call` (and, when asked, every `stablehlo.composite`, by its decomposition) is
//! replaced by a copy of the callee's body: its parameters bound to the call's operands, its
//! results to the values the callee returns. Calls inside the copied body are inlined too, so
//! each call site gets its own copy all the way down; calls nested in regions (`while`, `if`,
//! `case`, reducers) are found as well. A callee's body is copied straight from the module with
//! its calls expanded as they are met, so every op of the result is copied once and walked
//! once: the time is linear in the inlined size, a 5000-deep chain included (the stack grows
//! as needed, `stacker`). What differs between the users is an option
//! ([`Inliner::composites`]) and a hook called once per inlined call ([`Inliner::on_inline`]),
//! with which autodiff marks the ops of a rematerialised function as one group.
//!
//! Recursion cannot be inlined; it is an error naming the cycle. So is a call of a function the
//! module does not define, or a callee whose shape does not match the call.

use crate::diag::Diagnostic;
use crate::module::{Block, Func, Module, Op, Region, ValueId};
use crate::ops::{OpKind, ReturnKind};
use crate::walk::{clone_op, replace_uses, ValueMap};
use std::collections::{HashMap, HashSet};

/// The hook called for every inlined call: the callee, and the ops copied from its body (its
/// own calls already inlined, the terminator left out), which it may change.
pub type InlineHook<'h> = dyn FnMut(&Func, &mut [Op]) + 'h;

/// Inlines calls into functions of one module.
///
/// ```
/// use systolic_ir::inline::Inliner;
/// use systolic_ir::text::parse_module;
/// let m = parse_module(
///     "func.func @main(%x: tensor<f32>) -> tensor<f32> {
///        %0 = func.call @sq(%x) : (tensor<f32>) -> tensor<f32>
///        %1 = func.call @sq(%0) : (tensor<f32>) -> tensor<f32>
///        return %1 : tensor<f32>
///      }
///      func.func private @sq(%y: tensor<f32>) -> tensor<f32> {
///        %0 = stablehlo.multiply %y, %y : tensor<f32>
///        return %0 : tensor<f32>
///      }",
///     "calls",
/// )
/// .unwrap();
/// let mut copies = 0;
/// let mut count = |_: &systolic_ir::Func, ops: &mut [systolic_ir::Op]| copies += ops.len();
/// let f = Inliner::new(&m).on_inline(&mut count).inline_entry("main").unwrap();
/// let names: Vec<String> = f.body.blocks[0].ops.iter().map(|op| op.kind.name()).collect();
/// assert_eq!(names, ["stablehlo.multiply", "stablehlo.multiply", "func.return"]);
/// assert_eq!(copies, 2);
/// ```
pub struct Inliner<'m, 'h> {
    module: &'m Module,
    /// The module's functions by name, built once per inliner.
    funcs: HashMap<&'m str, &'m Func>,
    composites: bool,
    hook: Option<&'h mut InlineHook<'h>>,
}

impl<'m, 'h> Inliner<'m, 'h> {
    /// An inliner taking callees from `module`; composites stay, no hook.
    pub fn new(module: &'m Module) -> Self {
        Inliner {
            module,
            funcs: function_index(module),
            composites: false,
            hook: None,
        }
    }

    /// Whether `stablehlo.composite` ops are inlined by their decomposition too (the
    /// transformations want every op to have a rule; the compiler keeps them, since a backend
    /// may know the composite as a whole).
    pub fn composites(mut self, inline: bool) -> Self {
        self.composites = inline;
        self
    }

    /// Calls `hook` for every inlined call, after the calls inside the copy are inlined (so an
    /// outer call's hook sees ops its inner calls' hooks have already seen).
    pub fn on_inline(mut self, hook: &'h mut InlineHook<'h>) -> Self {
        self.hook = Some(hook);
        self
    }

    /// A copy of function `name` with every call inlined.
    pub fn inline_entry(&mut self, name: &str) -> Result<Func, Diagnostic> {
        let f = self
            .module
            .func(name)
            .ok_or_else(|| Diagnostic::new(format!("no function @{name} in the module")))?;
        let mut out = f.clone();
        self.inline_into(&mut out)?;
        Ok(out)
    }

    /// Inlines every call in `func` (which need not belong to the module; a call of a function
    /// named like it counts as recursion); returns how many calls were inlined.
    pub fn inline_into(&mut self, func: &mut Func) -> Result<usize, Diagnostic> {
        let mut run = Run {
            funcs: &self.funcs,
            composites: self.composites,
            hook: self.hook.as_deref_mut(),
            subst: HashMap::new(),
            stack: vec![func.name.clone()],
            on_stack: HashSet::from([func.name.clone()]),
            count: 0,
        };
        let mut body = std::mem::take(&mut func.body);
        let result = run.region(&mut body, func);
        // Uses of call results anywhere (nested regions included) now name the returned values.
        replace_uses(&mut body, &run.subst);
        func.body = body;
        result.map(|()| run.count)
    }
}

/// The module's functions by name; the first of two with one name wins, as in
/// [`Module::func`].
fn function_index(module: &Module) -> HashMap<&str, &Func> {
    let mut index = HashMap::with_capacity(module.funcs.len());
    for f in &module.funcs {
        index.entry(f.name.as_str()).or_insert(f);
    }
    index
}

/// The state of one [`Inliner::inline_into`].
struct Run<'m, 'a, 'h> {
    /// The module's functions by name (a linear search per call made long chains quadratic).
    funcs: &'a HashMap<&'m str, &'m Func>,
    composites: bool,
    hook: Option<&'a mut InlineHook<'h>>,
    /// Call result → the value standing for it (already resolved through earlier entries).
    subst: HashMap<ValueId, ValueId>,
    /// The functions being inlined, outermost first (the function itself at the bottom).
    stack: Vec<String>,
    /// The names on `stack`, so that a cycle is seen without searching the stack per call.
    on_stack: HashSet<String>,
    count: usize,
}

/// Stack left before a nested expansion grows the stack (`stacker`): enough for one
/// callee's ops to reach its next call.
const STACK_RED_ZONE: usize = 256 << 10;
/// Stack added each time: a chain of thousands of calls inlines on any thread's stack.
const STACK_GROWTH: usize = 4 << 20;

impl<'m> Run<'m, '_, '_> {
    fn resolve(&self, v: ValueId) -> ValueId {
        self.subst.get(&v).copied().unwrap_or(v)
    }

    /// The function `op` calls, if it is a call this run inlines.
    fn callee<'o>(&self, op: &'o Op) -> Option<&'o str> {
        match &op.kind {
            OpKind::Call { callee } => Some(callee),
            OpKind::Composite { decomposition, .. } if self.composites => Some(decomposition),
            _ => None,
        }
    }

    /// Inlines the calls of `region`, which belongs to `func` already (the function's own body,
    /// or a region of an op copied into it).
    fn region(&mut self, region: &mut Region, func: &mut Func) -> Result<(), Diagnostic> {
        for block in &mut region.blocks {
            let old = std::mem::take(&mut block.ops);
            let mut ops = Vec::with_capacity(old.len());
            for mut op in old {
                for r in &mut op.regions {
                    self.region(r, func)?;
                }
                match self.callee(&op).map(str::to_string) {
                    Some(callee) => {
                        let args: Vec<ValueId> =
                            op.operands.iter().map(|&v| self.resolve(v)).collect();
                        let returned = self.expand(&op, &callee, &args, func, &mut ops)?;
                        for (&r, v) in op.results.iter().zip(returned) {
                            let v = self.resolve(v);
                            self.subst.insert(r, v);
                        }
                    }
                    None => ops.push(op),
                }
            }
            block.ops = ops;
        }
        Ok(())
    }

    /// Appends to `ops` a copy of `name`'s body bound to `args` (values of `func`), its own
    /// calls expanded in place as they are met, and returns the values of `func` the callee's
    /// results became. Each op of the result is copied once, straight from the module, and
    /// never walked again: the work is linear in the inlined size, however deep the chain.
    fn expand(
        &mut self,
        call: &Op,
        name: &str,
        args: &[ValueId],
        func: &mut Func,
        ops: &mut Vec<Op>,
    ) -> Result<Vec<ValueId>, Diagnostic> {
        let op_name = call.kind.name();
        let bad = |msg: String| Diagnostic::new(msg).in_op(op_name.clone()).at(call.span);
        let caller = self.stack.last().cloned().unwrap_or_default();
        if self.on_stack.contains(name) {
            let start = self.stack.iter().position(|f| f == name).unwrap_or(0);
            let mut cycle: Vec<String> = self.stack[start..]
                .iter()
                .map(|f| format!("@{f}"))
                .collect();
            cycle.push(format!("@{name}"));
            return Err(bad(format!(
                "recursive calls cannot be inlined: {}",
                cycle.join(" -> ")
            )));
        }
        let Some(&callee) = self.funcs.get(name) else {
            return Err(bad(format!(
                "@{caller} calls @{name}, which the module does not define"
            )));
        };
        let [Block {
            args: params,
            ops: body_ops,
        }] = callee.body.blocks.as_slice()
        else {
            return Err(bad(format!("@{name} does not have exactly one block")));
        };
        if params.len() != args.len() {
            return Err(bad(format!(
                "@{name} takes {} arguments, the call passes {}",
                params.len(),
                args.len()
            )));
        }
        let Some((ret, body)) = body_ops.split_last() else {
            return Err(bad(format!("@{name} has an empty body")));
        };
        if !matches!(ret.kind, OpKind::Return(ReturnKind::Func)) {
            return Err(bad(format!("@{name} does not end in func.return")));
        }
        if ret.operands.len() != call.results.len() {
            return Err(bad(format!(
                "@{name} returns {} values, the call expects {}",
                ret.operands.len(),
                call.results.len()
            )));
        }
        let mut map = ValueMap::new();
        for (&param, &arg) in params.iter().zip(args) {
            map.insert(param, arg);
        }
        let start = ops.len();
        self.stack.push(name.to_string());
        self.on_stack.insert(name.to_string());
        let copied = stacker::maybe_grow(STACK_RED_ZONE, STACK_GROWTH, || {
            self.copy_body(callee, name, body, &mut map, func, ops)
        });
        self.on_stack.remove(name);
        self.stack.pop();
        copied?;
        let mut returned = Vec::with_capacity(ret.operands.len());
        for &v in &ret.operands {
            match map.get(v) {
                Some(x) => returned.push(x),
                None => return Err(bad(format!("@{name} returns a value it does not define"))),
            }
        }
        if let Some(hook) = self.hook.as_deref_mut() {
            hook(callee, &mut ops[start..]);
        }
        self.count += 1;
        Ok(returned)
    }

    /// Copies `body` (the ops of `callee` but its terminator) into `ops`, expanding its calls
    /// (and the calls in the copied ops' regions) as it goes; `map` binds `callee`'s values to
    /// `func`'s.
    fn copy_body(
        &mut self,
        callee: &'m Func,
        name: &str,
        body: &'m [Op],
        map: &mut ValueMap,
        func: &mut Func,
        ops: &mut Vec<Op>,
    ) -> Result<(), Diagnostic> {
        let bad = |op: &Op, msg: String| {
            Diagnostic::new(format!("inlining @{name}: {msg}"))
                .in_op(op.kind.name())
                .at(op.span)
        };
        for op in body {
            if let Some(inner) = self.callee(op) {
                let mut args = Vec::with_capacity(op.operands.len());
                for &v in &op.operands {
                    match map.get(v) {
                        Some(x) => args.push(x),
                        None => {
                            return Err(bad(op, format!("operand #{} is not defined", v.0)));
                        }
                    }
                }
                let returned = self.expand(op, inner, &args, func, ops)?;
                for (&r, v) in op.results.iter().zip(returned) {
                    map.insert(r, v);
                }
            } else {
                let mut copy = clone_op(callee, op, func, map).map_err(|e| bad(op, e.message))?;
                for r in &mut copy.regions {
                    self.region(r, func)?;
                }
                ops.push(copy);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::parse_module;
    use crate::walk::walk_ops;

    fn parse(text: &str) -> Module {
        parse_module(text, "inline-test").unwrap()
    }

    /// Op names of `f` at every depth, in pre-order.
    fn names(f: &Func) -> Vec<String> {
        let mut out = vec![];
        walk_ops(&f.body, &mut |op, _| out.push(op.kind.name()));
        out
    }

    fn verify(f: Func) {
        let m = Module {
            funcs: vec![f],
            ..Default::default()
        };
        crate::verify::verify_module(&m).unwrap();
    }

    const SQUARE: &str = "func.func private @sq(%y: tensor<f32>) -> tensor<f32> {
        %0 = stablehlo.multiply %y, %y : tensor<f32>
        return %0 : tensor<f32>
      }";

    #[test]
    fn nested_calls_and_chained_results() {
        // @twice returns the result of its own call; @main passes one call's result to another
        // and returns a call result, so call results stand for call results.
        let m = parse(&format!(
            "func.func @main(%x: tensor<f32>) -> tensor<f32> {{
               %0 = func.call @fwd(%x) : (tensor<f32>) -> tensor<f32>
               %1 = func.call @fwd(%0) : (tensor<f32>) -> tensor<f32>
               return %1 : tensor<f32>
             }}
             func.func private @fwd(%y: tensor<f32>) -> tensor<f32> {{
               %0 = func.call @sq(%y) : (tensor<f32>) -> tensor<f32>
               return %0 : tensor<f32>
             }}
             {SQUARE}"
        ));
        let f = Inliner::new(&m).inline_entry("main").unwrap();
        assert_eq!(
            names(&f),
            ["stablehlo.multiply", "stablehlo.multiply", "func.return"]
        );
        let ops = &f.body.blocks[0].ops;
        let x = f.body.blocks[0].args[0];
        assert_eq!(ops[0].operands, [x, x]);
        let first = ops[0].results[0];
        assert_eq!(ops[1].operands, [first, first]);
        assert_eq!(ops[2].operands, ops[1].results);
        verify(f);
    }

    #[test]
    fn calls_inside_while_if_and_case_regions() {
        let m = parse(&format!(
            "func.func @main(%x: tensor<f32>, %p: tensor<i1>, %i: tensor<i32>) -> tensor<f32> {{
               %0 = \"stablehlo.if\"(%p) ({{
                 %a = func.call @sq(%x) : (tensor<f32>) -> tensor<f32>
                 stablehlo.return %a : tensor<f32>
               }}, {{
                 stablehlo.return %x : tensor<f32>
               }}) : (tensor<i1>) -> tensor<f32>
               %1 = \"stablehlo.case\"(%i) ({{
                 %b = func.call @sq(%0) : (tensor<f32>) -> tensor<f32>
                 stablehlo.return %b : tensor<f32>
               }}) : (tensor<i32>) -> tensor<f32>
               %2 = stablehlo.while(%c = %1) : tensor<f32>
                 cond {{
                   %t = stablehlo.compare LT, %c, %c : (tensor<f32>, tensor<f32>) -> tensor<i1>
                   stablehlo.return %t : tensor<i1>
                 }} do {{
                   %d = func.call @sq(%c) : (tensor<f32>) -> tensor<f32>
                   stablehlo.return %d : tensor<f32>
                 }}
               return %2 : tensor<f32>
             }}
             {SQUARE}"
        ));
        let mut callees = vec![];
        let mut hook = |g: &Func, _: &mut [Op]| callees.push(g.name.clone());
        let f = Inliner::new(&m)
            .on_inline(&mut hook)
            .inline_entry("main")
            .unwrap();
        assert_eq!(callees, ["sq", "sq", "sq"]);
        let n = names(&f);
        assert!(!n.iter().any(|s| s == "func.call"), "{n:?}");
        assert_eq!(n.iter().filter(|s| *s == "stablehlo.multiply").count(), 3);
        verify(f);
    }

    #[test]
    fn composites_only_when_asked() {
        let m = parse(
            "func.func @main(%x: tensor<f32>) -> tensor<f32> {
               %0 = stablehlo.composite \"my.sq\" %x {decomposition = @sq} : (tensor<f32>) -> tensor<f32>
               return %0 : tensor<f32>
             }
             func.func private @sq(%y: tensor<f32>) -> tensor<f32> {
               %0 = stablehlo.multiply %y, %y : tensor<f32>
               return %0 : tensor<f32>
             }",
        );
        let mut kept = m.funcs[0].clone();
        assert_eq!(Inliner::new(&m).inline_into(&mut kept).unwrap(), 0);
        assert_eq!(kept, m.funcs[0]);
        let f = Inliner::new(&m)
            .composites(true)
            .inline_entry("main")
            .unwrap();
        assert_eq!(names(&f), ["stablehlo.multiply", "func.return"]);
        verify(f);
    }

    #[test]
    fn the_hook_sees_inner_calls_first_and_may_change_the_copy() {
        let m = parse(&format!(
            "func.func @main(%x: tensor<f32>) -> tensor<f32> {{
               %0 = func.call @outer(%x) : (tensor<f32>) -> tensor<f32>
               return %0 : tensor<f32>
             }}
             func.func private @outer(%y: tensor<f32>) -> tensor<f32> {{
               %0 = func.call @sq(%y) : (tensor<f32>) -> tensor<f32>
               %1 = stablehlo.add %0, %y : tensor<f32>
               return %1 : tensor<f32>
             }}
             {SQUARE}"
        ));
        let mut seen = vec![];
        let mut hook = |g: &Func, ops: &mut [Op]| {
            seen.push((g.name.clone(), ops.len()));
            for op in ops {
                op.attrs
                    .push(crate::NamedAttr::new("seen_by", crate::Attribute::Unit));
            }
        };
        let f = Inliner::new(&m)
            .on_inline(&mut hook)
            .inline_entry("main")
            .unwrap();
        assert_eq!(seen, [("sq".to_string(), 1), ("outer".to_string(), 2)]);
        let ops = &f.body.blocks[0].ops;
        // The multiply was marked by both hooks, the add by the outer one only.
        assert_eq!(ops[0].attrs.len(), 2);
        assert_eq!(ops[1].attrs.len(), 1);
    }

    /// A 3000-deep chain on a thread with a 128 KiB stack: the expansion recurses once per
    /// level, so it must grow the stack rather than overflow it, and copy each op once.
    #[test]
    fn a_deep_chain_inlines_on_a_small_stack() {
        let n = 3000;
        let mut text = String::new();
        for i in 0..n {
            let name = if i == 0 {
                "@main".to_string()
            } else {
                format!("private @f{i}")
            };
            let body = if i + 1 < n {
                format!(
                    "%0 = func.call @f{}(%x) : (tensor<f32>) -> tensor<f32>\n %1 = stablehlo.negate %0 : tensor<f32>",
                    i + 1
                )
            } else {
                "%1 = stablehlo.negate %x : tensor<f32>".to_string()
            };
            text += &format!(
                "func.func {name}(%x: tensor<f32>) -> tensor<f32> {{\n {body}\n return %1 : tensor<f32>\n}}\n"
            );
        }
        let m = parse(&text);
        let f = std::thread::Builder::new()
            .stack_size(128 << 10)
            .spawn(move || {
                let mut copies = 0;
                let mut hook = |_: &Func, ops: &mut [Op]| copies += ops.len();
                let f = Inliner::new(&m).on_inline(&mut hook).inline_entry("main");
                (f, copies)
            })
            .unwrap()
            .join()
            .unwrap();
        let (f, copies) = (f.0.unwrap(), f.1);
        assert_eq!(f.body.blocks[0].ops.len(), n + 1);
        // The hook of @fk sees its own negate and the n - 1 - k below it (the slices overlap;
        // nothing is copied twice): n (n - 1) / 2 in all.
        assert_eq!(copies, n * (n - 1) / 2);
        verify(f);
    }

    #[test]
    fn recursion_is_an_error_naming_the_cycle() {
        let m = parse(
            "func.func @main(%x: tensor<f32>) -> tensor<f32> {
               %0 = func.call @ping(%x) : (tensor<f32>) -> tensor<f32>
               return %0 : tensor<f32>
             }
             func.func private @ping(%y: tensor<f32>) -> tensor<f32> {
               %0 = func.call @pong(%y) : (tensor<f32>) -> tensor<f32>
               return %0 : tensor<f32>
             }
             func.func private @pong(%y: tensor<f32>) -> tensor<f32> {
               %0 = func.call @ping(%y) : (tensor<f32>) -> tensor<f32>
               return %0 : tensor<f32>
             }",
        );
        let err = Inliner::new(&m).inline_entry("main").unwrap_err();
        assert_eq!(err.op.as_deref(), Some("func.call"));
        assert!(
            err.message.contains("@ping -> @pong -> @ping"),
            "{}",
            err.message
        );
        assert!(err.span.is_some());
    }

    #[test]
    fn unknown_callee_is_an_error_naming_it() {
        let m = parse(
            "func.func @main(%x: tensor<f32>) -> tensor<f32> {
               %0 = func.call @nowhere(%x) : (tensor<f32>) -> tensor<f32>
               return %0 : tensor<f32>
             }",
        );
        let err = Inliner::new(&m).inline_entry("main").unwrap_err();
        assert!(
            err.message.contains("@main calls @nowhere"),
            "{}",
            err.message
        );
        let err = Inliner::new(&m).inline_entry("absent").unwrap_err();
        assert!(err.message.contains("@absent"), "{}", err.message);
    }

    #[test]
    fn a_call_that_does_not_match_its_callee_is_an_error() {
        let mut m = parse(&format!(
            "func.func @main(%x: tensor<f32>) -> tensor<f32> {{
               %0 = func.call @sq(%x) : (tensor<f32>) -> tensor<f32>
               return %0 : tensor<f32>
             }}
             {SQUARE}"
        ));
        // Drop the call's operand: the parser would refuse the text, a rewrite might not.
        m.funcs[0].body.blocks[0].ops[0].operands.clear();
        let err = Inliner::new(&m).inline_entry("main").unwrap_err();
        assert!(
            err.message
                .contains("@sq takes 1 arguments, the call passes 0"),
            "{}",
            err.message
        );
    }
}
