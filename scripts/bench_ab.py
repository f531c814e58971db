"""A/B of two `systolic` binaries on the same exported programs: is a change slower?

The side-by-side benchmark with JAX (`bench_vs_jax.py`) answers "how do we compare with JAX";
between sessions the machine's speed drifts, so "did this change make us slower" is answered
here instead: both binaries run the same programs, interleaved (old, new, new, old, …) so that
drift hits both alike, and the medians are compared.

    python3 scripts/bench_vs_jax.py --keep /tmp/progs        # exports the programs (JAX venv)
    python3 scripts/bench_ab.py OLD_BINARY NEW_BINARY /tmp/progs/run-*/ [--rounds 10] [--only a,b]

Prints, per program, the median steady-state run time (`systolic run --repeat 11`, its
`run_ms.median`) and compile time of each binary and the ratio new/old. Needs no JAX.
"""

import argparse
import glob
import json
import os
import statistics
import subprocess
import tempfile


def run(binary, program_dir, out_dir):
    """`systolic run` of one exported program; its JSON report."""
    inputs = sorted(glob.glob(os.path.join(program_dir, "in*.npy")),
                    key=lambda p: int(os.path.basename(p)[2:-4]))
    cmd = [binary, "run", os.path.join(program_dir, "module.mlir"), "--backend", "cpu",
           "--repeat", "11", "--json", "--out-dir", out_dir]
    for path in inputs:
        cmd += ["--input", path]
    env = {k: v for k, v in os.environ.items() if k != "SYSTOLIC_CACHE_DIR"}
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("programs", help="a folder of exported programs (one folder each)")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--only", help="comma-separated program names")
    opts = parser.parse_args()
    names = opts.only.split(",") if opts.only else sorted(
        d for d in os.listdir(opts.programs)
        if os.path.exists(os.path.join(opts.programs, d, "module.mlir")))
    with tempfile.TemporaryDirectory(prefix="systolic-ab-") as out:
        for name in names:
            where = os.path.join(opts.programs, name)
            times = {"old": [], "new": []}
            compiles = {"old": [], "new": []}
            for r in range(opts.rounds):
                for which in (("old", "new") if r % 2 == 0 else ("new", "old")):
                    report = run(getattr(opts, which), where, out)
                    times[which].append(report["run_ms"]["median"])
                    compiles[which].append(report["compile_ms"])
            old, new = statistics.median(times["old"]), statistics.median(times["new"])
            print(f"{name:24s} steady old {old:8.2f} ms  new {new:8.2f} ms  new/old {new / old:5.3f}"
                  f"   compile old {statistics.median(compiles['old']):6.2f} ms"
                  f"  new {statistics.median(compiles['new']):6.2f} ms", flush=True)


if __name__ == "__main__":
    main()
