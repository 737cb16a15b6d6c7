"""The mixed-kernel Matmul protocol (ascendc-semantics.md 7.4-7.5; docs/matmul.md, "Mixed
kernels"): each vector core (AIV) is a client that posts 128-byte messages into its ring in the
GM workspace; the group's cube core (AIC) is a server that polls both rings, runs the request on
the cube, writes C to GM (or to the client's UB mirror in GM) and notifies the client with a
mode-2 cross-core flag. Every step is a real instruction: scalar stores into the UB staging
slot, one UB -> GM copy per message, GM waits, scalar GM loads and stores, the cube's
sequences of matmul_ops.py, cross-core flags.

Message layout (the workspace's kfcMsg ring slots): word 0 the head `funID << 16 | 0x8000 |
instID`, word 1 the UB address (-1: none), then the request as the model lays it out
(_FIELDS; Ascend C's body is its MatmulConfigParams, whose exact layout the references do not
give)."""
from asc.codegen.mutable import TracedState
from asc.language.core.dtype import KnownTypes as KT

# ---- the workspace (SysWorkspaceDesc, ascendc-semantics.md 7.4) --------------------------------

MSG_BYTES = 128
MAX_MSG_COUNT = 64          # ring slots per direction
MAX_AIV = 50
KFC_MSG_BYTES = MAX_AIV * 2 * MAX_MSG_COUNT * MSG_BYTES
CNT_MSG_OFFSET = KFC_MSG_BYTES
UB_MSG_OFFSET = CNT_MSG_OFFSET + MAX_AIV * 8 * 64
UB_MAP_OFFSET = UB_MSG_OFFSET + MAX_AIV * 64
TOTAL_UB_SIZE = 192 * 1024  # the GM mirror of each AIV's UB (hardware-910b.md 5)
STAGING_UB_ADDR = TOTAL_UB_SIZE - MSG_BYTES  # the client's message buffer: UB's last 128 B

# ---- function ids -----------------------------------------------------------------------------

INIT = 0x0301
GET_TENSOR_C = 0x0302
ITERATE = 0x0380
ITERATE_ALL = 0x0381
ITERATE_BATCH_ALL = 0x030A
ITERATE_N_BATCH_ALL = 0x030C
END = 0x030E
QUIT = 0xFD00
VALID = 0x8000

# Request fields: name -> (byte offset, dtype).
_FIELDS = {
    "a_addr": (8, KT.uint64), "b_addr": (16, KT.uint64), "bias_addr": (24, KT.uint64),
    "c_addr": (32, KT.uint64),
    "org_m": (40, KT.int32), "org_n": (44, KT.int32), "org_ka": (48, KT.int32),
    "org_kb": (52, KT.int32), "single_m": (56, KT.int32), "single_n": (60, KT.int32),
    "single_k": (64, KT.int32), "base_m": (68, KT.int32), "base_n": (72, KT.int32),
    "base_k": (76, KT.int32), "iterate_order": (80, KT.int32), "flags": (84, KT.int32),
    "count": (88, KT.int32), "c_pitch": (92, KT.int32), "batch_a": (96, KT.int32),
    "batch_b": (100, KT.int32), "stride_a": (104, KT.int32), "stride_b": (108, KT.int32),
    "stride_c": (112, KT.int32), "quant_kind": (116, KT.int32),
    "quant": (120, KT.uint64),  # the quant word (kind 1) or the words' GM address (kind 2)
}
# A constant operand's value takes its address's place (as a float in the low word).
_VALUES = {"a_value": 8, "b_value": 16}
_FIELDS_END = 128  # the first byte after the last field

# flags word
FLAG_BIAS = 1
FLAG_ATOMIC_SHIFT = 1       # 2 bits: 0 none, 1 add, 2 max, 3 min
FLAG_SYNC = 1 << 4
FLAG_SKIP = 1 << 5          # GET_TENSOR_C for a block the client did not take
FLAG_LAST = 1 << 6          # the last block of an iterate() loop: the server unlocks
FLAG_A_SCALAR = 1 << 7      # A is a constant (its value in the a_value word)
FLAG_B_SCALAR = 1 << 8


def ub_mirror_address(workspace, aiv, ub_addr):
    """Where the server writes a block meant for byte `ub_addr` of AIV `aiv`'s UB."""
    return workspace + UB_MAP_OFFSET + aiv * TOTAL_UB_SIZE + ub_addr


def notify_id(instance, sub_block):
    """The cross-core flag a server sets for a client (instIdx * 2 + subBlockIdx)."""
    return instance * 2 + sub_block


# ---- both sides -------------------------------------------------------------------------------

def _u64(x):
    from asc.language.core.ir_value import to_value
    return to_value(x, KT.uint64)


def _gm(addr, dtype):
    from asc.language.core.tensor import GlobalTensor
    return GlobalTensor._make(addr, dtype, None)


def slot_of(workspace, aiv, index):
    """GM byte address (a traced uint64) of ring slot `index` of vector core `aiv`'s requests
    (AIV -> AIC)."""
    from asc.language.core.ir_value import to_value
    return _u64(workspace) + to_value((aiv * 2 * MAX_MSG_COUNT + index) * MSG_BYTES, KT.uint64)


# ---- the server (the cube core) -----------------------------------------------------------------


class Request:
    """A request as the server reads it: every field loaded from the message in GM by the scalar
    unit, then offered as the Matmul state compute_block reads (`_get`, `a_gm` ...)."""

    def __init__(self, server, slot):
        self._plan = server.plan
        words = _gm(slot, KT.int32)
        quads = _gm(slot, KT.uint64)
        self.values = {}
        for name, (offset, dtype) in _FIELDS.items():
            if dtype == KT.uint64:
                self.values[name] = quads.get_value(offset // 8)
            else:
                self.values[name] = words.get_value(offset // 4)
        self.values["quant_scalar"] = self.values["quant_addr"] = self.values["quant"]
        floats = _gm(slot, KT.float32)
        for name, offset in _VALUES.items():
            self.values[name] = floats.get_value(offset // 4)
        packed = self.values["iterate_order"]
        self.values["iterate_order"] = packed & 0xFF
        self.values["step_ka"] = (packed >> 8) & 0xFF
        self.values["step_kb"] = (packed >> 16) & 0xFF
        flags = self.values["flags"]
        self.values["a_scalar"] = (flags & FLAG_A_SCALAR) != 0
        self.values["b_scalar"] = (flags & FLAG_B_SCALAR) != 0
        self.values["bias_on"] = (flags & FLAG_BIAS) != 0
        self.atomic = (flags >> FLAG_ATOMIC_SHIFT) & 3
        self.sync = (flags & FLAG_SYNC) != 0
        self.skip = (flags & FLAG_SKIP) != 0
        self.last = (flags & FLAG_LAST) != 0

    def _get(self, name):
        return self.values[name]

    def a_gm(self):
        return _gm(self.values["a_addr"], self._plan.a_dtype)

    def b_gm(self):
        return _gm(self.values["b_addr"], self._plan.b_dtype)

    def bias_gm(self):
        return _gm(self.values["bias_addr"], KT.float32)

    def c_gm(self):
        return _gm(self.values["c_addr"], self._plan.c_dtype)


class Server:
    """The cube core's side of one Matmul object: its buffers (fixed partitions of L1 and L0,
    which every legal tiling fits: docs/matmul.md) and the handlers of each request."""

    def __init__(self, matmul, pipe, workspace, instance):
        from asc.language.adv.matmul import _Buffers
        from asc.language.basic.sys_var import get_block_idx
        self.mm = matmul
        self.plan = matmul._plan
        self.workspace = workspace
        self.instance = instance
        self.group = get_block_idx()
        size = self.plan.a_dtype.sizeof()
        # Half of L0A / L0B per slot: the tiling's A2/B2 tiles fit it when double-buffered. L1
        # slots of 120 KiB (two for A, two for B) take stepKa / stepKb slices as they fit; an
        # operand the vector cores share (IBShare) has one slot of 240 KiB instead, which holds
        # it whole (its K and its columns or rows) for both clients' requests.
        slot_elems = 32 * 1024 // size
        l1_elems = 120 * 1024 // size
        share_a, share_b = self.plan.share_a, self.plan.share_b
        self.buffers = _Buffers(pipe, self.plan, slot_elems, slot_elems, 128 * 1024,
                                1024, 4096, l1_elems * (2 if share_a else 1),
                                l1_elems * (2 if share_b else 1), 1 if share_a else 2,
                                1 if share_b else 2)
        if share_a or share_b:
            from asc.language.core.ir_value import to_value
            # The record lives in the group's first reply ring (unused by these requests).
            record = _u64(workspace) + to_value(
                (self.group * 2 * 2 * MAX_MSG_COUNT + MAX_MSG_COUNT) * MSG_BYTES, KT.uint64)
            self.buffers.shares_a, self.buffers.shares_b = share_a, share_b
            self.buffers.share_record = _gm(record, KT.uint64)

    def forget_shared(self):
        """IBShare: a request that may reuse the shared slot another way clears the record."""
        if self.buffers.share_record is not None:
            from asc.language.adv.matmul_ops import share_forget
            share_forget(self.buffers.share_record)

    def run(self):
        from asc.codegen.function_visitor import inline_library
        from asc.language.adv import kfc_server
        self.forget_shared()  # nothing is in L1 yet
        inline_library(kfc_server.server_loop, self, self.workspace)

    # ---- polling ------------------------------------------------------------------------------

    def wait_one(self, slot):
        """Until the slot holds a request (its head is non-zero)."""
        from asc.language.basic.block_sync import gm_wait
        from asc._proto import kernel_pb2
        gm_wait(_gm(slot, KT.int32), 0, kernel_pb2.GmWaitOp.NE, api="Matmul server")

    def wait_any(self, slot0, slot1):
        """Until either slot holds a request; bit 0 / bit 1 of the result: which do. Only a slot
        the wait saw written is read afterwards, so every read is ordered after its write."""
        from asc.language.basic.block_sync import gm_wait
        from asc._proto import kernel_pb2
        from asc.language.core.ir_value import to_value
        return gm_wait(_gm(slot0, KT.int32), 0, kernel_pb2.GmWaitOp.NE, count=2,
                       stride_bytes=to_value(slot1 - slot0, KT.int32), api="Matmul server",
                       any_of=True, want_result=True)

    def head(self, slot):
        return _gm(slot, KT.uint32).get_value(0)

    def free(self, slot):
        """FreeMessage: the head and UB words cleared by scalar stores."""
        words = _gm(slot, KT.uint32)
        words.set_value(0, 0)
        words.set_value(1, 0)

    # ---- requests -----------------------------------------------------------------------------

    def notify(self, q):
        from asc.language.basic.sync import _cross_core
        from asc.language.core.enums import PipeID
        _cross_core("Matmul", "cross_core_set_flag", notify_id(self.instance, q), 2,
                    PipeID.PIPE_FIX, library=True)

    def blocks(self, req):
        single_m, single_n = req._get("single_m"), req._get("single_n")
        base_m, base_n = req._get("base_m"), req._get("base_n")
        return (single_m + base_m - 1) // base_m, (single_n + base_n - 1) // base_n


# ---- the client (a vector core) ----------------------------------------------------------------


class Client:
    """A vector core's KfcCommClient: its ring index (a traced field, so a runtime loop carries
    it), the staging slot at the end of UB and the MTE3_S event that says the last message has
    left it."""

    def __init__(self, pipe, workspace):
        from asc.language.basic.sync import set_flag
        from asc.language.basic.sys_var import get_block_idx, get_sub_block_idx
        from asc.language.core.enums import HardEvent, TPosition
        from asc.language.core.tensor import LocalTensor
        self.state = _RingState()
        self.pipe = pipe
        self.workspace = workspace
        self.aiv = get_block_idx()  # the vector core's flat index (group * 2 + sub-block)
        self.sub = get_sub_block_idx()
        self.staging = LocalTensor(KT.uint32, TPosition.VECCALC, STAGING_UB_ADDR,
                                   MSG_BYTES // 4)
        self.ready = pipe.alloc_event_id(HardEvent.MTE3_S)
        set_flag(HardEvent.MTE3_S, self.ready)

    def post(self, fun, instance, values):
        """AllocMessage, the body by scalar stores into the staging slot, PostMessage."""
        from asc._proto import kernel_pb2
        from asc.language.basic.block_sync import gm_wait
        from asc.language.basic.data_copy import data_copy
        from asc.language.basic.sync import pipe_barrier, set_flag, wait_flag
        from asc.language.core.enums import HardEvent, PipeID
        from asc.language.core.ir_value import to_value
        from asc.language.core.types import DataCopyParams
        index = self.state._get("index")
        slot = slot_of(self.workspace, self.aiv, index)
        gm_wait(_gm(slot, KT.int32), 0, kernel_pb2.GmWaitOp.EQ, api="Matmul client")
        self.state._put("index", (to_value(index, KT.int32) + 1) % MAX_MSG_COUNT)
        wait_flag(HardEvent.MTE3_S, self.ready)
        words = self.staging
        signed = words.reinterpret_cast(KT.int32)
        quads = words.reinterpret_cast(KT.uint64)
        words.set_value(0, (fun << 16) | VALID | instance)
        signed.set_value(1, -1)
        # Every word is written (fields not given are 0), so no stale byte leaves the slot.
        for name, (offset, dtype) in _FIELDS.items():
            value = values.get(name, 0)
            if dtype == KT.uint64:
                quads.set_value(offset // 8, value)
            else:
                signed.set_value(offset // 4, value)
        for word in range(_FIELDS_END // 4, MSG_BYTES // 4):
            signed.set_value(word, 0)
        self._write_values(words, values)
        event = self.pipe.fetch_event_id(HardEvent.S_MTE3)
        set_flag(HardEvent.S_MTE3, event)
        wait_flag(HardEvent.S_MTE3, event)
        pipe_barrier(PipeID.PIPE_MTE3)
        data_copy(_gm(slot, KT.uint32), words, DataCopyParams(1, MSG_BYTES // 32, 0, 0))
        set_flag(HardEvent.MTE3_S, self.ready)

    @staticmethod
    def _write_values(words, values):
        """A constant operand's value over its address (the flags say which it is)."""
        from asc.codegen.function_visitor import inline_library
        from asc.language.adv import kfc_server
        flags = values.get("flags", 0)
        for name, offset in _VALUES.items():
            if name not in values:
                continue
            bit = FLAG_A_SCALAR if name == "a_value" else FLAG_B_SCALAR
            inline_library(kfc_server.put_value, words.reinterpret_cast(KT.float32), offset // 4,
                           values[name], (flags & bit) != 0)

    def wait(self, instance):
        """The server's notification for this client (mode 2, instIdx * 2 + subBlockIdx)."""
        from asc.language.basic.sync import _cross_core
        from asc.language.core.enums import PipeID
        _cross_core("Matmul", "cross_core_wait_flag", notify_id(instance, self.sub), 0,
                    PipeID.PIPE_S, library=True)

    def quit(self):
        """The client's destructor: QUIT, then the last message has left the staging slot."""
        from asc.language.basic.sync import wait_flag
        from asc.language.core.enums import HardEvent
        self.post(QUIT, 0, {})
        wait_flag(HardEvent.MTE3_S, self.ready)
        self.pipe.release_event_id(self.ready, HardEvent.MTE3_S)


class _RingState(TracedState):
    def __init__(self):
        super().__init__("Matmul client")
        self._declare("index", KT.int32, 0)
