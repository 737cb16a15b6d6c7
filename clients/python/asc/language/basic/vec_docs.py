"""What the docstring of each vector instruction says (the API functions vec.py makes from the
simulator's instruction table, asc/_isa.py): per op a one-line summary, what it computes, and how
it rounds; per layout how its call forms read. vec.py joins them with the element types and the
call forms of the row into the function's docstring.

`ISA_NUMERICS` repeats the numerics column of docs/isa.md (generated from
sim/isa/instructions.def); tests/python/test_api_typing.py checks that they agree, so a change of
the simulator's numerics shows up here.
"""
from __future__ import annotations

from typing import Dict, Sequence

from asc.language.core.doc_text import fill

_WIDTH = 92  # docstring lines, as help() shows them

# Layouts whose ops compute values (their docstrings state the rounding); the others move,
# sort or load bits.
VALUE_LAYOUTS = frozenset({"binary", "binary_dst", "unary", "scalar", "scalar_dst", "fill",
                           "cast", "cast_deq", "reduce", "compare", "select", "bilinear",
                           "binary_cast"})

# How float results round: the op computed exactly and rounded once (float16 through float32).
_IEEE = ("float32 results are the exact result rounded to nearest, ties to even (IEEE 754); "
         "float16 operands are widened to float32 exactly, the op is computed in float32 and "
         "rounded once to float16, which for +, -, *, / and sqrt equals the exact result rounded "
         "to nearest-even: float32's 24 significand bits are at least 2 * 11 + 2, which makes the "
         "double rounding innocuous (S. A. Figueroa, \"When is double rounding innocuous?\", "
         "SIGNUM Newsletter 30(3), 1995)")
_WRAP = "integer results wrap modulo 2^16 (int16) or 2^32 (int32), two's complement"
_SCALAR = ("the scalar is first converted to the element type (a Python float rounds to "
           "nearest-even, a Python int or a traced integer wraps; a traced float converted to an "
           "integer type truncates toward zero and saturates)")
_EXACT = "exact (no rounding)"
_TWICE = ("the product is rounded to the element type (nearest-even; float16 through float32), "
          "then the sum is rounded again: two roundings, not a fused multiply-add")

# api -> (summary, what it computes, how it rounds). The summary is the docstring's first line.
OPS: Dict[str, Sequence[str]] = {
    "add": ("Element-wise dst = src0 + src1 on the vector unit (PIPE_V).", "",
            f"{_IEEE}; {_WRAP}."),
    "sub": ("Element-wise dst = src0 - src1 on the vector unit (PIPE_V).", "",
            f"{_IEEE}; {_WRAP}."),
    "mul": ("Element-wise dst = src0 * src1 on the vector unit (PIPE_V).", "",
            f"{_IEEE}; {_WRAP} (the low half of the full product)."),
    "div": ("Element-wise dst = src0 / src1 on the vector unit (PIPE_V).",
            "x / 0 is +-inf and 0 / 0 NaN.",
            f"{_IEEE}. The chip's own error bound for div is not public."),
    "max": ("Element-wise dst = max(src0, src1) on the vector unit (PIPE_V).", "",
            f"{_EXACT}; a NaN operand gives NaN, and -0 counts as less than +0."),
    "min": ("Element-wise dst = min(src0, src1) on the vector unit (PIPE_V).", "",
            f"{_EXACT}; a NaN operand gives NaN, and -0 counts as less than +0."),
    "add_relu": ("Element-wise dst = max(src0 + src1, 0) on the vector unit (PIPE_V).", "",
                 "the sum rounds as add's (nearest-even; float16 through float32), then "
                 "max(., 0) keeps NaN and -0; int16 sums wrap before the relu."),
    "sub_relu": ("Element-wise dst = max(src0 - src1, 0) on the vector unit (PIPE_V).", "",
                 "the difference rounds as sub's (nearest-even; float16 through float32), then "
                 "max(., 0) keeps NaN and -0; int16 differences wrap before the relu."),
    "bitwise_and": ("Element-wise dst = src0 & src1, bit by bit (PIPE_V).", "",
                    f"{_EXACT} (bits)."),
    "bitwise_or": ("Element-wise dst = src0 | src1, bit by bit (PIPE_V).", "",
                   f"{_EXACT} (bits)."),
    "mul_add_dst": ("Element-wise dst = src0 * src1 + dst on the vector unit (PIPE_V).", "",
                    f"{_TWICE}."),
    "fused_mul_add": ("Element-wise dst = src0 * dst + src1 on the vector unit (PIPE_V).", "",
                      f"{_TWICE}."),
    "fused_mul_add_relu": ("Element-wise dst = max(src0 * dst + src1, 0) on the vector unit "
                           "(PIPE_V).", "", f"{_TWICE}; then max(., 0)."),
    "abs": ("Element-wise dst = abs(src) on the vector unit (PIPE_V).", "",
            f"{_EXACT}: the sign bit is cleared (NaN and inf too)."),
    "exp": ("Element-wise dst = e^src on the vector unit (PIPE_V).",
            "exp(-inf) is 0, exp(+inf) is +inf.",
            "computed by the host C library's expf in float32 (not guaranteed to be correctly "
            "rounded); a float16 source is widened exactly and the float32 result rounded once "
            "to float16, nearest-even. The chip's own error bound is not public."),
    "ln": ("Element-wise dst = ln(src), the natural logarithm, on the vector unit (PIPE_V).",
           "ln(+-0) is -inf, ln of a negative number NaN.",
           "computed by the host C library's logf in float32 (not guaranteed to be correctly "
           "rounded); a float16 source is widened exactly and the float32 result rounded once to "
           "float16, nearest-even. The chip's own error bound is not public."),
    "sqrt": ("Element-wise dst = sqrt(src) on the vector unit (PIPE_V).",
             "sqrt of a negative number is NaN.", f"{_IEEE}."),
    "relu": ("Element-wise dst = max(src, 0) on the vector unit (PIPE_V).", "",
             f"{_EXACT}; negative values become +0, NaN and -0 stay."),
    "rsqrt": ("Element-wise dst = 1 / sqrt(src) on the vector unit (PIPE_V).", "",
              "the model returns the correctly rounded value: computed in double and rounded "
              "once to the element type, nearest-even. The chip computes an estimate (within "
              "0.1% for float16, 0.01% for float32) whose bits are not public."),
    "reciprocal": ("Element-wise dst = 1 / src on the vector unit (PIPE_V).", "",
                   "the model returns the correctly rounded value: computed in double and "
                   "rounded once to the element type, nearest-even. The chip computes an "
                   "estimate (within 0.1% for float16, 0.01% for float32) whose bits are not "
                   "public."),
    "bitwise_not": ("Element-wise dst = ~src, bit by bit (PIPE_V).", "", f"{_EXACT} (bits)."),
    "compare": ("Element-wise comparison of src0 and src1 into a bit mask (dst or CMPMASK).",
                "Bit e of dst (LSB first, dst usually uint8) is src0[e] <cmp_mode> src1[e], "
                "cmp_mode an asc.CMPMODE (LT, GT, EQ, LE, GE, NE; int32 takes EQ only). The forms "
                "with dst ignore the mask, as on A2; the register form compare(src0, src1, "
                "cmp_mode, mask, repeat_params) runs one iteration under the mask and writes the "
                "bits into the CMPMASK register (read back by get_cmp_mask, used by select).",
                f"{_EXACT}: IEEE comparisons, except that NE with a NaN operand gives 0."),
    "compare_scalar": ("Element-wise comparison of src0 with a scalar into a bit mask dst.",
                       "Bit e of dst is src0[e] <cmp_mode> src1, src1 a number or traced "
                       "scalar; the mask is ignored, as on A2.",
                       f"{_SCALAR}; then {_EXACT}: IEEE comparisons, except that NE with a NaN "
                       f"operand gives 0."),
    "select": ("Element-wise choice dst = src0 where a selection bit is 1, else src1 or a scalar.",
               "sel_mode (an asc.SelMode) says where the bits come from: VSEL_CMPMASK_SPR loads "
               "sel_mask into CMPMASK (behind a PIPE_V barrier) and every iteration reuses its "
               "first 256 / sizeof bits; VSEL_TENSOR_SCALAR_MODE streams sel_mask against the "
               "scalar src1; VSEL_TENSOR_TENSOR_MODE streams sel_mask against the tensor src1. "
               "The register forms take the bits, the scalar or the bits' UB address from "
               "CMPMASK as set_cmp_mask or compare's register form left it. The vector mask "
               "filters the result.",
               f"{_EXACT}; a scalar src1 is first converted to the element type (nearest-even)."),
    "set_cmp_mask": ("Loads the CMPMASK register from the first 16 bytes of src (PIPE_V).", "",
                     ""),
    "get_cmp_mask": ("Copies the CMPMASK register into the first 16 bytes of dst (PIPE_V).", "",
                     ""),
    "whole_reduce_sum": ("One sum per iteration of src, the iterations' sums dst_rep_stride "
                         "elements apart.",
                         "The sum of iteration r's active lanes goes to dst[r * "
                         "dst_rep_stride].",
                         "a binary tree over adjacent lanes (lanes 0+1, 2+3, ..., then the "
                         "pairs' sums, down to one value), each addition rounded to the element "
                         "type, nearest-even (float16 through float32); inactive lanes add 0; a "
                         "float16 overflow gives inf. Results may differ from a sequential sum."),
    "whole_reduce_max": ("The largest element of each iteration of src, with its lane index.",
                         "order (an asc.ReduceOrder) picks what is stored per iteration: value "
                         "and index, index and value, the value only or the index only; the "
                         "index is the lane within the iteration, stored as an unsigned integer "
                         "of the element's width. dst_rep_stride counts results.",
                         f"{_EXACT}; the lowest lane wins a tie, a NaN lane wins (the first "
                         f"NaN), and -0 counts as less than +0."),
    "whole_reduce_min": ("The smallest element of each iteration of src, with its lane index.",
                         "As whole_reduce_max, for the smallest value.",
                         f"{_EXACT}; the lowest lane wins a tie, a NaN lane wins (the first "
                         f"NaN), and -0 counts as less than +0."),
    "block_reduce_sum": ("Eight sums per iteration of src, one per 32-byte block.",
                         "Iteration r writes 8 results at dst[r * dst_rep_stride * 8].",
                         "a binary tree over each block's adjacent lanes, each addition rounded "
                         "to the element type, nearest-even (float16 through float32); inactive "
                         "lanes add 0; a block without an active lane is not written."),
    "block_reduce_max": ("Eight maxima per iteration of src, one per 32-byte block.",
                         "Iteration r writes 8 results at dst[r * dst_rep_stride * 8].",
                         f"{_EXACT}; NaN wins, -0 counts as less than +0; a block without an "
                         f"active lane is not written."),
    "block_reduce_min": ("Eight minima per iteration of src, one per 32-byte block.",
                         "Iteration r writes 8 results at dst[r * dst_rep_stride * 8].",
                         f"{_EXACT}; NaN wins, -0 counts as less than +0; a block without an "
                         f"active lane is not written."),
    "pair_reduce_sum": ("Sums of adjacent lane pairs of src: half an iteration of results each.",
                        "Result i of iteration r is lane 2i + lane 2i+1; dst_rep_stride counts "
                        "half iterations.",
                        "one addition per pair, rounded to the element type, nearest-even "
                        "(float16 through float32); an inactive lane adds 0; a pair without an "
                        "active lane is not written."),
    "sort32": ("Sorts 32 (score, index) pairs per iteration by score, descending.",
               "src0 holds the scores, src1 the uint32 indices; dst gets 8-byte structures "
               "(score at byte 0, a float16 score's bytes 2-3 written 0, index at byte 4). NaN "
               "sorts above +inf; equal scores keep their input order (the model's choice).",
               ""),
    "mrg_sort": ("Merges up to four lists of sort structures into one, descending by score.",
                 "The lists are an asc.MrgSortSrcList; valid_bit 3, 7 or 15 merges the first 2, "
                 "3 or 4 of them; equal scores come from the lower-numbered list first. With "
                 "is_exhausted_suspension the merge stops when a list runs out, and sorted_num "
                 "(a list or asc.array of 4) receives how many structures each list gave, read "
                 "after a V_S sync.", ""),
    "mrg_sort4": ("Merges up to four lists of region proposals into one, descending by score.",
                  "As mrg_sort over 8-element region proposals (the score is element 4).", ""),
    "rp_sort16": ("Sorts 16 region proposals per iteration by score, descending.",
                  "A proposal is 8 elements: x1, y1, x2, y2, score, label and two reserved; whole "
                  "proposals move.", ""),
    "proposal_concat": ("Writes 16 elements per iteration into one field of 16 region proposals.",
                        "mode_number 0..5 picks the field (x1, y1, x2, y2, score, label); the "
                        "other fields keep their bytes.", ""),
    "proposal_extract": ("Reads one field of 16 region proposals per iteration into 16 elements.",
                         "mode_number 0..5 picks the field (x1, y1, x2, y2, score, label).", ""),
    "adds": ("Element-wise dst = src + scalar on the vector unit (PIPE_V).", "",
             f"{_SCALAR}; then as add: {_IEEE}; {_WRAP}."),
    "muls": ("Element-wise dst = src * scalar on the vector unit (PIPE_V).", "",
             f"{_SCALAR}; then as mul: {_IEEE}; {_WRAP}."),
    "maxs": ("Element-wise dst = max(src, scalar) on the vector unit (PIPE_V).", "",
             f"{_SCALAR}; then {_EXACT}."),
    "mins": ("Element-wise dst = min(src, scalar) on the vector unit (PIPE_V).", "",
             f"{_SCALAR}; then {_EXACT}."),
    "leaky_relu": ("Element-wise dst = src where src >= 0, else src * scalar (PIPE_V).", "",
                   f"{_SCALAR}; the product is rounded once to the element type, nearest-even "
                   f"(float16 through float32); NaN stays NaN."),
    "shift_left": ("Element-wise dst = src << scalar on the vector unit (PIPE_V).", "",
                   f"{_EXACT}; a shift by the bit width or more gives 0."),
    "shift_right": ("Element-wise dst = src >> scalar on the vector unit (PIPE_V).",
                    "Arithmetic for signed, logical for unsigned types.",
                    f"{_EXACT}; a shift by the bit width or more gives 0, or -1 for a negative "
                    f"signed value."),
    "axpy": ("Element-wise dst = src * scalar + dst on the vector unit (PIPE_V).",
             "(src, dst) are float16/float16, float32/float32, or float16/float32: the mixed "
             "form, 64 lanes per iteration.",
             f"{_SCALAR}; {_TWICE}. The mixed form widens src to float32 exactly and rounds in "
             f"float32."),
    "duplicate": ("Fills dst with scalar, converted to dst's element type (PIPE_V).", "",
                  f"{_SCALAR}; the fill itself is exact."),
    "cast": ("Converts src to dst's element type in the given RoundMode (PIPE_V).",
             "round_mode is an asc.RoundMode; the legal (src, dst, mode) triples are "
             "ascendc-semantics.md 5.2's table, an illegal one naming the legal modes. An "
             "iteration holds 256 bytes of the wider of the two types.",
             "one rounding of the exact value in round_mode: CAST_RINT nearest with ties to "
             "even, CAST_NONE the same (exact when the value is representable), CAST_FLOOR "
             "toward -inf, CAST_CEIL toward +inf, CAST_ROUND nearest with ties away from zero, "
             "CAST_TRUNC toward zero, CAST_ODD toward zero with the lowest bit forced to 1 when "
             "inexact. To an integer type: NaN gives 0, infinities and out-of-range values "
             "saturate. To a float type: overflow gives +-inf in the nearest modes and the "
             "largest finite value toward zero. float32 -> float32 rounds to an integral value "
             "and turns -0 into +0. int32 -> float16 ignores the mode: the value times "
             "DEQSCALE's half scale (set_deq_scale), rounded once to float16, saturating."),
    "bilinear_interpolation": ("Bilinear interpolation: gathered blocks of src0 times src1's "
                               "scalars, summed into dst.",
                               "Per vertical step v (v_repeat of them) the window at dst + v * "
                               "v_r_offset elements (8 blocks, dst_blk_stride apart) gets the sum "
                               "over h_repeat horizontal steps of 8 blocks of src0 (at the byte "
                               "offsets of the next 8 src0_offset entries, uint32) times src1's "
                               "scalar (repeat_mode False: one per step; True: one per block). "
                               "shared_tmp_buffer is not used.",
                               "per step the product is rounded to float16 (nearest-even, "
                               "through float32), then added to the running sum and rounded "
                               "again: two roundings a step, the first step starting the sum; "
                               "inactive lanes keep dst."),
    "brcb": ("Broadcasts 8 source elements per iteration, each over one 32-byte block of dst.",
             "Iteration r's elements src0[8r .. 8r+7] each fill one block; the blocks are "
             "repeat_params.dst_blk_stride apart, the iterations dst_rep_stride (32-byte blocks). "
             "The mask is ignored, as on A2.", ""),
    "gather": ("Gathers elements: dst[i] = the element of src at byte src_base + src_offset[i].",
               "src_offset is a uint32 tensor of byte offsets (element-aligned); an address "
               "past UB faults. The mask applies to the mask/repeat forms.", ""),
    "gatherb": ("Gathers 32-byte blocks: block j of iteration r is src0's bytes at offset[8r + j].",
                "offset is a uint32 tensor of byte offsets; dst_blk_stride 0 acts as 1; the mask "
                "is ignored. An address outside UB is an OUT_OF_BOUNDS error at the line.", ""),
    "scatter": ("Scatters elements: the element of dst at byte dst_base + dst_offset[i] = src[i].",
                "gather's inverse (A2 has no scatter instruction; the model runs lanes in "
                "order, so a repeated offset keeps the last lane's element).", ""),
    "gather_mask": ("Packs the elements of src0 a pattern selects densely into dst; returns how "
                    "many.",
                    "src1_pattern is a built-in pattern 1..7 (1 even, 2 odd elements, 3..6 "
                    "element 0..3 of every 4, 7 all) or a bit tensor (uint16 for 2-byte, uint32 "
                    "for 4-byte data). reduce_mode False: 256 bytes an iteration, the mask "
                    "ignored; True: mask elements an iteration. rsvd_cnt, Ascend C's "
                    "out-parameter, is passed by value in pyasc: checked and left as it was. "
                    "Returns the count kept (a uint64 traced scalar, read after PIPE_V).", ""),
    "transpose": ("Transposes one 16x16 of 2-byte elements, or NCHW <-> NHWC with a temp buffer.",
                  "transpose(dst, src): dst[i*16 + j] = src[j*16 + i]. With shared_tmp_buffer "
                  "(uint8) and a TransposeParamsExt: TRANSPOSE_NCHW2NHWC, TRANSPOSE_NHWC2NCHW of "
                  "an n x c x h x w tensor, or TRANSPOSE_ND2ND_B16 of an h x w matrix (multiples "
                  "of 16). The mask is ignored.", ""),
    "trans_data_to_5hd": ("Transposes 16x16 across 16 pairs of UB addresses per iteration.",
                          "dst_list and src_list are 16 LocalTensors, 16 UB byte addresses, or "
                          "two uint64 tensors of 16 addresses each (the address forms move "
                          "2-byte elements). b16: Dj[i] = Si[j]; b8 fills half of every block "
                          "(dst_high_half, src_high_half); b32: D(2r+h)[e] = S(8h+e)[r]. The "
                          "mask is ignored.", ""),
    "mul_cast": ("Element-wise dst = src0 * src1 converted to int8 or uint8 (PIPE_V).",
                 "src0 and src1 are float16.",
                 "the float16 product is rounded once to float16 (nearest-even, through "
                 "float32), then converted as cast with CAST_RINT: nearest-even, saturating, NaN "
                 "to 0."),
    "add_relu_cast": ("Element-wise dst = max(src0 + src1, 0) converted to dst's narrower type.",
                      "(src, dst) is float16 -> int8, float32 -> float16 or int16 -> int8.",
                      "the sum is rounded once to the source type (nearest-even; int16 wraps), "
                      "max(., 0), then converted as cast with CAST_RINT: to int8 nearest-even "
                      "and saturating (NaN to 0), float32 -> float16 nearest-even (overflow to "
                      "inf)."),
    "sub_relu_cast": ("Element-wise dst = max(src0 - src1, 0) converted to dst's narrower type.",
                      "(src, dst) is float16 -> int8, float32 -> float16 or int16 -> int8.",
                      "the difference is rounded once to the source type (nearest-even; int16 "
                      "wraps), max(., 0), then converted as cast with CAST_RINT: to int8 "
                      "nearest-even and saturating (NaN to 0), float32 -> float16 nearest-even "
                      "(overflow to inf)."),
    "add_deq_relu": ("Element-wise dst = max((src0 + src1) * scale, 0): int32 sources, a "
                     "float16 dst.",
                     "scale is DEQSCALE's half scale, loaded by set_deq_scale(scale).",
                     "the int32 sum wraps, is multiplied by the scale exactly and rounded once "
                     "to float16 (nearest-even), overflow saturating to +-65504; then max(., 0) "
                     "(negatives and -0 give +0, NaN stays)."),
    "cast_deq": ("Requantises int16 src to int8 or uint8 by the set_deq_scale quant word(s).",
                 "Each 32-byte block of src fills the high 16 bytes of the same block of dst. "
                 "set_deq_scale(scale, offset, sign_mode) gives one quant word, "
                 "set_deq_scale(vdeq, VdeqInfo) sixteen, lane e taking word e % 16.",
                 "x times the quant word's scale (bits 31..13 read as a float) is rounded to "
                 "nearest-even and clamped to [-256, 255], the 9-bit signed offset is added, and "
                 "the sum clamped to int8 (sign bit 1) or uint8."),
    "copy": ("UB -> UB copy of the lanes the mask enables, iteration by iteration (PIPE_V).",
             "repeat_params is a CopyRepeatParams (block strides within and between iterations, "
             "in 32-byte blocks); b16 and b32 types. In counter mode the count applies to each "
             "of repeat_time iterations.", ""),
}

# The numerics column of docs/isa.md, per op (checked against the file by the tests).
ISA_NUMERICS: Dict[str, str] = {
    "add": "IEEE, one rounding to the element type (half via float); integers wrap",
    "sub": "IEEE, one rounding to the element type (half via float); integers wrap",
    "mul": "IEEE, one rounding to the element type (half via float); integers wrap",
    "div": "IEEE division rounded once (half via float); the chip's ulp error is not public",
    "max": "exact; NaN propagates, -0 < +0",
    "min": "exact; NaN propagates, -0 < +0",
    "add_relu": "the add rounded once, then max(., 0); integers wrap before the relu (model's "
                "choice)",
    "sub_relu": "the sub rounded once, then max(., 0); integers wrap before the relu (model's "
                "choice)",
    "bitwise_and": "exact",
    "bitwise_or": "exact",
    "mul_add_dst": "src0*src1 rounded, then + dst rounded: two roundings in the element type "
                   "(model's choice; chip unconfirmed)",
    "fused_mul_add": "src0*dst rounded, then + src1 rounded: two roundings in the element type "
                     "(model's choice; chip unconfirmed)",
    "fused_mul_add_relu": "as fused_mul_add, then max(., 0)",
    "abs": "exact (sign bit cleared)",
    "exp": "host libm in float, rounded once; the chip's ulp error is not public",
    "ln": "host libm in float, rounded once; the chip's ulp error is not public",
    "sqrt": "IEEE sqrt in float, rounded once",
    "relu": "exact",
    "rsqrt": "chip: estimate within 0.1% (half), 0.01% (float); model: correctly rounded",
    "reciprocal": "chip: estimate within 0.1% (half), 0.01% (float); model: correctly rounded",
    "bitwise_not": "exact",
    "compare": "exact IEEE comparisons; NE with a NaN operand is 0 on A2 ([BOUND]); the mask is "
               "ignored; results packed densely (non-default dst strides unconfirmed, ignored); "
               "the count form is counted and timed as the library issues it: instructions of at "
               "most 252 repeats plus a tail one, even when empty; the register form (one "
               "iteration, mask honoured) writes CMPMASK, inactive and absent lanes as 0 "
               "(model's choice)",
    "compare_scalar": "as compare (the count form split at 252 repeats too), against the scalar "
                      "converted to the element type",
    "select": "exact: a bit picks src0 or src1 (or the scalar); the vector mask filters the "
              "result; mode 0 reuses the CMPMASK register's first 256/sizeof bits every "
              "iteration; modes 1/2 leave CMPMASK holding the scalar / sel_mask's UB address, as "
              "the library's loads do (the address's encoding is the model's choice)",
    "set_cmp_mask": "exact: CMPMASK = the tensor's first 16 bytes",
    "get_cmp_mask": "exact: the tensor's first 16 bytes = CMPMASK",
    "whole_reduce_sum": "binary tree over adjacent lanes (ascendc-semantics.md 5.5), each "
                        "addition rounded to the element type; inactive lanes add 0; half "
                        "overflow gives inf (INF/NAN mode); with the accumulate flag "
                        "(reduce_sum's count form) the iterations' sums are also added into "
                        "ACC_VAL in iteration order, each addition rounded to the element type "
                        "(the order is unconfirmed, 5.5)",
    "whole_reduce_max": "exact; over the active lanes, the first (lowest) lane wins ties and a "
                        "NaN lane wins (the first NaN), -0 < +0 (model's choice: tie-breaking is "
                        "not public); the index is the lane within the iteration, stored as an "
                        "unsigned integer of the element's width",
    "whole_reduce_min": "as whole_reduce_max, the smallest value",
    "block_reduce_sum": "binary tree over each 32-byte block's adjacent lanes, each addition "
                        "rounded to the element type; inactive lanes add 0; a block with no "
                        "active lane is not written (model's choice)",
    "block_reduce_max": "exact, over each block's active lanes; NaN wins, -0 < +0; a block with "
                        "no active lane is not written (model's choice)",
    "block_reduce_min": "as block_reduce_max, the smallest value",
    "pair_reduce_sum": "lanes 2i + 2i+1 added once, rounded to the element type; an inactive lane "
                       "adds 0; a pair with no active lane is not written (model's choice)",
    "sort32": "exact: each iteration sorts 32 (score, uint32 index) pairs by score, descending, "
              "into 8-byte structures (score at byte 0, a half score's bytes 2-3 written 0, "
              "index at byte 4); NaN above +inf; equal scores (-0 == +0) keep their input order "
              "(model's choice; the chip's tie rule is not public)",
    "mrg_sort": "exact: merges 2-4 descending lists of 8-byte structures (valid_bit 3, 7, 15; "
                "lengths 0..4095); equal scores come from the lower-numbered list first, NaN "
                "above +inf (model's choice); exhausted suspension stops when a list runs out; "
                "VMS4_SR gets the counts taken from each list (the last repeat's)",
    "mrg_sort4": "as mrg_sort over region proposals (8 elements, the score at element 4)",
    "rp_sort16": "exact: each iteration sorts 16 region proposals (8 elements: x1 y1 x2 y2 score "
                 "label, 2 reserved) by score, descending, moving whole proposals; ties and NaN "
                 "as sort32",
    "proposal_concat": "exact: each iteration writes 16 consecutive elements into field "
                       "mode_number (0 x1 .. 4 score, 5 label) of 16 proposals; the other fields "
                       "keep their bytes",
    "proposal_extract": "exact: each iteration reads field mode_number of 16 proposals into 16 "
                        "consecutive elements",
    "adds": "IEEE, scalar first converted to the element type; integers wrap",
    "muls": "IEEE, scalar first converted to the element type; integers wrap",
    "maxs": "exact, scalar first converted to the element type",
    "mins": "exact, scalar first converted to the element type",
    "leaky_relu": "x >= 0 ? x : x*scalar, the product rounded once; NaN stays NaN",
    "shift_left": "exact; a shift of the bit width or more gives 0 (model's choice)",
    "shift_right": "arithmetic for signed, logical for unsigned; a shift of the bit width or "
                   "more gives 0 or -1 (model's choice)",
    "axpy": "src*scalar rounded, then + dst rounded (two roundings, model's choice); the mixed "
            "form (half src, float dst and scalar; 64 lanes per iteration, ascendc-semantics.md "
            "5.8c) widens src exactly and rounds in float (model's choice)",
    "duplicate": "exact: the scalar converted to the element type",
    "cast": "one rounding in the given RoundMode; NaN -> 0 and saturation to integers; float -> "
            "float is round-to-integral with -0 -> +0 ([BOUND]); int32 -> float rounds by the "
            "mode (the chip's table shows truncation, unconfirmed); int32 -> half ignores the "
            "mode: x times DEQSCALE's half scale (set_deq_scale), rounded once to half, "
            "saturating (5.2, as add_deq_relu)",
    "bilinear_interpolation": "per horizontal step the gathered half vector times the step's "
                              "scalar rounded to half, then added to the running sum rounded "
                              "(two roundings per step; the first step starts the sum; model's "
                              "choice, chip unconfirmed); inactive lanes keep dst; the tmp buffer "
                              "is not used",
    "brcb": "exact: iteration r's 8 source elements (8r..8r+7) each fill one 32-byte dst block; "
            "no mask (A2 ignores it)",
    "gather": "exact: dst[i] = the element at byte src + src_base + offset[i] (offsets dense, "
              "lane r*lanes+e in iteration r: model's choice); the mask applies (A2 impl); an "
              "address past UB faults, inside UB it reads what is there",
    "gatherb": "exact: block j of iteration r = 32 bytes at src + offset[8r+j]; dst_blk_stride 0 "
               "acts as 1; no mask",
    "scatter": "A2 has no scatter instruction (ascendc-semantics.md 5.8): the model runs "
               "asc-api.md's inverse of gather, lanes in order (a repeated offset keeps the last "
               "lane's element)",
    "gather_mask": "exact: the selected elements packed densely in order; built-in patterns 1..7 "
                   "or a bit tensor; normal mode 256 bytes per iteration (mask ignored), reduce "
                   "mode mask elements per iteration; the count kept goes to the core's RSVD_CNT "
                   "register",
    "transpose": "exact: dst[i*16+j] = src[j*16+i] over one 16x16; Ext: NCHW <-> NHWC of n x c x "
                 "h x w, ND2ND_B16 an h x w matrix transposed (h, w multiples of 16); the tmp "
                 "buffer is not written (model's choice)",
    "trans_data_to_5hd": "exact per ascendc-semantics.md 5.10: b16 Dj[i] = Si[j]; b8 halves by "
                         "dst/src_high_half; b32 D(2r+h)[e] = S(8h+e)[r]; a single repeat is "
                         "already offset by the rep strides; no mask",
    "mul_cast": "f16 product rounded once to half, then converted as cast with CAST_RINT: "
                "nearest-even, saturating, NaN -> 0 (the conversion's mode is the model's "
                "choice)",
    "add_relu_cast": "f16/f32 sum rounded once (int16 wraps), max(., 0), then cast with "
                     "CAST_RINT: to int8 saturating (NaN -> 0), f32 -> f16 nearest-even "
                     "(overflow -> inf); the mode is the model's choice",
    "sub_relu_cast": "as add_relu_cast with src0 - src1",
    "add_deq_relu": "int32 sum wrapping, times DEQSCALE's half scale exactly, rounded once to "
                    "half (nearest-even) with overflow saturating to +-65504, then max(., 0) "
                    "(negatives and -0 give +0, NaN stays); 5.3 publishes no arithmetic: the "
                    "fixpipe DEQF16 golden (4.4) is the model's choice",
    "cast_deq": "int16 times the quant word's scale (bits 31..13 as a float) rounded "
                "nearest-even, clamped to [-256, 255], plus the 9-bit signed offset, clamped to "
                "int8 (sign bit 1) or uint8; the VdeqInfo form takes word e % 16 for lane e; each "
                "32-byte src block fills the high 16 bytes of the same dst block (halfBlock = "
                "true, pyasc's only form); the fixpipe quant golden (4.4) applied here is the "
                "model's choice (5.3 publishes none)",
    "copy": "exact (bits moved); in counter mode the count applies to each iteration (asc-api.md "
            "4.1), past one repeat's lanes too, its blocks at their stride (CANN's softmax "
            "broadcasts rely on it)",
}

# How the call forms of a layout read (after the forms themselves).
_REPEAT = ("The count form runs elements 0..count-1 in counter mode and leaves normal mode with "
           "every lane on, as the library does. A mask/repeat form runs repeat_times iterations "
           "of 256 bytes each; mask is an int (elements 0..mask-1 of every iteration) or "
           "[low_word, high_word] (bit e enables element e); the repeat params' strides count "
           "32-byte blocks (block stride 1 and repeat stride 8: dense); with is_set_mask=False "
           "the mask register is used as set_vector_mask left it. Inactive lanes keep dst.")
LAYOUT_NOTES: Dict[str, str] = {
    "binary": _REPEAT, "binary_dst": _REPEAT, "unary": _REPEAT, "scalar": _REPEAT,
    "scalar_dst": _REPEAT, "cast": _REPEAT, "cast_deq": _REPEAT, "binary_cast": _REPEAT,
    "fill": _REPEAT.replace("the repeat params' strides count", "the strides count"),
    "compare": ("The count form should cover whole 256-byte iterations. mask is an int or "
                "[low_word, high_word]; the strides count 32-byte blocks."),
    "select": ("mask is an int or [low_word, high_word]; the strides count 32-byte blocks; with "
               "is_set_mask=False the mask register is used as set_vector_mask left it."),
    "reduce": ("mask is an int (the first mask lanes) or [low_word, high_word]; the block and "
               "repeat strides of src count 32-byte blocks."),
    "bilinear": "mask is an int (the first mask lanes) or [low_word, high_word].",
    "vector_copy": ("mask is an int (the first mask lanes) or [low_word, high_word]; "
                    "is_set_mask must be a literal True or False."),
}


def docstring(api: str, layout: str, dtypes: Sequence[str], forms: str) -> str:
    """The docstring of one instruction-table row: the summary, the call forms, what the op
    computes, the element types and, for an op that computes values, its numerics."""
    summary, what, rounding = OPS[api]
    paragraphs = []
    body = " ".join(t for t in (what, LAYOUT_NOTES.get(layout, "")) if t)
    if body:
        paragraphs.append(body)
    paragraphs.append("Element types: " + ", ".join(dtypes) + ".")
    numerics = "Numerics: "
    if rounding:
        numerics += rounding[0].upper() + rounding[1:] + " "
    numerics += f"The simulator (docs/isa.md): {ISA_NUMERICS[api]}."
    paragraphs.append(numerics)
    return "\n\n".join([summary, "Call forms:\n" + forms] +
                       [fill(p, _WIDTH) for p in paragraphs])
