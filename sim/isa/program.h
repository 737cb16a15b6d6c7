// The decoded, validated kernel the model executes: plain structs with operands resolved to
// integer value slots (slot = SSA id), regions as vectors of instructions, and side tables for
// the few ops with variable-length operands. Built only by the decoder (sim/bridge);
// immutable after.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/isa/dtype.h"
#include "sim/isa/opcode.h"
#include "sim/isa/pipe_id.h"

namespace aicore::sim {

enum class MemSpace : uint8_t {
  kInvalid = 0,
  kGm = 1,
  kUb = 2,
  kL1 = 3,
  kL0a = 4,
  kL0b = 5,
  kL0c = 6,
  kBt = 7,
  kFb = 8,
  // Not an IR memory: the core's special registers that pipes write and the scalar unit reads
  // (VMS4_SR at offset 0), tracked so the race checker and auto_sync order those accesses.
  kSpr = 9,
  // The vector core's CMPMASK register (16 bytes), a space of its own so that the race checker
  // and auto_sync order its PIPE_V writers and readers like memory.
  kCmpMask = 10,
};
std::string_view MemSpaceName(MemSpace s);  // "GM", "UB", ...

enum class KernelType : uint8_t {
  kAivOnly = 0,
  kAicOnly = 1,
  kMixAivHardSync = 2,
  kMixAicHardSync = 3,
  kMixAiv1_0 = 4,
  kMixAic1_0 = 5,
  kMixAic1_1 = 6,
  kMixAic1_2 = 7,
};

// Sub-kinds keep the IR's enum values so messages and tests can use either.
enum class ScalarBinaryKind : uint8_t {
  kAdd = 1,
  kSub = 2,
  kMul = 3,
  kDiv = 4,
  kMod = 5,
  kMin = 6,
  kMax = 7,
  kAnd = 8,
  kOr = 9,
  kXor = 10,
  kShl = 11,
  kShr = 12,
  kEq = 20,
  kNe = 21,
  kLt = 22,
  kLe = 23,
  kGt = 24,
  kGe = 25,
  kLogicalAnd = 30,
  kLogicalOr = 31,
};
enum class ScalarUnaryKind : uint8_t {
  kNeg = 1,
  kLogicalNot = 2,
  kBitNot = 3,
  kCast = 4,
  kFirstZero = 5,
  kFirstOne = 6,
  kCountZeros = 7,
  kCountOnes = 8,
  kClz = 9,
  kCls = 10,
  kRoundCast = 11,  // Instr.imm.i holds the RoundMode
};
enum class SysValueKind : uint8_t {
  kBlockIdx = 1,
  kBlockNum = 2,
  kSubBlockIdx = 3,
  kSubBlockNum = 4,
  kIsAic = 5,
  kIsAiv = 6,
  kSystemCycle = 7,
  kProgramCounter = 8,
  kUnsetState = 9,
  kTaskRatio = 10,
};

// L2 hint of a GM operand (GlobalTensor.set_l2_cache_hint; proto CacheMode). LAST and
// PERSISTENT only change replacement priority on the chip; the model treats them as NORMAL.
enum class CacheMode : uint8_t { kNormal = 0, kDisable = 1, kLast = 2, kPersistent = 4 };

struct TensorOperand {
  MemSpace space = MemSpace::kInvalid;
  uint8_t position = 0;  // Ascend TPosition value, for traces
  DType dtype = DType::kInvalid;
  uint32_t addr = 0;   // slot of the byte address
  uint32_t count = 0;  // slot of the view's element count, 0 = unknown
  // GM only.
  CacheMode cache_mode = CacheMode::kNormal;
};

// Operands of data_copy and vector instructions.
struct MemOpInfo {
  TensorOperand dst, src0, src1;
  TensorOperand sel;  // select's bit mask; bilinear_interpolation's src0_offset
  // bilinear_interpolation: slots of h_repeat, v_repeat, v_r_offset and repeat_mode
  uint32_t h_repeat = 0, v_repeat = 0, v_offset = 0, repeat_mode = 0;
  bool to_cmp_mask = false;  // compare's register form: the bits go to CMPMASK, not dst
  bool accumulate = false;   // whole_reduce_sum: the iterations' total also goes to ACC_VAL
  bool from_cmp_mask =
      false;           // select modes 1, 2: CMPMASK as it is (the scalar, the bits' address)
  uint32_t count = 0;  // slot; count form
  bool params_form = false;
  uint32_t block_count = 0, block_len = 0, src_stride = 0, dst_stride = 0;  // slots, 0 = zero
  uint32_t scalar = 0;  // slot of vec_scalar's scalar
  // Vector mask/repeat form (proto VecRepeat): slots, 0 = the default.
  bool repeat_form = false;
  uint32_t repeat_times = 0;
  uint32_t mask_len = 0, mask_hi = 0, mask_lo = 0;  // none set: the mask register
  uint32_t blk_stride[3] = {0, 0, 0};               // dst, src0, src1; default 1
  uint32_t rep_stride[3] = {0, 0, 0};               // default 8
  // data_copy_pad (proto DataCopyOp.pad_form): slots, 0 = false / none.
  bool pad_form = false;
  uint32_t is_pad = 0, left_padding = 0, right_padding = 0, padding_value = 0;
  // Sort and proposal ops: mrg_sort's lists 3 and 4 (1 and 2 are src0, src1), their lengths,
  // valid bits and suspension; proposal_concat/extract's field (slots).
  TensorOperand src2, src3;
  uint32_t lengths[4] = {0, 0, 0, 0};
  uint32_t valid_bit = 0;
  bool exhausted_suspension = false;
  uint32_t mode_number = 0;
  uint32_t move = 0;  // rearrangement: index into Program::move_ops + 1
  uint32_t cube = 0;  // cube instructions: index into Program::cube_ops + 1
};

// The parameter structs of the cube instructions (kernel.proto Nd2NzCopyOp, LoadData2DOp,
// MmadOp, FixpipeOp): slots of their fields, 0 = the field's default. Their tensors are the
// MemOpInfo's: dst, src0 (the source; mmad's fm), src1 (mmad's filter), src2 (mmad's bias,
// fixpipe's cbuf_workspace; space kInvalid = none).
struct Nd2NzInfo {
  uint32_t nd_num = 0, n_value = 0, d_value = 0, src_nd_matrix_stride = 0, src_d_value = 0;
  uint32_t dst_nz_c0_stride = 0, dst_nz_n_stride = 0, dst_nz_matrix_stride = 0;
};
struct LoadData2DInfo {
  uint32_t start_index = 0, repeat_times = 0, src_stride = 0, sid = 0, dst_gap = 0;
  uint32_t if_transpose = 0, addr_mode = 0;
};
struct MmadInfo {
  uint32_t m = 0, n = 0, k = 0, is_bias = 0, unit_flag = 0, cmatrix_source = 0;
  uint32_t cmatrix_init_val = 0, k_direction_align = 0;
};
struct FixpipeInfo {
  uint32_t n_size = 0, m_size = 0, src_stride = 0, dst_stride = 0, deq_scalar = 0;
  uint32_t nd_num = 0, src_nd_stride = 0, dst_nd_stride = 0, relu_en = 0, unit_flag = 0;
  uint32_t is_channel_split = 0;
  uint8_t quant_pre = 0;   // kernel.proto FixpipeOp.QuantMode
  bool nz_layout = false;  // FixpipeConfig.cfg_nz(); else row-major (NZ2ND)
};
struct InitConstInfo {
  uint32_t repeat_times = 0, block_num = 0, dst_gap = 0, init_value = 0;
};
struct LoadTransposeInfo {
  uint32_t start_index = 0, repeat_times = 0, src_stride = 0, dst_gap = 0, dst_frac_gap = 0;
  uint32_t addr_mode = 0;
};
// LoadData3DOp's fields (slots, 0 = absent); pad_list holds 4 slots or none.
struct LoadData3DInfo {
  bool pro = false;
  uint32_t pad_list[4] = {};
  uint32_t l1_h = 0, l1_w = 0, channel_size = 0, k_extension = 0, m_extension = 0;
  uint32_t k_start_pt = 0, m_start_pt = 0, stride_w = 0, stride_h = 0, filter_w = 0;
  uint32_t filter_h = 0, dilation_filter_w = 0, dilation_filter_h = 0, en_transpose = 0;
  uint32_t pad_value = 0, filter_size_w = 0, filter_size_h = 0, f_matrix_ctrl = 0;
  uint32_t en_small_k = 0, ext_config = 0, filter_config = 0;
};
struct CubeInfo {
  InitConstInfo init;
  LoadData3DInfo load3d;
  LoadTransposeInfo transpose;
  Nd2NzInfo nd2nz;
  LoadData2DInfo load2d;
  MmadInfo mmad;
  FixpipeInfo fixpipe;
};

// StoreConfigOp kinds; values are the IR's. Instr::a = value / atomic_type, b = atomic_op,
// result and c = the two results of GET_STORE_ATOMIC_CONFIG.
enum class StoreConfigKind : uint8_t {
  kSetPadValue = 1,
  kSetAtomic = 2,
  kSetAtomicType = 3,
  kGetStoreAtomicConfig = 4,
  kSetDeqScale = 5,       // Instr::a = value, b = offset, c = sign mode, imm.i = the DeqMode
  kCheckLocalMemory = 6,  // Instr::a = the watch word (sim/check/memory_watch.h)
  // The cube core's control registers (sim/pipe/core_registers.h CubeRegisters): Instr::a = the
  // new setting.
  kSetFixPipePreQuant = 7,
  kSetHf32Mode = 8,
  kSetHf32TransMode = 9,
  kSetMmLayoutTransform = 10,
  // The LoadData 3D registers: Instr::a = the boundary / the pad value; for the repeat, a =
  // repeat_time, b = repeat_stride, c = repeat_mode.
  kSetLoadDataBoundary = 11,
  kSetLoadDataPaddingValue = 12,
  kSetLoadDataRepeat = 13,
};

// What set_deq_scale loaded into DEQSCALE (the model keeps the form; the consumers read the word).
enum class DeqMode : uint8_t {
  kUnset = 0,
  kHalfScale = 1,  // set_deq_scale(half): int32 -> half deq (cast, add_deq_relu)
  kWord = 2,       // set_deq_scale(scale, offset, sign_mode): one quant word (cast_deq)
  kVector = 3,     // set_deq_scale(vdeq, VdeqInfo): the UB address of 16 quant words
};

// Rearrangement operands beyond MemOpInfo's (kernel.proto VecMoveOp): slots, 0 = absent.
struct MoveInfo {
  TensorOperand offset;                // offsets, gather_mask's pattern, transpose's tmp buffer
  TensorOperand dst_addrs, src_addrs;  // trans_data_to_5hd: uint64 tensors of addresses
  uint32_t base = 0, pattern = 0, result = 0;
  bool reduce_mode = false, dst_high = false, src_high = false;
  uint8_t transpose_type = 0;
  uint32_t n = 0, c = 0, h = 0, w = 0;
  bool lists = false;  // trans_data_to_5hd: addresses in dst_list / src_list
  uint32_t dst_list[16] = {}, src_list[16] = {};
};

// VecMaskOp kinds; values are the IR's.
enum class VecMaskKind : uint8_t {
  kSetMask = 1,
  kSetMaskLength = 2,
  kSetMaskCount = 3,
  kSetMaskNorm = 4,
  kResetMask = 5,
};

struct SlotSpan {
  uint32_t offset = 0;  // into Program::slot_lists
  uint32_t size = 0;
};

struct ForInfo {
  uint32_t lower = 0, upper = 0, step = 0, induction = 0;
  uint32_t body = 0;  // region index
  SlotSpan init, iter_args, yields, results;
};

struct WhileInfo {
  uint32_t body = 0;  // region index
  uint32_t cond = 0;  // slot of the bool the body defines
  SlotSpan init, iter_args, yields, results;
};

struct IfInfo {
  uint32_t cond = 0;
  uint32_t then_region = 0, else_region = 0;
  SlotSpan then_yields, else_yields, results;
};

// Who put a set_flag / wait_flag / pipe_barrier into a pipe (Instr::kind of sync opcodes): the
// program itself, the framework library on its behalf, or auto_sync. Traces show the origin.
enum class SyncOrigin : uint8_t { kProgram = 0, kFramework = 1, kAutoSync = 2 };

struct Instr {
  Opcode opcode = Opcode::kConst;
  DType dtype = DType::kInvalid;      // result type / element type
  DType src_dtype = DType::kInvalid;  // operand type (casts, comparisons, vec_scalar scalar)
  uint8_t kind = 0;  // ScalarBinaryKind / ScalarUnaryKind / SysValueKind / SyncOrigin
  // The pipe of rows whose rule names one (PIPE_V, the event's pipe, the barrier's target);
  // routed copies resolve theirs per core from its routes.
  PipeId pipe = PipeId::kS;
  uint8_t event = 0;      // HardEvent for set_flag / wait_flag
  uint32_t op_index = 0;  // pre-order index of the op in the IR, for messages
  uint32_t file = 0;      // index into Program::files (or kNoFile)
  uint32_t line = 0;
  uint32_t column = 0;
  uint32_t result = 0;           // slot defined by the op, 0 = none
  uint32_t a = 0, b = 0, c = 0;  // scalar operands (lhs/rhs, cond/true/false, event_id)
  uint32_t aux = 0;              // index into mem_ops / fors / ifs / fwk_ops
  union {
    int64_t i;
    double f;
  } imm{0};  // constant value
};

struct Region {
  std::vector<Instr> ops;
};

struct ParamInfo {
  enum class Kind : uint8_t { kScalar, kPointer };
  std::string name;
  Kind kind = Kind::kScalar;
  DType dtype = DType::kInvalid;  // scalar type, or the element type of a pointer
  uint32_t slot = 0;              // pointer params hold a DT_UINT64 byte address
};

// ---- framework library (TPipe, TQue, TBuf, TBufPool; ascendc-semantics.md 8) -----------------

// Kernel.sync: how pipe synchronisation is completed.
struct SyncMode {
  bool auto_sync = false;         // insert the syncs a dependency needs and the program lacks
  bool erase_user_flags = false;  // ignore the program's set_flag/wait_flag (implies auto_sync)
};

// A QueueDecl with everything derived from its positions resolved once.
struct QueueInfo {
  bool is_tbuf = false;
  uint8_t src_position = 0;  // Ascend TPosition values
  uint8_t dst_position = 0;
  uint8_t position = 0;  // where the buffers live: the non-GM end
  MemSpace memory = MemSpace::kInvalid;
  uint32_t depth = 0;
  // HardEvent values of "data ready" (EnQue/DeQue) and "buffer free" (FreeTensor/AllocTensor);
  // unused for a TBuf.
  uint8_t enque_event = 0;
  uint8_t free_event = 0;
  std::string name;   // "inQueueX" (or "queue 3" when the frontend gave none)
  std::string label;  // "TQue inQueueX", "TQueBind q", "TBuf tmp": for messages and traces
  std::string where;  // "add.py:12": where it was declared
};

struct PoolInfo {
  uint8_t position = 0;
  MemSpace memory = MemSpace::kInvalid;
  uint32_t buf_id_size = 0;
  std::string name;
  std::string label;  // "TBufPool pool0"
  std::string where;
};

// A LocalTensor(dtype, pos, addr, tile_size) whose address and size were compile-time constants:
// the launch checks that it lies inside its memory on the platform it runs on.
struct StaticTensorInfo {
  uint8_t position = 0;
  MemSpace memory = MemSpace::kInvalid;
  uint64_t addr = 0;
  uint64_t bytes = 0;
  std::string name;             // "xLocal", or "LocalTensor #2"
  uint32_t file = 0xffffffffu;  // where it was declared: index into Program::files (or kNoFile)
  uint32_t line = 0;
};

// FrameworkOp kinds; values are the IR's.
enum class FwkKind : uint8_t {
  kPipeInit = 1,
  kPipeReset = 2,
  kPipeDestroy = 3,
  kInitBuffer = 4,
  kInitBufPool = 5,
  kPoolInitBuffer = 6,
  kPoolInitBufPool = 7,
  kPoolReset = 8,
  kAllocTensor = 10,
  kEnque = 11,
  kDeque = 12,
  kFreeTensor = 13,
  kTbufGet = 14,
  kVacantInQue = 20,
  kHasTensorInQue = 21,
  kTensorCountInQue = 22,
  kHasIdleBuffer = 23,
  kFreeAllEvent = 24,
  kAllocEventId = 30,
  kFetchEventId = 31,
  kReleaseEventId = 32,
  kGetBaseAddr = 33,
  kStackBuffer = 34,
};
std::string_view FwkKindName(FwkKind k);  // the Python method name: "alloc_tensor"

struct FwkInfo {
  FwkKind kind = FwkKind::kPipeInit;
  uint32_t queue = 0;             // index into Program::queues + 1, 0 = none
  uint32_t pool = 0;              // index into Program::pools + 1, 0 = the TPipe
  uint32_t sub_pool = 0;          // likewise
  uint32_t share_pool = 0;        // likewise, 0 = none
  uint32_t operands[2] = {0, 0};  // slots
  uint32_t result = 0, result2 = 0;
  uint8_t event = 0;                     // HardEvent for *_EVENT_ID
  MemSpace memory = MemSpace::kInvalid;  // GET_BASE_ADDR: the position's memory
};

// ---- debug output (printf, dump_tensor, print_time_stamp; asc-api.md 4.15) ------------------

// ProfMarkOp kinds; values are the IR's.
enum class ProfMarkKind : uint8_t { kMetricsProfStart = 1, kMetricsProfStop = 2, kTimeStamp = 3 };

// A printf format piece (sim/isa/printf_format.h): literal text followed by at most one
// conversion.
struct FormatPiece {
  std::string literal;  // "%%" already reduced to "%"
  char conversion = 0;  // 'd', 'u', 'x', 'f', 'c', 'p' ...; 0: literal only
  std::string spec;     // flags, width and precision: "-08.3" (length modifiers dropped)
};

struct DebugInfo {
  std::vector<FormatPiece> pieces;   // printf: parsed and checked at decode
  SlotSpan args;                     // printf: one slot per conversion
  TensorOperand tensor;              // dump_tensor
  uint32_t desc = 0, dump_size = 0;  // dump_tensor: slots; print_time_stamp: desc = desc_id
  SlotSpan shape;                    // dump_tensor: ShapeInfo dims, may be empty
};

class Program {
 public:
  static constexpr uint32_t kNoFile = 0xffffffffu;

  std::string name;
  KernelType kernel_type = KernelType::kAivOnly;
  std::vector<ParamInfo> params;
  std::vector<std::string> files;
  uint32_t num_values = 0;          // slots 1..num_values are valid
  std::vector<DType> value_dtypes;  // per slot, index 0 unused
  std::vector<Region> regions;      // regions[0] is the kernel body
  std::vector<MemOpInfo> mem_ops;
  std::vector<MoveInfo> move_ops;
  std::vector<CubeInfo> cube_ops;
  std::vector<ForInfo> fors;
  std::vector<IfInfo> ifs;
  std::vector<WhileInfo> whiles;
  std::vector<uint32_t> slot_lists;
  uint32_t num_ops = 0;  // total ops, all regions

  SyncMode sync;
  std::vector<QueueInfo> queues;  // QueueDecl id i is queues[i - 1]
  std::vector<PoolInfo> pools;    // BufPoolDecl id i is pools[i - 1]
  std::vector<StaticTensorInfo> static_tensors;
  std::vector<FwkInfo> fwk_ops;
  std::vector<DebugInfo> debug_ops;  // Instr::aux of debug opcodes

  const uint32_t* Slots(SlotSpan s) const { return slot_lists.data() + s.offset; }
  // The host memory this program holds, to the nearest allocation: what caches of programs count
  // against their byte bound.
  size_t ApproxBytes() const;
  // "add.py:34" (or "<unknown>" when the op has no file).
  std::string Where(const Instr& instr) const;
  const std::string& FileName(const Instr& instr) const;
};

}  // namespace aicore::sim
