"""Atomic stores into GM (asc-api.md 4.4, ascendc-semantics.md 5.12): set_atomic_add/max/min/
type/none and the store atomic config. Stores of several cores accumulate in the order their
copies end (end cycle, then core index: the launch's event order), taken from the timeline."""
import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.runtime.errors import KernelCheckError

TILE = 256


@asc.jit
def accumulate_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress, op: asc.ConstExpr[str],
                      plain_core: asc.ConstExpr[int]):
    x_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x + asc.get_block_idx() * TILE)
    z_gm.set_global_buffer(z)
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, TILE)
    asc.data_copy(t, x_gm, TILE)
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
    if asc.get_block_idx() != plain_core:
        if op == "add":
            asc.set_atomic_add(x.dtype)
        elif op == "max":
            asc.set_atomic_max(x.dtype)
        elif op == "min":
            asc.set_atomic_min(x.dtype)
        elif op == "type":
            asc.set_atomic_type(x.dtype)  # the op stays a sum
        else:
            asc.set_store_atomic_config(asc.AtomicDtype.ATOMIC_F32, asc.AtomicOp.ATOMIC_SUM)
    asc.data_copy(z_gm, t, TILE)
    asc.set_atomic_none()


def store_order(report, cores):
    """Cores in the order their UB -> GM copies landed."""
    ends = [(r.end_cycle, r.core) for r in report.timeline
            if r.pipe == "MTE3" and r.op == "data_copy"]
    assert len(ends) == cores
    return [core for _, core in sorted(ends)]


def run(dtype, op, cores=8, plain_core=-1, **options):
    rng = np.random.default_rng(11)
    if np.dtype(dtype).kind == "f":
        x = rng.uniform(-100, 100, TILE * cores).astype(dtype)
        z = rng.uniform(-100, 100, TILE).astype(dtype)
    else:
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, TILE * cores, endpoint=True).astype(dtype)
        z = rng.integers(info.min, info.max, TILE, endpoint=True).astype(dtype)
    z0 = z.copy()
    report = accumulate_kernel[cores, rt.current_stream()](x, z, op, plain_core,
                                                           record_timeline=True, **options)
    return x.reshape(cores, TILE), z0, z, report


FNS = {"add": np.add, "type": np.add, "max": np.maximum, "min": np.minimum}


@pytest.mark.parametrize("dtype", ["float16", "float32", "int16", "int32", "int8"])
@pytest.mark.parametrize("op", ["add", "max", "min", "type"])
def test_eight_cores_accumulate_into_one_tensor_in_store_order(device, dtype, op):
    x, z0, z, report = run(dtype, op)
    want = z0.copy()
    wide = np.float64 if np.dtype(dtype).kind == "f" else np.int64
    for core in store_order(report, 8):
        # One rounding (or wrap) per element per store, in the element type: exact in a wide
        # type first, then converted.
        want = FNS[op](want.astype(wide), x[core].astype(wide)).astype(dtype)
    np.testing.assert_array_equal(z, want)
    assert report.diagnostics == [], [str(d) for d in report.diagnostics]


def test_float_sums_follow_the_store_order_deterministically(device):
    # Rounding depends on the order: the model adds in the order the stores land.
    x, z0, z, report = run("float16", "add")
    order = store_order(report, 8)
    want = z0.copy()
    for core in order:
        want = (want.astype(np.float64) + x[core]).astype(np.float16)
    np.testing.assert_array_equal(z, want)
    other = z0.copy()
    for core in reversed(order):
        other = (other.astype(np.float64) + x[core]).astype(np.float16)
    assert not np.array_equal(other, z), "the data does not tell the orders apart"
    again = run("float16", "add")
    np.testing.assert_array_equal(again[2], z)  # deterministic


def test_set_store_atomic_config_enables_a_float_sum(device):
    x, z0, z, report = run("float32", "config")
    want = z0.copy()
    for core in store_order(report, 8):
        want = (want.astype(np.float64) + x[core]).astype(np.float32)
    np.testing.assert_array_equal(z, want)


@pytest.mark.parametrize("plain_core", [0, 1])  # the plain store lands first, or last
def test_a_plain_store_racing_atomic_ones_is_still_a_race(device, plain_core):
    with pytest.raises(KernelCheckError) as info:
        run("float32", "add", cores=2, plain_core=plain_core)
    races = [d for d in info.value.report.diagnostics if d.kind == "RACE"]
    assert races and races[0].race == "WAW" and races[0].memory == "GM", str(info.value)
    assert "atomic" in str(info.value)


@asc.jit
def config_kernel(out: asc.GlobalAddress):
    o = asc.GlobalTensor()
    o.set_global_buffer(out)
    kind, which = asc.get_store_atomic_config()
    o.set_value(0, kind)
    o.set_value(1, which)
    asc.set_atomic_max(asc.float16)
    kind, which = asc.get_store_atomic_config()
    o.set_value(2, kind)
    o.set_value(3, which)
    asc.set_atomic_type(asc.int32)
    kind, which = asc.get_store_atomic_config()
    o.set_value(4, kind)
    o.set_value(5, which)
    asc.set_store_atomic_config(asc.AtomicDtype.ATOMIC_S8, 2)
    kind, which = asc.get_store_atomic_config()
    o.set_value(6, kind)
    o.set_value(7, which)
    asc.set_atomic_none()
    kind, which = asc.get_store_atomic_config()
    o.set_value(8, kind)
    o.set_value(9, which)


def test_get_store_atomic_config_reads_the_state(device):
    out = np.full(16, -1, np.int16)
    config_kernel[1, rt.current_stream()](out)
    # (type, op): none; F16 max; S32 keeps max; S8 min; none.
    np.testing.assert_array_equal(out[:10], [0, 0, 2, 1, 4, 1, 5, 2, 0, 0])


@asc.jit
def pad_atomic_kernel(x: asc.GlobalAddress, z: asc.GlobalAddress):
    x_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x + asc.get_block_idx() * TILE)
    z_gm.set_global_buffer(z)
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, TILE)
    asc.data_copy(t, x_gm, TILE)
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.set_atomic_add(asc.int32)
    # Two chunks of 5 elements (20 bytes), 3 elements apart in GM, 1 block apart in UB.
    asc.data_copy_pad(z_gm[1:], t, asc.DataCopyExtParams(2, 20, 1, 12))
    asc.set_atomic_none()


def test_data_copy_pad_stores_accumulate_only_their_bytes(device):
    x = np.arange(4 * TILE, dtype=np.int32)
    z = np.full(32, 1000, np.int32)
    pad_atomic_kernel[4, rt.current_stream()](x, z)
    want = np.full(32, 1000, np.int32)
    for core in range(4):
        tile = x[core * TILE:(core + 1) * TILE]
        want[1:6] += tile[0:5]
        want[9:14] += tile[16:21]  # UB: 1 block of data + 1 block of stride
    np.testing.assert_array_equal(z, want)


@asc.jit
def bad_atomic_kernel(case: asc.ConstExpr[str]):
    if case == "dtype":
        asc.set_atomic_add(asc.uint16)
    else:
        asc.set_store_atomic_config(7, 0)


@pytest.mark.parametrize("case,match", [("dtype", "dtype must be one of"),
                                        ("config", "atomic_type must be 0..6")])
def test_frontend_errors(device, case, match):
    with pytest.raises(Exception, match=match):
        bad_atomic_kernel[1, rt.current_stream()](case)
