//! `#[derive(Tree)]` for structs of arrays (being built; see issue 4).
