//! Verifying one function: a walk over its body that keeps the set of values visible at each
//! point (dominance: defined earlier in the same block or in an enclosing one), checks each
//! block's terminator, builds each region's [`RegionSignature`] and runs the op's inference
//! rule against the result types it declares.

use super::infer::{infer_result_types, type_list, RegionSignature};
use super::sharding::check_op_sharding;
use crate::diag::Diagnostic;
use crate::module::{Block, Func, Module, Op, Region, Span, ValueId};
use crate::ops::{OpKind, ReturnKind};
use crate::types::Type;

/// Verifies `func`, appending what is wrong to `diags`.
pub(super) fn verify_func(module: &Module, func: &Func, diags: &mut Vec<Diagnostic>) {
    let mut v = FuncVerifier::new(module, func, diags);
    match func.body.blocks.as_slice() {
        [] => v.error(
            func.span,
            "func.func",
            format!("function @{} has no body", func.name),
        ),
        [block] => {
            v.open_scope();
            v.define_args(block, func.span, "func.func");
            v.walk_block(block, Context::Func, func.span, "func.func");
            v.close_scope();
        }
        blocks => v.error(
            func.span,
            "func.func",
            format!(
                "the body of @{} has {} blocks; it must have exactly one",
                func.name,
                blocks.len()
            ),
        ),
    }
}

/// Which terminator a block must end with.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    /// A function body: `func.return` of the function's result types.
    Func,
    /// A region of an op, ended by that op's dialect's return (`stablehlo.return`, or
    /// `sdy.return` in `sdy.manual_computation`).
    Region(ReturnKind),
}

/// The state of the walk over one function.
struct FuncVerifier<'a> {
    module: &'a Module,
    func: &'a Func,
    diags: &'a mut Vec<Diagnostic>,
    /// Values visible at the current point.
    visible: Vec<bool>,
    /// Values whose definition the walk has passed (visible or not any more).
    passed: Vec<bool>,
    /// Values defined anywhere in the function.
    defined_somewhere: Vec<bool>,
    /// Values defined in each open scope, to hide them when it closes.
    scopes: Vec<Vec<ValueId>>,
}

impl<'a> FuncVerifier<'a> {
    /// A walk over `func` with nothing visible yet.
    fn new(module: &'a Module, func: &'a Func, diags: &'a mut Vec<Diagnostic>) -> Self {
        let n = func.values.len();
        let mut defined_somewhere = vec![false; n];
        mark_defined_region(&func.body, &mut defined_somewhere);
        FuncVerifier {
            module,
            func,
            diags,
            visible: vec![false; n],
            passed: vec![false; n],
            defined_somewhere,
            scopes: Vec::new(),
        }
    }

    /// Reports a problem at `span` (the function's own span when the op has none).
    fn error(&mut self, span: Option<Span>, op: &str, message: String) {
        self.diags.push(
            Diagnostic::new(message)
                .at(span.or(self.func.span))
                .in_op(op)
                .in_source(self.module.source_name.as_deref()),
        );
    }

    /// `%name` from the source, or `%N` for an unnamed value.
    fn label(&self, v: ValueId) -> String {
        match self
            .func
            .values
            .get(v.index())
            .and_then(|d| d.name.as_deref())
        {
            Some(name) => format!("%{name}"),
            None => format!("%{}", v.0),
        }
    }

    /// The type of a value, if its id is in the arena.
    fn value_type(&self, v: ValueId) -> Option<&'a Type> {
        self.func.values.get(v.index()).map(|d| &d.ty)
    }

    /// Enters a block: what it defines is hidden again when it is left.
    fn open_scope(&mut self) {
        self.scopes.push(Vec::new());
    }

    /// Leaves a block, hiding what it defined.
    fn close_scope(&mut self) {
        for v in self.scopes.pop().unwrap_or_default() {
            self.visible[v.index()] = false;
        }
    }

    /// Makes a value visible from here on; reports ids out of the arena and redefinitions.
    fn define(&mut self, v: ValueId, span: Option<Span>, op: &str) {
        if v.index() >= self.func.values.len() {
            let msg = format!(
                "defines value #{}, which is not in @{} (it has {} values)",
                v.0,
                self.func.name,
                self.func.values.len()
            );
            self.error(span, op, msg);
            return;
        }
        if self.passed[v.index()] {
            let msg = format!("{} is defined more than once", self.label(v));
            self.error(span, op, msg);
            return;
        }
        self.passed[v.index()] = true;
        self.visible[v.index()] = true;
        if let Some(scope) = self.scopes.last_mut() {
            scope.push(v);
        }
    }

    /// Defines a block's arguments and checks their types.
    fn define_args(&mut self, block: &Block, span: Option<Span>, op: &str) {
        for &a in &block.args {
            self.define(a, span, op);
            if let Some(ty) = self.value_type(a) {
                if let Err(e) = super::infer::check_value_type(ty) {
                    let msg = format!("block argument {}: {e}", self.label(a));
                    self.error(span, op, msg);
                }
            }
        }
    }

    /// The type of a used value, or a report of why it cannot be used here.
    fn use_value(&mut self, v: ValueId, span: Option<Span>, op: &str) -> Option<Type> {
        let i = v.index();
        if i >= self.func.values.len() {
            let msg = format!(
                "uses value #{}, which is not in @{} (it has {} values)",
                v.0,
                self.func.name,
                self.func.values.len()
            );
            self.error(span, op, msg);
            return None;
        }
        if self.visible[i] {
            return self.value_type(v).cloned();
        }
        let why = if self.passed[i] {
            "is defined in a region that does not enclose this use"
        } else if self.defined_somewhere[i] {
            "is used before its definition"
        } else {
            "is never defined"
        };
        let msg = format!("{} {why}", self.label(v));
        self.error(span, op, msg);
        None
    }

    /// Walks a block's ops; returns the types its terminator returns, if it is well formed.
    /// `parent` and `parent_name` locate the function or op that owns the block.
    fn walk_block(
        &mut self,
        block: &Block,
        ctx: Context,
        parent: Option<Span>,
        parent_name: &str,
    ) -> Option<Vec<Type>> {
        let expected = match ctx {
            Context::Func => ReturnKind::Func,
            Context::Region(kind) => kind,
        };
        let expected_name = OpKind::Return(expected).name();
        let Some(last) = block.ops.len().checked_sub(1) else {
            self.error(
                parent,
                parent_name,
                format!("a block is empty; it must end with {expected_name}"),
            );
            return None;
        };
        let mut returned = None;
        for (i, op) in block.ops.iter().enumerate() {
            let name = op.kind.name();
            match &op.kind {
                OpKind::Return(kind) => {
                    let types = self.operand_types(op, &name);
                    if i != last {
                        self.error(op.span, &name, "must be the last op of its block".into());
                    } else if *kind != expected {
                        let msg = format!("cannot end this block; use {expected_name}");
                        self.error(op.span, &name, msg);
                    } else if let Some(types) = types {
                        if !op.results.is_empty() {
                            self.error(op.span, &name, "a return has no results".into());
                        }
                        returned = self.check_return(op, &name, ctx, types);
                    }
                }
                _ => {
                    if i == last {
                        let msg = format!("the block must end with {expected_name}, not {name}");
                        self.error(op.span, &name, msg);
                    }
                    self.walk_op(op, &name);
                }
            }
        }
        returned
    }

    /// Checks a function's `func.return` against its result types; passes region returns up.
    fn check_return(
        &mut self,
        op: &Op,
        name: &str,
        ctx: Context,
        types: Vec<Type>,
    ) -> Option<Vec<Type>> {
        if ctx == Context::Func && types != self.func.result_types {
            let msg = format!(
                "returns {} but @{} declares results {}",
                type_list(&types),
                self.func.name,
                type_list(&self.func.result_types)
            );
            self.error(op.span, name, msg);
            return None;
        }
        Some(types)
    }

    /// The operands' types, if every operand may be used here (each problem is reported).
    fn operand_types(&mut self, op: &Op, name: &str) -> Option<Vec<Type>> {
        let mut types = Some(Vec::with_capacity(op.operands.len()));
        for (i, &v) in op.operands.iter().enumerate() {
            // A value used twice by one op is reported once.
            let ty = if op.operands[..i].contains(&v) {
                self.value_type(v)
                    .filter(|_| self.visible[v.index()])
                    .cloned()
            } else {
                self.use_value(v, op.span, name)
            };
            match (&mut types, ty) {
                (Some(all), Some(ty)) => all.push(ty),
                _ => types = None,
            }
        }
        types
    }

    /// Checks one non-terminator op: its operands, its regions, then its result types.
    fn walk_op(&mut self, op: &Op, name: &str) {
        let operands = self.operand_types(op, name);
        let mut signatures = Some(Vec::with_capacity(op.regions.len()));
        for (i, region) in op.regions.iter().enumerate() {
            let sig = self.walk_region(region, i, op, name);
            match (&mut signatures, sig) {
                (Some(all), Some(sig)) => all.push(sig),
                _ => signatures = None,
            }
        }
        for &r in &op.results {
            self.define(r, op.span, name);
        }
        let declared: Option<Vec<Type>> = op
            .results
            .iter()
            .map(|&r| self.value_type(r).cloned())
            .collect();
        let (Some(operands), Some(signatures), Some(declared)) = (operands, signatures, declared)
        else {
            return;
        };
        for problem in check_op_sharding(self.module, &op.attrs, &declared) {
            self.error(op.span, name, problem);
        }
        match &op.kind {
            OpKind::Call { callee } => self.check_call(op, name, callee, &operands, &declared),
            OpKind::Composite { decomposition, .. } => {
                self.check_call(op, name, decomposition, &operands, &declared)
            }
            OpKind::RunParallel { programs, infeed } => {
                self.check_run_parallel(op, name, programs, infeed, &operands, &declared)
            }
            OpKind::CustomCall {
                called_computations,
                ..
            } => {
                for callee in called_computations {
                    if self.module.func(callee).is_none() {
                        let msg = format!("calls @{callee}, which is not defined");
                        self.error(op.span, name, msg);
                    }
                }
                // JAX's LAPACK calls have known result types (`crate::lapack`).
                if let Some(call) = crate::lapack::LapackCall::from_op(op) {
                    if let Err(msg) = call.and_then(|c| c.check(&operands, &declared)) {
                        self.error(op.span, name, msg);
                    }
                }
            }
            _ => {}
        }
        match &op.kind {
            OpKind::ManualComputation(attrs) => {
                if let [body] = signatures.as_slice() {
                    let problems = super::sharding::check_manual_computation(
                        self.module,
                        attrs,
                        &operands,
                        body,
                        &declared,
                    );
                    for problem in problems {
                        self.error(op.span, name, problem);
                    }
                }
            }
            OpKind::ShardingConstraint(sharding) => {
                let problems =
                    super::sharding::check_sharding_constraint(self.module, sharding, &operands);
                for problem in problems {
                    self.error(op.span, name, problem);
                }
            }
            _ => {}
        }
        match infer_result_types(&op.kind, &operands, &signatures, Some(&declared)) {
            Err(e) => self.error(op.span, name, e),
            Ok(inferred) => self.compare_results(op, name, &inferred, &declared),
        }
    }

    /// Walks one region of `op`; returns its signature if its structure is sound.
    fn walk_region(
        &mut self,
        region: &Region,
        index: usize,
        op: &Op,
        name: &str,
    ) -> Option<RegionSignature> {
        let [block] = region.blocks.as_slice() else {
            let msg = format!(
                "region #{index} has {} blocks; it must have exactly one",
                region.blocks.len()
            );
            self.error(op.span, name, msg);
            return None;
        };
        self.open_scope();
        self.define_args(block, op.span, name);
        let args: Option<Vec<Type>> = block
            .args
            .iter()
            .map(|&a| self.value_type(a).cloned())
            .collect();
        let ret = match op.kind {
            OpKind::ManualComputation(_) => ReturnKind::Sdy,
            _ => ReturnKind::Stablehlo,
        };
        let results = self.walk_block(block, Context::Region(ret), op.span, name);
        self.close_scope();
        Some(RegionSignature::new(args?, results?))
    }

    /// Checks a call (or a composite's decomposition) against the callee's signature.
    fn check_call(&mut self, op: &Op, name: &str, callee: &str, args: &[Type], results: &[Type]) {
        let Some(f) = self.module.func(callee) else {
            let msg = format!("calls @{callee}, which is not defined");
            self.error(op.span, name, msg);
            return;
        };
        let params = param_types(f);
        if params.as_deref() != Some(args) {
            let msg = format!(
                "passes {} but @{callee} takes {}",
                type_list(args),
                params.map_or_else(|| "an invalid parameter list".into(), |p| type_list(&p))
            );
            self.error(op.span, name, msg);
        }
        if f.result_types != results {
            let msg = format!(
                "declares results {} but @{callee} returns {}",
                type_list(results),
                type_list(&f.result_types)
            );
            self.error(op.span, name, msg);
        }
    }

    /// `interpreter.run_parallel`: a non-empty rectangular grid of defined functions whose
    /// parameters, taken in process order, are the operands and whose results, concatenated in
    /// the same order, are the declared results; infeed functions exist and take nothing.
    fn check_run_parallel(
        &mut self,
        op: &Op,
        name: &str,
        programs: &[Vec<String>],
        infeed: &[String],
        args: &[Type],
        results: &[Type],
    ) {
        let width = programs.first().map_or(0, Vec::len);
        if width == 0 || programs.iter().any(|row| row.len() != width) {
            let msg = "`programs` must be a non-empty grid: every replica (row) lists the same \
                       number (at least one) of partitions"
                .to_string();
            self.error(op.span, name, msg);
            return;
        }
        let (mut params, mut returns) = (vec![], vec![]);
        for callee in programs.iter().flatten() {
            let Some(f) = self.module.func(callee) else {
                let msg = format!("runs @{callee}, which is not defined");
                self.error(op.span, name, msg);
                return;
            };
            params.extend(param_types(f).unwrap_or_default());
            returns.extend(f.result_types.iter().cloned());
        }
        if params != args {
            let msg = format!(
                "passes {} but its programs take {} in process order",
                type_list(args),
                type_list(&params)
            );
            self.error(op.span, name, msg);
        }
        if returns != results {
            let msg = format!(
                "declares results {} but its programs return {} in process order",
                type_list(results),
                type_list(&returns)
            );
            self.error(op.span, name, msg);
        }
        for queue in infeed {
            match self.module.func(queue) {
                None => {
                    let msg = format!("feeds from @{queue}, which is not defined");
                    self.error(op.span, name, msg);
                }
                Some(f) if !f.params().is_empty() => {
                    let msg = format!("feeds from @{queue}, which must take no arguments");
                    self.error(op.span, name, msg);
                }
                Some(_) => {}
            }
        }
    }

    /// Compares the inferred result types with the declared ones.
    fn compare_results(&mut self, op: &Op, name: &str, inferred: &[Type], declared: &[Type]) {
        if inferred.len() != declared.len() {
            let msg = format!(
                "declares {} result{} {} but produces {}: {}",
                declared.len(),
                if declared.len() == 1 { "" } else { "s" },
                type_list(declared),
                inferred.len(),
                type_list(inferred)
            );
            self.error(op.span, name, msg);
            return;
        }
        for (i, (want, got)) in inferred.iter().zip(declared).enumerate() {
            if want != got {
                let which = if declared.len() == 1 {
                    "the result".to_string()
                } else {
                    format!("result #{i}")
                };
                let msg = format!("{which} is declared as {got} but the op produces {want}");
                self.error(op.span, name, msg);
            }
        }
    }
}

/// Marks every value a region defines (block arguments and op results, at any depth).
fn mark_defined_region(region: &Region, defined: &mut [bool]) {
    for block in &region.blocks {
        for v in &block.args {
            if let Some(d) = defined.get_mut(v.index()) {
                *d = true;
            }
        }
        for op in &block.ops {
            for v in &op.results {
                if let Some(d) = defined.get_mut(v.index()) {
                    *d = true;
                }
            }
            for r in &op.regions {
                mark_defined_region(r, defined);
            }
        }
    }
}

/// The parameter types of a function, if its parameter ids are all in its arena (a function
/// built by hand may hold dangling ids; `Func::param_types` would panic on them).
pub(super) fn param_types(func: &Func) -> Option<Vec<Type>> {
    func.params()
        .iter()
        .map(|v| func.values.get(v.index()).map(|d| d.ty.clone()))
        .collect()
}
