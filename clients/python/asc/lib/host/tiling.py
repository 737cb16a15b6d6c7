"""The Matmul tiling calculators (asc-api.md 7.4): `MatmulApiTiling` (one block),
`MultiCoreMatmulTiling` (a grid of blocks), `BatchMatmulTiling` (one block, batch fields).

The setters record the problem; `get_tiling(tiling)` runs the search (asc.lib.host.search) and
writes a TCubeTiling-layout struct in place at `tiling.addressof()`. Every setter returns 0, or
-1 for a value it cannot take (the state is then unchanged). docs/host_tiling.md describes
every method, the search and what is assumed.
"""
from __future__ import annotations

import ctypes
import logging
from typing import Optional, Tuple

from asc.lib.host import _args
from asc.lib.host.enums import (CubeFormat, DataType, DequantType, MatrixMadType, MatrixTraverse,
                                ScheduleType, TPosition)
from asc.lib.host.params import MatmulConfigParams
from asc.lib.host.platform import CoreMemType, PlatformAscendC, get_ascendc_platform
from asc.lib.host.search import Budget, Problem, TilingError, solve

__all__ = ["MatmulApiTilingBase", "MatmulApiTiling", "MultiCoreMatmulTiling",
           "BatchMatmulTiling", "TCUBE_TILING_FIELDS"]

_log = logging.getLogger("asc.lib.host")

# TCubeTiling's 49 int32 fields in order (asc-api.md 6.4): the layout get_tiling writes.
TCUBE_TILING_FIELDS = (
    "used_core_num", "m", "n", "k_a", "k_b", "single_core_m", "single_core_n", "single_core_k",
    "base_m", "base_n", "base_k", "depth_a1", "depth_b1", "step_m", "step_n", "is_bias",
    "trans_length", "iterate_order", "share_mode", "share_l1_size", "share_l0c_size",
    "share_ub_size", "batch_m", "batch_n", "single_batch_m", "single_batch_n", "step_k_a",
    "step_k_b", "depth_a_l1_cache_ub", "depth_b_l1_cache_ub", "db_l0a", "db_l0b", "db_l0c",
    "a_layout_info_b", "a_layout_info_s", "a_layout_info_n", "a_layout_info_g",
    "a_layout_info_d", "b_layout_info_b", "b_layout_info_s", "b_layout_info_n",
    "b_layout_info_g", "b_layout_info_d", "c_layout_info_b", "c_layout_info_s1",
    "c_layout_info_n", "c_layout_info_g", "c_layout_info_s2", "batch_num")


class _TCubeTilingC(ctypes.Structure):
    _fields_ = [(name, ctypes.c_int32) for name in TCUBE_TILING_FIELDS]


assert ctypes.sizeof(_TCubeTilingC) == 196

# Element sizes in bits of the types each operand may have (CANN's DTYPE_BIT_TAB entries).
_INPUT_BITS = {DataType.DT_FLOAT: 32, DataType.DT_FLOAT16: 16, DataType.DT_BF16: 16,
               DataType.DT_BFLOAT16: 16, DataType.DT_INT8: 8, DataType.DT_INT4: 4}
_C_BITS = {DataType.DT_FLOAT: 32, DataType.DT_FLOAT16: 16, DataType.DT_BF16: 16,
           DataType.DT_BFLOAT16: 16, DataType.DT_INT32: 32, DataType.DT_INT8: 8}
_BIAS_BITS = {DataType.DT_FLOAT: 32, DataType.DT_FLOAT16: 16, DataType.DT_BF16: 16,
              DataType.DT_BFLOAT16: 16, DataType.DT_INT32: 32}
_UB_POSITIONS = (TPosition.VECIN, TPosition.VECOUT, TPosition.VECCALC)


class _Operand:
    """Position, format, dtype and transposition of A, B, C or bias (CANN's MatTilingType;
    default GM, ND, DT_FLOAT, not transposed)."""
    __slots__ = ("pos", "fmt", "dtype", "is_trans")

    def __init__(self):
        self.pos, self.fmt, self.dtype, self.is_trans = (TPosition.GM, CubeFormat.ND,
                                                         DataType.DT_FLOAT, False)


def _sizes(values, names, allow_unset: bool) -> Optional[Tuple[int, ...]]:
    """int32 sizes, each positive (or -1 = not set, when allowed); None if one is not."""
    out = tuple(_args.int32(v, n) for v, n in zip(values, names))
    if all(v > 0 or (allow_unset and v == -1) for v in out):
        return out
    return None


class MatmulApiTilingBase:
    """The methods all three calculators share (pyasc's MatmulApiTilingBase)."""

    _multi_core = False

    def __init__(self, platform: Optional[PlatformAscendC] = None):
        if platform is None:
            platform = get_ascendc_platform()
        if not isinstance(platform, PlatformAscendC):
            raise TypeError(f"{type(self).__name__}(platform): expected a PlatformAscendC (from "
                            f"host.get_ascendc_platform()), got {type(platform).__name__}")
        self._platform = platform
        self._a, self._b, self._c, self._bias_type = _Operand(), _Operand(), _Operand(), _Operand()
        self._shape: Optional[Tuple[int, int, int]] = None
        self._org: Optional[Tuple[int, int, int, int]] = None
        self._is_bias = False
        self._buffer_space = (-1, -1, -1, -1)  # l1, l0c, ub, bt
        self._traverse = MatrixTraverse.FIRSTM
        self._base = [0, 0, 0]  # set_fix_split's values (-1 = choose), then the result
        self._fixed_base = (-1, -1, -1)
        self._split_range = (-1,) * 6
        self._layouts = {"a": (0,) * 5, "b": (0,) * 5, "c": (0,) * 5}
        self._batch_num = 0
        self._batch_set = False
        self._dequant_type = DequantType.SCALAR
        self._double_buffer = (False, False, False, False, True, True)
        self._mad_type = MatrixMadType.NORMAL
        self._sparse = False
        self._config = MatmulConfigParams()
        self._result = None  # search.Result of the last successful get_tiling

    # ---- operand types ----------------------------------------------------------------------

    def _set_type(self, operand: _Operand, bits_of, pos, fmt, data_type, is_trans=False) -> int:
        pos = _args.member(TPosition, pos, "pos")
        fmt = _args.member(CubeFormat, fmt, "type")
        dtype = _args.member(DataType, data_type, "data_type")
        if pos is None or pos == TPosition.MAX or fmt is None or dtype not in bits_of:
            return -1
        operand.pos, operand.fmt, operand.dtype, operand.is_trans = pos, fmt, dtype, bool(is_trans)
        return 0

    def set_a_type(self, pos, type, data_type, is_trans) -> int:
        """A's position, format, dtype (f32, f16, bf16, int8, int4) and transposition."""
        return self._set_type(self._a, _INPUT_BITS, pos, type, data_type, is_trans)

    def set_b_type(self, pos, type, data_type, is_trans) -> int:
        """B's position, format (ND or NZ ...), dtype and transposition."""
        return self._set_type(self._b, _INPUT_BITS, pos, type, data_type, is_trans)

    def set_c_type(self, pos, type, data_type) -> int:
        """C's position (GM, or VECIN/VECOUT/VECCALC = UB), format, dtype."""
        return self._set_type(self._c, _C_BITS, pos, type, data_type)

    def set_bias_type(self, pos, type, data_type) -> int:
        """The bias' position, format, dtype."""
        return self._set_type(self._bias_type, _BIAS_BITS, pos, type, data_type)

    # ---- shape ------------------------------------------------------------------------------

    def set_shape(self, m, n, k) -> int:
        """The problem this tiling covers (elements)."""
        shape = _sizes((m, n, k), ("m", "n", "k"), allow_unset=False)
        if shape is None:
            return -1
        self._shape = shape
        return 0

    _ORG_SIGNATURES = (_args.signature("org_m_in", "org_n_in", "org_k_in"),
                       _args.signature("org_m_in", "org_n_in", "org_ka_in", "org_kb_in"))

    def set_org_shape(self, *args, **kwargs) -> int:
        """set_org_shape(org_m_in, org_n_in, org_k_in) or
        set_org_shape(org_m_in, org_n_in, org_ka_in, org_kb_in): the original sizes (row
        pitches of A, B, C); Ka and Kb may differ."""
        form, bound = _args.bind("set_org_shape", self._ORG_SIGNATURES, args, kwargs)
        values = list(bound.arguments.values())
        if form == 0:
            values.append(values[2])
        org = _sizes(values, ("org_m_in", "org_n_in", "org_ka_in", "org_kb_in"),
                     allow_unset=False)
        if org is None:
            return -1
        self._org = org
        return 0

    def enable_bias(self, is_bias_in=False) -> int:
        """Bias on/off (must match the kernel): TCubeTiling.is_bias."""
        self._is_bias = bool(is_bias_in)
        return 0

    def set_bias(self, is_bias_in=False) -> int:
        """CANN's older name of enable_bias (the examples in pyasc's docstrings call it)."""
        return self.enable_bias(is_bias_in)

    def set_buffer_space(self, l1_size=-1, l0_c_size=-1, ub_size=-1, bt_size=-1) -> int:
        """Bytes of L1, L0C, UB and the bias table the Matmul may use; -1 = the whole buffer.
        More than the SoC has fails."""
        values = (l1_size, l0_c_size, ub_size, bt_size)
        names = ("l1_size", "l0_c_size", "ub_size", "bt_size")
        kinds = (CoreMemType.L1, CoreMemType.L0_C, CoreMemType.UB, CoreMemType.BT)
        space = _sizes(values, names, allow_unset=True)
        if space is None:
            return -1
        for v, kind in zip(space, kinds):
            if v > self._platform.get_core_mem_size(kind):
                return -1
        self._buffer_space = space
        return 0

    def set_traverse(self, traverse) -> int:
        """Order of the base blocks in a block: FIRSTM (iterate_order 0), FIRSTN (1)."""
        traverse = _args.member(MatrixTraverse, traverse, "traverse")
        if traverse is None:
            return -1
        self._traverse = traverse
        return 0

    def set_fix_split(self, base_m_in=-1, base_n_in=-1, base_k_in=-1) -> int:
        """Force base_m/base_n/base_k (-1 = let the search choose); get_base_* answer them at
        once. get_tiling fails when a forced value breaks an alignment or a budget."""
        base = _sizes((base_m_in, base_n_in, base_k_in), ("base_m_in", "base_n_in", "base_k_in"),
                      allow_unset=True)
        if base is None:
            return -1
        self._fixed_base = base
        self._base = list(base)
        return 0

    def set_split_range(self, max_base_m=-1, max_base_n=-1, max_base_k=-1, min_base_m=-1,
                        min_base_n=-1, min_base_k=-1) -> int:
        """Bounds for the search's base sizes (-1 = none); a bound that no legal size meets is
        ignored."""
        values = (max_base_m, max_base_n, max_base_k, min_base_m, min_base_n, min_base_k)
        names = ("max_base_m", "max_base_n", "max_base_k", "min_base_m", "min_base_n",
                 "min_base_k")
        bounds = _sizes(values, names, allow_unset=True)
        if bounds is None or any(0 < lo and 0 < hi < lo for hi, lo in zip(bounds[:3],
                                                                           bounds[3:])):
            return -1
        self._split_range = bounds
        return 0

    # ---- batch ------------------------------------------------------------------------------

    def _set_layout(self, which: str, values, names) -> int:
        layout = tuple(_args.int32(v, n) for v, n in zip(values, names))
        if any(v < 0 for v in layout):
            return -1
        self._layouts[which] = layout
        self._batch_set = True
        return 0

    def set_a_layout(self, b, s, n, g, d) -> int:
        """A's layout axes B, S, N, G, D (a_layout_info_*; BSNGD/SBNGD/BNGS1S2 batch layouts)."""
        return self._set_layout("a", (b, s, n, g, d), "bsngd")

    def set_b_layout(self, b, s, n, g, d) -> int:
        """B's layout axes (b_layout_info_*)."""
        return self._set_layout("b", (b, s, n, g, d), "bsngd")

    def set_c_layout(self, b, s, n, g, d) -> int:
        """C's layout axes (c_layout_info_b, _s1, _n, _g, _s2)."""
        return self._set_layout("c", (b, s, n, g, d), "bsngd")

    def set_batch_num(self, batch) -> int:
        """Batches of a batched Matmul: max(batch_a, batch_b) (TCubeTiling.batch_num)."""
        batch = _args.int32(batch, "batch")
        if batch < 1:
            return -1
        self._batch_num = batch
        self._batch_set = True
        return 0

    def set_batch_info_for_normal(self, batch_a, batch_b, m, n, k) -> int:
        """NORMAL-layout batches: A is batch_a matrices m x k, B batch_b matrices k x n, C
        max(batch_a, batch_b) matrices m x n; the larger count must be a multiple of both."""
        values = _sizes((batch_a, batch_b, m, n, k), ("batch_a", "batch_b", "m", "n", "k"),
                        allow_unset=False)
        if values is None:
            return -1
        batch_a, batch_b, m, n, k = values
        batch = max(batch_a, batch_b)
        if batch % batch_a or batch % batch_b:
            return -1
        self._layouts = {"a": (batch_a, m, 1, 1, k), "b": (batch_b, k, 1, 1, n),
                         "c": (batch, m, 1, 1, n)}
        self._batch_num = batch
        self._batch_set = True
        return 0

    # ---- tuning knobs (recorded; see docs/host_tiling.md for what they change) -------------

    def set_dequant_type(self, dequant_type) -> int:
        """SCALAR (one scale, set_quant_scalar) or TENSOR (per column, set_quant_vector)."""
        dequant_type = _args.member(DequantType, dequant_type, "dequant_type")
        if dequant_type is None:
            return -1
        self._dequant_type = dequant_type
        return 0

    def set_double_buffer(self, a, b, c, bias, trans_nd2nz=True, trans_nz2nd=True) -> int:
        """CANN's internal tuning flags; recorded, the search double-buffers regardless."""
        self._double_buffer = tuple(bool(v) for v in (a, b, c, bias, trans_nd2nz, trans_nz2nd))
        return 0

    def set_mad_type(self, mad_type) -> int:
        """NORMAL or HF32 (same sizes; the kernel's set_hf32 decides the arithmetic). MXMODE
        (MX formats of newer SoCs) fails: the simulated SoCs have no MX mode."""
        mad_type = _args.member(MatrixMadType, mad_type, "mad_type")
        if mad_type is None or mad_type == MatrixMadType.MXMODE:
            return -1
        self._mad_type = mad_type
        return 0

    def set_sparse(self, is_sparce_in=False) -> int:  # sic: pyasc's parameter name
        """Sparse Matmul flag; recorded."""
        self._sparse = bool(is_sparce_in)
        return 0

    _CONFIG_SIGNATURES = (
        _args.signature("mm_config_type", "enable_l1_cache_ub", "schedule_type", "traverse",
                        "en_vec_nd2nz",
                        defaults={"mm_config_type": 1, "enable_l1_cache_ub": False,
                                  "schedule_type": ScheduleType.INNER_PRODUCT,
                                  "traverse": MatrixTraverse.NOSET, "en_vec_nd2nz": False}),
        _args.signature("config_params"))

    def set_matmul_config_params(self, *args, **kwargs) -> None:
        """set_matmul_config_params(mm_config_type=1, enable_l1_cache_ub=False,
        schedule_type=ScheduleType.INNER_PRODUCT, traverse=MatrixTraverse.NOSET,
        en_vec_nd2nz=False) or set_matmul_config_params(config_params: MatmulConfigParams):
        the kernel's MatmulConfig choices. A traverse other than NOSET also sets the order
        (as set_traverse). Returns None."""
        if (len(args) == 1 and not kwargs and isinstance(args[0], MatmulConfigParams)) or \
                (not args and set(kwargs) == {"config_params"}):
            params = args[0] if args else kwargs["config_params"]
            if not isinstance(params, MatmulConfigParams):
                raise TypeError("set_matmul_config_params(config_params): expected a "
                                f"MatmulConfigParams, got {type(params).__name__}")
        else:
            _, bound = _args.bind("set_matmul_config_params", self._CONFIG_SIGNATURES[:1], args,
                                  kwargs)
            params = MatmulConfigParams(**bound.arguments)
        self._config = MatmulConfigParams(params.mm_config_type, params.enable_l1_cache_ub,
                                          params.schedule_type, params.traverse,
                                          params.en_vec_nd2nz)
        if params.traverse != MatrixTraverse.NOSET:
            self._traverse = params.traverse

    # ---- results ----------------------------------------------------------------------------

    def get_base_m(self) -> int:
        """base_m of the last get_tiling (before it: set_fix_split's value, else 0)."""
        return self._base[0]

    def get_base_n(self) -> int:
        return self._base[1]

    def get_base_k(self) -> int:
        return self._base[2]

    def _dim(self) -> int:
        return 1

    def _problem(self) -> Problem:
        shape = self._shape
        if shape is None and self._org is not None:
            shape = self._org[:3]
        if shape is None:
            raise TilingError("no shape: call set_shape (or set_org_shape) first")
        c_bits = _C_BITS[self._c.dtype]
        return Problem(
            m=shape[0], n=shape[1], k=shape[2], a_bits=_INPUT_BITS[self._a.dtype],
            b_bits=_INPUT_BITS[self._b.dtype], c_bytes=max(1, c_bits // 8),
            c_in_ub=self._c.pos in _UB_POSITIONS, bias=self._is_bias,
            multi_core=self._multi_core and not self._batch_set, dim=self._dim(),
            n_first=self._traverse == MatrixTraverse.FIRSTN,
            split_k=self._split_k(), fixed_base=self._fixed_base,
            fixed_single=self._fixed_single(), single_range=self._single_range(),
            align_split=self._align_split(), base_range=self._split_range,
            multi_load=self._config.mm_config_type != 0)

    def _split_k(self) -> bool:
        return False

    def _fixed_single(self) -> Tuple[int, int, int]:
        return (-1, -1, -1)

    def _single_range(self) -> Tuple[int, ...]:
        return (-1,) * 6

    def _align_split(self) -> Tuple[int, int, int]:
        return (-1, -1, -1)

    def _budget(self) -> Budget:
        p = self._platform
        l1, l0c, ub, bt = (v if v > 0 else p.get_core_mem_size(kind) for v, kind in zip(
            self._buffer_space, (CoreMemType.L1, CoreMemType.L0_C, CoreMemType.UB,
                                 CoreMemType.BT)))
        return Budget(l1=l1, l0a=p.get_core_mem_size(CoreMemType.L0_A),
                      l0b=p.get_core_mem_size(CoreMemType.L0_B), l0c=l0c, ub=ub, bt=bt)

    def _probe(self):
        """Stage 4's probe (asc.lib.host.probe: one block simulated per candidate), or None:
        batch mode, or a Matmul the probe kernel cannot stand for."""
        if self._batch_set or isinstance(self, BatchMatmulTiling):
            return None
        from asc.lib.host.probe import block_probe
        return block_probe(self._platform, self._a, self._b, self._c, self._is_bias,
                           self._config.mm_config_type,
                           self._traverse == MatrixTraverse.FIRSTN)

    def _fields(self, r) -> dict:
        """Every TCubeTiling field of result `r`."""
        shape = self._shape or self._org[:3]
        org = self._org or (shape[0], shape[1], shape[2], shape[2])
        batch_one = 1 if (self._batch_set or isinstance(self, BatchMatmulTiling)) else 0
        a, b, c = self._layouts["a"], self._layouts["b"], self._layouts["c"]
        fields = dict(
            used_core_num=r.used_core_num, m=org[0], n=org[1], k_a=org[2], k_b=org[3],
            single_core_m=r.single_m, single_core_n=r.single_n, single_core_k=r.single_k,
            base_m=r.base_m, base_n=r.base_n, base_k=r.base_k, depth_a1=r.depth_a1,
            depth_b1=r.depth_b1, step_m=1, step_n=1, is_bias=int(self._is_bias),
            trans_length=0, iterate_order=1 if self._traverse == MatrixTraverse.FIRSTN else 0,
            share_mode=0, share_l1_size=0, share_l0c_size=0, share_ub_size=0,
            batch_m=batch_one, batch_n=batch_one, single_batch_m=batch_one,
            single_batch_n=batch_one, step_k_a=r.step_ka, step_k_b=r.step_kb,
            depth_a_l1_cache_ub=0,
            depth_b_l1_cache_ub=0, db_l0a=2, db_l0b=2, db_l0c=1, batch_num=self._batch_num)
        for prefix, axes, values in (("a", "bsngd", a), ("b", "bsngd", b),
                                     ("c", ("b", "s1", "n", "g", "s2"), c)):
            for axis, v in zip(axes, values):
                fields[f"{prefix}_layout_info_{axis}"] = v
        return fields

    def get_tiling(self, tiling) -> int:
        """Compute the tiling and write it into `tiling` (an object whose addressof() is the
        address of a TCubeTiling-layout struct, e.g. asc.adv.TCubeTiling()). 0 on success; -1
        when no tiling satisfies the settings, and then nothing is written."""
        self._result = None
        addressof = getattr(tiling, "addressof", None)
        if addressof is None:
            raise TypeError(f"get_tiling(tiling): {type(tiling).__name__} has no addressof(); "
                            "pass an asc.adv.TCubeTiling()")
        sizeof = getattr(tiling, "sizeof", None)
        if callable(sizeof) and sizeof() < ctypes.sizeof(_TCubeTilingC):
            _log.info("MatmulApi Tiling: the struct holds %d bytes, TCubeTiling needs %d",
                      sizeof(), ctypes.sizeof(_TCubeTilingC))
            return -1
        try:
            result = solve(self._problem(), self._budget(), self._probe())
        except TilingError as err:
            _log.info("MatmulApi Tiling: %s failed: %s", type(self).__name__, err)
            return -1
        out = _TCubeTilingC.from_address(int(addressof()))
        for name, value in self._fields(result).items():
            setattr(out, name, value)
        self._result = result
        self._base = [result.base_m, result.base_n, result.base_k]
        return 0


class MatmulApiTiling(MatmulApiTilingBase):
    """Single-block tiling: used_core_num = 1, single_core_m/n/k = the shape."""


class MultiCoreMatmulTiling(MatmulApiTilingBase):
    """Tiling over a grid of up to `set_dim` blocks (m_dim x n_dim, x k_dim with split-K).

    Without set_dim the limit is the SoC's AIC count. With batch info set (set_batch_num,
    set_*_layout, set_batch_info_for_normal) one block covers each whole matrix."""

    _multi_core = True

    def __init__(self, platform: Optional[PlatformAscendC] = None):
        super().__init__(platform)
        self._dim_value = 0
        self._single = (-1, -1, -1)
        self._single_range_value = (-1,) * 6
        self._align = (-1, -1, -1)
        self._split_k_value = False

    def set_dim(self, dim) -> int:
        """Blocks the kernel will be launched on (for a mixed AIC/AIV kernel, AIVs): the grid
        never uses more."""
        dim = _args.int32(dim, "dim")
        if dim < 1:
            return -1
        self._dim_value = dim
        return 0

    def set_single_shape(self, single_m_in=-1, single_n_in=-1, single_k_in=-1) -> int:
        """Force single_core_m/n/k (-1 = choose); a forced single_k < K splits K."""
        single = _sizes((single_m_in, single_n_in, single_k_in),
                        ("single_m_in", "single_n_in", "single_k_in"), allow_unset=True)
        if single is None:
            return -1
        self._single = single
        return 0

    def set_single_range(self, max_m=-1, max_n=-1, max_k=-1, min_m=-1, min_n=-1,
                         min_k=-1) -> int:
        """Bounds for single_core_m/n/k (-1 = none); ignored when no grid meets them."""
        bounds = _sizes((max_m, max_n, max_k, min_m, min_n, min_k),
                        ("max_m", "max_n", "max_k", "min_m", "min_n", "min_k"), allow_unset=True)
        if bounds is None or any(0 < lo and 0 < hi < lo for hi, lo in zip(bounds[:3],
                                                                           bounds[3:])):
            return -1
        self._single_range_value = bounds
        return 0

    def set_align_split(self, align_m, align_n, align_k) -> int:
        """single_core_m/n/k become multiples of these (-1 or 0 = no requirement); a block
        covering a whole axis keeps that axis' size."""
        align = tuple(_args.int32(v, n) for v, n in zip((align_m, align_n, align_k),
                                                        ("align_m", "align_n", "align_k")))
        if any(v < -1 for v in align):
            return -1
        self._align = align
        return 0

    def enable_multi_core_split_k(self, flag) -> None:
        """Allow splitting K across blocks (used_core_num = m_dim * n_dim * k_dim; the kernel
        accumulates the K parts atomically). Returns None."""
        self._split_k_value = bool(flag)

    def get_core_num(self) -> Optional[Tuple[int, int, int]]:
        """(used_core_num, m_dim, n_dim) of the last successful get_tiling, else None."""
        r = self._result
        return None if r is None else (r.used_core_num, r.m_dim, r.n_dim)

    def get_single_shape(self) -> Optional[Tuple[int, int, int]]:
        """(single_core_m, single_core_n, single_core_k) of the last successful get_tiling,
        else None."""
        r = self._result
        return None if r is None else (r.single_m, r.single_n, r.single_k)

    def _dim(self) -> int:
        return self._dim_value or self._platform.get_core_num_aic()

    def _split_k(self) -> bool:
        return self._split_k_value

    def _fixed_single(self) -> Tuple[int, int, int]:
        return self._single

    def _single_range(self) -> Tuple[int, ...]:
        return self._single_range_value

    def _align_split(self) -> Tuple[int, int, int]:
        return self._align


class BatchMatmulTiling(MatmulApiTilingBase):
    """Tiling of a batched Matmul on one block (matmul_tiling::BatchMatmulTiling).

    batch_m = batch_n = single_batch_m = single_batch_n = 1 (one batch per L1 load); the batch
    axes come from set_*_layout."""

    def get_core_num(self) -> Optional[Tuple[int, int, int, int, int]]:
        """(dim, m_dim, n_dim, batch_core_m, batch_core_n) of the last successful get_tiling
        (one block: (1, 1, 1, 1, 1)), else None."""
        r = self._result
        return None if r is None else (r.used_core_num, r.m_dim, r.n_dim, 1, 1)
