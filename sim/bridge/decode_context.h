// One decode of a kernel IR message: the state every op family's decoder shares (the Program
// being built, SSA definitions and scopes, the op being decoded, declared queues and pools) and
// their member functions, defined by family in sim/bridge/decode_<family>.cc. A new op family
// is a new file plus its declarations here; only sim/bridge sees protobuf.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir_limits.h"
#include "kernel.pb.h"
#include "sim/core/status.h"
#include "sim/isa/program.h"

namespace aicore::sim {

namespace ir = aicore::ir::v1;

// Bounds that keep a hostile message from making the decoder allocate without limit.
inline constexpr uint32_t kMaxValues = 1u << 20;
using aicore::ir::kMaxRegionDepth;  // proto/ir_limits.h

inline DType ToDType(int v) { return static_cast<DType>(v); }
// "DT_FLOAT16", or the number of a value the IR does not define.
std::string IrDTypeName(int v);
// "POS_VECIN", or the number of a value the IR does not define.
std::string PositionName(int v);
// The positions of `memory`, for hints: "POS_VECIN, POS_VECOUT or POS_VECCALC".
std::string PositionsIn(MemSpace memory);

class DecodeContext {
 public:
  explicit DecodeContext(const ir::Kernel& kernel) : k_(kernel), p_(std::make_shared<Program>()) {}

  // Decodes the whole kernel; the Program is complete only when this returns ok.
  StatusOr<std::shared_ptr<const Program>> Run();

 private:
  struct OpContext {
    uint32_t index = 0;
    std::string kind;
    std::string where;  // " at add.py:34" or ""
  };

  // ---- decode_context.cc ---------------------------------------------------------------
  // "kernel K: field F: reason" / "op N (kind) at file:line: field F: reason".
  Status KernelError(const std::string& field, const std::string& reason) const;
  Status OpError(const std::string& field, const std::string& reason) const;
  Status CheckId(uint32_t id, const std::string& field) const;

  // Errors raised outside any op (params) read as kernel errors.
  Status Fail(const std::string& field, const std::string& reason) const;
  // SSA: an id is defined once, before use, and visible only in its region and those nested in
  // it (MLIR's rules).
  Status Define(uint32_t id, DType t, const std::string& field);
  Status Use(uint32_t id, const std::string& field, DType* t) const;
  Status UseTyped(uint32_t id, const std::string& field, DType want) const;
  Status UseInteger(uint32_t id, const std::string& field) const;
  Status UseOptionalInteger(uint32_t id, const std::string& field) const;
  int32_t EnterScope();
  void LeaveScope();
  uint32_t NewRegion();
  SlotSpan AddSlots(const google::protobuf::RepeatedField<uint32_t>& ids);
  Status CheckDType(int v, const std::string& field) const;

  // A tensor operand in GM or UB with a consistent position, a real element type and integer
  // address/count values.
  Status DecodeTensor(const ir::TensorRef& t, const std::string& name, bool ub_only,
                      TensorOperand* out);
  std::string DeclWhere(const ir::SourceLoc& loc) const;
  // decode_framework.cc: the kernel's compile-time LocalTensors, for the launch's bound check.
  Status DecodeStaticTensors();

  // The kernel's cores (its kernel type's group row) have memory `m`.
  bool KernelHasMemory(MemSpace m) const;
  // A framework position's memory is on the kernel's cores.
  Status CheckMemoryOnCore(MemSpace m, int pos, const std::string& field) const;
  // `what` (an instruction) moves data from `src` to `dst` on a route of the kernel's cores: ok,
  // or an error at `field` naming the paths the cores have.
  Status CheckRoute(MemSpace src, MemSpace dst, const std::string& what,
                    const std::string& field) const;
  // A flag operand: the SSA id of a bool or an integer, or 0 (false).
  Status UseOptionalFlag(uint32_t id, const std::string& field) const;
  Status CheckEventOnCore(uint32_t event, const std::string& field) const;

  // ---- decoder.cc ----------------------------------------------------------------------
  Status DecodeKernel();

  // Decodes `region` into p_->regions[index]; the caller has entered its scope.
  Status DecodeRegion(const ir::Region& region, uint32_t index, uint32_t depth);
  Status DecodeOp(const ir::Op& op, Instr* in, uint32_t depth);
  Status DecodeLoc(const ir::SourceLoc& loc, Instr* in);
  Status DecodeOpBody(const ir::Op& op, Instr* in);
  // The decoders of the layout table's IR messages (sim/isa/layouts.def), each in its family's
  // file; control flow reads the depth of the region being decoded from region_depth_.
#define AICORE_IR_MESSAGE(ir_case, field, message, decode) \
  Status decode(const ir::message& m, Instr* in);
#include "sim/isa/layouts.def"

  // ---- decode_scalar.cc ----------------------------------------------------------------

  // ---- decode_scalar_access.cc ---------------------------------------------------------
  // The tensor and index shared by loads and stores: into `out`, in->a and in->dtype.
  Status DecodeScalarAccess(const ir::TensorRef& tensor, const std::string& name, uint32_t index,
                            Instr* in, TensorOperand* out);

  // ---- decode_control.cc ---------------------------------------------------------------

  // ---- decode_data_copy.cc -------------------------------------------------------------
  Status DecodePadForm(const ir::DataCopyOp& c, MemOpInfo* m, Instr* in);

  // ---- decode_vector.cc ----------------------------------------------------------------
  Status CheckVectorDType(Opcode op, DType t);
  Status SameDType(const TensorOperand& dst, const TensorOperand& src, const std::string& name);
  Status FinishVector(Opcode op, MemOpInfo& m, uint32_t count, Instr* in);
  // The decoded PIPE_V instruction `op` of element type `dtype`, its operands appended to mem_ops.
  Status AddVectorInstr(Opcode op, DType dtype, const MemOpInfo& m, Instr* in);
  // The mask/repeat form: its slots into `m` (`operands` strides: dst, src0[, src1]).
  Status DecodeRepeat(Opcode op, const ir::VecRepeat& r, int operands, MemOpInfo* m);
  Status DecodeCastDeq(const ir::VecCastOp& v, MemOpInfo& m, Instr* in);
  // ---- decode_move.cc ------------------------------------------------------------------

  // The table row of an IR vector op's kind; an error for a kind the table lacks.
  Status VectorOpcode(const char* ir_op, const char* kind_enum, int kind, Opcode* out);

  // ---- decode_sync.cc ------------------------------------------------------------------
  Status DecodeFlag(uint32_t event, uint32_t event_id, bool is_set, Instr* in);

  // ---- decode_framework.cc -------------------------------------------------------------
  Status DecodeFrameworkDecls();

  // Resolves a queue / pool reference; `rule` is the FwkSpec entry (0 none, 1 required,
  // 2 optional). *index is the 1-based index into Program::queues / pools, 0 when absent.
  Status ResolveDeclRef(uint32_t id, uint8_t rule, bool is_pool, const std::string& field,
                        const std::string& kind_name, uint32_t* index) const;

  // ---- decode_cube.cc ------------------------------------------------------------------
  // Appends the cube instruction's tensors and parameters: Instr::aux and MemOpInfo::cube.
  void AddCubeInstr(MemOpInfo& m, const CubeInfo& c, Instr* in);
  // A parameter field: its SSA id (0: absent), its name in messages, the CubeInfo slot it goes
  // to, and whether a bool is allowed besides an integer.
  struct SlotField {
    uint32_t id;
    const char* name;
    uint32_t* slot;
    bool flag = false;
  };
  // Checks every field's value and stores its id in its slot.
  Status UseSlots(std::initializer_list<SlotField> fields) const;

  // ---- decode_debug.cc -----------------------------------------------------------------

  const ir::Kernel& k_;
  std::shared_ptr<Program> p_;
  std::vector<int32_t> def_scope_;  // per id: scope instance that defined it, -1 = undefined
  std::vector<int64_t> def_op_;     // per id: defining op index, -1 = parameter
  std::vector<uint8_t> scope_active_;
  std::vector<int32_t> scope_stack_;
  int32_t current_scope_ = -1;
  uint32_t op_counter_ = 0;
  OpContext op_;
  bool in_op_ = false;
  uint32_t region_depth_ = 0;  // nesting depth of the region the current op is in
  std::unordered_map<uint32_t, uint32_t> queue_index_;  // QueueDecl.id -> index
  std::unordered_map<uint32_t, uint32_t> pool_index_;   // BufPoolDecl.id -> index
};

}  // namespace aicore::sim
