"""The tiling structs of pyasc's advanced API (asc-api.md 6.4): kernel-argument `Struct`s (3.9)
built on the host (asc.lib.host fills TCubeTiling in place through `addressof()`) or inside a
kernel, their fields traced scalars there. Field order and C++ names are CANN's, so the packed
bytes are what a C++ kernel's GET_TILING_DATA reads."""

from asc.language.core.doc_text import fill
from asc.language.core.dtype import KnownTypes as KT
from asc.language.core.struct import Field, Struct

__all__ = ["TCubeTiling", "SoftmaxTiling", "RmsNormTiling", "MatmulApiStaticTiling"]


def _struct(name, summary, pairs, default=0, float_fields=()):
    """A Struct subclass of int32 fields (and the float32 ones named), in this order; its
    docstring is `summary` and the fields."""
    kinds = "float32" if float_fields else ""
    fields = (f"`{name}(**fields)`, each field a keyword (default {default}): "
              + ", ".join(attr for attr, _ in pairs) + ". Every field is an int32"
              + (f" except {', '.join(float_fields)} ({kinds})" if float_fields else "")
              + "; built on the host or in a kernel, where the fields are "
              "traced scalars.")
    namespace = {"__doc__": summary + "\n\n" + fill(fields, 92)}
    for attr, cpp in pairs:
        dtype = KT.float32 if attr in float_fields else KT.int32
        namespace[attr] = Field(dtype, default, name=cpp)
    namespace["__module__"] = __name__
    return type(name, (Struct,), namespace)


_CUBE_HEAD = [
    ("used_core_num", "usedCoreNum"), ("m", "M"), ("n", "N"), ("k_a", "Ka"), ("k_b", "Kb"),
    ("single_core_m", "singleCoreM"), ("single_core_n", "singleCoreN"),
    ("single_core_k", "singleCoreK"), ("base_m", "baseM"), ("base_n", "baseN"),
    ("base_k", "baseK"), ("depth_a1", "depthA1"), ("depth_b1", "depthB1"), ("step_m", "stepM"),
    ("step_n", "stepN"), ("is_bias", "isBias"), ("trans_length", "trans_length"),
    ("iterate_order", "iterateOrder"), ("share_mode", "shareMode"),
    ("share_l1_size", "shareL1Size"), ("share_l0c_size", "shareL0CSize"),
    ("share_ub_size", "shareUbSize")]
_CUBE_BATCH = [("batch_m", "batchM"), ("batch_n", "batchN"), ("single_batch_m", "singleBatchM"),
               ("single_batch_n", "singleBatchN")]
_CUBE_TAIL = [
    ("step_k_a", "stepKa"), ("step_k_b", "stepKb"), ("depth_a_l1_cache_ub", "depthAL1CacheUB"),
    ("depth_b_l1_cache_ub", "depthBL1CacheUB"), ("db_l0a", "dbL0A"), ("db_l0b", "dbL0B"),
    ("db_l0c", "dbL0C"), ("a_layout_info_b", "ALayoutInfoB"), ("a_layout_info_s", "ALayoutInfoS"),
    ("a_layout_info_n", "ALayoutInfoN"), ("a_layout_info_g", "ALayoutInfoG"),
    ("a_layout_info_d", "ALayoutInfoD"), ("b_layout_info_b", "BLayoutInfoB"),
    ("b_layout_info_s", "BLayoutInfoS"), ("b_layout_info_n", "BLayoutInfoN"),
    ("b_layout_info_g", "BLayoutInfoG"), ("b_layout_info_d", "BLayoutInfoD"),
    ("c_layout_info_b", "CLayoutInfoB"), ("c_layout_info_s1", "CLayoutInfoS1"),
    ("c_layout_info_n", "CLayoutInfoN"), ("c_layout_info_g", "CLayoutInfoG"),
    ("c_layout_info_s2", "CLayoutInfoS2"), ("batch_num", "BatchNum")]

# 49 int32 fields, 196 bytes (CANN's optiling struct adds mxTypePara after BatchNum; pyasc's
# stops here, and so does this one: asc-api.md 6.4).
TCubeTiling = _struct("TCubeTiling",
                      "A Matmul's tiling: pyasc's TCubeTiling (asc-api.md 6.4), CANN's fields.",
                      _CUBE_HEAD + _CUBE_BATCH + _CUBE_TAIL)

SoftmaxTiling = _struct("SoftmaxTiling", "The tiling of asc.adv.softmax and softmax_flash_v2 "
                        "(pyasc's SoftmaxTiling, asc-api.md 6.4).", [
    ("src_m", "srcM"), ("src_k", "srcK"), ("src_size", "srcSize"), ("out_max_m", "outMaxM"),
    ("out_max_k", "outMaxK"), ("out_max_size", "outMaxSize"), ("split_m", "splitM"),
    ("split_k", "splitK"), ("split_size", "splitSize"), ("reduce_m", "reduceM"),
    ("reduce_k", "reduceK"), ("reduce_size", "reduceSize"), ("range_m", "rangeM"),
    ("tail_m", "tailM"), ("tail_split_size", "tailSplitSize"),
    ("tail_reduce_size", "tailReduceSize")])

RmsNormTiling = _struct("RmsNormTiling", "The tiling of asc.adv.rmsnorm (pyasc's RmsNormTiling, "
                        "asc-api.md 6.4).", [
    ("b_length", "bLength"), ("s_length", "sLength"), ("h_length", "hLength"),
    ("original_h_length", "originalHLength"), ("reciprocal_of_h_length", "reciprocalOfHLength"),
    ("main_bsh_length", "mainBshLength"), ("main_bs_length", "mainBsLength"),
    ("main_bs_length_align", "mainBsLengthAlign"), ("loop_round", "loopRound"),
    ("input_tail_pos", "inputTailPos"), ("tail_bsh_length", "tailBshLength"),
    ("tail_bs_length", "tailBsLength")], float_fields=("reciprocal_of_h_length",))

# The constant-tiling form: TCubeTiling's fields without the four batch ones, plus mxTypePara,
# every field -1 ("not set"), the C++ name of trans_length being transLength here.
MatmulApiStaticTiling = _struct(
    "MatmulApiStaticTiling",
    "A Matmul config's constant tiling (pyasc's MatmulApiStaticTiling, asc-api.md 6.4); -1: unset.",
    [(a, "transLength" if a == "trans_length" else c) for a, c in _CUBE_HEAD + _CUBE_TAIL]
    + [("mx_type_para", "mxTypePara")], default=-1)
