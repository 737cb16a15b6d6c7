"""Debug output on the device (asc-api.md 4.15): printf, dump_tensor, dump_acc_chk_point,
print_time_stamp and the msprof range marks.

The simulator runs them on the core's scalar unit and returns their text in the launch report;
the launcher prints it to stdout after the kernel, as the chip's device printf appears on the
host. `%s` placeholders take Python values and are substituted here, at trace time, as pyasc
does; every other conversion is printed by the device from a traced (or constant) scalar.
"""
from __future__ import annotations

import numbers
import re
from typing import Any, Optional, Union

from asc._proto import kernel_pb2
from asc.codegen.builder import require_builder
from asc.language.core.array import ShapeInfo
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import KnownTypes
from asc.language.core.hints import RuntimeInt
from asc.language.core.ir_value import PlainValue, to_value
from asc.language.core.tensor import GlobalAddress, GlobalTensor, LocalTensor, tensor_ref
from asc.language.basic.common import any_tensor, runtime_int

__all__ = ["printf", "dump_tensor", "dump_acc_chk_point", "print_time_stamp",
           "metrics_prof_start", "metrics_prof_stop"]

# One C conversion: flags, width, precision, length, conversion (or a literal %%).
_CONVERSION = re.compile(r"%(%|[-+ #0]*\d*(?:\.\d*)?(?:hh|h|ll|l|L|q|j|z|t)?[a-zA-Z*])")

_PM = kernel_pb2.ProfMarkOp


def printf(desc: str, *params: Any) -> None:
    """Prints the C format `desc` with `params` when the core runs (Ascend C's printf).

    `asc.printf(desc, *params)` (asc-api.md 4.15): one parameter per conversion. `%s` takes any
    Python value, substituted into the format at trace time, as pyasc does; every other
    conversion prints a traced or Python number from the device (a GlobalAddress or tensor
    prints its device address). The text comes back in the launch report and is printed after
    the kernel, as the chip's device printf appears on the host."""
    builder = require_builder("printf")
    desc = ConstExpr.unwrap(desc)
    if not isinstance(desc, str):
        raise TypeError(f"printf(): the format must be a str, got {type(desc).__name__}")
    params = [ConstExpr.unwrap(p) for p in params]
    pieces, args, used = [], [], 0
    last = 0
    for m in _CONVERSION.finditer(desc):
        pieces.append(desc[last:m.start()])
        last = m.end()
        if m.group(1) == "%":
            pieces.append("%%")
            continue
        if used >= len(params):
            raise ValueError(f"printf(): the format {desc!r} has more conversions than the "
                             f"{len(params)} argument(s) given")
        value = params[used]
        used += 1
        if m.group(1).endswith("s"):
            # Substituted now; a '%' in the text must not read as a conversion on the device.
            pieces.append(str(value).replace("%", "%%"))
            continue
        if isinstance(value, bool):
            value = int(value)
        if isinstance(value, GlobalAddress):
            value = value._addr  # %p of a kernel's GM pointer argument: its device address
        elif isinstance(value, (GlobalTensor, LocalTensor)):
            value = value.get_phy_addr()
        if not isinstance(value, (PlainValue, numbers.Number)):
            raise TypeError(f"printf(): argument {used} for '%{m.group(1)}' must be a number or "
                            f"a traced scalar, got {type(value).__name__} (only %s takes a str)")
        args.append(to_value(value, None, "printf").id)
        pieces.append(m.group(0))
    pieces.append(desc[last:])
    if used != len(params):
        raise ValueError(f"printf(): the format {desc!r} has {used} conversion(s) but "
                         f"{len(params)} argument(s) are given")
    op = builder.emit("printf")
    op.format = "".join(pieces)
    op.args.extend(args)


def _dump(api: str, tensor, desc, dump_size, shape_info=None) -> None:
    builder = require_builder(api)
    if not any_tensor(tensor):
        raise TypeError(f"{api}(): tensor must be a LocalTensor or GlobalTensor, got "
                        f"{type(tensor).__name__}")
    for name, v in (("desc", desc), ("dump_size", dump_size)):
        if not runtime_int(ConstExpr.unwrap(v)):
            raise TypeError(f"{api}(): '{name}' must be an integer, got "
                            f"{type(ConstExpr.unwrap(v)).__name__}")
    shape_info = ConstExpr.unwrap(shape_info)
    if shape_info is not None and not isinstance(shape_info, ShapeInfo):
        raise TypeError(f"{api}(): shape_info must be an asc.ShapeInfo, got "
                        f"{type(shape_info).__name__}")
    ref = tensor_ref(tensor)
    desc_id = to_value(desc, KnownTypes.uint32, api).id
    size_id = to_value(dump_size, KnownTypes.uint32, api).id
    dims = [to_value(d, KnownTypes.int32, api).id for d in (shape_info.dims() if shape_info else [])]
    op = builder.emit("dump_tensor")
    op.tensor.CopyFrom(ref)
    op.desc, op.dump_size = desc_id, size_id
    op.shape.extend(dims)


def dump_tensor(tensor: Union[LocalTensor, GlobalTensor], desc: RuntimeInt, dump_size: RuntimeInt,
                shape_info: Optional[ShapeInfo] = None) -> None:
    """Dumps `dump_size` elements of a tensor when the core runs, tagged with `desc` (DumpTensor).

    tensor is a LocalTensor or GlobalTensor; desc and dump_size are uint32 runtime values; a
    ShapeInfo, if given, lays the dump out by its dims. The values come back in the launch
    report, printed after the kernel."""
    _dump("dump_tensor", tensor, desc, dump_size, shape_info)


def dump_acc_chk_point(tensor: Union[LocalTensor, GlobalTensor], index: RuntimeInt,
                       count_off: RuntimeInt, dump_size: RuntimeInt) -> None:
    """DumpAccChkPoint: dumps dump_size elements from element count_off on, tagged with index."""
    if not any_tensor(tensor):
        raise TypeError("dump_acc_chk_point(): tensor must be a LocalTensor or GlobalTensor, got "
                        f"{type(tensor).__name__}")
    _dump("dump_acc_chk_point", tensor[count_off:], index, dump_size)


def print_time_stamp(desc_id: RuntimeInt) -> None:
    """Records a time stamp of this point of the core's program, tagged with `desc_id` (uint32).

    Ascend C's PrintTimeStamp; the stamps come back in the launch report."""
    builder = require_builder("print_time_stamp")
    if not runtime_int(ConstExpr.unwrap(desc_id)):
        raise TypeError("print_time_stamp(): desc_id must be an integer, got "
                        f"{type(ConstExpr.unwrap(desc_id)).__name__}")
    value = to_value(desc_id, KnownTypes.uint32, "print_time_stamp").id
    op = builder.emit("prof_mark")
    op.kind, op.desc_id = _PM.PRINT_TIME_STAMP, value


def metrics_prof_start() -> None:
    """Marks where the profiled region starts (msprof's MetricsProfStart)."""
    require_builder("metrics_prof_start").emit("prof_mark").kind = _PM.METRICS_PROF_START


def metrics_prof_stop() -> None:
    """Marks where the profiled region ends (msprof's MetricsProfStop)."""
    require_builder("metrics_prof_stop").emit("prof_mark").kind = _PM.METRICS_PROF_STOP
