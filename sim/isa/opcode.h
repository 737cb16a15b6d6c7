// The instruction set as one table: each opcode's IR op name (for messages), mnemonic (traces,
// cost rows), execution unit and semantic class. Adding an instruction is one row here plus its
// semantics; the decoder, cost table and pipes index this table instead of branching on names.
#pragma once

#include <cstdint>
#include <string_view>

#include "sim/isa/pipe_id.h"

namespace aicore::sim {

// Where an opcode executes.
enum class ExecUnit : uint8_t {
  kScalar,     // on the scalar unit, in program order
  kControl,    // structured control flow walked by the scalar unit
  kPipe,       // issued into a pipe queue (the pipe is resolved per instruction at decode time)
  kFramework,  // a TPipe/TQue/TBufPool library call run by the scalar unit (sim/fwk); it may
               // issue set_flag / wait_flag / barriers into pipes
};

// Semantic family, used to dispatch once per instruction (never per element).
enum class OpClass : uint8_t {
  kConst,
  kScalarBinary,
  kScalarUnary,
  kSysValue,
  kSelect,
  kFor,
  kIf,
  kDataCopy,
  kVecBinary,
  kVecUnary,
  kVecScalar,
  kSetFlag,
  kWaitFlag,
  kPipeBarrier,
  kFramework,
};

// X(enum, ir_op, mnemonic, unit, class)
#define AICORE_OPCODES(X)                                                    \
  X(kConst, "constant", "const", kScalar, kConst)                            \
  X(kScalarBinary, "scalar_binary", "scalar_binary", kScalar, kScalarBinary) \
  X(kScalarUnary, "scalar_unary", "scalar_unary", kScalar, kScalarUnary)     \
  X(kSysValue, "sys_value", "sys_value", kScalar, kSysValue)                 \
  X(kSelect, "select", "select", kScalar, kSelect)                           \
  X(kFor, "for_op", "for", kControl, kFor)                                   \
  X(kIf, "if_op", "if", kControl, kIf)                                       \
  X(kDataCopy, "data_copy", "data_copy", kPipe, kDataCopy)                   \
  X(kVecAdd, "vec_binary", "add", kPipe, kVecBinary)                         \
  X(kVecSub, "vec_binary", "sub", kPipe, kVecBinary)                         \
  X(kVecMul, "vec_binary", "mul", kPipe, kVecBinary)                         \
  X(kVecDiv, "vec_binary", "div", kPipe, kVecBinary)                         \
  X(kVecMax, "vec_binary", "max", kPipe, kVecBinary)                         \
  X(kVecMin, "vec_binary", "min", kPipe, kVecBinary)                         \
  X(kVecAbs, "vec_unary", "abs", kPipe, kVecUnary)                           \
  X(kVecExp, "vec_unary", "exp", kPipe, kVecUnary)                           \
  X(kVecLn, "vec_unary", "ln", kPipe, kVecUnary)                             \
  X(kVecSqrt, "vec_unary", "sqrt", kPipe, kVecUnary)                         \
  X(kVecRelu, "vec_unary", "relu", kPipe, kVecUnary)                         \
  X(kVecAdds, "vec_scalar", "adds", kPipe, kVecScalar)                       \
  X(kVecMuls, "vec_scalar", "muls", kPipe, kVecScalar)                       \
  X(kVecMaxs, "vec_scalar", "maxs", kPipe, kVecScalar)                       \
  X(kVecMins, "vec_scalar", "mins", kPipe, kVecScalar)                       \
  X(kSetFlag, "set_flag", "set_flag", kPipe, kSetFlag)                       \
  X(kWaitFlag, "wait_flag", "wait_flag", kPipe, kWaitFlag)                   \
  X(kPipeBarrier, "pipe_barrier", "pipe_barrier", kPipe, kPipeBarrier)       \
  X(kFramework, "framework", "framework", kFramework, kFramework)

enum class Opcode : uint8_t {
#define AICORE_OPCODE_ENUM(e, ir, mn, unit, cls) e,
  AICORE_OPCODES(AICORE_OPCODE_ENUM)
#undef AICORE_OPCODE_ENUM
};

struct OpcodeInfo {
  std::string_view ir_op;     // the Op.kind oneof field name: "vec_binary"
  std::string_view mnemonic;  // "add"; also the `op` of a VectorCost row for vector opcodes
  ExecUnit unit;
  OpClass op_class;
};

inline constexpr OpcodeInfo kOpcodeTable[] = {
#define AICORE_OPCODE_ROW(e, ir, mn, unit, cls) {ir, mn, ExecUnit::unit, OpClass::cls},
    AICORE_OPCODES(AICORE_OPCODE_ROW)
#undef AICORE_OPCODE_ROW
};
inline constexpr int kNumOpcodes = sizeof(kOpcodeTable) / sizeof(kOpcodeTable[0]);

inline const OpcodeInfo& Info(Opcode op) { return kOpcodeTable[static_cast<int>(op)]; }

// True for opcodes whose time comes from a VectorCost row (config `vector.costs`).
inline bool IsVectorCompute(Opcode op) {
  OpClass c = Info(op).op_class;
  return c == OpClass::kVecBinary || c == OpClass::kVecUnary || c == OpClass::kVecScalar;
}

}  // namespace aicore::sim
