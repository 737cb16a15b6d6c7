"""Stage 4 of the tiling search (asc.lib.host.search): time a candidate tiling by simulating
one block of it, the Matmul the kernel will run, on one cube core of the current runtime.

The launch is timing-only (docs/timing_only.md: the cycles of the full run, no element math),
unchecked, untraced and outside the kernel launch path (Launcher.run, AICORE_SIM_TRACE,
AICORE_SIM_REPORT), so a user's launches and the tests that patch that path see nothing of it.
A block of at most search.PROBE_MMADS mmads takes some 10-30 ms here. `block_probe` says None
(the rules alone decide) for what this kernel cannot stand for: operands outside GM or not ND,
a bias, input types other than half, float and int8, another SoC than the runtime's, or
AICORE_SIM_TILING_PROBE=0.
"""

import logging
import os
from typing import Dict, Optional, Tuple

import numpy as np

import asc
from asc.lib.host.enums import CubeFormat, DataType, TPosition
from asc.lib.host.search import Probe, Result

__all__ = ["block_probe"]

# host DataType -> (asc dtype, numpy dtype) of the operands the probe kernel takes.
_INPUTS = {DataType.DT_FLOAT16: (asc.float16, np.float16),
           DataType.DT_FLOAT: (asc.float32, np.float32),
           DataType.DT_INT8: (asc.int8, np.int8)}
_OUTPUTS = {DataType.DT_FLOAT: (asc.float32, np.float32),
            DataType.DT_FLOAT16: (asc.float16, np.float16),
            DataType.DT_INT32: (asc.int32, np.int32)}

_log = logging.getLogger("asc.lib.host")

# (problem key, candidate) -> cycles (None: could not simulate), so repeated get_tiling calls simulate each block once.
_cache: Dict[Tuple, Optional[float]] = {}


@asc.jit(matmul_cube_only=True)
def _block_matmul(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress,
                  tiling: asc.adv.TCubeTiling, a_type: asc.ConstExpr, b_type: asc.ConstExpr,
                  c_type: asc.ConstExpr, trans_a: asc.ConstExpr[bool],
                  trans_b: asc.ConstExpr[bool], mode: asc.ConstExpr):
    """One block: the tiling's whole shape by iterate_all on the cube core."""
    if asc.ascend_is_aic():
        pipe = asc.TPipe()
        gm, nd = asc.TPosition.GM, asc.CubeFormat.ND
        mm = asc.adv.Matmul(asc.adv.MatmulType(gm, nd, a_type, trans_a),
                            asc.adv.MatmulType(gm, nd, b_type, trans_b),
                            asc.adv.MatmulType(gm, nd, c_type),
                            matmul_config=asc.adv.get_mm_config(mode))
        asc.adv.register_matmul(pipe, mm, tiling)
        a_gm = asc.GlobalTensor()
        b_gm = asc.GlobalTensor()
        c_gm = asc.GlobalTensor()
        a_gm.set_global_buffer(a)
        b_gm.set_global_buffer(b)
        c_gm.set_global_buffer(c)
        mm.set_tensor_a(a_gm, trans_a)
        mm.set_tensor_b(b_gm, trans_b)
        mm.iterate_all(c_gm)
        mm.end()


def _supported(operand, table) -> bool:
    return (operand.pos == TPosition.GM and operand.fmt == CubeFormat.ND
            and operand.dtype in table)


def block_probe(platform, a, b, c, is_bias: bool, mm_config_type: int,
                n_first: bool) -> Optional[Probe]:
    """A probe for search.solve (Result -> simulated cycles of one block), or None when the
    probe kernel cannot stand for this Matmul (the module comment)."""
    import asc.lib.runtime as rt
    if os.environ.get("AICORE_SIM_TILING_PROBE", "1") == "0" or os.environ.get("DRY_RUN"):
        return None
    if is_bias or not (_supported(a, _INPUTS) and _supported(b, _INPUTS)
                       and _supported(c, _OUTPUTS)):
        return None
    if (a.dtype == DataType.DT_INT8) != (c.dtype == DataType.DT_INT32) or a.dtype != b.dtype:
        return None
    if platform.get_soc_version() != rt.current_platform():
        return None
    mode = asc.MatmulConfigMode.CONFIG_NORM if mm_config_type == 0 else \
        asc.MatmulConfigMode.CONFIG_MDL
    key = (id(rt.get_runtime()), platform.get_soc_version(), a.dtype, b.dtype, c.dtype,
           a.is_trans, b.is_trans, mode, n_first)

    def probe(r: Result) -> Optional[float]:
        entry = key + (r,)
        if entry not in _cache:
            try:
                _cache[entry] = _simulate(r, a, b, c, mode, n_first)
            except Exception as err:  # noqa: BLE001 - the rules decide instead
                # A Matmul the simulator does not build yet (a transposed int8 A) is expected;
                # anything else is ours to fix, and the tiling is still the rules'.
                level = logging.DEBUG if "not supported by aicore-sim" in str(err) else \
                    logging.WARNING
                _log.log(level, "the tiling probe could not simulate %s (%s: %s); the "
                         "rules decide", r, type(err).__name__, str(err).splitlines()[-1:])
                _cache[entry] = None
        return _cache[entry]

    return probe


def _simulate(r: Result, a, b, c, mode, n_first: bool) -> float:
    from asc.runtime.launcher import LaunchOptions, Launcher, convert_arg
    m, n, k = r.single_m, r.single_n, r.single_k
    (a_type, a_np), (b_type, b_np) = _INPUTS[a.dtype], _INPUTS[b.dtype]
    c_type, c_np = _OUTPUTS[c.dtype]
    a_host = np.zeros((k, m) if a.is_trans else (m, k), a_np)
    b_host = np.zeros((n, k) if b.is_trans else (k, n), b_np)
    c_host = np.zeros((m, n), c_np)
    tiling = asc.adv.TCubeTiling(
        used_core_num=1, m=m, n=n, k_a=k, k_b=k, single_core_m=m, single_core_n=n,
        single_core_k=k, base_m=r.base_m, base_n=r.base_n, base_k=r.base_k,
        depth_a1=r.depth_a1, depth_b1=r.depth_b1, step_m=1, step_n=1, step_k_a=r.step_ka,
        step_k_b=r.step_kb, iterate_order=1 if n_first else 0, db_l0a=2, db_l0b=2, db_l0c=1)
    args = (a_host, b_host, c_host, tiling, a_type, b_type, c_type, a.is_trans, b.is_trans,
            mode)
    compiled = _block_matmul.compile(*args)
    host_args = [convert_arg(name, value) for name, value in
                 zip(("a", "b", "c", "tiling"), args[:4])]
    launcher = Launcher(LaunchOptions(core_num=1), check="off", timing_only=True)
    report = launcher._launch(compiled, host_args, timing_only=True, trace=False)
    return float(report.cycles)
