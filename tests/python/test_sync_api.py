"""The synchronisation names of asc-api.md 4.3 in the style of pyasc's unit tests (each form
compiles with the launcher patched), their trace-time errors, and what the chip refuses or
leaves behind at run time: ids out of range, modes a kernel type cannot route, a 16th pending
set, sets nobody waits for."""
import warnings
from unittest import mock

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
import asc.runtime.config as config
from asc.codegen.errors import CodegenError
from asc.runtime.errors import KernelFaultError, KernelWarning


@pytest.fixture
def mock_launcher_run():
    with mock.patch("asc.runtime.launcher.Launcher.run", return_value=None) as run:
        yield run


def setup_function():
    config.set_platform(config.Backend.Model, check=False)


@asc.jit(kernel_type=config.KernelType.MIX_AIC_1_2)
def every_sync_form_kernel(ws: asc.GlobalAddress):
    gm = asc.GlobalTensor()
    gm.set_global_buffer(ws)
    ub = asc.LocalTensor(dtype=asc.int32, pos=asc.TPosition.VECIN, addr=0, tile_size=32)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.set_flag(asc.HardEvent.MTE2_V)
    asc.wait_flag(asc.HardEvent.MTE2_V)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.pipe_barrier(pipe=asc.PipeID.PIPE_V)
    asc.data_sync_barrier(asc.MemDsbT.ALL)
    asc.sync_all()
    asc.sync_all(is_aiv_only=False)
    asc.sync_all(gm, ub)
    asc.sync_all(gm, ub, used_cores=2)
    asc.sync_all(gm_workspace=gm, ub_workspace=ub, used_cores=0, is_aiv_only=False)
    flag = asc.get_block_idx() % 2
    asc.cross_core_set_flag(flag, 2, asc.PipeID.PIPE_MTE3)
    asc.cross_core_wait_flag(flag, 0, asc.PipeID.PIPE_S)
    asc.cross_core_set_flag(flag_id=1, mode_id=2, pipe=asc.PipeID.PIPE_FIX)
    asc.cross_core_wait_flag(flag_id=1, mode_id=0, pipe=asc.PipeID.PIPE_S)
    asc.ib_set(gm, ub, 0, 0)
    asc.ib_wait(gm, ub, block_idx=1, event_id=0, is_aiv_only=False)
    asc.init_determine_compute_workspace(gm, ub)
    asc.wait_pre_block(gm, ub)
    asc.notify_next_block(gm_workspace=gm, ub_workspace=ub)


def test_every_form_of_4_3_compiles(mock_launcher_run):
    every_sync_form_kernel[1](np.zeros(64, np.int32))
    assert mock_launcher_run.call_count == 1


def test_the_ir_carries_the_library_sequences():
    @asc.jit(kernel_type=config.KernelType.AIV_ONLY)
    def hard():
        asc.sync_all()

    with mock.patch("asc.runtime.launcher.Launcher.run", return_value=None) as run:
        hard[1]()
    kernel = run.call_args.args[0].ir
    ops = [op.WhichOneof("kind") for op in kernel.body.ops]
    # PIPE_ALL, then a mode-0 set of flag 14 on MTE3 and its wait (ascendc-semantics.md 7.3).
    assert ops[-3:] == ["pipe_barrier", "cross_core_set_flag", "cross_core_wait_flag"], ops
    assert kernel.body.ops[-2].cross_core_set_flag.mode == 0
    assert kernel.body.ops[-2].cross_core_set_flag.library


@pytest.mark.parametrize("call, message", [
    (lambda: asc.cross_core_set_flag(1, asc.get_block_idx(), asc.PipeID.PIPE_FIX),
     "mode_id must be a compile-time int"),
    (lambda: asc.cross_core_set_flag(1.5, 2, asc.PipeID.PIPE_FIX), "flag_id must be an int"),
    (lambda: asc.cross_core_wait_flag(1, 0, "PIPE_S"), "pipe must be a PipeID"),
    (lambda: asc.sync_all(is_aiv_only=1), "is_aiv_only must be a compile-time bool"),
])
def test_bad_arguments_fail_at_the_call_with_what_is_wrong(mock_launcher_run, call, message):
    @asc.jit
    def bad():
        call()

    with pytest.raises(CodegenError, match=message):
        bad[1]()


def test_sync_all_needs_both_workspaces_or_neither(mock_launcher_run):
    @asc.jit
    def half(ws: asc.GlobalAddress):
        gm = asc.GlobalTensor()
        gm.set_global_buffer(ws)
        asc.sync_all(gm)

    with pytest.raises(CodegenError, match="pass both gm_workspace and ub_workspace"):
        half[1](np.zeros(8, np.int32))


def test_a_float_workspace_is_refused(mock_launcher_run):
    @asc.jit
    def floats(ws: asc.GlobalAddress):
        gm = asc.GlobalTensor()
        gm.set_global_buffer(ws)
        ub = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 8)
        asc.sync_all(gm, ub)

    with pytest.raises(CodegenError, match="must hold int32 words"):
        floats[1](np.zeros(8, np.float32))


@pytest.mark.parametrize("name", ["notify_next_block", "wait_pre_block",
                                  "init_determine_compute_workspace"])
def test_the_gm_polling_protocols_live_where_pyasc_exports_them(name):
    import asc.language as language
    assert getattr(asc, name) is getattr(language.basic, name) is getattr(language, name)


# ---- run time ------------------------------------------------------------------------------------

def test_a_flag_id_past_15_keeps_its_low_bits_with_a_warning(device):
    @asc.jit(kernel_type=config.KernelType.MIX_AIC_1_2)
    def big_id(x: asc.GlobalAddress, flag: int):
        """Written to warn: the cube core sets 16, which the chip takes as 0."""
        if asc.ascend_is_aic():
            asc.cross_core_set_flag(flag, 2, asc.PipeID.PIPE_FIX)
        else:
            asc.cross_core_wait_flag(0, 0, asc.PipeID.PIPE_S)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KernelWarning)
        report = big_id[1, rt.current_stream()](np.zeros(8, np.float32), 16, check="warn")
    assert report.status == "OK"  # the vector cores' wait for 0 was released
    warned = [d for d in report.diagnostics if d.kind == "INVALID_OPERAND"]
    assert warned and "acts as flag 0" in warned[0].message, report.diagnostics


def test_mode_2_in_a_vector_only_kernel_is_a_fault_naming_the_kernel_types(device):
    @asc.jit(kernel_type=config.KernelType.AIV_ONLY)
    def no_cube(x: asc.GlobalAddress):
        asc.cross_core_set_flag(3, 2, asc.PipeID.PIPE_MTE3)

    with pytest.raises(KernelFaultError, match="MIX_AIC_1_1 or MIX_AIC_1_2"):
        no_cube[1, rt.current_stream()](np.zeros(8, np.float32))


def test_a_sixteenth_pending_set_is_an_overflow_naming_both_sets(device):
    @asc.jit(kernel_type=config.KernelType.MIX_AIC_1_2)
    def flood(x: asc.GlobalAddress):
        """Written to overflow: the vector cores wait for flag 4 once, then 16 more sets come
        and no wait. (Vector cores that never wait for the id only count mode-2 sets, and
        their counter wraps: test_the_counter_of_a_core_that_never_waits_wraps.)"""
        if asc.ascend_is_aic():
            for _ in range(17):
                asc.cross_core_set_flag(4, 2, asc.PipeID.PIPE_FIX)
        else:
            asc.cross_core_wait_flag(4, 0, asc.PipeID.PIPE_S)

    with pytest.raises(KernelFaultError) as info:
        flood[1, rt.current_stream()](np.zeros(8, np.float32), check="warn")
    overflow = [d for d in info.value.report.diagnostics if d.kind == "FLAG_OVERFLOW"]
    assert overflow and overflow[0].severity == "ERROR", report.diagnostics
    assert "16th set pending" in overflow[0].message and "oldest pending one" in \
        overflow[0].message and "stops the kernel" in overflow[0].message


def test_the_counter_of_a_core_that_never_waits_wraps(device):
    @asc.jit(kernel_type=config.KernelType.MIX_AIC_1_2)
    def notify_one(x: asc.GlobalAddress):
        """The cube core notifies vector core 0 twenty times (mode 2 reaches both vector
        cores); vector core 1 never waits for that id, as a Matmul client's sibling."""
        if asc.ascend_is_aic():
            for _ in range(20):
                asc.cross_core_set_flag(4, 2, asc.PipeID.PIPE_FIX)
        elif asc.get_sub_block_idx() == 0:
            for _ in range(20):
                asc.cross_core_wait_flag(4, 0, asc.PipeID.PIPE_S)

    report = notify_one[1, rt.current_stream()](np.zeros(8, np.float32))
    assert report.status == "OK" and not [d for d in report.diagnostics
                                          if d.kind in ("FLAG_OVERFLOW", "UNMATCHED_FLAG")]


def test_a_set_nobody_waits_for_is_unmatched_at_the_end(device):
    @asc.jit(kernel_type=config.KernelType.MIX_AIC_1_2)
    def stray(x: asc.GlobalAddress):
        """Written to leave a set behind: the vector cores set, the cube core never waits."""
        if asc.ascend_is_aiv():
            asc.cross_core_set_flag(6, 2, asc.PipeID.PIPE_MTE3)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KernelWarning)
        report = stray[1, rt.current_stream()](np.zeros(8, np.float32), check="warn")
    unmatched = [d for d in report.diagnostics if d.kind == "UNMATCHED_FLAG"]
    assert len(unmatched) == 1 and unmatched[0].core == 0, report.diagnostics
    assert "cross-core flag 6" in unmatched[0].message


@pytest.mark.parametrize("kernel_type", [config.KernelType.MIX_AIV_HARD_SYNC,
                                         config.KernelType.MIX_AIV_1_0])
def test_sync_all_of_a_one_type_kernel_meets_its_cores_whatever_is_aiv_only(device, kernel_type):
    @asc.jit(kernel_type=kernel_type)
    def meet(x: asc.GlobalAddress):
        asc.sync_all(is_aiv_only=False)

    report = meet[4, rt.current_stream()](np.zeros(8, np.float32))
    assert report.status == "OK"
    assert [cs.core_type for cs in report.cores] == ["aiv"] * 4


@pytest.mark.parametrize("pad", [False, True])
def test_a_ub_to_l1_copy_on_a_vector_core_says_it_is_not_supported_yet(mock_launcher_run, pad):
    @asc.jit(kernel_type=config.KernelType.MIX_AIC_1_2)
    def ub_to_l1():
        if asc.ascend_is_aiv():
            ub = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 256)
            l1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 256)
            if pad:
                asc.data_copy_pad(l1, ub, asc.DataCopyExtParams(1, 512, 0, 0))
            else:
                asc.data_copy(l1, ub, count=256)

    with pytest.raises(CodegenError, match="not supported by aicore-sim yet: .*from UB to L1"):
        ub_to_l1[1]()
