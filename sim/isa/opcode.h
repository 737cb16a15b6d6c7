// The instruction table in C++: the Opcode enum and one OpcodeInfo row per opcode, both expanded
// from sim/isa/instructions.def, plus the enums of its columns. The decoder, cost table, issue
// stage and pipes index these rows instead of branching on names.
#pragma once

#include <cstdint>
#include <string_view>

#include "sim/isa/dtype.h"
#include "sim/isa/layout.h"
#include "sim/isa/pipe_id.h"

namespace aicore::sim {

// Where an opcode executes.
enum class ExecUnit : uint8_t {
  kScalar,     // on the scalar unit, in program order
  kControl,    // structured control flow walked by the scalar unit
  kPipe,       // issued into a pipe queue
  kFramework,  // a TPipe/TQue/TBufPool library call run by the scalar unit (sim/fwk); it may
               // issue set_flag / wait_flag / barriers into pipes
  kScalarMem,  // a scalar-unit load or store of one tensor element: in program order, but at
               // global time and seen by flags and checkers as a PIPE_S access
  kDebug,      // printf, dump_tensor, trap, profiling marks: the scalar unit, at global time
  kSync,       // waits on other cores (cross-core flags, GM words): the scalar unit, at global
               // time; it blocks until another core's set or write releases it
};

// How the pipe of a pipe instruction is chosen.
enum class PipeRule : uint8_t {
  kNoPipe,         // runs on the scalar unit
  kV,              // always PIPE_V
  kM,              // always PIPE_M (the cube)
  kByDestination,  // a fill: by its destination memory (L1 on MTE2, L0A/L0B on MTE1)
  kRouted,         // data movement: the core's route for (source memory, destination memory)
  kFromEvent,      // set_flag: the event's source pipe; wait_flag: its destination pipe
  kFromOperand,    // pipe_barrier: the pipe it names
};

// Operand forms an instruction accepts (bit set).
using Forms = uint8_t;
inline constexpr Forms kNoForms = 0;
inline constexpr Forms kCountForm = 1u << 0;       // the first `count` elements, densely
inline constexpr Forms kCopyParamsForm = 1u << 1;  // DataCopyParams: block count, length, strides
inline constexpr Forms kRepeatForm = 1u << 2;      // mask, repeat_times, block/repeat strides

// Element types, as a bit per DType value.
using DTypeSet = uint32_t;
inline constexpr DTypeSet DTypeBit(DType t) { return 1u << static_cast<uint32_t>(t); }
inline constexpr DTypeSet kF16 = DTypeBit(DType::kFloat16);
inline constexpr DTypeSet kF32 = DTypeBit(DType::kFloat32);
inline constexpr DTypeSet kI16 = DTypeBit(DType::kInt16);
inline constexpr DTypeSet kI32 = DTypeBit(DType::kInt32);
inline constexpr DTypeSet kU16 = DTypeBit(DType::kUInt16);
inline constexpr DTypeSet kU32 = DTypeBit(DType::kUInt32);
inline constexpr DTypeSet kBF16 = DTypeBit(DType::kBFloat16);
inline constexpr DTypeSet kFloatTypes = kF16 | kF32;
inline constexpr DTypeSet kArithTypes = kF16 | kF32 | kI16 | kI32;
inline constexpr DTypeSet kB16Ints = kI16 | kU16;
inline constexpr DTypeSet kShiftTypes = kI16 | kU16 | kI32 | kU32;
inline constexpr DTypeSet kCastDstTypes = DTypeBit(DType::kInt8) | DTypeBit(DType::kUInt8) | kI16 |
                                          kI32 | DTypeBit(DType::kInt64) | kF16 | kBF16 | kF32;
inline constexpr DTypeSet kFillTypes = kF16 | kBF16 | kF32 | kI16 | kU16 | kI32 | kU32;
inline constexpr DTypeSet kMoveTypes = kFillTypes;  // 2- and 4-byte elements
inline constexpr DTypeSet kGatherMaskTypes = kF16 | kU16 | kI16 | kF32 | kU32 | kI32;
inline constexpr DTypeSet kB16Types = kF16 | kBF16 | kI16 | kU16;
inline constexpr DTypeSet kB8Types = DTypeBit(DType::kInt8) | DTypeBit(DType::kUInt8);
inline constexpr DTypeSet kI8 = DTypeBit(DType::kInt8);
inline constexpr DTypeSet kU8 = DTypeBit(DType::kUInt8);
// Register moves copy bytes: any element type of 1, 2 or 4 bytes.
inline constexpr DTypeSet kRegisterMoveTypes =
    kI8 | kU8 | kI16 | kU16 | kI32 | kU32 | kF16 | kBF16 | kF32;
inline constexpr DTypeSet kNoTypes = 0;

struct SortOperands;
struct MoveCall;  // sim/isa/semantics/movement.h

// The operands of one vector compute instruction, resolved to host memory by the issue stage.
struct VecOperands {
  DType dtype = DType::kInvalid;
  const uint8_t* src0 = nullptr;
  const uint8_t* src1 = nullptr;    // binary only
  uint8_t* dst = nullptr;           // must not overlap the sources (the pipe writes a scratch copy)
  uint64_t count = 0;               // elements
  uint64_t scalar_bits = 0;         // vector-scalar: the scalar already converted to `dtype`
  const uint8_t* dst_in = nullptr;  // rows that read dst (kVecBinaryDst, kVecScalarDst): old dst
  DType src_dtype = DType::kInvalid;   // kVecCast, kVecBinCast, axpy: the source's element type
                                       // (dtype is dst's)
  uint8_t round_mode = 0;              // kVecCast: RoundMode; kVecCompare: CMPMODE; select: SelMode
  const uint8_t* select = nullptr;     // kVecSelect: one byte per element, nonzero picks src0
  const uint8_t* active = nullptr;     // kVecReduce: one byte per lane, nonzero if the mask enables
                                       // it (nullptr: every lane); round_mode is the ReduceOrder
  const SortOperands* sort = nullptr;  // kVecMrgSort: the lists of one merge
  MoveCall* move = nullptr;            // kVecMove: what to move and where (semantics/movement.h)
  const uint64_t* deq = nullptr;       // cast_deq, vector mode: DEQSCALE's 16 quant words
};

// One merge of up to four sorted lists (semantics/sort.cc): `count` of VecOperands is unused,
// dst receives the merged elements.
struct SortOperands {
  int lists = 0;  // lists merged: 2 to 4 (the valid bits); an empty one still takes part
  const uint8_t* list[4] = {nullptr, nullptr, nullptr, nullptr};
  uint64_t length[4] = {0, 0, 0, 0};  // elements of each list
  bool exhausted_suspension = false;  // stop when any valid list runs out
  uint64_t* taken = nullptr;          // out: elements taken from each list (4 entries)
};
// Element semantics of one vector instruction over whole operands: dispatches once on the dtype,
// then runs a tight loop (no per-element virtual calls). Only called for dtypes in the row's set.
using VecSemantics = void (*)(const VecOperands&);

// The semantics functions the table names, declared from its rows.
#define AICORE_OP(e, mn, ir, kind, unit, pipe, shape, forms)
#define AICORE_VECTOR_OP(e, mn, ir, kind, shape, forms, dtypes, fn, cost, numerics) \
  void fn(const VecOperands& ops);
#include "sim/isa/instructions.def"

enum class Opcode : uint8_t {
#define AICORE_OP(e, mn, ir, kind, unit, pipe, shape, forms) e,
#define AICORE_VECTOR_OP(e, mn, ir, kind, shape, forms, dtypes, fn, cost, numerics) e,
#include "sim/isa/instructions.def"
};

struct OpcodeInfo {
  Opcode opcode;
  std::string_view mnemonic;  // "add"
  std::string_view ir_op;     // the Op.kind oneof field name: "vec_binary"
  int ir_kind;                // the value of that op's Kind enum, 0 if it has none
  ExecUnit unit;
  PipeRule pipe;
  OpClass op_class;
  Forms forms;
  DTypeSet dtypes;            // vector compute: accepted element types
  VecSemantics semantics;     // vector compute: the element function; nullptr otherwise
  std::string_view cost;      // vector compute: the config's vector.costs row; "" otherwise
  std::string_view numerics;  // vector compute: how the result is rounded, the model's choices
};

inline constexpr OpcodeInfo kOpcodeTable[] = {
// clang-format off
#define AICORE_OP(e, mn, ir, kind, unit, pipe, shape, forms) \
  {Opcode::e, mn, ir, kind, ExecUnit::unit, PipeRule::pipe, OpClass::shape, forms, kNoTypes, \
   nullptr, "", ""},
#define AICORE_VECTOR_OP(e, mn, ir, kind, shape, forms, dtypes, fn, cost, numerics) \
  {Opcode::e, mn, ir, kind, ExecUnit::kPipe, PipeRule::kV, OpClass::shape, forms, dtypes, &(fn), \
   cost, numerics},
// clang-format on
#include "sim/isa/instructions.def"
};
inline constexpr int kNumOpcodes = sizeof(kOpcodeTable) / sizeof(kOpcodeTable[0]);

// Opcodes registered at run time follow the table's rows (RegisterInstruction).
const OpcodeInfo& ExtraOpcode(int index);
inline const OpcodeInfo& Info(Opcode op) {
  int i = static_cast<int>(op);
  return i < kNumOpcodes ? kOpcodeTable[i] : ExtraOpcode(i);
}

// Adds an instruction of a new operand layout at run time, after the tables' rows: `row` and
// `layout` as a row of instructions.def and of layouts.def would give them (their opcode and id
// are assigned here). For tests and plug-ins that add a layout without a proto message: the
// decoder never produces it, a Program built by hand may use it, and the stages find its
// functions where they were registered (sim/pipe/layout_functions.h). Register before any launch.
struct RegisteredInstruction {
  Opcode opcode;
  OpClass op_class;
};
RegisteredInstruction RegisterInstruction(OpcodeInfo row, LayoutInfo layout);

// Region proposals: 8 elements (x1, y1, x2, y2, score, label, two reserved).
inline constexpr uint64_t kProposalElements = 8;
// Bytes of one element a merge moves: an 8-byte sort structure, or (mrg_sort4) a proposal.
inline uint64_t MergeElementBytes(Opcode op, DType t) {
  return op == Opcode::kVecMrgSort4 ? kProposalElements * DTypeSize(t) : 8;
}

// True for opcodes whose time comes from a VectorCost row (config `vector.costs`).
inline bool IsVectorCompute(Opcode op) { return Info(op).semantics != nullptr; }

// True if the model implements vector opcode `op` for element type `t`.
inline bool VectorOpSupports(Opcode op, DType t) { return (Info(op).dtypes & DTypeBit(t)) != 0; }

// The opcode an IR op of field `ir_op` and Kind value `ir_kind` decodes to; nullptr if the table
// has none (the decoder reports it as an unknown kind).
const OpcodeInfo* FindOpcode(std::string_view ir_op, int ir_kind);

// Where a reduction (kVecReduce) writes: per iteration of `lanes` lanes of `esize` bytes, one
// result per `group` consecutive lanes, `width` elements each (2: a value and its index), the
// results of an iteration dense. Defined with the semantics (semantics/reduce.cc).
struct ReduceLayout {
  uint32_t group = 0;
  uint32_t width = 1;
};
ReduceLayout ReduceLayoutOf(Opcode op, uint8_t order, uint32_t lanes, uint32_t esize);
// pyasc ReduceOrder; the widths above follow it.
inline constexpr uint8_t kNumReduceOrders = 4;

// The dtypes of `set` in the order messages and docs list them (float16, float32, ... int32).
// Writes at most kNumDTypes entries to `out` (may be nullptr) and returns how many.
int ListDTypes(DTypeSet set, DType* out);

}  // namespace aicore::sim
