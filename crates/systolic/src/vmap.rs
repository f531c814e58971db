//! `vmap` (being built; see issue 4).
