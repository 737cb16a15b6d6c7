"""Block synchronisation as Ascend C's library carries it out (ascendc-semantics.md 7.3,
docs/cross_core.md): sync_all's hardware form through the reserved cross-core flags 11..14, and
the GM-polling protocols (sync_all's software form, ib_set/ib_wait, notify_next_block /
wait_pre_block), each a sequence of real instructions. The polling loop itself is one gm_wait
instruction: it blocks until the polled words hold what the loop waits for, and costs one poll
(the preset's gm_wait_poll_cycles) once they do, instead of simulating every spin."""
import numbers

from asc._proto import kernel_pb2
from asc.codegen.builder import require_builder
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import KnownTypes
from asc.language.core.enums import HardEvent, PipeID
from asc.language.core.ir_value import is_runtime_int, to_value
from asc.language.core.tensor import GlobalTensor, LocalTensor

_KT = kernel_pb2.KernelType
# Kernel types whose groups hold a cube core and vector cores (the hard-sync variants launch one
# core type, as MIX_AIV_1_0 / MIX_AIC_1_0 do).
_MIXED = (_KT.KERNEL_MIX_AIC_1_1, _KT.KERNEL_MIX_AIC_1_2)
# sync_all's reserved cross-core flag ids (hardware-910b.md 3.4).
_SYNC_AIC, _SYNC_AIV, _SYNC_MIX, _SYNC_AIV_ONLY = 11, 12, 13, 14
_SLOT_INT32 = 8  # one 32-byte slot of int32 words per block
_CMP = kernel_pb2.GmWaitOp


def _sync_imports():
    from asc.language.basic import sync  # the module that exports the public names
    return sync


def _library_flag(kind, flag_id, mode, pipe):
    sync = _sync_imports()
    sync._cross_core(kind, kind, flag_id, mode, pipe, library=True)


def _emit_if(cond, then_fn, else_fn=None):
    """A runtime if on `cond` (a traced bool) whose branches emit the library's sequences."""
    builder = require_builder("sync_all")
    op = builder.emit("if_op")
    op.cond = to_value(cond, KnownTypes.int1).id
    with builder.region(op.then_region):
        then_fn()
    if else_fn is not None:
        with builder.region(op.else_region):
            else_fn()


def gm_wait(gm: GlobalTensor, value, cmp=_CMP.GE, count=1, stride_bytes=0, api="gm_wait",
            any_of=False, want_result=False):
    """Blocks the scalar unit until each of `count` int32 words of `gm`, stride_bytes apart,
    compares to `value` as `cmp` says (with `any_of`, until one of them does). With
    `want_result`, returns an int32 whose bit i says element i compared on release."""
    builder = require_builder(api)
    op = builder.emit("gm_wait")
    op.address = to_value(gm._addr, KnownTypes.uint64).id
    op.dtype = KnownTypes.int32.to_ir()
    op.cmp = cmp
    op.value = to_value(value, KnownTypes.int32).id
    op.count = to_value(count, KnownTypes.int32).id
    op.stride = to_value(stride_bytes, KnownTypes.int32).id
    op.any = bool(any_of)
    if want_result:
        from asc.language.core.ir_value import PlainValue
        result = PlainValue(builder.new_value(), KnownTypes.int32)
        op.result = result.id
        return result
    return None


def _nonzero_or(value, fallback):
    """`value` when it is not 0, else `fallback` (a select on the scalar unit)."""
    from asc.language.core.ir_value import PlainValue
    builder = require_builder("sync_all")
    cond = to_value(value, KnownTypes.int32) != 0
    op = builder.emit("select")
    result = PlainValue(builder.new_value(), KnownTypes.int32)
    op.result, op.dtype = result.id, KnownTypes.int32.to_ir()
    op.cond = to_value(cond, KnownTypes.int1).id
    op.true_value = to_value(value, KnownTypes.int32).id
    op.false_value = to_value(fallback, KnownTypes.int32).id
    return result


def _check_workspaces(api, gm_workspace, ub_workspace):
    if not isinstance(gm_workspace, GlobalTensor):
        raise TypeError(f"{api}(): gm_workspace must be an asc.GlobalTensor, got "
                        f"{type(gm_workspace).__name__}")
    if not isinstance(ub_workspace, LocalTensor):
        raise TypeError(f"{api}(): ub_workspace must be an asc.LocalTensor in UB, got "
                        f"{type(ub_workspace).__name__}")
    for name, t in (("gm_workspace", gm_workspace), ("ub_workspace", ub_workspace)):
        if t.dtype != KnownTypes.int32:
            raise TypeError(f"{api}(): {name} must hold int32 words, got {t.dtype}")


def _check_bool(api, name, value):
    value = ConstExpr.unwrap(value)
    if not isinstance(value, bool):
        raise TypeError(f"{api}(): {name} must be a compile-time bool, got {value!r}")
    return value


def _runtime_int(api, name, value):
    value = ConstExpr.unwrap(value)
    if not is_runtime_int(value):
        raise TypeError(f"{api}(): {name} must be an int or a traced integer, got "
                        f"{type(value).__name__}")
    return value


def _kernel_type():
    return require_builder("sync_all").kernel.kernel_type


# ---- sync_all -------------------------------------------------------------------------------

def _hard_aiv_only():
    """Every core of this type: PIPE_ALL, a mode-0 set of flag 14 on MTE3, wait for it."""
    from asc.language.basic.sync import pipe_barrier
    pipe_barrier(PipeID.PIPE_ALL)
    _library_flag("cross_core_set_flag", _SYNC_AIV_ONLY, 0, PipeID.PIPE_MTE3)
    _library_flag("cross_core_wait_flag", _SYNC_AIV_ONLY, 0, PipeID.PIPE_S)


def _hard_mixed():
    """Vector cores report to their cube core (12), the cube cores meet (11), then each cube
    core releases its vector cores (13)."""
    from asc.language.basic.sync import pipe_barrier
    from asc.language.basic.sys_var import ascend_is_aic

    def aic():
        pipe_barrier(PipeID.PIPE_ALL)
        _library_flag("cross_core_wait_flag", _SYNC_AIV, 0, PipeID.PIPE_S)
        _library_flag("cross_core_set_flag", _SYNC_AIC, 0, PipeID.PIPE_FIX)
        _library_flag("cross_core_wait_flag", _SYNC_AIC, 0, PipeID.PIPE_S)
        _library_flag("cross_core_set_flag", _SYNC_MIX, 2, PipeID.PIPE_MTE3)

    def aiv():
        pipe_barrier(PipeID.PIPE_ALL)
        _library_flag("cross_core_set_flag", _SYNC_AIV, 2, PipeID.PIPE_MTE3)
        _library_flag("cross_core_wait_flag", _SYNC_MIX, 0, PipeID.PIPE_S)

    _emit_if(ascend_is_aic(), aic, aiv)


def _soft(gm_workspace, ub_workspace, used_cores, mixed):
    """Each vector core bumps its own 32-byte slot and polls until every slot has reached its
    value (ascendc-semantics.md 7.3); cube cores return at once."""
    from asc.language.basic.data_copy import data_copy
    from asc.language.basic.sync import pipe_barrier, set_flag, wait_flag
    from asc.language.basic.sys_var import ascend_is_aiv, get_block_idx, get_block_num, \
        get_task_ratio

    def body():
        pipe_barrier(PipeID.PIPE_ALL)
        own = gm_workspace[get_block_idx() * _SLOT_INT32]
        data_copy(ub_workspace, own, count=_SLOT_INT32)
        set_flag(HardEvent.MTE2_S, 0)
        wait_flag(HardEvent.MTE2_S, 0)
        value = ub_workspace.get_value(0) + 1
        ub_workspace.set_value(0, value)
        set_flag(HardEvent.S_MTE3, 0)
        wait_flag(HardEvent.S_MTE3, 0)
        data_copy(own, ub_workspace, count=_SLOT_INT32)
        total = get_block_num()
        if mixed:
            total = get_task_ratio() * total
        if isinstance(used_cores, numbers.Integral):
            blocks = total if used_cores == 0 else used_cores
        else:
            blocks = _nonzero_or(used_cores, total)
        gm_wait(gm_workspace, value, _CMP.GE, blocks, 32, api="sync_all")

    if mixed:
        _emit_if(ascend_is_aiv(), body)
    else:
        body()


def sync_all(gm_workspace, ub_workspace, used_cores, is_aiv_only):
    api = "sync_all"
    require_builder(api)
    is_aiv_only = _check_bool(api, "is_aiv_only", is_aiv_only)
    if gm_workspace is None or ub_workspace is None:
        if gm_workspace is not None or ub_workspace is not None:
            raise TypeError("sync_all(): pass both gm_workspace and ub_workspace (the software "
                            "form) or neither (the hardware form)")
        if is_aiv_only or _kernel_type() not in _MIXED:
            _hard_aiv_only()
        else:
            _hard_mixed()
        return
    _check_workspaces(api, gm_workspace, ub_workspace)
    used_cores = _runtime_int(api, "used_cores", used_cores)
    _soft(gm_workspace, ub_workspace, used_cores, not is_aiv_only and _kernel_type() in _MIXED)


# ---- ib_set / ib_wait -------------------------------------------------------------------------

def _ib_slot(api, gm_workspace, block_idx, event_id, is_aiv_only):
    """Block block_idx's 32-byte word for event_id: gm[block_num * 8 * event_id + block_idx * 8],
    block_num doubled in a mixed kernel without is_aiv_only (Ascend C's IBSet/IBWait,
    cannmirror/asc-devkit impl/basic_api/dav_c220/kernel_operator_sync_impl.h)."""
    from asc.language.basic.sys_var import get_block_num
    block_idx = _runtime_int(api, "block_idx", block_idx)
    event_id = _runtime_int(api, "event_id", event_id)
    blocks = get_block_num()
    if not is_aiv_only and _kernel_type() in _MIXED:
        blocks = blocks * 2
    return gm_workspace[blocks * _SLOT_INT32 * event_id + block_idx * _SLOT_INT32]


def _ib(api, gm_workspace, ub_workspace, block_idx, event_id, is_aiv_only, want, write):
    """Wait until the word holds `want`, then write `write` over it, between PIPE_ALL barriers;
    vector cores only (a cube core returns at once)."""
    from asc.language.basic.data_copy import data_copy
    from asc.language.basic.sync import pipe_barrier, set_flag, wait_flag
    from asc.language.basic.sys_var import ascend_is_aiv
    require_builder(api)
    is_aiv_only = _check_bool(api, "is_aiv_only", is_aiv_only)
    _check_workspaces(api, gm_workspace, ub_workspace)

    def body():
        slot = _ib_slot(api, gm_workspace, block_idx, event_id, is_aiv_only)
        pipe_barrier(PipeID.PIPE_ALL)
        gm_wait(slot, want, _CMP.EQ, api=api)
        # The poll that saw the value read the word into UB; the write goes back from there.
        data_copy(ub_workspace, slot, count=_SLOT_INT32)
        set_flag(HardEvent.MTE2_S, 0)
        wait_flag(HardEvent.MTE2_S, 0)
        ub_workspace.set_value(0, write)
        set_flag(HardEvent.S_MTE3, 0)
        wait_flag(HardEvent.S_MTE3, 0)
        data_copy(slot, ub_workspace, count=_SLOT_INT32)
        pipe_barrier(PipeID.PIPE_ALL)

    if _kernel_type() in _MIXED or _kernel_type() == _KT.KERNEL_AIC_ONLY:
        _emit_if(ascend_is_aiv(), body)
    else:
        body()


def ib_set(gm_workspace, ub_workspace, block_idx, event_id, is_aiv_only):
    """IBSet: once block block_idx's word for event_id reads 0, write 1 into it."""
    _ib("ib_set", gm_workspace, ub_workspace, block_idx, event_id, is_aiv_only, 0, 1)


def ib_wait(gm_workspace, ub_workspace, block_idx, event_id, is_aiv_only):
    """IBWait: once block block_idx's word for event_id reads 1, write 0 back (consume it)."""
    _ib("ib_wait", gm_workspace, ub_workspace, block_idx, event_id, is_aiv_only, 1, 0)


# ---- init_determine_compute_workspace / wait_pre_block / notify_next_block ---------------------
# Ascend C's deterministic-order protocol (InitDetermineComputeWorkspace, WaitPreBlock,
# NotifyNextBlock; cannmirror/asc-devkit dav_c220/kernel_operator_determine_compute_sync_impl.h):
# block_num 32-byte GM slots, and a round counter k in the UB workspace after its copy of them
# (word block_num * 8). Block i passes wait_pre_block once slots 0..i-1 hold k and slots i.. hold
# 0; notify_next_block writes k into slot i (the last block zeroes every slot instead) and
# counts k + 1. Vector cores only.


def _determine(api, gm_workspace, ub_workspace, body):
    from asc.language.basic.sys_var import ascend_is_aiv
    require_builder(api)
    _check_workspaces(api, gm_workspace, ub_workspace)
    if _kernel_type() in _MIXED or _kernel_type() == _KT.KERNEL_AIC_ONLY:
        _emit_if(ascend_is_aiv(), body)
    else:
        body()


def _zero_slots(gm_workspace, ub_workspace, blocks):
    from asc.language.basic.data_copy import data_copy
    from asc.language.basic.sync import set_flag, wait_flag
    from asc.language.basic.vec import duplicate
    duplicate(ub_workspace, 0, count=blocks * _SLOT_INT32)
    set_flag(HardEvent.V_MTE3, 0)
    wait_flag(HardEvent.V_MTE3, 0)
    data_copy(gm_workspace, ub_workspace, count=blocks * _SLOT_INT32)


def init_determine_compute_workspace(gm_workspace, ub_workspace):
    """Block 0 zeroes the GM slots; every block starts its round counter at 1."""
    from asc.language.basic.sync import pipe_barrier
    from asc.language.basic.sys_var import get_block_idx, get_block_num
    api = "init_determine_compute_workspace"

    def body():
        pipe_barrier(PipeID.PIPE_ALL)
        blocks = get_block_num()
        _emit_if(get_block_idx() == 0, lambda: _zero_slots(gm_workspace, ub_workspace, blocks))
        ub_workspace.set_value(blocks * _SLOT_INT32, 1)
        pipe_barrier(PipeID.PIPE_ALL)

    _determine(api, gm_workspace, ub_workspace, body)


def wait_pre_block(gm_workspace, ub_workspace):
    """Polls until the blocks before this one have notified this round and the others not."""
    from asc.language.basic.sync import pipe_barrier
    from asc.language.basic.sys_var import get_block_idx, get_block_num
    api = "wait_pre_block"

    def body():
        pipe_barrier(PipeID.PIPE_ALL)
        blocks = get_block_num()
        block = get_block_idx()
        rounds = ub_workspace.get_value(blocks * _SLOT_INT32)
        _emit_if(block > 0, lambda: gm_wait(gm_workspace, rounds, _CMP.EQ, block, 32, api=api))
        gm_wait(gm_workspace[block * _SLOT_INT32], 0, _CMP.EQ, blocks - block, 32, api=api)
        pipe_barrier(PipeID.PIPE_ALL)

    _determine(api, gm_workspace, ub_workspace, body)


def notify_next_block(gm_workspace, ub_workspace):
    """Writes this round into this block's slot (the last block clears every slot instead) and
    counts the next round."""
    from asc.language.basic.data_copy import data_copy
    from asc.language.basic.sync import pipe_barrier, set_flag, wait_flag
    from asc.language.basic.sys_var import get_block_idx, get_block_num
    from asc.language.basic.vec import duplicate
    api = "notify_next_block"

    def body():
        pipe_barrier(PipeID.PIPE_ALL)
        blocks = get_block_num()
        block = get_block_idx()
        rounds = ub_workspace.get_value(blocks * _SLOT_INT32)

        def own_slot():
            set_flag(HardEvent.S_V, 0)
            wait_flag(HardEvent.S_V, 0)
            duplicate(ub_workspace[block * _SLOT_INT32], rounds, count=_SLOT_INT32)
            set_flag(HardEvent.V_MTE3, 0)
            wait_flag(HardEvent.V_MTE3, 0)
            data_copy(gm_workspace[block * _SLOT_INT32], ub_workspace[block * _SLOT_INT32],
                      count=_SLOT_INT32)

        _emit_if(block + 1 == blocks, lambda: _zero_slots(gm_workspace, ub_workspace, blocks),
                 own_slot)
        ub_workspace.set_value(blocks * _SLOT_INT32, rounds + 1)
        pipe_barrier(PipeID.PIPE_ALL)

    _determine(api, gm_workspace, ub_workspace, body)
