"""Goldens for the front end's indexing, sorting, window, convolution and einsum ops
(issue 4), observed with JAX on CPU. Each case records its inputs and JAX's outputs, so the
Rust tests rebuild the inputs from the JSON and compare eagerly and under jit.

Run: /root/.cache/systolic-jax-venv/bin/python crates/systolic/tests/data/make_goldens_ops2.py
Writes crates/systolic/tests/data/ops2_jax0.10.2.json next to this script.
"""

import jax
import jax.numpy as jnp
import numpy as np
from golden_cases import Cases
from jax import lax


cases = Cases()
case = cases.case


f6 = jnp.array([[0.5, -1.25, 2.0], [3.0, -0.75, 1.5]], jnp.float32)
i6 = jnp.array([[3, -1, 2], [0, 7, -5]], jnp.int32)
b6 = f6.astype(jnp.bfloat16)
i8 = jnp.array([100, 50, -3, 90], jnp.int8)
nanv = jnp.array([3.0, np.nan, -1.0, 2.0, -0.0, 0.0, -np.inf], jnp.float32)
dup = jnp.array([2, 1, 2, 0, 1, 2], jnp.int32)
e0 = jnp.zeros((0, 3), jnp.float32)

# cumulative reductions
case("cumsum_f32_ax1", [f6], jnp.cumsum(f6, axis=1))
case("cumsum_f32_axm2", [f6], jnp.cumsum(f6, axis=-2))
case("cumsum_f32_flat", [f6], jnp.cumsum(f6))
case("cumsum_i8", [i8], jnp.cumsum(i8))
case("cumsum_bf16", [b6], jnp.cumsum(b6, axis=1))
case("cumsum_empty", [e0], jnp.cumsum(e0, axis=0))
case("cumprod_i32", [i6], jnp.cumprod(i6, axis=1))
case("cummax_f32", [nanv], lax.cummax(nanv, axis=0))
case("cummax_i32_rev", [i6], lax.cummax(i6, axis=1, reverse=True))
case("cummin_i32", [i6], lax.cummin(i6, axis=0))
case("lax_cumsum_rev", [f6], lax.cumsum(f6, axis=1, reverse=True))

# sorting
case("sort_nan", [nanv], jnp.sort(nanv))
case("sort_desc", [nanv], jnp.sort(nanv, descending=True))
case("sort_i32_ax0", [i6], jnp.sort(i6, axis=0))
case("sort_bf16", [b6], jnp.sort(b6, axis=-1))
case("argsort_dup", [dup], jnp.argsort(dup))
case("argsort_dup_desc", [dup], jnp.argsort(dup, descending=True))
case("argsort_f32_ax0", [f6], jnp.argsort(f6, axis=0))
case("lax_sort_2keys", [dup, jnp.array([5, 4, 3, 2, 1, 0], jnp.int32), jnp.arange(6.0, dtype=jnp.float32)],
     lax.sort((dup, jnp.array([5, 4, 3, 2, 1, 0], jnp.int32), jnp.arange(6.0, dtype=jnp.float32)), num_keys=2))
case("top_k", [jnp.array([[1.0, 5.0, 3.0, 5.0], [0.0, -1.0, 2.0, 2.0]], jnp.float32)],
     lax.top_k(jnp.array([[1.0, 5.0, 3.0, 5.0], [0.0, -1.0, 2.0, 2.0]], jnp.float32), 3))
case("top_k_i32", [i6], lax.top_k(i6, 2))

# take / take_along_axis / gather
idx = jnp.array([2, -1, 5, 0, -4], jnp.int32)
case("take_flat_default", [f6, idx], jnp.take(f6, idx))
case("take_ax1_fill", [f6, idx], jnp.take(f6, idx, axis=1))
case("take_ax1_clip", [f6, idx], jnp.take(f6, idx, axis=1, mode="clip"))
case("take_ax1_wrap", [f6, idx], jnp.take(f6, idx, axis=1, mode="wrap"))
case("take_i32_2d_idx", [i6, jnp.array([[1, 0], [0, 1]], jnp.int32)],
     jnp.take(i6, jnp.array([[1, 0], [0, 1]], jnp.int32), axis=0))
case("take_ax0_oob_fill_int", [i6, jnp.array([0, 2, -3], jnp.int32)],
     jnp.take(i6, jnp.array([0, 2, -3], jnp.int32), axis=0))
tai = jnp.array([[2, 0, 1], [1, 1, 0]], jnp.int32)
case("take_along_axis1", [f6, tai], jnp.take_along_axis(f6, tai, axis=1))
tai0 = jnp.array([[1, 0, 1]], jnp.int32)
case("take_along_axis0", [i6, tai0], jnp.take_along_axis(i6, tai0, axis=0))
case("take_along_oob", [f6, jnp.array([[3, -1, -4]], jnp.int32)],
     jnp.take_along_axis(f6, jnp.array([[3, -1, -4]], jnp.int32), axis=1))
g_op = jnp.arange(24, dtype=jnp.float32).reshape(4, 6)
g_idx = jnp.array([[0, 1], [3, 4], [5, 9]], jnp.int32)
gdn = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0, 1))
case("gather_explicit", [g_op, g_idx], lax.gather(g_op, g_idx, gdn, slice_sizes=(1, 2),
                                                    mode=lax.GatherScatterMode.CLIP))
sdn = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                  scatter_dims_to_operand_dims=(0,))
s_idx = jnp.array([[1], [3], [1]], jnp.int32)
s_upd = jnp.ones((3, 6), jnp.float32)
case("scatter_add_explicit", [g_op, s_idx, s_upd], lax.scatter_add(g_op, s_idx, s_upd, sdn))

# basic indexing and .at[] updates
x3 = jnp.arange(24, dtype=jnp.int32).reshape(2, 3, 4)
case("index_int_slice_step", [x3], x3[1, ::-2, 1:4:2])
case("index_ellipsis_newaxis", [x3], x3[..., None, -1])
case("index_neg_int", [x3], x3[-1])
case("index_empty_slice", [x3], x3[:, 2:1])
case("index_array", [x3, jnp.array([2, 0, -1], jnp.int32)], x3[:, jnp.array([2, 0, -1], jnp.int32)])
case("index_array_oob", [x3, jnp.array([5, -7, 1], jnp.int32)], x3[:, jnp.array([5, -7, 1], jnp.int32)])
case("index_two_arrays_split", [x3, jnp.array([[1], [0]], jnp.int32), jnp.array([3, -1, 0], jnp.int32)],
     x3[jnp.array([[1], [0]], jnp.int32), :, jnp.array([3, -1, 0], jnp.int32)])
v = jnp.arange(6, dtype=jnp.float32)
ai = jnp.array([1, 3, 1, 9, -1], jnp.int32)
upd = jnp.array([10.0, 20.0, 30.0, 40.0, 50.0], jnp.float32)
case("at_set", [v, ai, upd], v.at[ai].set(upd))
case("at_add_dup", [v, ai, upd], v.at[ai].add(upd))
case("at_mul", [v, ai, upd], v.at[ai].mul(upd))
case("at_min", [v, ai, upd], v.at[ai].min(upd))
case("at_max", [v, ai, upd], v.at[ai].max(upd))
case("at_slice_set", [x3], x3.at[:, 1:3, ::2].set(-7))
case("at_int_add_scalar", [x3], x3.at[1, 0].add(100))
case("at_set_bf16", [b6, jnp.array([0, 2], jnp.int32)], b6.at[:, jnp.array([0, 2], jnp.int32)].set(9.5))
case("at_add_i8_2d", [jnp.zeros((3, 2), jnp.int8), jnp.array([0, 2, 0], jnp.int32), jnp.array([[1, 2], [3, 4], [5, 6]], jnp.int8)],
     jnp.zeros((3, 2), jnp.int8).at[jnp.array([0, 2, 0], jnp.int32)].add(jnp.array([[1, 2], [3, 4], [5, 6]], jnp.int8)))

# shape-ish numpy ops
case("split_sections", [f6], jnp.split(f6, 3, axis=1))
case("split_indices", [x3], jnp.split(x3, [1, 3], axis=-1))
case("tile", [f6], jnp.tile(f6, (2, 1, 2)))
case("repeat_ax0", [i6], jnp.repeat(i6, 2, axis=0))
case("repeat_flat", [i6], jnp.repeat(i6, 3))
case("flip_ax", [x3], jnp.flip(x3, axis=(0, 2)))
case("roll_ax", [x3], jnp.roll(x3, -5, axis=2))
case("roll_flat", [i6], jnp.roll(i6, 4))
case("moveaxis", [x3], jnp.moveaxis(x3, 0, -1))
case("swapaxes", [x3], jnp.swapaxes(x3, 0, 2))
case("squeeze_all", [jnp.zeros((1, 3, 1), jnp.float32)], jnp.squeeze(jnp.zeros((1, 3, 1), jnp.float32)))
case("expand_dims_neg", [f6], jnp.expand_dims(f6, -1))
case("clip_i32", [i6], jnp.clip(i6, -1, 3))
case("clip_f32_weak", [f6], jnp.clip(f6, 0.0, 1.0))
case("where_int_float", [f6 > 0, i6], jnp.where(f6 > 0, i6, 0.5))
case("pad_constant", [i6], jnp.pad(i6, ((1, 0), (2, 1)), constant_values=9))
case("pad_reflect", [i6], jnp.pad(i6, ((1, 1), (2, 2)), mode="reflect"))
case("pad_symmetric", [i6], jnp.pad(i6, ((1, 1), (2, 3)), mode="symmetric"))
case("pad_edge", [f6], jnp.pad(f6, ((0, 2), (1, 1)), mode="edge"))
case("pad_wrap", [i6], jnp.pad(i6, ((1, 2), (3, 1)), mode="wrap"))
oh = jnp.array([0, 2, -1, 3], jnp.int32)
case("one_hot", [oh], jax.nn.one_hot(oh, 3))

# lax
case("iota_i32", [], lax.iota(jnp.int32, 5))
case("bitcast_f32_i32", [f6], lax.bitcast_convert_type(f6, jnp.int32))
case("convert_f32_bf16", [f6 * 1.001], lax.convert_element_type(f6 * 1.001, jnp.bfloat16))
case("dynamic_slice_clamp", [x3], lax.dynamic_slice(x3, (1, 2, -1), (1, 2, 3)))
case("dynamic_update_slice", [x3, jnp.full((1, 2, 2), -1, jnp.int32)],
     lax.dynamic_update_slice(x3, jnp.full((1, 2, 2), -1, jnp.int32), (0, 2, 3)))
case("select", [f6 > 0, f6, -f6], lax.select(f6 > 0, f6, -f6))

rw_in = jnp.arange(20, dtype=jnp.float32).reshape(4, 5) * jnp.array([1, -1, 1, -1, 1], jnp.float32)
case("reduce_window_max_valid", [rw_in], lax.reduce_window(rw_in, -jnp.inf, lax.max, (2, 3), (1, 2), "VALID"))
case("reduce_window_add_same", [rw_in], lax.reduce_window(rw_in, 0.0, lax.add, (3, 3), (2, 1), "SAME"))
case("reduce_window_add_explicit_dil", [rw_in], lax.reduce_window(rw_in, 0.0, lax.add, (2, 2), (1, 1),
                                                                   ((1, 0), (0, 2)), base_dilation=(1, 2), window_dilation=(2, 1)))
case("reduce_max_i32", [i6], lax.reduce(i6, np.int32(-100), lax.max, (1,)))

# convolution
rng = np.random.RandomState(0)
xin = jnp.asarray(rng.randn(2, 5, 6, 3).astype(np.float32))
w = jnp.asarray(rng.randn(3, 2, 3, 4).astype(np.float32))
dn = ("NHWC", "HWIO", "NHWC")
case("conv_nhwc_valid", [xin, w], lax.conv_general_dilated(xin, w, (1, 1), "VALID", dimension_numbers=dn))
case("conv_nhwc_same_stride", [xin, w], lax.conv_general_dilated(xin, w, (2, 2), "SAME", dimension_numbers=dn))
case("conv_nhwc_explicit_dil", [xin, w], lax.conv_general_dilated(xin, w, (1, 2), ((1, 2), (0, 1)),
                                                                  lhs_dilation=(2, 1), rhs_dilation=(1, 2), dimension_numbers=dn))
wg = jnp.asarray(rng.randn(4, 2, 3).astype(np.float32))  # OIW with groups
xg = jnp.asarray(rng.randn(1, 4, 7).astype(np.float32))  # NCW
case("conv_ncw_groups", [xg, wg], lax.conv_general_dilated(xg, wg, (1,), "SAME", feature_group_count=2,
                                                           dimension_numbers=("NCW", "OIW", "NCW")))
xb = xin.astype(jnp.bfloat16)
wb = w.astype(jnp.bfloat16)
case("conv_bf16", [xb, wb], lax.conv_general_dilated(xb, wb, (1, 1), "SAME", dimension_numbers=dn))

# einsum
a = jnp.asarray(rng.randn(2, 3, 4).astype(np.float32))
b = jnp.asarray(rng.randn(4, 5).astype(np.float32))
c = jnp.asarray(rng.randn(2, 4, 5).astype(np.float32))
sq = jnp.asarray(rng.randn(3, 3).astype(np.float32))
case("einsum_matmul", [a, b], jnp.einsum("bij,jk->bik", a, b))
case("einsum_batch", [a, c], jnp.einsum("bij,bjk->bik", a, c))
case("einsum_implicit", [a, b], jnp.einsum("bij,jk", a, b))
case("einsum_ellipsis", [a, b], jnp.einsum("...j,jk->...k", a, b))
case("einsum_trace", [sq], jnp.einsum("ii", sq))
case("einsum_diag", [sq], jnp.einsum("ii->i", sq))
case("einsum_sum", [a], jnp.einsum("ijk->j", a))
case("einsum_transpose", [a], jnp.einsum("ijk->kij", a))
case("einsum_outer", [b[0], sq[0]], jnp.einsum("i,j->ij", b[0], sq[0]))
case("einsum_three", [a, b, sq], jnp.einsum("bij,jk,ii->bk", a, b, sq))
ai8 = jnp.array([[1, 2], [3, 4]], jnp.int8)
case("einsum_int8", [ai8, ai8], jnp.einsum("ij,jk->ik", ai8, ai8))
case("einsum_mixed", [ai8, b[:2, :2]], jnp.einsum("ij,jk->ik", ai8, b[:2, :2]))

# more dtypes and modes
u8 = jnp.array([[200, 3, 255], [0, 17, 4]], jnp.uint8)
h6 = f6.astype(jnp.float16)
bl = jnp.array([True, False, True, True], jnp.bool_)
case("cumsum_bool", [bl], jnp.cumsum(bl))
case("cumsum_u8", [u8], jnp.cumsum(u8, axis=1))
case("cumprod_f16", [h6], jnp.cumprod(h6, axis=0))
case("cummax_bf16_rev", [b6], lax.cummax(b6, axis=1, reverse=True))
case("sort_u8", [u8], jnp.sort(u8, axis=1))
case("sort_f16_desc", [h6], jnp.sort(h6, axis=0, descending=True))
case("sort_bool", [bl], jnp.sort(bl))
case("argsort_i8_desc", [i8], jnp.argsort(i8, descending=True))
case("top_k_bf16", [b6], lax.top_k(b6, 2))
case("take_bool_fill", [bl, jnp.array([0, 7, -1], jnp.int32)], jnp.take(bl, jnp.array([0, 7, -1], jnp.int32)))
case("take_u8_fill", [u8, jnp.array([1, 3], jnp.int32)], jnp.take(u8, jnp.array([1, 3], jnp.int32), axis=1))
case("take_f16_i8idx", [h6, jnp.array([2, -2], jnp.int8)], jnp.take(h6, jnp.array([2, -2], jnp.int8), axis=-1))
case("gather_fill_explicit", [g_op, g_idx], lax.gather(g_op, g_idx, gdn, slice_sizes=(1, 2),
                                                        mode=lax.GatherScatterMode.FILL_OR_DROP))
case("scatter_set_clip", [g_op, jnp.array([[1], [7]], jnp.int32), 2 * s_upd[:2]],
     lax.scatter(g_op, jnp.array([[1], [7]], jnp.int32), 2 * s_upd[:2], sdn, mode=lax.GatherScatterMode.CLIP))
case("scatter_max_i32", [i6, jnp.array([[0], [0], [1]], jnp.int32), jnp.array([[5, -9, 1], [4, 4, 4], [0, 0, 0]], jnp.int32)],
     lax.scatter_max(i6, jnp.array([[0], [0], [1]], jnp.int32), jnp.array([[5, -9, 1], [4, 4, 4], [0, 0, 0]], jnp.int32),
                     lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))))
case("at_mixed_set", [x3, jnp.array([2, 0], jnp.int32)], x3.at[1, ::-1, jnp.array([2, 0], jnp.int32)].set(jnp.array([[-1], [-2]], jnp.int32)))
case("at_two_arrays_max", [x3, jnp.array([0, 1, 1], jnp.int32), jnp.array([3, 3, 0], jnp.int32)],
     x3.at[jnp.array([0, 1, 1], jnp.int32), :, jnp.array([3, 3, 0], jnp.int32)].max(13))
case("at_newaxis_ellipsis_mul", [h6], h6.at[None, ..., 1].mul(2.0))
case("index_u8_newaxis_arr", [u8, jnp.array([[1, 0]], jnp.int32)], u8[None, :, jnp.array([[1, 0]], jnp.int32)])
case("einsum_bf16", [b6, b6], jnp.einsum("ij,kj->ik", b6, b6))
case("einsum_f16_batch_sum", [h6, h6], jnp.einsum("ij,ij->j", h6, h6))
case("reduce_window_i32_max_same", [i6], lax.reduce_window(i6, np.int32(-2**31), lax.max, (2, 2), (1, 1), "SAME"))
case("reduce_window_bf16_add", [b6], lax.reduce_window(b6, jnp.bfloat16(0), lax.add, (1, 2), (1, 1), "VALID"))
case("pad_bf16_reflect_big", [b6], jnp.pad(b6, ((3, 4), (0, 5)), mode="reflect"))
case("pad_u8_constant", [u8], jnp.pad(u8, 2, constant_values=7))
case("roll_bf16_neg_axis", [b6], jnp.roll(b6, 7, axis=-1))
case("tile_u8_short_reps", [u8], jnp.tile(u8, 3))
case("repeat_bool", [bl], jnp.repeat(bl, 2))
case("flip_all", [u8], jnp.flip(u8))
case("split_f16_axis0", [h6], jnp.split(h6, 2, axis=0))

cases.write("ops2_jax0.10.2.json", indent=0)
