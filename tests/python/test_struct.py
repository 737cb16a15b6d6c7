"""User structs (asc-api.md 3.9): packed host layouts, passed as kernel arguments (a GM copy of
the packed bytes, read into a local struct at kernel entry), read and written in kernels."""
import ctypes

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.language.core.dtype import KnownTypes as KT
from asc.language.core.struct import Field, Struct, StructField


class Shape(Struct):
    m = Field(dtype=KT.int32, default=0)
    n = Field(dtype=KT.int32, default=0)


class Tiling(Struct):
    """A TCubeTiling-like struct: counts, a nested shape, mixed widths."""
    used_core_num = Field(dtype=KT.int32)
    base_m = Field(dtype=KT.int32, default=16)
    single_core_k = Field(dtype=KT.int64, default=0)
    is_bias = Field(dtype=KT.int1, default=False)
    scale = Field(dtype=KT.float32, default=1.0)
    shape = StructField(Shape)
    depth = Field(dtype=KT.uint16, default=2, name="depthA1")


class Packed(Struct, pack=1):
    a = Field(dtype=KT.int8, default=1)
    b = Field(dtype=KT.int32, default=2)


def test_host_layout_is_the_packed_ctypes_structure():
    t = Tiling(used_core_num=8, shape=Shape(m=64, n=32))
    assert (t.used_core_num, t.base_m, t.is_bias, t.scale, t.depth) == (8, 16, False, 1.0, 2)
    assert (t.shape.m, t.shape.n) == (64, 32)  # a nested struct reads as its ctypes object
    t.base_m = 32
    t.shape = Shape(m=7, n=9)
    packed = t.pack()
    assert len(packed) == Tiling.sizeof() == ctypes.sizeof(Tiling._ctype)
    assert int.from_bytes(packed[4:8], "little") == 32
    assert ctypes.string_at(t.addressof(), len(packed)) == packed
    assert Packed.sizeof() == 5 and Packed().pack() == b"\x01\x02\x00\x00\x00"
    assert Tiling._fields[-1].name == "depthA1"  # the C++ member name


def test_host_construction_errors():
    with pytest.raises(RuntimeError, match="has no field 'nope'"):
        Tiling(used_core_num=1, nope=3)
    with pytest.raises(RuntimeError, match="'used_core_num' has no default"):
        Tiling()
    with pytest.raises(TypeError, match="at least one Field"):
        class Empty(Struct):  # noqa: F841
            pass


@asc.jit
def tiled_fill(y: asc.GlobalAddress, tiling):
    """y[i] = f(fields) for each field, then y[k] from a local struct built in the kernel."""
    gy = asc.GlobalTensor()
    gy.set_global_buffer(y)
    gy.set_value(0, tiling.used_core_num)
    gy.set_value(1, tiling.base_m)
    gy.set_value(2, tiling.single_core_k)
    gy.set_value(3, tiling.is_bias)
    gy.set_value(4, tiling.scale * 4)
    gy.set_value(5, tiling.shape.m)
    gy.set_value(6, tiling.shape.n)
    gy.set_value(7, tiling.depth)
    tiling.base_m = tiling.base_m * 2  # writes the local copy
    gy.set_value(8, tiling.base_m)
    total = 0
    for i in range(tiling.used_core_num):
        total += tiling.shape.m
    gy.set_value(9, total)
    local = Shape(m=tiling.shape.n + 1)
    gy.set_value(10, local.m)
    gy.set_value(11, local.n)  # unspecified: zero


def test_a_struct_argument_is_read_in_the_kernel(device):
    t = Tiling(used_core_num=3, single_core_k=-5, is_bias=True, scale=2.5,
               shape=Shape(m=11, n=22), depth=7)
    before = t.pack()
    y = np.full(16, -1, dtype=np.int32)
    report = tiled_fill[1, rt.current_stream()](y, t)
    assert list(y[:12]) == [3, 16, -5, 1, 10, 11, 22, 7, 32, 33, 23, 0]
    assert t.pack() == before  # struct arguments are not copied back
    assert report.check.races == 0


def test_struct_arguments_specialize_by_class():
    @asc.jit
    def kernel(y: asc.GlobalAddress, cfg):
        gy = asc.GlobalTensor()
        gy.set_global_buffer(y)
        gy.set_value(0, cfg.b)

    ir = kernel.compile(np.zeros(4, dtype=np.int32), Packed()).ir
    assert ir.params[1].kind == asc._proto.kernel_pb2.Param.KIND_POINTER
    loads = [op.scalar_load for op in ir.body.ops if op.WhichOneof("kind") == "scalar_load"]
    assert [ld.src.dtype for ld in loads] == [asc.int8.to_ir(), asc.int32.to_ir()]

