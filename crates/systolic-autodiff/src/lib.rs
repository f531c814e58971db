//! Automatic differentiation as IR→IR transformations (being built; see issue 4).
