"""Misuse of the framework API is reported with the Python source line: simulator kernel faults
(queue protocol, memory exhaustion, pool limits) and trace-time errors (positions, a second
TPipe, pool declarations, get_with_offset alignment)."""
import inspect
import os

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
from asc.codegen.errors import CodegenError
from asc.runtime.errors import KernelFaultError

THIS_FILE = os.path.basename(__file__)


def _line(fn, text):
    lines, start = inspect.getsourcelines(fn.fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


def _fault(kernel, marker, *args, **kwargs):
    """Launch `kernel`, expect a fault whose ERROR diagnostic points at the line containing
    `marker`; returns (error text, that diagnostic)."""
    x = np.zeros(1024, dtype=np.float32)
    with pytest.raises(KernelFaultError) as info:
        kernel[1, rt.current_stream()](x, *args, **kwargs)
    err = info.value
    text = str(err)
    line = _line(kernel, marker)
    assert f"{THIS_FILE}:{line}" in text, text
    errors = [d for d in err.report.diagnostics if d.severity == "ERROR"]
    assert errors, text
    first = errors[0]
    assert first.line == line and first.file.endswith(THIS_FILE), text
    return text, first


def _mentions(text, *words):
    low = text.lower()
    return all(w.lower() in low for w in words)


# ---- queue protocol -----------------------------------------------------------------------------

@asc.jit
def deque_empty_kernel(x: asc.GlobalAddress):
    pipe = asc.TPipe()
    in_que = asc.TQue(asc.TPosition.VECIN, 2)
    pipe.init_buffer(in_que, 2, 256)
    t = in_que.deque(asc.float32)  # nothing was enqueued


def test_deque_of_an_empty_queue(device):
    text, diag = _fault(deque_empty_kernel, "t = in_que.deque")
    assert _mentions(diag.message, "in_que", "empty"), text


@asc.jit
def enque_beyond_depth_kernel(x: asc.GlobalAddress):
    pipe = asc.TPipe()
    shallow = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(shallow, 2, 256)
    a = shallow.alloc_tensor(asc.float32)
    b = shallow.alloc_tensor(asc.float32)
    shallow.enque(a)
    shallow.enque(b)  # depth 1 already reached


def test_enque_beyond_depth(device):
    text, diag = _fault(enque_beyond_depth_kernel, "shallow.enque(b)")
    assert _mentions(diag.message, "shallow", "depth"), text


@asc.jit
def alloc_no_free_buffer_kernel(x: asc.GlobalAddress):
    pipe = asc.TPipe()
    one_buf = asc.TQue(asc.TPosition.VECIN, 2)
    pipe.init_buffer(one_buf, 1, 256)
    a = one_buf.alloc_tensor(asc.float32)
    b = one_buf.alloc_tensor(asc.float32)  # its only buffer is in use


def test_alloc_with_no_free_buffer(device):
    text, diag = _fault(alloc_no_free_buffer_kernel, "b = one_buf.alloc_tensor")
    assert _mentions(diag.message, "one_buf", "buffer"), text


@asc.jit
def free_foreign_tensor_kernel(x: asc.GlobalAddress, case: asc.ConstExpr[str]):
    pipe = asc.TPipe()
    que_a = asc.TQue(asc.TPosition.VECIN, 1)
    scratch = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(que_a, 1, 256)
    pipe.init_buffer(scratch, 256)
    a = que_a.alloc_tensor(asc.float32)
    if case == "static":
        static = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 4096, 64)
        que_a.free_tensor(static)  # never allocated from a queue
    if case == "tbuf":
        que_a.free_tensor(scratch.get(asc.float32))  # a TBuf's buffer, not a queue's


@pytest.mark.parametrize("case,marker", [("static", "que_a.free_tensor(static)"),
                                         ("tbuf", "que_a.free_tensor(scratch.get")])
def test_free_of_a_tensor_that_is_not_the_queues(device, case, marker):
    """(A tensor passed from one queue to another may be freed by the second, as in Ascend C;
    a tensor no queue allocated may not.)"""
    text, diag = _fault(free_foreign_tensor_kernel, marker, case=case)
    assert _mentions(diag.message, "que_a", "not the start of a buffer"), text


@asc.jit
def use_after_free_kernel(x: asc.GlobalAddress):
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    pipe = asc.TPipe()
    que = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(que, 1, 256)
    t = que.alloc_tensor(asc.float32)
    asc.data_copy(t, x_gm, 64)
    que.enque(t)
    t = que.deque(asc.float32)
    que.free_tensor(t)
    asc.abs(t, t, 64)  # the buffer was given back


def test_use_of_a_freed_tensor(device):
    text, diag = _fault(use_after_free_kernel, "asc.abs(t, t, 64)")
    assert _mentions(diag.message, "free"), text


@asc.jit
def ub_exhausted_kernel(x: asc.GlobalAddress, kib: asc.ConstExpr[int]):
    pipe = asc.TPipe()
    small = asc.TQue(asc.TPosition.VECIN, 1)
    huge = asc.TQue(asc.TPosition.VECOUT, 2)
    pipe.init_buffer(small, 1, 1024)
    pipe.init_buffer(huge, 2, kib * 1024)  # 2 x kib KiB after 1 KiB


def test_ub_exhausted_by_init_buffer(device):
    text, diag = _fault(ub_exhausted_kernel, "pipe.init_buffer(huge", kib=96)
    assert _mentions(diag.message, "huge", "UB"), text
    # 1 KiB + 2 x 95 KiB = 191 KiB fits in the 192 KiB UB
    ub_exhausted_kernel[1, rt.current_stream()](np.zeros(8, np.float32), kib=95)


# ---- TBufPool limits (known only at run time) ---------------------------------------------------

@asc.jit
def pool_limits_kernel(x: asc.GlobalAddress, case: asc.ConstExpr[str]):
    pipe = asc.TPipe()
    pool0 = asc.TBufPool(asc.TPosition.VECCALC, 4)
    pool1 = asc.TBufPool(asc.TPosition.VECCALC, 2)
    pool2 = asc.TBufPool(asc.TPosition.VECCALC, 1)
    wide = asc.TBufPool(asc.TPosition.VECCALC, 8)
    que = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buf_pool(pool0, 8192)
    pool0.init_buffer(que, 1, 256)               # 1 of pool0's 4 buffer ids
    pool0.init_buf_pool(pool1, 1024)             # 2 more: 1 left
    if case == "ids":
        pool0.init_buf_pool(wide, 1024)          # needs 8 ids, 1 left
    if case == "shared_ids":
        pool0.init_buf_pool(wide, 1024, pool1)   # more ids than pool1 and pool0 have
    if case == "shared_len":
        pool0.init_buf_pool(pool2, 2048, pool1)  # longer than the pool it shares
    if case == "pool_len":
        pool0.init_buf_pool(pool2, 8192)         # longer than what is left of pool0
    if case == "pipe_len":
        pipe.init_buf_pool(wide, 1024 * 1024)    # more than UB
    if case == "none":
        pool0.init_buf_pool(pool2, 1024, pool1)
        pool2.init_buffer(que, 1, 512)


@pytest.mark.parametrize("case,marker,words", [
    ("ids", "pool0.init_buf_pool(wide, 1024)", ["wide", "buf_id_size"]),
    ("shared_ids", "pool0.init_buf_pool(wide, 1024, pool1)", ["wide", "buf_id_size"]),
    ("shared_len", "pool0.init_buf_pool(pool2, 2048, pool1)", ["pool2", "pool1"]),
    ("pool_len", "pool0.init_buf_pool(pool2, 8192)", ["pool2", "pool0", "bytes"]),
    ("pipe_len", "pipe.init_buf_pool(wide, 1024 * 1024)", ["wide", "UB"]),
])
def test_pool_limits_are_kernel_faults(device, case, marker, words):
    text, diag = _fault(pool_limits_kernel, marker, case=case)
    assert _mentions(diag.message, *words), text


def test_pool_limits_kernel_passes_without_misuse(device):
    report = pool_limits_kernel[1, rt.current_stream()](np.zeros(8, np.float32), case="none")
    assert report.status == "OK"


# ---- trace-time errors ----------------------------------------------------------------------------

@asc.jit
def trace_errors_kernel(x: asc.GlobalAddress, n: int, case: asc.ConstExpr[str]):
    pipe = asc.TPipe()
    if case == "pipe":
        again = asc.TPipe()
    if case == "pos":
        que = asc.TQue(n, 1)
    if case == "ids":
        pool = asc.TBufPool(asc.TPosition.VECIN, 32)
    if case == "share":
        a = asc.TBufPool(asc.TPosition.VECIN)
        b = asc.TBufPool(asc.TPosition.VECOUT)
        pipe.init_buf_pool(a, 1024)
        pipe.init_buf_pool(b, 1024, a)
    if case == "mem":
        pool = asc.TBufPool(asc.TPosition.VECIN)
        l1_que = asc.TQue(asc.TPosition.A1, 1)
        pool.init_buffer(que=l1_que, num=1, len=512)
    if case == "offset":
        buf = asc.TBuf(asc.TPosition.VECCALC)
        pipe.init_buffer(buf=buf, len=1024)
        t = buf.get_with_offset(8, 48, asc.float32)


@pytest.mark.parametrize("case,marker,message", [
    ("pipe", "again = asc.TPipe()",
     "RuntimeError: TPipe instance is already created, use get_tpipe_ptr() to obtain it"),
    ("pos", "que = asc.TQue(n, 1)",
     "RuntimeError: ConstExpr[int] is required for 'pos' argument, PlainValue was provided"),
    ("ids", "pool = asc.TBufPool(asc.TPosition.VECIN, 32)",
     "ValueError: TBufPool buf_id_size must be between 1 and 16"),
    ("share", "pipe.init_buf_pool(b, 1024, a)",
     "the shared pool has position VECIN but the new pool has position VECOUT"),
    ("mem", "pool.init_buffer(que=l1_que", "the queue at position A1 is not in the memory of "
                                          "the pool (position VECIN)"),
    ("offset", "t = buf.get_with_offset(8, 48", "ValueError: buf_offset must be align to 32B."),
])
def test_trace_time_misuse_names_the_line(case, marker, message):
    with pytest.raises(CodegenError) as info:
        trace_errors_kernel[1, rt.current_stream()](np.zeros(8, np.float32), 9, case=case)
    err = info.value
    assert message in str(err)
    assert err.line == _line(trace_errors_kernel, marker)
    assert f'{THIS_FILE}", line {err.line}' in str(err)
