"""Pipe synchronisation: hardware flags between pipes and per-pipe barriers (asc-api.md 4.3)."""
from __future__ import annotations

import numbers
from typing import Optional

from asc.codegen.builder import require_builder
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import KnownTypes
from asc.language.core.enums import HardEvent, MemDsbT, PipeID
from asc.language.core.hints import RuntimeInt
from asc.language.core.ir_value import is_runtime_int, to_value
from asc.language.core.tensor import GlobalTensor, LocalTensor

__all__ = ["set_flag", "wait_flag", "pipe_barrier", "data_sync_barrier", "cross_core_set_flag",
           "cross_core_wait_flag", "sync_all", "ib_set", "ib_wait", "notify_next_block",
           "wait_pre_block", "init_determine_compute_workspace"]


def _event(api, event) -> int:
    event = ConstExpr.unwrap(event)
    if not isinstance(event, numbers.Integral) or isinstance(event, bool):
        raise TypeError(f"{api}(): event must be a HardEvent, got {type(event).__name__}")
    return int(HardEvent(event))


def _flag(api, kind, event, event_id):
    require_builder(api)
    event_value = _event(api, event)
    event_id = ConstExpr.unwrap(event_id)
    if not is_runtime_int(event_id):
        raise TypeError(f"{api}(): event_id must be an int or a traced integer, "
                        f"got {type(event_id).__name__}")
    id_value = to_value(event_id, KnownTypes.int32).id
    op = require_builder(api).emit(kind)
    op.event = event_value
    op.event_id = id_value


def set_flag(event: HardEvent, event_id: RuntimeInt = 0) -> None:
    """Sets flag (event, event_id) once the source pipe of `event` has finished its earlier work.

    Issued into the source pipe of the HardEvent (MTE2 for MTE2_V); the matching wait_flag
    blocks the destination pipe until then. event_id is a runtime int, 0..7 per event type on
    Ascend 910B (asc-api.md 4.3). A set that reaches the flag while it is still set holds its
    pipe until a wait_flag clears it (docs/timing-model.md 3a); two sets in a row with no wait
    issued between are a FLAG_OVERFLOW warning."""
    _flag("set_flag", "set_flag", event, event_id)


def wait_flag(event: HardEvent, event_id: RuntimeInt = 0) -> None:
    """Blocks the destination pipe of `event` until flag (event, event_id) is set, then consumes it.

    Issued into the destination pipe of the HardEvent (V for MTE2_V); pairs with set_flag."""
    _flag("wait_flag", "wait_flag", event, event_id)


def pipe_barrier(pipe: PipeID) -> None:
    """Orders the instructions of `pipe`: later ones start after earlier ones finish.

    PIPE_ALL drains every pipe. A vector instruction may start before the previous one has
    finished, so a consumer of a vector result needs PIPE_V between them (auto_sync inserts
    it; ascendc-semantics.md 7.1)."""
    builder = require_builder("pipe_barrier")
    pipe = ConstExpr.unwrap(pipe)
    if not isinstance(pipe, numbers.Integral) or isinstance(pipe, bool):
        raise TypeError(f"pipe_barrier(): pipe must be a PipeID, got {type(pipe).__name__}")
    builder.emit("pipe_barrier").pipe = int(PipeID(pipe))


def data_sync_barrier(arg0: MemDsbT) -> None:
    """DSB: the scalar unit waits until its own data accesses of the given memories complete.

    The model's scalar unit completes each access before the next instruction, so the barrier
    has nothing to wait for: the argument (an asc.MemDsbT) is checked and nothing is emitted.
    (It orders no pipe: pipes are ordered by set_flag/wait_flag and pipe_barrier.)"""
    require_builder("data_sync_barrier")
    value = ConstExpr.unwrap(arg0)
    if isinstance(value, bool) or not isinstance(value, int) or value not in iter(MemDsbT):
        choices = ", ".join(m.name for m in MemDsbT)
        raise TypeError(f"data_sync_barrier(): arg0 must be an asc.MemDsbT ({choices}), got "
                        f"{arg0!r}")


def _cross_core_args(api, flag_id, mode_id, pipe):
    flag_id = ConstExpr.unwrap(flag_id)
    if not is_runtime_int(flag_id):
        raise TypeError(f"{api}(): flag_id must be an int or a traced integer, "
                        f"got {type(flag_id).__name__}")
    mode_id = ConstExpr.unwrap(mode_id)
    if not isinstance(mode_id, numbers.Integral) or isinstance(mode_id, bool):
        raise TypeError(f"{api}(): mode_id must be a compile-time int (0, 1 or 2), got "
                        f"{type(mode_id).__name__}")
    pipe = ConstExpr.unwrap(pipe)
    if not isinstance(pipe, numbers.Integral) or isinstance(pipe, bool):
        raise TypeError(f"{api}(): pipe must be a PipeID, got {type(pipe).__name__}")
    return to_value(flag_id, KnownTypes.int32).id, int(mode_id), int(PipeID(pipe))


def _cross_core(api, kind, flag_id, mode_id, pipe, library=False):
    builder = require_builder(api)
    flag_value, mode, pipe_value = _cross_core_args(api, flag_id, mode_id, pipe)
    op = builder.emit(kind)
    op.flag_id, op.mode, op.pipe, op.library = flag_value, mode, pipe_value, library


def cross_core_set_flag(flag_id: RuntimeInt, mode_id: int, pipe: PipeID) -> None:
    """Adds one to flag_id's counter on other cores once `pipe` has finished its earlier work.

    CrossCoreSetFlag<mode_id, pipe>(flag_id), issued into `pipe`: mode_id (a compile-time 0, 1
    or 2) routes it: 0, all cube or all vector cores of the launch once each has set it; 1,
    both vector cores of the AI Core once both have; 2, from the cube core to both its vector
    cores, from both vector cores to their cube core. flag_id is 0..15; 11..14 belong to
    sync_all (ascendc-semantics.md 7.2)."""
    _cross_core("cross_core_set_flag", "cross_core_set_flag", flag_id, mode_id, pipe)


def cross_core_wait_flag(flag_id: RuntimeInt, mode_id: int, pipe: PipeID) -> None:
    """Blocks the scalar unit until this core's counter of flag_id is non-zero, then takes one.

    CrossCoreWaitFlag(flag_id); as on A2, mode_id and pipe do not change what it does."""
    _cross_core("cross_core_wait_flag", "cross_core_wait_flag", flag_id, mode_id, pipe)


def sync_all(gm_workspace: Optional[GlobalTensor] = None,
             ub_workspace: Optional[LocalTensor] = None, used_cores: RuntimeInt = 0,
             is_aiv_only: bool = True) -> None:
    """A barrier across the blocks of the launch, in its hardware or its software form.

    The hardware form (no workspaces) uses cross-core flags 11..14; the software form takes a
    GM workspace of at least block_num * 32 bytes, zeroed by the host, and a UB workspace of at
    least 32 bytes, with `used_cores` participants (0: every block). See docs/cross_core.md for
    the instruction sequences."""
    from asc.language.basic import block_sync
    block_sync.sync_all(gm_workspace, ub_workspace, used_cores, is_aiv_only)


def ib_set(gm_workspace: GlobalTensor, ub_workspace: LocalTensor, block_idx: RuntimeInt,
           event_id: RuntimeInt, is_aiv_only: bool = True) -> None:
    """IBSet: marks (block_idx, event_id) done in the GM workspace for a matching ib_wait.

    The GM workspace is int32, at least block_num * 32 * (event_id + 1) bytes, zeroed by the
    host; the mark is written once its word reads 0, and the ib_wait on another block consumes
    it. Vector cores only."""
    from asc.language.basic import block_sync
    block_sync.ib_set(gm_workspace, ub_workspace, block_idx, event_id, is_aiv_only)


def ib_wait(gm_workspace: GlobalTensor, ub_workspace: LocalTensor, block_idx: RuntimeInt,
            event_id: RuntimeInt, is_aiv_only: bool = True) -> None:
    """IBWait: waits until block block_idx has marked event_id with ib_set, then clears the mark.

    Vector cores only."""
    from asc.language.basic import block_sync
    block_sync.ib_wait(gm_workspace, ub_workspace, block_idx, event_id, is_aiv_only)


def init_determine_compute_workspace(gm_workspace: GlobalTensor,
                                     ub_workspace: LocalTensor) -> None:
    """Prepares the workspaces of wait_pre_block / notify_next_block (an aicore-sim extension).

    InitDetermineComputeWorkspace, which pyasc's wait_pre_block documentation asks for and pyasc
    does not define (docs/frontend.md): block 0 zeroes the block_num 32-byte GM slots and every
    block starts its round counter (UB word block_num * 8) at 1. Vector cores only."""
    from asc.language.basic import block_sync
    block_sync.init_determine_compute_workspace(gm_workspace, ub_workspace)


def wait_pre_block(gm_workspace: GlobalTensor, ub_workspace: LocalTensor) -> None:
    """WaitPreBlock: waits until every block before this one has called notify_next_block.

    In this round; the GM workspace holds at least block_num * 32 bytes, the UB workspace
    block_num * 32 + 32."""
    from asc.language.basic import block_sync
    block_sync.wait_pre_block(gm_workspace, ub_workspace)


def notify_next_block(gm_workspace: GlobalTensor, ub_workspace: LocalTensor) -> None:
    """NotifyNextBlock: lets the next block pass its wait_pre_block in this round."""
    from asc.language.basic import block_sync
    block_sync.notify_next_block(gm_workspace, ub_workspace)


def library_sync(event: HardEvent) -> None:
    """The library's set_flag + wait_flag of `event` inside an API's sequence, with an event id
    fetched from the TPipe when the kernel has one (else 0), as Ascend C's APIs do."""
    from asc.language.fwk.state import fwk_state
    pipe = fwk_state(require_builder("sync")).pipe
    event_id = pipe.fetch_event_id(event) if pipe is not None else 0
    set_flag(event, event_id)
    wait_flag(event, event_id)
