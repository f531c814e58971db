"""Writes the source files systolic::data's tests read (tests/data/pipeline): an .npy, an .npz
and a CSV made by numpy, with values the tests recompute from the same formulas."""
import numpy as np
from pathlib import Path

out = Path(__file__).resolve().parent.parent / "crates/systolic/tests/data/pipeline"
out.mkdir(parents=True, exist_ok=True)
x = (np.arange(12, dtype=np.float32) * 0.5 - 2.0).reshape(6, 2)
np.save(out / "x.npy", x)
np.savez(out / "xy.npz", x=x, y=np.arange(6, dtype=np.int64) % 3)
np.savetxt(out / "rows.csv", np.stack([np.arange(5) * 1.25, -np.arange(5.0)], 1),
           delimiter=",", header="a,b", comments="", fmt="%.4f")
