"""asc.adv.Matmul and register_matmul (asc-api.md 6.1-6.3, 10.1, 10.5).

A Matmul is a trace-time object; its runtime settings (operand addresses, transposition, bias,
original, single-core and tail shapes, the tiling's base sizes) are traced fields that setters
change in place (asc/codegen/mutable.py), so `if tiling.is_bias: mm.set_bias(b)` takes effect
only where it ran, as on the chip. Computing calls expand into the instruction sequences of
matmul_ops.py on the core that runs them (docs/matmul.md); they need the cube core: in a
`matmul_cube_only` kernel (or with `enable_mix_dual_master`) the Matmul runs where it is
called, under the user's `if asc.ascend_is_aic():`.
"""
from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Optional, Union, overload

from asc.codegen.builder import require_builder
from asc.codegen.errors import NotSupportedError
from asc.codegen.mutable import TracedState
from asc.language.adv.matmul_config import MatmulConfig, MatmulType
from asc.language.adv.tiling import TCubeTiling
from asc.language.core.constexpr import ConstExpr
from asc.language.core.dtype import KnownTypes as KT
from asc.language.core.enums import CubeFormat, LayoutMode, TPosition
from asc.language.core.ir_value import PlainValue, is_runtime_int, select, to_value
from asc.language.core.tensor import GlobalAddress, GlobalTensor, LocalTensor

if TYPE_CHECKING:  # fwk imports the language modules that import this one
    from asc.language.fwk.tpipe import TPipe

__all__ = ["Matmul", "register_matmul"]


def inline_library(fn, *args):
    from asc.codegen.function_visitor import inline_library as inline
    return inline(fn, *args)


class _LazyOps:
    """matmul_ops (library sub-kernels need asc.runtime.jit, imported after the language)."""

    def __getattr__(self, name):
        from asc.language.adv import matmul_ops
        return getattr(matmul_ops, name)


ops = _LazyOps()
_GM_ADDR = KT.uint64
_I32 = KT.int32
_BOOL = KT.int1
# The tiling fields a Matmul reads (TCubeTiling attribute -> state field).
_TILING_FIELDS = (("m", "org_m"), ("n", "org_n"), ("k_a", "org_ka"), ("k_b", "org_kb"),
                  ("single_core_m", "single_m"), ("single_core_n", "single_n"),
                  ("single_core_k", "single_k"), ("base_m", "base_m"), ("base_n", "base_n"),
                  ("base_k", "base_k"), ("iterate_order", "iterate_order"),
                  ("step_k_a", "step_ka"), ("step_k_b", "step_kb"),
                  ("depth_a1", "depth_a1"), ("depth_b1", "depth_b1"), ("is_bias", "is_bias"))
_INPUT_TYPES = ("float16", "float32", "bfloat16", "int8")
# Operands in a vector core's UB reach the cube core through the workspace's UB mirror.
_UB_POSITIONS = (TPosition.VECIN, TPosition.VECOUT, TPosition.VECCALC)


class _Plan:
    """What the Matmul's types fix at compile time (the template instantiation)."""

    def __init__(self, a: MatmulType, b: MatmulType, c: MatmulType, bias: MatmulType):
        for name, t in (("A", a), ("B", b)):
            if t.dtype.name not in _INPUT_TYPES:
                raise TypeError(f"Matmul: {name} of {t.dtype} is not a cube input type (float16, "
                                "bfloat16, float32 or int8)")
            nz_b = (name == "B" and t.format == CubeFormat.NZ and t.is_trans and
                    t.dtype == KT.float16 and t.position == TPosition.GM)
            if t.position not in (TPosition.GM,) + _UB_POSITIONS or (
                    t.format != CubeFormat.ND and not nz_b):
                raise NotSupportedError(
                    f"asc.adv.Matmul with {name} at {t.position.name} in {t.format.name} format "
                    "(A and B in GM or a vector core's UB, ND, and a transposed half B in GM "
                    "as NZ are built; L1 operands need the library's TSCM layout)")
        if a.dtype != b.dtype:
            raise TypeError(f"Matmul: A and B must have one type, got {a.dtype} and {b.dtype}")
        self.a_dtype, self.b_dtype, self.c_dtype = a.dtype, b.dtype, c.dtype
        self.c_position = c.position
        self.acc_dtype = KT.int32 if a.dtype == KT.int8 else KT.float32
        self.c0 = 32 // a.dtype.sizeof()
        # K's step in L0: whole fractals; float keeps 16 (kDirectionAlign), int8 32.
        self.k_align = 32 if a.dtype == KT.int8 else 16
        self.banded = a.dtype == KT.float32
        # B prepacked as NZ (asc-api.md 10.5): K / 16 panels of org N rows x 16.
        self.b_nz = b.format == CubeFormat.NZ
        self.quant = ops.quant_of(c.dtype, self.acc_dtype)
        # int8 x int8 -> half: Fixpipe dequantises by set_quant_scalar / set_quant_vector.
        self.dequant = self.acc_dtype == KT.int32 and c.dtype == KT.float16
        # An int8 B as stored is transposed by 32 x 32-byte squares: n runs to 32.
        self.wide_n = a.dtype == KT.int8 and not b.is_trans
        # UnitFlag (MatmulConfig en_unit_flag) in calls that deliver every block; not with an
        # int8 B as stored, whose Mmads cover more L0C blocks than the Fixpipe reads.
        self.unit_flag = False
        self.preload = 0  # MatmulConfig do_mte2_preload under MDL: 1 A, 2 B one block ahead
        # NBuffer33MatmulPolicy under MDL: A's blocks (up to 3 x 3 base blocks) stay in L1.
        self.nbuffer33 = False
        self.share_a = self.share_b = False  # IBShare: set by Matmul from its config
        self.multi_load = False  # MDL's one copy per chunk: set by Matmul from its config
        # set_tensor_a/b(number) fills L1 with the value: half and float operands.
        self.constants = a.dtype in (KT.float16, KT.float32)
        if a.dtype == KT.int8 and a.is_trans:
            raise NotSupportedError("asc.adv.Matmul with a transposed int8 A (its 32 x 32-byte "
                                    "squares into L0A's Zz layout)")
        # The bias table row is float for float accumulators; an int8 Matmul's int32 bias is
        # not built.
        self.has_bias = self.acc_dtype == KT.float32
        self.a_trans = a.is_trans
        self.b_trans = b.is_trans
        if a.layout not in (LayoutMode.NONE, LayoutMode.NORMAL):
            raise NotSupportedError(f"asc.adv.Matmul with the {a.layout.name} batch layout needs "
                                    "its axis order, which the references do not give")


class _Buffers:
    """The Matmul's memory on its pipe (TBufs): two slots each of A and B in L1 (A1, B1) and in
    L0A/L0B (A2, B2) of `a_elems` / `b_elems` elements, one L0C block of `co1_bytes`, and with a
    bias the row's L1 buffer and the bias table (C2) of `bias_bytes`."""

    def __init__(self, pipe, plan, a_elems, b_elems, co1_bytes, bias_bytes, quant_bytes=0,
                 a1_elems=None, b1_elems=None, a1_slots=2, b1_slots=2):
        from asc.language.fwk.tque import TBuf
        self.a_elems, self.b_elems = a_elems, b_elems
        # An L1 slot holds stepKa (stepKb) slices of the L0 tile; depthA1 (depthB1) slices in
        # all make one slot or two (double-buffered).
        self.a1_elems = a_elems if a1_elems is None else a1_elems
        self.b1_elems = b_elems if b1_elems is None else b1_elems
        self.a1_slots, self.b1_slots = a1_slots, b1_slots
        # IBShare (a server's): the shared operand's one slot and the GM record of its chunk.
        self.shares_a = self.shares_b = False
        self.share_record = None
        size = plan.a_dtype.sizeof()

        def buffer(position, nbytes, dtype):
            buf = TBuf(position)
            pipe.init_buffer(buf, nbytes)
            return buf.get(dtype)

        self.a1 = buffer(TPosition.A1, self.a1_elems * a1_slots * size, plan.a_dtype)
        self.b1 = buffer(TPosition.B1, self.b1_elems * b1_slots * size, plan.b_dtype)
        self.a2 = buffer(TPosition.A2, a_elems * 2 * size, plan.a_dtype)
        self.b2 = buffer(TPosition.B2, b_elems * 2 * size, plan.b_dtype)
        self.co1 = buffer(TPosition.CO1, co1_bytes, plan.acc_dtype)
        # set_quant_vector's words for one block's columns, in L1 for Fixpipe.
        self.quant = buffer(TPosition.C1, quant_bytes, KT.uint64) if plan.dequant else None
        self.bias1 = self.bias2 = None
        if plan.has_bias:
            from asc.language.basic.cube_loads import init_const_value
            from asc.language.basic.sync import pipe_barrier
            from asc.language.core.enums import PipeID
            from asc.language.core.types import InitConstValueParams
            # The row's L1 buffer: the bias table loads whole 64-byte units and a row's copy
            # fills 32-byte blocks, so it starts zeroed (by MTE2, in order with the copies into
            # it). init_const_value fills A1/B1 tensors, so it is taken as B1 (all are L1).
            self.bias1 = buffer(TPosition.B1, bias_bytes, KT.float32)
            self.bias2 = buffer(TPosition.C2, bias_bytes, KT.float32)

            def zero_row():
                init_const_value(self.bias1, InitConstValueParams(1, bias_bytes // 32, 0, 0))
                pipe_barrier(PipeID.PIPE_MTE2)  # the row copies write the same bytes later

            _on_cube_cores(zero_row)

    @classmethod
    def for_tiling(cls, pipe, mm: "Matmul"):
        """Sized from the Matmul's base sizes (traced or constant)."""
        plan = mm._plan
        base_m, base_n, base_k = (to_value(mm._get(n), _I32) for n in ("base_m", "base_n",
                                                                        "base_k"))
        m16 = (base_m + 15) // 16 * 16
        n16 = (base_n + (31 if plan.wide_n else 15)) // (32 if plan.wide_n else 16) * (
            32 if plan.wide_n else 16)
        kp = (base_k + plan.k_align - 1) // plan.k_align * plan.k_align
        step_a = _at_least_one(mm._get("step_ka"))
        step_b = _at_least_one(mm._get("step_kb"))
        # The bias row's L1 buffer and table only when the tiling has a bias (isBias), as the
        # chip's library reserves them: MDL's 7.1 row 6 Case5 fills all 512 KiB of L1 with A
        # and B.
        bias_bytes = select(to_value(mm._get("is_bias"), _I32) != 0, n16 * 4, 0)
        # NBuffer33: three slots of A, one per base row of the 3 x 3 blocks it keeps.
        a_slots = 3 if plan.nbuffer33 else _l1_slots(mm._get("depth_a1"), step_a)
        return cls(pipe, plan, m16 * kp, n16 * kp, m16 * n16 * 4, bias_bytes, n16 * 8,
                   m16 * kp * step_a, n16 * kp * step_b,
                   a_slots, _l1_slots(mm._get("depth_b1"), step_b))


def _constant_l1_steps(cfg, plan, is_bias):
    """(step_ka, step_kb, depth_a1, depth_b1) of a constant tiling: asc.lib.host's stage 3 for
    the config's single-core and base shapes in the current platform's L1."""
    from asc.lib.host import CoreMemType, get_ascendc_platform
    from asc.lib.host.search import Budget, Problem, l1_steps
    l1 = get_ascendc_platform().get_core_mem_size(CoreMemType.L1)
    bits = plan.a_dtype.sizeof() * 8
    problem = Problem(m=int(cfg.single_core_m), n=int(cfg.single_core_n),
                      k=int(cfg.single_core_k), a_bits=bits, b_bits=bits,
                      c_bytes=plan.c_dtype.sizeof(), bias=bool(is_bias),  # blocks M first
                      multi_load=bool(cfg.do_multi_data_load))
    budget = Budget(l1=l1, l0a=0, l0b=0, l0c=0, ub=0, bt=0)  # stage 3 reads L1 only
    return l1_steps(problem, budget, int(cfg.single_core_m), int(cfg.single_core_n),
                    int(cfg.single_core_k), int(cfg.basic_m), int(cfg.basic_n), int(cfg.basic_k))


def _l1_slots(depth, step):
    """L1 slots for one operand: two (double-buffered) unless the tiling's depth holds only one
    step of slices (0, "not set", gives two)."""
    depth = to_value(depth, _I32)
    single = (depth > 0) & (depth < to_value(step, _I32) * 2)
    return select(single, 1, 2)


def _at_least_one(x):
    x = to_value(x, _I32)
    return select(x > 0, x, 1)


def _on_cube_cores(emit):
    """Emit cube instructions for set-up code that every core of a mixed kernel runs (a Matmul
    registered outside `if asc.ascend_is_aic():`): under that condition, as the chip's AIC-only
    build of the library code would hold them."""
    from asc._proto import kernel_pb2
    from asc.language.basic.sys_var import ascend_is_aic
    builder = require_builder("Matmul")
    if builder.kernel.kernel_type == kernel_pb2.KERNEL_AIC_ONLY:
        emit()
        return
    cond = to_value(ascend_is_aic(), _BOOL)
    op = builder.emit("if_op")
    op.cond = cond.id
    with builder.region(op.then_region):
        emit()


def blocks_of(state):
    """(m_iter, n_iter): base blocks over the single-core region of `state` (a Matmul or a
    request read by the server)."""
    single_m, single_n = to_value(state._get("single_m"), _I32), to_value(
        state._get("single_n"), _I32)
    base_m, base_n = to_value(state._get("base_m"), _I32), to_value(state._get("base_n"), _I32)
    return (single_m + base_m - 1) // base_m, (single_n + base_n - 1) // base_n


def block_at(state, count, m_iter, n_iter):
    """(m0, n0, m, n) of base block `count` in the tiling's order (0: M first)."""
    order_n = to_value(state._get("iterate_order"), _I32) == 1
    mi = select(order_n, count // n_iter, count % m_iter)
    ni = select(order_n, count % n_iter, count // m_iter)
    base_m, base_n = to_value(state._get("base_m"), _I32), to_value(state._get("base_n"), _I32)
    m0, n0 = mi * base_m, ni * base_n
    left_m = to_value(state._get("single_m"), _I32) - m0
    left_n = to_value(state._get("single_n"), _I32) - n0
    m = select(left_m > base_m, base_m, left_m)
    n = select(left_n > base_n, base_n, left_n)
    return m0, n0, m, n


def _check_type(name, value):
    value = ConstExpr.unwrap(value)
    if not isinstance(value, MatmulType):
        raise ValueError(f"Matmul(): '{name}' must be an asc.adv.MatmulType, got "
                         f"{type(value).__name__}")
    return value


def _int_arg(api, name, value):
    value = ConstExpr.unwrap(value)
    if not is_runtime_int(value):
        raise TypeError(f"{api}(): '{name}' must be an int or a traced integer, got "
                        f"{type(value).__name__}")
    return value


class Matmul(TracedState):
    """A matrix multiply object: C = A x B (+ bias) on the cube core, tile by tile.

    `Matmul(a, b, c, bias=None, matmul_config=None, matmul_policy=0)` (asc-api.md 6.1-6.3):
    a, b, c and bias are MatmulTypes (where each operand lives, its format and dtype; bias
    float32 at C's position when None), matmul_config a MatmulConfig (the Norm template when
    None), matmul_policy Ascend C's policy number (3 with MDL: the NBuffer33 pipeline). Bind it
    with register_matmul, then set_tensor_a/b, iterate / iterate_all / get_tensor_c, end
    (docs/matmul.md).

    Numerics: as asc.mmad's: products are exact, each C0-wide chunk of K is summed exactly and
    added to C with one rounding to float32, nearest-even (int8: exact in int32, saturating);
    the fixpipe to C rounds a float16 or bfloat16 result to nearest-even (asc.fixpipe)."""

    def __init__(self, a: MatmulType, b: MatmulType, c: MatmulType,
                 bias: Optional[MatmulType] = None, matmul_config: Optional[MatmulConfig] = None,
                 matmul_policy: int = 0) -> None:
        super().__init__("asc.adv.Matmul")
        self.a_type, self.b_type, self.c_type = (_check_type("a", a), _check_type("b", b),
                                                 _check_type("c", c))
        bias = ConstExpr.unwrap(bias)
        self.bias_type = (MatmulType(self.c_type.position, self.c_type.format, KT.float32)
                          if bias is None else _check_type("bias", bias))
        config = ConstExpr.unwrap(matmul_config)
        if config is None:
            config = MatmulConfig()
        if not isinstance(config, MatmulConfig):
            raise TypeError("Matmul(): matmul_config must be an asc.adv.MatmulConfig, got "
                            f"{type(config).__name__}")
        self.config = config
        self.policy = ConstExpr.unwrap(matmul_policy)
        self._plan = _Plan(self.a_type, self.b_type, self.c_type, self.bias_type)
        # MDL (doMultiDataLoad) copies a chunk of stepKa / stepKb slices at once; the other
        # templates one base block (slice) at a time into the same slot.
        self._plan.multi_load = bool(config.do_multi_data_load)
        self._plan.nbuffer33 = int(self.policy) == 3 and bool(config.do_multi_data_load)
        self._plan.unit_flag = bool(config.en_unit_flag) and not self._plan.wide_n
        # MTE2 preload (doMTE2Preload: 1 along M, A; 2 along N, B), MDL only.
        self._plan.preload = int(config.do_mte2_preload) if config.do_multi_data_load else 0
        # IBShare (the IBShare template and MatmulType ib_share): the operand the two vector
        # cores share stays in the server's L1 from one client's request to the other's.
        share = bool(config.do_ib_share_norm)
        self._plan.share_a = share and self.a_type.ib_share
        self._plan.share_b = share and self.b_type.ib_share
        self._buffers = None
        self._events = None
        self._pipe = None
        self._block = None  # the base block of the running iterate() body
        self._ended = False
        self._client = None  # a vector core of a mixed kernel: requests go to the cube core
        self._ub_sources = {}  # set_tensor_a/b with a UB tensor: the tensor, copied per request
        for field in ("a_addr", "b_addr", "bias_addr"):
            self._declare(field, _GM_ADDR, 0)
        self._declare("a_set", _BOOL, False)
        self._declare("b_set", _BOOL, False)
        # A constant operand (set_tensor_a/b with a number): its value, and whether it is one.
        for which in ("a", "b"):
            self._declare(f"{which}_scalar", _BOOL, False)
            self._declare(f"{which}_value", KT.float32, 0.0)
        self._declare("bias_on", _BOOL, False)
        for _, field in _TILING_FIELDS:
            self._declare(field, _I32, 0)
        self._declare("inited", _BOOL, False)
        self._declare("user_ws", _GM_ADDR, 0)  # set_workspace
        self._declare("user_ws_set", _BOOL, False)
        self._declare("batch_taken", _I32, 0)  # get_batch_tensor_c's next batch group
        # 0 none, 1 set_quant_scalar (quant_scalar), 2 set_quant_vector (quant_addr).
        self._declare("quant_kind", _I32, 0)
        self._declare("quant_scalar", _GM_ADDR, 0)
        self._declare("quant_addr", _GM_ADDR, 0)
        self._static_tiling()

    # ---- tiling ---------------------------------------------------------------------------------

    def _static_tiling(self):
        """A config with shapes is a constant tiling (asc-api.md 10.5): single-core sizes and
        base sizes come from it; base_k defaults to the config's basic_k. Its L1 steps and
        depths are computed here, as Ascend C's GetMatmulApiTiling derives them from the shapes
        and the L1 size: asc.lib.host's stage 3 (docs/host_tiling.md). A bias takes L1 room when
        the config enables set_bias."""
        cfg = self.config
        if cfg.basic_m and cfg.basic_n and cfg.basic_k:
            for attr, field in (("single_core_m", "single_m"), ("single_core_n", "single_n"),
                                ("single_core_k", "single_k"), ("basic_m", "base_m"),
                                ("basic_n", "base_n"), ("basic_k", "base_k")):
                self._put(field, int(getattr(cfg, attr)))
            is_bias = int(bool(cfg.enable_set_bias) and self._plan.has_bias)
            for field, value in (("org_m", cfg.single_core_m), ("org_n", cfg.single_core_n),
                                 ("org_ka", cfg.single_core_k), ("org_kb", cfg.single_core_k),
                                 ("is_bias", is_bias)):
                self._put(field, int(value))
            steps = _constant_l1_steps(cfg, self._plan, is_bias)
            for field, value in zip(("step_ka", "step_kb", "depth_a1", "depth_b1"), steps):
                self._put(field, value)
            self._put("inited", True)
            self._constant = True
        else:
            self._constant = False

    def init(self, tiling, *args, **kwargs) -> None:
        """Load the tiling's sizes (a TCubeTiling argument or one built in the kernel)."""
        require_builder("Matmul.init")
        tiling = ConstExpr.unwrap(tiling)
        if not isinstance(tiling, TCubeTiling):
            raise TypeError("Matmul.init(): tiling must be an asc.adv.TCubeTiling, got "
                            f"{type(tiling).__name__}")
        for attr, field in _TILING_FIELDS:
            self._put(field, getattr(tiling, attr))
        self._put("inited", True)
        self._setup_queues()

    def _setup_queues(self):
        if self._buffers is None and self._pipe is not None and self._client is None:
            self._buffers = _Buffers.for_tiling(self._pipe, self)

    # ---- operands -------------------------------------------------------------------------------

    def _gm_operand(self, api, name, tensor, matmul_type):
        if isinstance(tensor, LocalTensor):
            return self._ub_operand(api, tensor, matmul_type)
        if not isinstance(tensor, GlobalTensor):
            raise TypeError(f"Matmul.{api}(): '{name}' must be an asc.GlobalTensor, got "
                            f"{type(tensor).__name__}")
        tensor._check_bound(f"Matmul.{api}")
        if tensor.dtype != matmul_type.dtype:
            raise TypeError(f"Matmul.{api}(): the tensor holds {tensor.dtype} but the Matmul's "
                            f"MatmulType says {matmul_type.dtype}")
        return tensor._addr

    def _ub_operand(self, api, tensor, matmul_type):
        """A vector core's UB operand: its GM mirror's address (the request copies it there)."""
        from asc.language.adv import kfc
        if self._client is None:
            raise NotSupportedError(f"asc.adv.Matmul.{api} with a local tensor on the cube core "
                                    "(an L1 operand in the library's TSCM layout)")
        if matmul_type.position not in _UB_POSITIONS:
            raise TypeError(f"Matmul.{api}(): a UB tensor for an operand declared at "
                            f"{matmul_type.position.name}; declare it VECIN/VECOUT/VECCALC")
        if tensor.dtype != matmul_type.dtype:
            raise TypeError(f"Matmul.{api}(): the tensor holds {tensor.dtype} but the Matmul's "
                            f"MatmulType says {matmul_type.dtype}")
        self._ub_sources[api] = tensor
        return kfc.ub_mirror_address(self._client.workspace, self._client.aiv,
                                     tensor.get_phy_addr())

    def _copy_ub_operands(self):
        """Before a request: each UB operand UB -> its GM mirror (MTE3; the request's own copy
        follows on the same pipe, after its barrier, so the server reads the data it names)."""
        if not self._ub_sources:
            return
        from asc.language.basic.data_copy import data_copy
        from asc.language.basic.sync import set_flag, wait_flag
        from asc.language.core.enums import HardEvent
        event = self._client.pipe.fetch_event_id(HardEvent.V_MTE3)
        set_flag(HardEvent.V_MTE3, event)  # the vector code that wrote them is done
        wait_flag(HardEvent.V_MTE3, event)
        for api, tensor in self._ub_sources.items():
            which = "a" if api == "set_tensor_a" else "b"
            mirror = GlobalTensor._make(to_value(self._get(f"{which}_addr"), _GM_ADDR),
                                        tensor.dtype, None)
            data_copy(mirror, tensor, self._ub_extent(which, tensor))

    def _ub_extent(self, which, tensor):
        """Elements of a UB operand the server reads: its rows of the single-core block, whole
        32-byte blocks."""
        get = lambda name: to_value(self._get(name), _I32)  # noqa: E731
        if which == "a":
            rows, pitch = (get("single_k"), get("org_m")) if self.a_type.is_trans else (
                get("single_m"), get("org_ka"))
        else:
            rows, pitch = (get("single_n"), get("org_kb")) if self.b_type.is_trans else (
                get("single_k"), get("org_n"))
        per_block = 32 // tensor.dtype.sizeof()
        return (rows * pitch + per_block - 1) // per_block * per_block

    def _transpose(self, api, which, value):
        value = ConstExpr.unwrap(value)
        declared = getattr(self, f"{which}_type").is_trans
        if isinstance(value, PlainValue):
            raise NotSupportedError(f"asc.adv.Matmul.{api} with a traced transpose flag (pass "
                                    "a Python bool; the flag selects the load sequence)")
        if bool(value) != declared:
            raise ValueError(f"Matmul.{api}(): transpose={bool(value)} but the {which.upper()} "
                             f"MatmulType was declared with is_trans={declared}; declare the "
                             "layout the tensor has")

    def _set_operand(self, api, which, tensor, transpose):
        tensor = ConstExpr.unwrap(tensor)
        matmul_type = getattr(self, f"{which}_type")
        if isinstance(tensor, (numbers.Number, PlainValue)):
            # A constant operand: its L1 tiles are filled with the value (init_const_value).
            if matmul_type.dtype not in (KT.float16, KT.float32):
                raise TypeError(f"Matmul.{api}(scalar): a constant operand is half or float, "
                                f"this Matmul's is {matmul_type.dtype}")
            self._put(f"{which}_value", to_value(tensor, KT.float32))
            self._put(f"{which}_scalar", True)
        else:
            self._transpose(api, which, transpose)
            self._put(f"{which}_addr", self._gm_operand(api, "tensor", tensor, matmul_type))
            self._put(f"{which}_scalar", False)
        self._put(f"{which}_set", True)

    def set_tensor_a(self, tensor, transpose=False) -> None:
        """A for the next computation: a GM tensor (its row pitch is org Ka, or org M when
        transposed), or a number: every element of A is that value."""
        self._set_operand("set_tensor_a", "a", tensor, transpose)

    def set_tensor_b(self, tensor, transpose=False) -> None:
        """B for the next computation: a GM tensor (row pitch org N, or org Kb when
        transposed), or a number: every element of B is that value."""
        self._set_operand("set_tensor_b", "b", tensor, transpose)

    def set_bias(self, tensor) -> None:
        """Add this [1, N] row to every row of C (float32 in GM)."""
        tensor = ConstExpr.unwrap(tensor)
        if not isinstance(tensor, GlobalTensor):
            raise TypeError("Matmul.set_bias(): the bias must be an asc.GlobalTensor, got "
                            f"{type(tensor).__name__}")
        tensor._check_bound("Matmul.set_bias")
        if not self._plan.has_bias:
            raise NotSupportedError("asc.adv.Matmul.set_bias on an int8 Matmul (its int32 bias "
                                    "row)")
        if tensor.dtype != KT.float32:
            raise NotSupportedError(f"asc.adv.Matmul.set_bias with a {tensor.dtype} bias (the "
                                    "bias table takes float32 here)")
        self._put("bias_addr", tensor._addr)
        if self._client is None:
            # The bias takes part when the tiling has one (its isBias, which Ascend C's host
            # tiling must set as the kernel does: EnableBias): its buffers exist only then.
            self._put("bias_on", to_value(self._get("is_bias"), _I32) != 0)
        else:
            self._put("bias_on", True)

    def disable_bias(self) -> None:
        """Leave the bias out of the next computations."""
        self._put("bias_on", False)

    def _check_dequant(self, api):
        if not self._plan.dequant:
            raise TypeError(f"Matmul.{api}(): quant scales dequantise an int8 x int8 Matmul "
                            f"into a half C; this one is {self.a_type.dtype} -> "
                            f"{self.c_type.dtype}")

    def set_quant_scalar(self, quant_scalar) -> None:
        """One uint64 quant word for every column (Fixpipe DEQF16; its low 32 bits are the
        float scale, of which 1 sign, 8 exponent and 10 mantissa bits count)."""
        self._check_dequant("set_quant_scalar")
        self._put("quant_kind", 1)
        self._put("quant_scalar", to_value(_int_arg("Matmul.set_quant_scalar", "quant_scalar",
                                                    quant_scalar), _GM_ADDR))

    def set_quant_vector(self, quant_vector) -> None:
        """A uint64 quant word per column of C, in GM (Fixpipe VDEQF16)."""
        self._check_dequant("set_quant_vector")
        quant_vector = ConstExpr.unwrap(quant_vector)
        if not isinstance(quant_vector, GlobalTensor):
            raise TypeError("Matmul.set_quant_vector(): the words must be an asc.GlobalTensor "
                            f"of uint64, got {type(quant_vector).__name__}")
        quant_vector._check_bound("Matmul.set_quant_vector")
        if quant_vector.dtype != KT.uint64:
            raise TypeError("Matmul.set_quant_vector(): the words must be uint64, got "
                            f"{quant_vector.dtype}")
        self._put("quant_kind", 2)
        self._put("quant_addr", quant_vector._addr)

    # ---- shapes ---------------------------------------------------------------------------------

    def _override(self, api, field, value):
        """`value` replaces the field unless it is -1 (keep), at run time when traced."""
        value = _int_arg(api, field, value)
        if isinstance(value, numbers.Integral):
            if value != -1:
                self._put(field, int(value))
            return
        self._put(field, select(to_value(value, _I32) != -1, to_value(value, _I32),
                                to_value(self._get(field), _I32)))

    def set_org_shape(self, org_m, org_n, org_ka, org_kb=None, org_kc=None) -> None:
        """The original sizes, the matrices' row pitches."""
        api = "Matmul.set_org_shape"
        self._put("org_m", _int_arg(api, "org_m", org_m))
        self._put("org_n", _int_arg(api, "org_n", org_n))
        self._put("org_ka", _int_arg(api, "org_ka", org_ka))
        self._put("org_kb", _int_arg(api, "org_kb", org_ka if org_kb is None else org_kb))

    def set_single_shape(self, single_m, single_n, single_k) -> None:
        api = "Matmul.set_single_shape"
        self._put("single_m", _int_arg(api, "single_m", single_m))
        self._put("single_n", _int_arg(api, "single_n", single_n))
        self._put("single_k", _int_arg(api, "single_k", single_k))

    def set_tail(self, tail_m=-1, tail_n=-1, tail_k=-1) -> None:
        """This block's sizes when it is a partial one (-1 keeps the tiling's)."""
        for field, value in (("single_m", tail_m), ("single_n", tail_n), ("single_k", tail_k)):
            self._override("Matmul.set_tail", field, value)

    def set_hf32(self, enable_hf32=False, trans_mode=0) -> None:
        """Float x float Mmads round their inputs to HF32 while enabled (docs/cube.md)."""
        from asc.language.basic.cube_config import set_hf32_mode, set_hf32_trans_mode
        set_hf32_mode(enable_hf32)
        set_hf32_trans_mode(bool(trans_mode))

    def set_workspace(self, addr, size=None) -> None:
        """GM for results the caller fetches later: the asynchronous get_tensor_c() without a
        destination (block `count` at count * base_m * base_n elements) and iterate_n_batch."""
        addr = ConstExpr.unwrap(addr)
        if isinstance(addr, GlobalTensor):
            addr._check_bound("Matmul.set_workspace")
            addr = GlobalAddress(addr._addr, addr.dtype)
        if not isinstance(addr, GlobalAddress):
            raise TypeError("Matmul.set_workspace(): addr must be a GlobalAddress or "
                            f"GlobalTensor, got {type(addr).__name__}")
        self._put("user_ws", addr._addr)
        self._put("user_ws_set", True)

    def _user_workspace(self, api):
        if self._get("user_ws_set") is False:
            raise RuntimeError(f"Matmul.{api}(): its results go to the Matmul's workspace: call "
                               "set_workspace(gm) first")
        return self._get("user_ws")

    def set_self_define_data(self, data_ptr) -> None:
        raise NotSupportedError("asc.adv.Matmul.set_self_define_data (data for user-defined "
                                "Matmul callbacks, which a pyasc Matmul cannot declare)")

    def set_user_def_info(self, tiling_ptr) -> None:
        raise NotSupportedError("asc.adv.Matmul.set_user_def_info (data for user-defined "
                                "Matmul callbacks, which a pyasc Matmul cannot declare)")

    def set_sparse_index(self, index_global) -> None:
        raise NotSupportedError("asc.adv.Matmul.set_sparse_index (the sparse Matmul needs "
                                "mmad_with_sparse, docs/cube.md \"Open facts\")")

    def get_offset_c(self):
        raise NotSupportedError("asc.adv.Matmul.get_offset_c (MatrixOffset's fields are not in "
                                "the references)")

    # ---- GM views of the operands ------------------------------------------------------------

    def a_gm(self):
        return GlobalTensor._make(self._get("a_addr"), self.a_type.dtype, None)

    def b_gm(self):
        return GlobalTensor._make(self._get("b_addr"), self.b_type.dtype, None)

    def bias_gm(self):
        return GlobalTensor._make(self._get("bias_addr"), KT.float32, None)

    # ---- computing ----------------------------------------------------------------------------

    def _ready(self, api):
        if self._pipe is None:
            raise RuntimeError(f"Matmul.{api}(): call asc.adv.register_matmul(pipe, workspace, "
                               "matmul, tiling) first")
        if self._get("inited") is False:
            raise RuntimeError(f"Matmul.{api}(): the Matmul has no tiling: pass a TCubeTiling "
                               "to register_matmul or init(), or give its MatmulConfig the "
                               "shapes (get_mm_config with MatmulShapeParams)")
        if self._get("a_set") is False or self._get("b_set") is False:
            raise RuntimeError(f"Matmul.{api}(): set_tensor_a and set_tensor_b first")
        self._setup_queues()

    def _blocks(self):
        return blocks_of(self)

    def _compute(self, count, m_iter, n_iter):
        """Base block `count` into L0C (the L1/L0 slots' parity goes on from its index)."""
        m0, n0, m, n = block_at(self, count, m_iter, n_iter)
        inline_library(ops.compute_block, self, self._buffers, self._events, m0, n0, m, n,
                       count)
        return self._buffers.co1, m0, n0, m, n

    def _begin(self, every_block=False):
        """The call's flags; `every_block`: the call writes each block it computes, so UnitFlag
        can hand them over (not the iterate() loop, whose body may skip one)."""
        self._events = ops.Events(self._plan.has_bias, dequant=self._plan.dequant,
                                  unit_flag=every_block and self._plan.unit_flag,
                                  a_slots=3 if self._plan.nbuffer33 else 2)

    def _finish(self):
        self._events.finish()
        self._events = None

    def _check_c(self, api, tensor):
        if isinstance(tensor, LocalTensor):
            raise NotSupportedError(
                f"asc.adv.Matmul.{api} into a local tensor on the cube core (a UB destination "
                "is the vector core's, through the AIV-client/AIC-server protocol of a mixed "
                "kernel, ascendc-semantics.md 7.5)")
        if not isinstance(tensor, GlobalTensor):
            raise TypeError(f"Matmul.{api}(): the destination must be an asc.GlobalTensor, got "
                            f"{type(tensor).__name__}")
        tensor._check_bound(f"Matmul.{api}")
        if tensor.dtype != self.c_type.dtype:
            raise TypeError(f"Matmul.{api}(): the destination holds {tensor.dtype} but the C "
                            f"MatmulType says {self.c_type.dtype}")

    def _write(self, c_l0, dst, m, n, pitch, n0=0):
        inline_library(ops.write_out, self, self._buffers, self._events, dst, m, n, pitch, n0,
                       self._plan.quant)

    # ---- the client side of a mixed kernel (docs/matmul.md, "Mixed kernels") ------------------

    def _request(self, count=0, flags=0, c_addr=0, c_pitch=0, operands=False):
        """A request's fields: every setting, so the server keeps no state between requests.
        With `operands` (a request that starts a computation) UB operands are copied to their
        mirrors first."""
        if operands:
            self._copy_ub_operands()
        values = {name: self._get(name) for name in (
            "a_addr", "b_addr", "bias_addr", "org_m", "org_n", "org_ka", "org_kb", "single_m",
            "single_n", "single_k", "base_m", "base_n", "base_k", "a_value", "b_value")}
        # One word: the iteration order, stepKa and stepKb (a byte each).
        values["iterate_order"] = (to_value(self._get("iterate_order"), _I32) |
                                   (_at_least_one(self._get("step_ka")) << 8) |
                                   (_at_least_one(self._get("step_kb")) << 16))
        bias = select(to_value(self._get("bias_on"), _BOOL), 1, 0) if self._plan.has_bias \
            else 0
        kind = to_value(self._get("quant_kind"), _I32)
        from asc.language.adv import kfc
        for which, bit in (("a", kfc.FLAG_A_SCALAR), ("b", kfc.FLAG_B_SCALAR)):
            flags = to_value(flags, _I32) | select(to_value(self._get(f"{which}_scalar"), _BOOL),
                                                   bit, 0)
        values.update(count=count, c_addr=c_addr, c_pitch=c_pitch, quant_kind=kind,
                      quant=select(kind == 2, to_value(self._get("quant_addr"), _GM_ADDR),
                                   to_value(self._get("quant_scalar"), _GM_ADDR)),
                      flags=to_value(flags, _I32) | to_value(bias, _I32))
        return values

    @staticmethod
    def _flags(en_atomic=0, sync=False, last=None, skip=False):
        from asc.language.adv import kfc
        word = en_atomic << kfc.FLAG_ATOMIC_SHIFT
        word |= kfc.FLAG_SYNC if sync else 0
        word |= kfc.FLAG_SKIP if skip else 0
        if last is None:
            return word
        return to_value(word, _I32) | select(last, kfc.FLAG_LAST, 0)

    def _client_c(self, api, tensor, m0, n0, sequential):
        """(GM address the server writes the block to, its row pitch)."""
        from asc.language.adv import kfc
        if isinstance(tensor, LocalTensor):
            if not sequential:
                raise NotSupportedError(f"asc.adv.Matmul.{api} into a local tensor without "
                                        "en_sequential_write=True (a block at its place in a UB "
                                        "C matrix)")
            if tensor.dtype != self.c_type.dtype:
                raise TypeError(f"Matmul.{api}(): the destination holds {tensor.dtype} but "
                                f"the C MatmulType says {self.c_type.dtype}")
            client = self._client
            return (kfc.ub_mirror_address(client.workspace, client.aiv, tensor.get_phy_addr()),
                    to_value(self._get("base_n"), _I32))
        self._check_c(api, tensor)
        if sequential:
            return tensor._addr, to_value(self._get("base_n"), _I32)
        pitch = to_value(self._get("org_n"), _I32)
        return tensor[m0 * pitch + n0:]._addr, pitch

    def _client_iterate_all(self, tensor, en_atomic, sync):
        from asc.language.adv import kfc
        self._check_c("iterate_all", tensor)
        pitch = to_value(self._get("org_n"), _I32)
        self._client.post(kfc.ITERATE_ALL, 0, self._request(
            flags=self._flags(en_atomic, sync=True), c_addr=tensor._addr, c_pitch=pitch,
            operands=True))
        if sync:
            self._client.wait(0)
        else:
            self._pending_all = True

    def _client_deliver(self, tensor, en_atomic, sequential, sync=True, optional=None):
        """GET_TENSOR_C for the current block; for a UB destination (or optional tensor) the
        block comes GM -> UB once the server has written it."""
        from asc.language.adv import kfc
        count, last, m0, n0, m, n = self._block
        c_addr, pitch = self._client_c("get_tensor_c", tensor, m0, n0, sequential)
        self._client.post(kfc.GET_TENSOR_C, 0, self._request(
            count, self._flags(en_atomic, last=last), c_addr, pitch))
        fetch = (tensor, optional, c_addr, pitch, m, n)
        if sync:
            self._client.wait(0)
            self._client_fetch(*fetch)
        else:
            self._pending_c = fetch

    def _client_fetch(self, tensor, optional, c_addr, pitch, m, n):
        """The block GM -> UB (MTE2), then MTE2_V for the vector code that reads it."""
        from asc.language.basic.data_copy import data_copy
        from asc.language.basic.sync import set_flag, wait_flag
        from asc.language.core.enums import HardEvent
        from asc.language.core.types import DataCopyParams
        copied = False
        base_n = to_value(self._get("base_n"), _I32)
        if isinstance(tensor, LocalTensor):
            data_copy(tensor, GlobalTensor._make(c_addr, tensor.dtype, None), m * base_n)
            copied = True
        if optional is not None:
            # The block from its place in GM (row pitch `pitch`), dense base_n a row in UB.
            size = self.c_type.dtype.sizeof()
            data_copy(optional, GlobalTensor._make(c_addr, self.c_type.dtype, None),
                      DataCopyParams(m, n * size // 32, (pitch - n) * size // 32,
                                     (base_n - n) * size // 32))
            copied = True
        if copied:
            event = self._client.pipe.fetch_event_id(HardEvent.MTE2_V)
            set_flag(HardEvent.MTE2_V, event)
            wait_flag(HardEvent.MTE2_V, event)

    # ---- computing calls ------------------------------------------------------------------------

    def iterate_all(self, tensor, en_atomic=0, sync=True, en_sequential_write=None,
                    wait_iterate_all=None, fake_msg=None) -> None:
        """The whole single_m x single_n region, block by block, into `tensor` (the GM view of C
        at the region's origin, row pitch org N)."""
        tensor = ConstExpr.unwrap(tensor)
        en_atomic = _atomic_arg("iterate_all", en_atomic)
        sync = ConstExpr.unwrap(sync)
        if not isinstance(sync, bool):
            raise TypeError("Matmul.iterate_all(): sync must be a Python bool")
        self._ready("iterate_all")
        if self._client is not None:
            self._client_iterate_all(tensor, en_atomic, sync)
            return
        self._check_c("iterate_all", tensor)
        pitch = to_value(self._get("org_n"), _I32)
        ops.atomic_on(self.c_type.dtype, en_atomic)
        self._begin(every_block=True)
        inline_library(ops.all_blocks, self, self._buffers, self._events, tensor, pitch,
                       self._plan.quant)
        self._finish()
        ops.atomic_off(en_atomic)

    def iterate_batch(self, tensor, *args, **kwargs) -> None:
        """NORMAL-layout batches: C matrix i = A[i // (batch / batch_a)] x B[i // (batch /
        batch_b)] for i < batch = max(batch_a, batch_b), into `tensor` in GM (en_sequential_write
        False). pyasc's two forms: (tensor, batch_a, batch_b, en_sequential_write,
        matrix_stride_a=0, matrix_stride_b=0, matrix_stride_c=0, en_partial_sum=None,
        en_atomic=None, sync=True, wait_iterate_batch=None) and the cube-only (tensor,
        en_partial_sum, en_atomic, en_sequential_write, strides...), whose batch counts are
        set_batch_num's."""
        api = "iterate_batch"
        tensor = ConstExpr.unwrap(tensor)
        args = [ConstExpr.unwrap(a) for a in args]
        if len(args) >= 3 and isinstance(args[0], bool) and not isinstance(args[1], bool):
            # (tensor, en_partial_sum, en_atomic, en_sequential_write, strides...)
            names = ("en_partial_sum", "en_atomic", "en_sequential_write", "matrix_stride_a",
                     "matrix_stride_b", "matrix_stride_c")
            given = dict(zip(names, args))
            given.update(kwargs)
            batch_a, batch_b = self._batch_num(api)
        else:
            names = ("batch_a", "batch_b", "en_sequential_write", "matrix_stride_a",
                     "matrix_stride_b", "matrix_stride_c", "en_partial_sum", "en_atomic",
                     "sync", "wait_iterate_batch")
            given = dict(zip(names, args))
            given.update(kwargs)
            if "batch_a" not in given or "batch_b" not in given:
                raise TypeError(f"Matmul.{api}() needs batch_a and batch_b")
            batch_a = _int_arg(api, "batch_a", given["batch_a"])
            batch_b = _int_arg(api, "batch_b", given["batch_b"])
        unknown = set(given) - set(names) - {"batch_a", "batch_b"}
        if unknown:
            raise TypeError(f"Matmul.{api}() got unexpected keyword argument(s) "
                            f"{', '.join(sorted(unknown))}")
        sequential = ConstExpr.unwrap(given.get("en_sequential_write", False))
        if not isinstance(sequential, bool):
            raise TypeError(f"Matmul.{api}(): en_sequential_write must be a Python bool")
        if isinstance(tensor, LocalTensor) or sequential:
            raise NotSupportedError(f"asc.adv.Matmul.{api} into a local tensor (batch results "
                                    "in UB)")
        if ConstExpr.unwrap(given.get("en_partial_sum")):
            raise NotSupportedError(f"asc.adv.Matmul.{api}(en_partial_sum=True)")
        en_atomic = _atomic_arg(api, given.get("en_atomic") or 0)
        self._check_layout(api)
        self._check_c(api, tensor)
        self._ready(api)
        strides = ops.batch_strides(self, batch_a, batch_b, given.get("matrix_stride_a", 0),
                                    given.get("matrix_stride_b", 0),
                                    given.get("matrix_stride_c", 0))
        pitch = to_value(self._get("org_n"), _I32)
        if self._client is not None:
            from asc.language.adv import kfc
            values = self._request(flags=self._flags(en_atomic, sync=True), c_addr=tensor._addr,
                                   c_pitch=pitch, operands=True)
            values.update(batch_a=batch_a, batch_b=batch_b, stride_a=strides[0],
                          stride_b=strides[1], stride_c=strides[2])
            self._client.post(kfc.ITERATE_BATCH_ALL, 0, values)
            sync = ConstExpr.unwrap(given.get("sync", True))
            if sync:
                self._client.wait(0)
            else:
                self._pending_batch = True
            return
        ops.atomic_on(self.c_type.dtype, en_atomic)
        self._begin(every_block=True)
        inline_library(ops.batch_blocks, self, self._buffers, self._events, tensor, pitch,
                       self._plan.quant, batch_a, batch_b, *strides)
        self._finish()
        ops.atomic_off(en_atomic)

    def iterate_n_batch(self, batch_loop, batch_a, batch_b, en_sequential_write,
                        matrix_stride_a=0, matrix_stride_b=0, matrix_stride_c=0, sync=True,
                        wait_iterate_batch=False) -> None:
        """batch_loop iterate_batch computations (NORMAL layout), group l on the matrices after
        group l - 1's, their C matrices one group after another in the Matmul's workspace
        (set_workspace; Ascend C's IterateNBatch writes there), fetched with
        get_batch_tensor_c."""
        api = "iterate_n_batch"
        if not self.config.is_n_batch:
            raise ValueError("Matmul.iterate_n_batch() needs MatmulConfig(is_n_batch=True) "
                             "(get_normal_config(batch_loop=True))")
        self._check_layout(api)
        self._ready(api)
        batch_loop = _int_arg(api, "batch_loop", batch_loop)
        batch_a = _int_arg(api, "batch_a", batch_a)
        batch_b = _int_arg(api, "batch_b", batch_b)
        strides = ops.batch_strides(self, batch_a, batch_b, matrix_stride_a, matrix_stride_b,
                                    matrix_stride_c)
        workspace = GlobalTensor._make(to_value(self._user_workspace(api), _GM_ADDR),
                                       self.c_type.dtype, None)
        self._batch_layout = (batch_a, batch_b, strides[2])
        self._put("batch_taken", 0)
        pitch = to_value(self._get("org_n"), _I32)
        sync = ConstExpr.unwrap(sync)
        if self._client is not None:
            from asc.language.adv import kfc
            values = self._request(count=batch_loop, flags=self._flags(sync=True),
                                   c_addr=workspace._addr, c_pitch=pitch, operands=True)
            values.update(batch_a=batch_a, batch_b=batch_b, stride_a=strides[0],
                          stride_b=strides[1], stride_c=strides[2])
            self._client.post(kfc.ITERATE_N_BATCH_ALL, 0, values)
            if sync:
                self._client.wait(0)
            else:
                self._pending_batch = True
            return
        self._begin(every_block=True)
        inline_library(ops.n_batch_blocks, self, self._buffers, self._events, workspace, pitch,
                       self._plan.quant, batch_loop, batch_a, batch_b, *strides)
        self._finish()

    def get_batch_tensor_c(self, *args, **kwargs):
        """The next batch group of iterate_n_batch: `get_batch_tensor_c(batch_a, batch_b,
        en_sequential_write=False, sync=True)` returns its C matrices in the workspace as a
        GlobalTensor; `get_batch_tensor_c(tensor, batch_a, batch_b, ...)` copies them into a
        vector core's UB tensor."""
        api = "get_batch_tensor_c"
        args = [ConstExpr.unwrap(a) for a in args]
        tensor = None
        if args and isinstance(args[0], (LocalTensor, GlobalTensor)):
            tensor, args = args[0], args[1:]
        tensor = ConstExpr.unwrap(kwargs.pop("tensor", tensor))
        layout = getattr(self, "_batch_layout", None)
        if layout is None:
            raise RuntimeError(f"Matmul.{api}(): run iterate_n_batch first")
        _, _, stride_c = layout
        names = ("batch_a", "batch_b", "en_sequential_write", "sync")
        given = dict(zip(names, args))
        given.update(kwargs)
        batch_a = _int_arg(api, "batch_a", given.get("batch_a", layout[0]))
        batch_b = _int_arg(api, "batch_b", given.get("batch_b", layout[1]))
        batch = select(to_value(batch_a, _I32) > to_value(batch_b, _I32),
                       to_value(batch_a, _I32), to_value(batch_b, _I32))
        taken = to_value(self._get("batch_taken"), _I32)
        size = self.c_type.dtype.sizeof()
        offset = to_value(taken * batch * stride_c * size, _GM_ADDR)
        group = GlobalTensor._make(to_value(self._user_workspace(api), _GM_ADDR) + offset,
                                   self.c_type.dtype, None)
        self._put("batch_taken", taken + 1)
        if tensor is None:
            return group
        if not isinstance(tensor, LocalTensor) or self._client is None:
            raise NotSupportedError(f"asc.adv.Matmul.{api} into a GlobalTensor (a GM -> GM "
                                    "copy); take the returned GlobalTensor instead")
        from asc.language.basic.data_copy import data_copy
        from asc.language.basic.sync import set_flag, wait_flag
        from asc.language.core.enums import HardEvent
        data_copy(tensor, group, batch * stride_c)
        event = self._client.pipe.fetch_event_id(HardEvent.MTE2_V)
        set_flag(HardEvent.MTE2_V, event)
        wait_flag(HardEvent.MTE2_V, event)
        return None

    def wait_iterate_batch(self) -> None:
        """After an asynchronous iterate_batch of a vector core: wait for the server."""
        if self._client is not None and getattr(self, "_pending_batch", False):
            self._client.wait(0)
            self._pending_batch = False

    def set_batch_num(self, batch_a, batch_b) -> None:
        """The batch counts of the cube-only iterate_batch form."""
        self._batch_counts = (_int_arg("Matmul.set_batch_num", "batch_a", batch_a),
                              _int_arg("Matmul.set_batch_num", "batch_b", batch_b))

    def _batch_num(self, api):
        counts = getattr(self, "_batch_counts", None)
        if counts is None:
            raise RuntimeError(f"Matmul.{api}(tensor, en_partial_sum, en_atomic, ...) takes its "
                               "batch counts from set_batch_num(batch_a, batch_b): call it first")
        return counts

    def _check_layout(self, api):
        for name, t in (("A", self.a_type), ("B", self.b_type)):
            if t.layout != LayoutMode.NORMAL:
                raise ValueError(f"Matmul.{api}(): the {name} MatmulType must declare "
                                 f"LayoutMode.NORMAL (batched matrices back to back), got "
                                 f"{t.layout.name}")

    def wait_iterate_all(self) -> None:
        """After an asynchronous iterate_all of a vector core: wait for the server's
        notification. On the cube core the Matmul has finished when iterate_all returns."""
        if self._client is not None and getattr(self, "_pending_all", False):
            self._client.wait(0)
            self._pending_all = False

    def iterate(self, en_partial_sum=False, sync=True, local_c_matrix=None):
        """`with mm.iterate() as count:` runs its body once per base block, `count` 0, 1, ...;
        get_tensor_c in the body delivers that block."""
        if ConstExpr.unwrap(en_partial_sum):
            raise NotSupportedError("asc.adv.Matmul.iterate(en_partial_sum=True)")
        self._ready("iterate")
        return _IterateLoop(self)

    def get_tensor_c(self, tensor=None, en_atomic=0, en_sequential_write=False, sync=True,
                     optional_tensor=None):
        """The current block (inside an iterate() body) into `tensor`: at its place in the C
        view (row pitch org N), or densely (row pitch base_n) with en_sequential_write. Without
        a destination (sync=False): into the Matmul's workspace, returned as a GlobalTensor.
        `optional_tensor` (a vector core's UB tensor): the block copied there as well. With
        sync=False the vector core goes on and wait_get_tensor_c() waits for the block."""
        api = "get_tensor_c"
        if self._block is None:
            raise RuntimeError("Matmul.get_tensor_c(): call it inside `with mm.iterate() as "
                               "count:`; outside it there is no current block")
        tensor = ConstExpr.unwrap(tensor)
        en_atomic = _atomic_arg(api, en_atomic)
        sequential = ConstExpr.unwrap(en_sequential_write)
        sync = ConstExpr.unwrap(sync)
        for name, value in (("en_sequential_write", sequential), ("sync", sync)):
            if not isinstance(value, bool):
                raise TypeError(f"Matmul.get_tensor_c(): {name} must be a Python bool")
        if self._block_written:
            raise RuntimeError("Matmul.get_tensor_c(): the block was delivered already")
        returned = None
        if tensor is None:
            if sync:
                raise ValueError("get_tensor_c() without a destination is the asynchronous "
                                 "form: pass sync=False")
            count = self._block[0] if self._client is not None else self._count
            base = to_value(self._get("base_m"), _I32) * to_value(self._get("base_n"), _I32)
            offset = to_value(count * base * self.c_type.dtype.sizeof(), _GM_ADDR)
            returned = GlobalTensor._make(to_value(self._user_workspace(api), _GM_ADDR) + offset,
                                          self.c_type.dtype, None)
            tensor, sequential = returned, True
        optional_tensor = ConstExpr.unwrap(optional_tensor)
        if optional_tensor is not None and (self._client is None or
                                            not isinstance(optional_tensor, LocalTensor)):
            raise NotSupportedError("asc.adv.Matmul.get_tensor_c(optional_tensor=...) outside "
                                    "a vector core (the copy of the block into its UB)")
        if self._client is not None:
            self._client_deliver(tensor, en_atomic, sequential, sync, optional_tensor)
            self._block_written = True
            return returned
        self._check_c(api, tensor)
        c_l0, m0, n0, m, n = self._block
        ops.atomic_on(self.c_type.dtype, en_atomic)
        if sequential:
            self._write(c_l0, tensor, m, n, to_value(self._get("base_n"), _I32), n0)
        else:
            pitch = to_value(self._get("org_n"), _I32)
            self._write(c_l0, tensor[m0 * pitch + n0:], m, n, pitch, n0)
        ops.atomic_off(en_atomic)
        self._block_written = True
        return returned

    def async_get_tensor_c(self, c) -> None:
        """get_tensor_c(c, sync=False)."""
        self.get_tensor_c(c, sync=False)

    def wait_get_tensor_c(self) -> None:
        """After get_tensor_c(..., sync=False) of a vector core: wait for the block (and bring
        a UB destination's copy in). On the cube core the block is written already."""
        pending = getattr(self, "_pending_c", None)
        if pending is not None:
            self._pending_c = None
            self._client.wait(0)
            self._client_fetch(*pending)

    def end(self) -> None:
        """Release the Matmul's resources (its buffers stay the pipe's); a vector core tells its
        server (END)."""
        if self._client is not None:
            from asc.language.adv import kfc
            self._client.post(kfc.END, 0, self._request())
        self._ended = True


class _IterateLoop:
    """The runtime loop of `with mm.iterate() as count:` (Ascend C's `while (mm.Iterate())`):
    each pass computes the next base block into L0C, then runs the body."""

    def __init__(self, mm: Matmul):
        self.mm = mm
        self._loop = None

    def __enter__(self):
        mm = self.mm
        m_iter, n_iter = mm._blocks()
        client = mm._client
        if client is None:
            mm._begin()
        else:
            mm._copy_ub_operands()  # once: every block's request reads the same mirrors
        self._loop = _runtime_loop(m_iter * n_iter, carry=True)
        count = self._loop.__enter__()
        if client is None:
            mm._block = mm._compute(count, m_iter, n_iter)
            mm._count = count
        else:
            from asc.language.adv import kfc
            last = count == m_iter * n_iter - 1
            client.post(kfc.ITERATE, 0, mm._request(count, mm._flags(last=last)))
            mm._block = (count, last) + block_at(mm, count, m_iter, n_iter)
        mm._block_written = False
        return count

    def __exit__(self, exc_type, exc, tb):
        mm = self.mm
        if exc_type is None and not mm._block_written:
            if mm._client is None:
                inline_library(ops.skip_block, mm._events)
            else:
                from asc.language.adv import kfc
                count, last = mm._block[:2]
                mm._client.post(kfc.GET_TENSOR_C, 0, mm._request(
                    count, mm._flags(last=last, skip=True)))
        mm._block = None
        result = self._loop.__exit__(exc_type, exc, tb)
        if exc_type is None and mm._client is None:
            mm._finish()
        return result


class _runtime_loop:
    """A ForOp 0 .. trips emitted from library code: `with _runtime_loop(n) as i:`. With
    `carry`, the fields of in-place objects (codegen/mutable.py) are loop-carried, as a user's
    loop carries them (the iterate() body is the user's code, and a vector core's ring index
    advances in it); without, the body must leave them as they were (library sequences)."""

    def __init__(self, trips, carry=False):
        self.trips = trips
        self.carry = carry

    def __enter__(self):
        from asc.codegen import mutable
        builder = require_builder("Matmul")
        self._objects = mutable.live_objects()
        self._snapshots = [obj._ir_snapshot() for obj in self._objects]
        self._fields = mutable.carried_fields(self._objects) if self.carry else []
        inits = [to_value(obj._get(name), obj._ir_dtype(name)).id for obj, name in self._fields]
        op = builder.emit("for_op")
        op.lower = to_value(0, _I32).id
        op.upper = to_value(self.trips, _I32).id
        op.step = to_value(1, _I32).id
        op.dtype = _I32.to_ir()
        op.induction = builder.new_value()
        for (obj, name), init in zip(self._fields, inits):
            arg = PlainValue(builder.new_value(), obj._ir_dtype(name))
            op.init.append(init)
            op.iter_args.append(arg.id)
            obj._put(name, arg)
        self._op = op
        self._region = builder.region(op.body)
        self._region.__enter__()
        return PlainValue(op.induction, _I32)

    def __exit__(self, exc_type, exc, tb):
        builder = require_builder("Matmul")
        op = self._op
        if exc_type is None:
            for obj, name in self._fields:
                op.yields.append(to_value(obj._get(name), obj._ir_dtype(name)).id)
        result = self._region.__exit__(exc_type, exc, tb)
        for obj, snapshot in zip(self._objects, self._snapshots):
            obj._ir_restore(snapshot)
        if exc_type is None:
            for obj, name in self._fields:
                value = PlainValue(builder.new_value(), obj._ir_dtype(name))
                op.results.append(value.id)
                obj._put(name, value)
        return result


def _atomic_arg(api, en_atomic):
    value = ConstExpr.unwrap(en_atomic)
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 0 <= value <= 3:
        raise ValueError(f"Matmul.{api}(): en_atomic must be a Python int 0..3 (0 none, 1 add, "
                         f"2 max, 3 min), got {value!r}")
    return int(value)


@overload
def register_matmul(pipe: TPipe, workspace: Union[GlobalAddress, GlobalTensor], matmul: Matmul,
                    tiling: Optional[TCubeTiling] = None) -> None: ...


@overload
def register_matmul(pipe: TPipe, matmul: Matmul, tiling: Optional[TCubeTiling] = None) -> None: ...


def register_matmul(pipe: TPipe, *args, **kwargs) -> None:
    """Binds a Matmul to the pipe and, given a tiling, initialises it (REGIST_MATMUL_OBJ).

    `register_matmul(pipe, workspace, matmul, tiling=None)`, or without the workspace, which
    set_sys_workspace then holds (asc-api.md 6.2). workspace is a uint8 GM buffer (GlobalAddress
    or GlobalTensor) for the messages between the cores. In a mixed kernel (not
    matmul_cube_only, no enable_mix_dual_master) the cube core of each group becomes the
    Matmul's message server from here on and leaves the kernel; the rest of the body runs on
    the vector cores (docs/matmul.md)."""
    from asc.language.fwk.tpipe import TPipe
    api = "register_matmul"
    require_builder(api)
    args = [ConstExpr.unwrap(a) for a in args]
    workspace = kwargs.pop("workspace", None)
    matmul = kwargs.pop("matmul", None)
    tiling = kwargs.pop("tiling", None)
    if kwargs:
        raise TypeError(f"{api}() got unexpected keyword argument(s) {', '.join(kwargs)}")
    if args and not isinstance(args[0], Matmul):
        workspace, args = args[0], args[1:]
    if args:
        matmul, args = args[0], args[1:]
    if args:
        tiling, args = args[0], args[1:]
    if args:
        raise TypeError(f"{api}() takes pipe, workspace, matmul and tiling")
    if not isinstance(pipe, TPipe):
        raise TypeError(f"{api}(): pipe must be an asc.TPipe, got {type(pipe).__name__}")
    if not isinstance(matmul, Matmul):
        raise TypeError(f"{api}(): matmul must be an asc.adv.Matmul, got "
                        f"{type(matmul).__name__}")
    if workspace is not None and not isinstance(workspace, (GlobalAddress, GlobalTensor)):
        raise TypeError(f"{api}(): workspace must be a GlobalAddress (a uint8 GM buffer), got "
                        f"{type(workspace).__name__}")
    builder = require_builder(api)
    options = builder.state.get("compile_options")
    cube_only = bool(getattr(options, "matmul_cube_only", False))
    matmul._pipe = pipe
    matmul._workspace = workspace
    if not (cube_only or matmul.config.enable_mix_dual_master):
        _serve_from_the_cube_core(builder, options, pipe, workspace, matmul)
    if tiling is not None:
        matmul.init(tiling)
    elif matmul._constant:
        matmul._setup_queues()


def _serve_from_the_cube_core(builder, options, pipe, workspace, matmul):
    """A mixed kernel (asc-api.md 6.2): from here on the cube core of each group runs the message
    server and leaves the kernel; the rest of the body runs on the vector cores, whose Matmul
    calls become requests. Emitted as `if is_aic: <server> else: <rest of the kernel>`, the else
    region staying open until the kernel ends, where each vector core quits."""
    from asc._proto import kernel_pb2
    from asc.language.adv import kfc
    from asc.language.basic.sys_var import ascend_is_aic
    from asc.language.basic.system import get_sys_workspace
    explicit = getattr(options, "kernel_type", None)
    if explicit is not None and explicit.value != kernel_pb2.KERNEL_MIX_AIC_1_2:
        raise ValueError(f"register_matmul(): a Matmul served by the cube core needs a "
                         f"MIX_AIC_1_2 kernel, but kernel_type={explicit.name}; use "
                         "matmul_cube_only=True to run it on the cube core alone")
    if builder.depth != 1:
        raise NotSupportedError("register_matmul() inside a runtime if or loop of a mixed "
                                "kernel (the cube core leaves the kernel there to serve)")
    if builder.state.get("matmul_server") is not None:
        raise NotSupportedError("a second asc.adv.Matmul served by the cube core of a mixed "
                                "kernel (one server object per kernel in this build)")
    if workspace is None:
        workspace = get_sys_workspace()
    address = workspace._addr
    builder.kernel.kernel_type = kernel_pb2.KERNEL_MIX_AIC_1_2
    is_aic = to_value(ascend_is_aic(), _BOOL)
    op = builder.emit("if_op")
    op.cond = is_aic.id
    with builder.region(op.then_region):
        server = kfc.Server(matmul, pipe, address, 0)
        server.run()
    builder.state["matmul_server"] = server
    rest = builder.region(op.else_region)
    rest.__enter__()
    matmul._client = kfc.Client(pipe, address)

    def close():
        matmul._client.quit()
        rest.__exit__(None, None, None)

    builder.state.setdefault("kernel_closers", []).append(close)

