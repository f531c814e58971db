//! Vectorising map as an IR→IR transformation (being built; see issue 4).
