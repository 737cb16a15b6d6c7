// An instruction as it sits in a pipe queue: the decoded op plus every operand already evaluated
// by the scalar unit at issue time (SSA values inside loops change on the next iteration, the
// queued instruction must not) and resolved to host pointers into UB/GM.
#pragma once

#include <cstdint>
#include <cstring>

#include "sim/core/cycle.h"
#include "sim/isa/program.h"
#include "sim/isa/semantics/atomic.h"
#include "sim/isa/semantics/movement.h"
#include "sim/mem/l0c_blocks.h"
#include "sim/mem/mem_range.h"
#include "sim/pipe/vector_mask.h"

namespace aicore::sim {

// A strided byte region: `chunks` pieces of `chunk_bytes`, `pitch` bytes apart.
struct Transfer {
  uint8_t* base = nullptr;
  uint64_t chunk_bytes = 0;
  uint64_t pitch = 0;
  uint64_t chunks = 0;

  uint64_t bytes() const { return chunk_bytes * chunks; }
};

// Copies the chunks of `src` back to back into `out`.
inline void Gather(const Transfer& src, uint8_t* out) {
  for (uint64_t c = 0; c < src.chunks; ++c) {
    std::memcpy(out + c * src.chunk_bytes, src.base + c * src.pitch, src.chunk_bytes);
  }
}

// Copies the bytes of `src` whose byte in `written` is nonzero to `dst` (`bytes` of each): a
// masked result landing. Eight bytes at a time where the mask is all set or all clear.
inline void MaskedCopy(uint8_t* dst, const uint8_t* src, const uint8_t* written, uint64_t bytes) {
  uint64_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    uint64_t mask;
    std::memcpy(&mask, written + i, 8);
    if (mask == 0) continue;
    if (mask == 0x0101010101010101ull) {
      std::memcpy(dst + i, src + i, 8);
      continue;
    }
    for (uint64_t j = i; j < i + 8; ++j) {
      if (written[j] != 0) dst[j] = src[j];
    }
  }
  for (; i < bytes; ++i) {
    if (written[i] != 0) dst[i] = src[i];
  }
}

// How a data movement instruction moves its bytes, from the core's route for its source and
// destination memories (sim/soc/core_spec.h): the pipe times GM traffic on the GM side only.
enum class TransferKind : uint8_t {
  kNone = 0,   // not a data movement
  kGmRead,     // GM -> a local memory (MTE2)
  kGmWrite,    // a local memory -> GM (MTE3)
  kLocalCopy,  // between local memories of the core (UB -> UB on PIPE_V)
};

// bilinear_interpolation's steps: v_repeat windows, each summing h_repeat gathered vectors.
struct BilinearShape {
  uint64_t h_repeat = 0, v_repeat = 0;
  uint64_t v_offset_bytes = 0;  // between the windows of vertical steps
  bool per_block = false;       // repeat_mode: 8 scalars per step, one per block
};

// How data_copy_pad lays one GM -> UB block out in UB (ascendc-semantics.md 5.11): `left`
// bytes of the pad value, the block's bytes, `right` bytes of the pad value, then the dummy up
// to the next 32 bytes (the pad value, or the block's first element when left = right = 0).
// UB -> GM copies each chunk's first dst.chunk_bytes bytes.
struct PadLayout {
  bool active = false;
  uint32_t left = 0, right = 0;  // bytes
  uint32_t esize = 0;
  uint64_t fill_bits = 0;  // the pad value in the element type
};

struct IssuedInstr {
  const Instr* instr = nullptr;
  Cycle issue;  // the scalar unit pushed it
  Cycle ready;  // the pipe may start it (issue + issue_cycles)

  Transfer src0, src1, dst;  // data_copy: src0 -> dst; vector: src0 (, src1) -> dst
  uint64_t count = 0;        // elements (vector ops)
  uint64_t bytes = 0;        // bytes moved (copies) or written (vector ops)
  uint64_t bursts = 0;       // contiguous chunks of a copy
  uint64_t scalar_bits = 0;  // vec_scalar operand, converted to the element type
  // Vector mask/repeat form: the lanes and where they live. Its result is written back only
  // where a lane is active (the scratch holds the image of dst's span, then a byte mask).
  bool repeat_form = false;
  VecGeometry geo;
  Transfer sel;  // select: the selection bit mask (bit r * lanes + e for lane e of iteration r);
                 // bilinear_interpolation: src0_offset
  BilinearShape bilinear;
  // mrg_sort / mrg_sort4: the lists (one region of every list of every merge when it repeats),
  // and a register the instruction writes at its end (VMS4_SR), after the image and mask.
  Transfer lists[4];
  Transfer reg;
  Transfer deq;  // cast_deq after set_deq_scale's vector form: DEQSCALE's 16 words in UB
  // Rearrangement: its operands, the core's UB (read when it starts; dst is the image of
  // [move_lo, move_lo + dst.chunk_bytes)) and the register receiving gather_mask's count.
  // Its MoveArgs or CubeArgs: a slot of the core's pool of that family (sim/pipe/payload_pool.h).
  uint32_t payload_slot = 0;
  const uint8_t* move_ub = nullptr;
  uint64_t move_ub_bytes = 0;
  uint64_t move_lo = 0;
  uint64_t* move_kept = nullptr;
  uint64_t sel_addr = 0;     // select mode 2: sel_mask's UB address (what CMPMASK is left holding)
  bool to_cmp_mask = false;  // compare's register form: the bits go to the CMPMASK register
  bool accumulate = false;   // vcadd's accumulate flag: the iterations' total goes to `reg`
  bool from_cmp_mask = false;  // select modes 1, 2: CMPMASK read as it runs (scalar, bits' address)
  uint32_t flag = 0;           // set_flag / wait_flag: FlagFile index
  uint32_t event_id = 0;
  PipeId barrier_pipe = PipeId::kS;
  TransferKind transfer = TransferKind::kNone;  // data movement: from the core's route
  // Addresses for timing: UB offsets (bank groups) or GM device addresses (alignment, L2 lines)
  // of src0, src1 and dst, and the L2 hint of the GM side of a copy.
  uint64_t src0_addr = 0, src1_addr = 0, dst_addr = 0;
  CacheMode gm_cache_mode = CacheMode::kNormal;
  PadLayout pad;  // data_copy_pad
  // A store into GM under an atomic mode: each element lands as op(old, new) in this type.
  DType atomic_type = DType::kInvalid;
  AtomicOp atomic_op = AtomicOp::kSum;
  // mmad / fixpipe with a unit flag: the L0C blocks whose ready bits it waits for (and flips).
  UnitFlagUse unit;
  // Memory touched (sources then destination), for the checkers and auto_sync at issue.
  // mrg_sort: up to four lists, dst and VMS4_SR; compare's register form: CMPMASK. The ranges
  // live with the scalar unit's pending item (IssueSlot) and are read only before the
  // instruction enters its pipe: a queued instruction has none.
  static constexpr uint8_t kMaxRanges = 6;  // sources (select: its bit mask too), then dst
  MemRange* ranges = nullptr;
  uint8_t num_ranges = 0;
};

// An instruction being issued with the storage of its ranges: what the issue stage fills.
struct IssueSlot {
  IssuedInstr issued;
  MemRange ranges[IssuedInstr::kMaxRanges];

  IssueSlot() { issued.ranges = ranges; }
  IssueSlot(const IssueSlot& o) : issued(o.issued) { CopyRanges(o); }
  IssueSlot& operator=(const IssueSlot& o) {
    if (this == &o) return *this;
    issued = o.issued;
    CopyRanges(o);
    return *this;
  }
  ~IssueSlot() = default;

 private:
  void CopyRanges(const IssueSlot& o) {
    std::memcpy(static_cast<void*>(ranges), o.ranges, sizeof(MemRange) * o.issued.num_ranges);
    issued.ranges = ranges;
  }
};

}  // namespace aicore::sim
