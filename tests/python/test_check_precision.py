"""Checker precision (issue 23): bytes an instruction reads but whose values reach no output are
not uninitialised reads. The data_copy_pad tail is in test_data_copy_pad.py; here the inactive
lanes of a masked vector op."""
import numpy as np

import asc
import asc.lib.runtime as rt


@asc.jit
def masked_kernel(src: asc.GlobalAddress, out: asc.GlobalAddress):
    # 64 of the repeat's 128 fp16 lanes are active; only those 64 elements were copied in.
    g_src, g_out = asc.GlobalTensor(), asc.GlobalTensor()
    g_src.set_global_buffer(src)
    g_out.set_global_buffer(out)
    ub_in = asc.LocalTensor(src.dtype, asc.TPosition.VECIN, 0, 128)
    ub_out = asc.LocalTensor(src.dtype, asc.TPosition.VECOUT, 512, 128)
    asc.data_copy(ub_in, g_src, 64)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.adds(ub_out, ub_in, 1.0, 64, 1, asc.UnaryRepeatParams(1, 1, 8, 8))
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(g_out, ub_out, 64)


def test_the_inactive_lanes_of_a_masked_op_are_not_uninitialised_reads(device):
    src = np.arange(64).astype(np.float16)
    out = np.zeros(64, np.float16)
    report = masked_kernel[1, rt.current_stream()](src, out, check="strict-all")
    assert not report.diagnostics, [str(d) for d in report.diagnostics]
    np.testing.assert_array_equal(out, src + np.float16(1))


@asc.jit
def racy_kernel(src: asc.GlobalAddress, out: asc.GlobalAddress):
    # Written to race (issue 23's example): no flag between the copy in and the vector op.
    g_src, g_out = asc.GlobalTensor(), asc.GlobalTensor()
    g_src.set_global_buffer(src)
    g_out.set_global_buffer(out)
    ub_in = asc.LocalTensor(src.dtype, asc.TPosition.VECIN, 0, 128)
    ub_out = asc.LocalTensor(src.dtype, asc.TPosition.VECOUT, 512, 128)
    asc.data_copy(ub_in, g_src, 128)
    asc.adds(ub_out, ub_in, 1.0, 128)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(g_out, ub_out, 128)


def test_a_race_that_fails_nothing_is_labelled_a_warning(device):
    import warnings as w

    from asc.runtime.errors import KernelWarning
    src = np.arange(128).astype(np.float16)
    out = np.zeros(128, np.float16)
    with w.catch_warnings(record=True) as caught:
        w.simplefilter("always", KernelWarning)
        racy_kernel[1, rt.current_stream()](src, out, check="warn", auto_sync=False)
    texts = [str(c.message) for c in caught if issubclass(c.category, KernelWarning)]
    assert any(t.startswith("[WARNING RACE]") for t in texts), texts
    assert not any("[ERROR" in t for t in texts), texts
