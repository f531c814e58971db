"""Goldens for the front end's numpy constructs (tril/triu, diag/diagonal/trace, outer/inner/
tensordot/kron, meshgrid, diff, ravel, searchsorted, bincount, nonzero/argwhere/flatnonzero
with size and fill_value), observed with JAX 0.10.2 on CPU. Each case records its inputs and
JAX's outputs; tests/constructs_golden.rs rebuilds the inputs and compares eagerly and under
jit.

Run: /root/.cache/systolic-jax-venv/bin/python crates/systolic/tests/data/make_goldens_constructs.py
Writes crates/systolic/tests/data/constructs_jax0.10.2.json next to this script.
"""

import jax
import jax.numpy as jnp
import numpy as np
from golden_cases import Cases


cases = Cases()
case = cases.case


rng = np.random.default_rng(5)
m34 = jnp.asarray(rng.normal(size=(3, 4)), jnp.float32)
b234 = jnp.asarray(rng.integers(-5, 5, size=(2, 3, 4)), jnp.int32)
bf = m34.astype(jnp.bfloat16)
e03 = jnp.zeros((0, 3), jnp.float32)
nanm = jnp.array([[np.nan, 1.0], [np.inf, -2.0]], jnp.float32)

for k in (-1, 0, 2):
    case(f"tril_f32_k{k}", [m34], jnp.tril(m34, k))
    case(f"triu_i32_k{k}", [b234], jnp.triu(b234, k))
case("tril_bf16", [bf], jnp.tril(bf))
case("triu_nan", [nanm], jnp.triu(nanm))
case("tril_empty", [e03], jnp.tril(e03))
for k in (-2, 0, 1, 5):
    case(f"diagonal_f32_k{k}", [m34], jnp.diagonal(m34, k))
case("diagonal_i32_ax02", [b234], jnp.diagonal(b234, 1, 0, 2))
case("diagonal_i32_axm1m2", [b234], jnp.diagonal(b234, 0, -1, -2))
v3 = jnp.array([1.5, -2.0, 3.0], jnp.float32)
for k in (-2, 0, 1):
    case(f"diag_vec_k{k}", [v3], jnp.diag(v3, k))
case("diag_mat_k1", [m34], jnp.diag(m34, 1))
case("trace_f32", [m34], jnp.trace(m34))
t8 = jnp.asarray(rng.integers(-9, 9, size=(3, 3)), jnp.int8)
case("trace_i8_k1", [t8], jnp.trace(t8, 1))
case("trace_3d", [b234], jnp.trace(b234))
case("ravel_3d", [b234], jnp.ravel(b234))

a2 = jnp.asarray(rng.normal(size=(2, 3)), jnp.float32)
v4 = jnp.asarray(rng.normal(size=(4,)), jnp.float32)
case("outer_f32", [a2, v4], jnp.outer(a2, v4))
case("outer_i32_f32", [jnp.array([1, 2], jnp.int32), v4], jnp.outer(jnp.array([1, 2], jnp.int32), v4))
case("inner_vec", [v4, v4], jnp.inner(v4, v4))
case("inner_mat", [a2, m34.T], jnp.inner(a2, m34.T))
t1 = jnp.asarray(rng.normal(size=(2, 3, 4)), jnp.float32)
t2 = jnp.asarray(rng.normal(size=(3, 4, 5)), jnp.float32)
case("tensordot_count2", [t1, t2], jnp.tensordot(t1, t2, 2))
case("tensordot_count0", [a2, v4], jnp.tensordot(a2, v4, 0))
case("tensordot_pairs", [t1, t2], jnp.tensordot(t1, t2, ((1,), (0,))))
t3 = jnp.asarray(rng.normal(size=(4, 2)), jnp.float32)
case("tensordot_pairs_neg", [t1, t3], jnp.tensordot(t1, t3, ((-1, 0), (0, 1))))
case("tensordot_bf16", [t1.astype(jnp.bfloat16), t2.astype(jnp.bfloat16)],
     jnp.tensordot(t1.astype(jnp.bfloat16), t2.astype(jnp.bfloat16), 2))
case("kron_2d", [a2, jnp.array([[1, 2], [3, 4]], jnp.int32)], jnp.kron(a2, jnp.array([[1, 2], [3, 4]], jnp.int32)))
case("kron_1d_2d", [v4, a2], jnp.kron(v4, a2))

g1 = jnp.array([1, 2, 3], jnp.int32)
g2 = jnp.array([0.5, 1.5], jnp.float32)
g3 = jnp.array([7, 8, 9, 10], jnp.int8)
case("meshgrid_xy", [g1, g2], jnp.meshgrid(g1, g2))
case("meshgrid_ij3", [g1, g2, g3], jnp.meshgrid(g1, g2, g3, indexing="ij"))
case("meshgrid_xy3", [g1, g2, g3], jnp.meshgrid(g1, g2, g3))

case("diff_f32", [m34], jnp.diff(m34))
case("diff_n2_ax0", [b234], jnp.diff(b234, 2, axis=0))
case("diff_bool", [jnp.array([True, True, False, True])], jnp.diff(jnp.array([True, True, False, True])))
case("diff_u8", [jnp.array([3, 1, 7], jnp.uint8)], jnp.diff(jnp.array([3, 1, 7], jnp.uint8)))
case("diff_n3_short", [g2], jnp.diff(g2, 3))

srt = jnp.array([-np.inf, -1.0, 0.5, 0.5, 0.5, 2.0, np.inf, np.nan], jnp.float32)
q = jnp.array([[0.5, -5.0, 3.0], [np.inf, np.nan, -np.inf]], jnp.float32)
case("searchsorted_left", [srt, q], jnp.searchsorted(srt, q))
case("searchsorted_right", [srt, q], jnp.searchsorted(srt, q, side="right"))
si = jnp.array([1, 3, 3, 7], jnp.int32)
case("searchsorted_i32_left", [si, jnp.array([0, 3, 4, 9], jnp.int32)], jnp.searchsorted(si, jnp.array([0, 3, 4, 9], jnp.int32)))
case("searchsorted_i32_right", [si, jnp.array([0, 3, 4, 9], jnp.int32)], jnp.searchsorted(si, jnp.array([0, 3, 4, 9], jnp.int32), side="right"))

bx = jnp.array([0, 1, 1, 3, 9, -2, 3, 3], jnp.int32)
bw = jnp.asarray(rng.normal(size=(8,)), jnp.float32)
case("bincount_len5", [bx], jnp.bincount(bx, length=5))
case("bincount_weights", [bx, bw], jnp.bincount(bx, bw, length=4))
case("bincount_u8", [jnp.array([2, 2, 0], jnp.uint8)], jnp.bincount(jnp.array([2, 2, 0], jnp.uint8), length=3))

nzx = jnp.array([[0, 3, 0], [1, 0, 2]], jnp.int32)
nzf = jnp.array([0.0, np.nan, -0.0, 2.0, 0.0], jnp.float32)
case("nonzero_size_exact", [nzx], jnp.nonzero(nzx, size=3))
case("nonzero_size_pad", [nzx], jnp.nonzero(nzx, size=5, fill_value=-1))
case("nonzero_size_trunc", [nzx], jnp.nonzero(nzx, size=2))
case("nonzero_f32_size", [nzf], jnp.nonzero(nzf, size=4, fill_value=9))
case("nonzero_bool_size", [jnp.array([[True, False], [False, True]])], jnp.nonzero(jnp.array([[True, False], [False, True]]), size=3))
case("argwhere_size", [nzx], jnp.argwhere(nzx, size=4, fill_value=7))
case("flatnonzero_size", [nzx], jnp.flatnonzero(nzx, size=4, fill_value=-3))
case("nonzero_empty_size", [e03], jnp.nonzero(e03, size=2))

cases.write(f"constructs_jax{jax.__version__}.json")
