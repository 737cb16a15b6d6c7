// Rearrangement instructions (asc-api.md 4.11, ascendc-semantics.md 5.8-5.10): brcb, gather,
// gatherb, scatter, gather_mask, transpose and trans_data_to_5hd move bytes inside UB without
// arithmetic. The issue stage evaluates every operand into a MoveArgs; the vector pipe runs it
// over UB as it is when the instruction starts and writes an image of dst's span back.
#pragma once

#include <cstdint>
#include <string>

#include "sim/isa/dtype.h"

namespace aicore::sim {

// Values 1..6 are kernel.proto's VecMoveOp.Kind; TRANS_DATA_TO_5HD (7) decodes to 8 and the
// Ext form of TRANSPOSE to 7 (sim/bridge/decode_move.cc, sim/pipe/issue.cc).
enum class MoveKind : uint8_t {
  kBrcb = 1,
  kGather = 2,
  kGatherb = 3,
  kScatter = 4,
  kGatherMask = 5,
  kTranspose = 6,
  kTransposeExt = 7,
  kTransDataTo5hd = 8,
};

// TransposeType values of asc-api.md 3.2 the model implements.
inline constexpr uint8_t kTransposeNd2NdB16 = 10;
inline constexpr uint8_t kTransposeNchw2Nhwc = 11;
inline constexpr uint8_t kTransposeNhwc2Nchw = 12;

// Every address is a byte offset in UB. Strides are in 32-byte blocks.
struct MoveArgs {
  MoveKind kind = MoveKind::kBrcb;
  DType dtype = DType::kInvalid;
  uint64_t dst = 0, src = 0;
  uint64_t index = 0;  // offsets (gather, gatherb, scatter) or the user pattern (gather_mask)
  uint64_t base = 0;   // gather: src_base, scatter: dst_base (bytes)
  uint64_t repeats = 0;
  // Lanes of gather/scatter: counter mode (`count` lanes in all) or the per-iteration mask.
  bool counter = false;
  uint64_t count = 0;
  uint64_t mask_hi = 0, mask_lo = 0;
  uint64_t dst_blk = 1, dst_rep = 8, src_blk = 1, src_rep = 8, index_rep = 0;
  uint8_t pattern = 0;       // gather_mask: built-in pattern 1..7, 0 = the pattern tensor
  bool reduce_mode = false;  // gather_mask: the mask is the element count of each iteration
  uint64_t mask_len = 0;     // gather_mask in reduce mode
  uint16_t n = 0, c = 0, h = 0, w = 0;  // transpose ext
  uint8_t transpose_type = 0;
  bool dst_high = false, src_high = false;  // trans_data_to_5hd, 1-byte types
  uint64_t dst_list[16] = {}, src_list[16] = {};
  // trans_data_to_5hd's third form: the lists are read from these uint64 tensors when it runs.
  bool addr_tensors = false;
  uint64_t dst_addrs = 0, src_addrs = 0;
};

// Where the instruction writes: an image of UB [lo, lo + span) and a byte per byte saying
// whether it was written.
struct MoveTarget {
  uint64_t lo = 0, span = 0;
  uint8_t* image = nullptr;
  uint8_t* written = nullptr;
};

// What the vector pipe hands a rearrangement row's semantics function (VecOperands::move).
struct MoveCall {
  const MoveArgs* args = nullptr;
  const uint8_t* ub = nullptr;  // the core's UB as the instruction starts
  uint64_t ub_bytes = 0;
  MoveTarget target;
  uint64_t kept = 0;  // gather_mask: elements kept
  bool ok = true;
  std::string fault;  // !ok: which address left UB
};

// Runs `a` reading `ub` (ub_bytes long). Returns false with `fault` set when an address falls
// outside UB (the chip faults); `kept` receives gather_mask's count.
bool RunMove(const MoveArgs& a, const uint8_t* ub, uint64_t ub_bytes, const MoveTarget& t,
             uint64_t* kept, std::string* fault);

// Bytes gather_mask reads of its pattern tensor per iteration.
uint64_t GatherMaskPatternBytes(DType t, bool reduce_mode, uint64_t mask_len);

}  // namespace aicore::sim
