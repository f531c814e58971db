//! `grad`, `value_and_grad`, `jvp`, `vjp`, `checkpoint` (being built; see issue 4).
