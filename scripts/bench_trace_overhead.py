#!/usr/bin/env python3
"""What tracing costs on the README's benchmark programs (issue 17: at most 5%).

For each program of `scripts/bench_vs_jax.py` (the README's performance table): export it from
JAX once, then run `systolic run --backend cpu --repeat N --json` on it alternately without and
with `--trace` (the whole run recorded: compile, every repeat's kernels, buffers and
transfers), ROUNDS times each, and compare the steady-state medians. Which side runs first
alternates between rounds, so that a slow moment of a shared machine does not land on one side
only; on a busy machine use more rounds. JAX is only the exporter here.

    PY=/root/.cache/systolic-jax-venv/bin/python
    cargo build -p systolic-cli            # or --release with --binary target/release/systolic
    $PY scripts/bench_trace_overhead.py [--binary target/debug/systolic] [--only NAME,…]
        [--repeat 20] [--rounds 3]
"""

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import jax
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_vs_jax  # noqa: E402  (the programs, as the README's table runs them)

ROOT = Path(__file__).resolve().parent.parent


def export(name, folder):
    f, args = bench_vs_jax.PROGRAMS[name]()
    folder.mkdir()
    module = folder / "module.mlir"
    module.write_text(jax.jit(f).lower(*args).as_text())
    inputs = []
    for i, a in enumerate(args):
        path = folder / f"in{i}.npy"
        np.save(path, a)
        inputs.append(path)
    return module, inputs


def steady_ms(binary, module, inputs, repeat, trace):
    cmd = [str(binary), "run", str(module), "--backend", "cpu", "--repeat", str(repeat), "--json"]
    for path in inputs:
        cmd += ["--input", str(path)]
    if trace:
        cmd += ["--trace", str(trace)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    if proc.returncode != 0:
        raise RuntimeError(f"systolic run failed: {proc.stderr.strip()}")
    return json.loads(proc.stdout.strip().splitlines()[-1])["run_ms"]["median"]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--binary", default=str(ROOT / "target" / "debug" / "systolic"))
    p.add_argument("--only", default="mlp_forward,mlp_train_step,softmax_xent,transformer_forward,transformer_train_step")
    p.add_argument("--repeat", type=int, default=20)
    p.add_argument("--rounds", type=int, default=3)
    a = p.parse_args()
    names = [n for n in a.only.split(",") if n]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for name in names:
            module, inputs = export(name, work / name)
            plain, traced = [], []
            for r in range(a.rounds):
                # Which side goes first alternates, so that a drift of the machine's load
                # does not always land on the same side.
                sides = [None, work / f"{name}-{r}.json.gz"]
                for trace in sides if r % 2 == 0 else sides[::-1]:
                    ms = steady_ms(a.binary, module, inputs, a.repeat, trace)
                    (traced if trace else plain).append(ms)
            p_ms, t_ms = statistics.median(plain), statistics.median(traced)
            rows.append((name, p_ms, t_ms, t_ms / p_ms))
            print(f"{name:24} untraced {p_ms:9.3f} ms  traced {t_ms:9.3f} ms  "
                  f"ratio {t_ms / p_ms:.3f}", flush=True)
    ratios = [r[3] for r in rows]
    print(f"median ratio {statistics.median(ratios):.3f}, largest {max(ratios):.3f}")
    print(json.dumps({"binary": a.binary, "repeat": a.repeat, "rounds": a.rounds,
                      "rows": [{"program": n, "untraced_ms": p_, "traced_ms": t, "ratio": q}
                               for n, p_, t, q in rows]}))


if __name__ == "__main__":
    main()
