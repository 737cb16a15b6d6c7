// The registers of one core that instructions read and write beside its memories, one object
// per core built from its core type's row (sim/soc/core_spec.cc): the vector core's mask,
// CMPMASK, store-configuration (pad value, atomic mode, DEQSCALE), special (VMS4_SR, ACC_VAL),
// RSVD_CNT and memory-watch registers; the cube core's control registers. The scalar unit, the
// issue stage and the pipes share the one object.
#pragma once

#include <cstdint>

#include "sim/check/memory_watch.h"
#include "sim/isa/program.h"
#include "sim/isa/scalar_ops.h"
#include "sim/isa/semantics/atomic.h"
#include "sim/pipe/l0c_ready.h"
#include "sim/pipe/vector_mask.h"

namespace aicore::sim {

// The store registers of a core, written by the scalar unit in program order and read by each
// copy at issue: the pad value of data_copy_pad (MOV_PAD_VAL; set_pad_value, or a copy with
// is_pad) and the atomic mode of stores into GM (set_atomic_*; ascendc-semantics.md 5.11, 5.12).
struct StoreRegisters {
  ScalarValue pad_value{};              // converted to each copy's element type
  DType pad_dtype = DType::kInvalid;    // kInvalid: never set (the pad is 0)
  DType atomic_type = DType::kInvalid;  // kInvalid: ATOMIC_NONE, stores overwrite
  AtomicOp atomic_op = AtomicOp::kSum;
  // DEQSCALE: a half scale (low 16 bits), a quant word, or the UB address of 16 quant words.
  uint64_t deq_word = 0;
  DeqMode deq_mode = DeqMode::kUnset;
};

// The cube core's control registers, written by the scalar unit in program order and read by the
// cube's instructions at issue (asc-api.md 4.4; ascendc-semantics.md 3.3, 3.5, 4.2).
struct CubeRegisters {
  uint64_t quant_pre = 0;         // QUANT_PRE (set_fix_pipe_pre_quant_flag): scalar quant word
  bool hf32 = false;              // CTRL[46] (set_hf32_mode): float Mmad inputs rounded to HF32
  bool hf32_toward_zero = false;  // CTRL[47] (set_hf32_trans_mode): 1 rounds toward zero
  bool mm_n_first = false;        // CTRL[51] (set_mm_layout_transform): the cube computes N first
  // The L0C ready bits of the unit flag (3.5): read and flipped by PIPE_M and PIPE_FIX as their
  // instructions start, not at issue.
  L0cReadyBits l0c_ready;
  // LoadData 3D (docs/cube.md "LoadData 3D"). FMATRIX: l1W bits 15..0, l1H 31..16, pad left,
  // right, top, bottom a byte each from bit 32 (the library's Load3DSetFMatrixCal); a V2 load
  // writes it as it issues, a V2Pro load reads it. PADDING: the padded cells' value, its low
  // element bytes used. The boundary in bytes (0: none) and the repeat registers, which start as
  // LoadDataRepeatParam's defaults (the model's choice).
  uint64_t fmatrix = 0;
  uint64_t load_padding = 0;
  uint32_t load_boundary = 0;
  uint32_t load_repeat_time = 1;
  uint32_t load_repeat_stride = 0;
  uint32_t load_repeat_mode = 0;
};

// The special registers PIPE_V writes and the scalar unit reads: byte offsets in MemSpace::kSpr.
inline constexpr uint64_t kVms4SrOffset = 0, kVms4SrBytes = 8;  // four uint16 merge counts
inline constexpr uint64_t kAccValOffset = 8, kAccValBytes = 8;  // vcadd's accumulated total
inline constexpr uint64_t kSprBytes = 16;

// Which registers a core type has (a bit each).
using RegisterSet = uint32_t;
inline constexpr RegisterSet kVectorMaskRegister = 1u << 0;    // set_vector_mask, mask modes
inline constexpr RegisterSet kCmpMaskRegister = 1u << 1;       // CMPMASK
inline constexpr RegisterSet kStoreRegisters = 1u << 2;        // pad value, atomic mode, DEQSCALE
inline constexpr RegisterSet kSpecialRegisters = 1u << 3;      // VMS4_SR, ACC_VAL
inline constexpr RegisterSet kGatherCountRegister = 1u << 4;   // RSVD_CNT
inline constexpr RegisterSet kMemoryWatchRegisters = 1u << 5;  // check_local_memory_ia
inline constexpr RegisterSet kCubeRegisters = 1u << 6;         // QUANT_PRE, HF32, layout

struct CoreRegisters {
  explicit CoreRegisters(RegisterSet registers) : present(registers) {}

  bool Has(RegisterSet r) const { return (present & r) == r; }
  // What a block starts with: the mask in normal mode with every lane on, no pad value, atomics
  // off, DEQSCALE unset, the special registers and RSVD_CNT 0. CMPMASK and the watch keep their
  // contents, as the chip's do between blocks of one core.
  void StartBlock() {
    vector_mask = VectorMask{};
    store = StoreRegisters{};
    cube = CubeRegisters{};
    for (uint8_t& b : spr) b = 0;
    gather_mask_count = 0;
  }

  RegisterSet present;
  VectorMask vector_mask;                // what set_vector_mask and mask-loading instructions left
  StoreRegisters store;                  // read by each copy at issue
  CubeRegisters cube;                    // read by the cube's instructions at issue
  uint8_t spr[kSprBytes] = {};           // VMS4_SR (the last merge's counts) and ACC_VAL
  uint64_t gather_mask_count = 0;        // RSVD_CNT: written by PIPE_V when a gather_mask runs
  uint8_t cmp_mask[kCmpMaskBytes] = {};  // written and read by PIPE_V in pipe order
  MemoryWatch watch;                     // check_local_memory_ia's UB watch registers
};

}  // namespace aicore::sim
