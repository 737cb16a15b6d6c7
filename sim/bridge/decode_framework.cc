// Decoding of the framework library's declarations (TQue, TQueBind, TBuf, TBufPool, sync options)
// and its calls (FrameworkOp), validated against Ascend C's position and event tables (fwk/).
#include "sim/bridge/decode_context.h"
#include "sim/isa/positions.h"
#include "sim/sync/hard_event.h"

namespace aicore::sim {
namespace {

// ---- framework ops --------------------------------------------------------------------------
// What a FrameworkOp kind takes: which ids must (1), may (2) or must not (0) be set, how many
// operands, and the dtypes of result / result2 (kInvalid: none).
struct FwkSpec {
  uint8_t queue, pool, sub_pool, share_pool;
  int operands;
  DType result, result2;
  bool event, position;
};

bool FwkSpecOf(int kind, FwkSpec* out) {
  constexpr DType kNone = DType::kInvalid;
  constexpr DType kU32 = DType::kUInt32;
  switch (kind) {
    case ir::FrameworkOp::PIPE_INIT:
    case ir::FrameworkOp::PIPE_RESET:
    case ir::FrameworkOp::PIPE_DESTROY:
      *out = {0, 0, 0, 0, 0, kNone, kNone, false, false};
      return true;
    case ir::FrameworkOp::INIT_BUFFER:
      *out = {1, 0, 0, 0, 2, kNone, kNone, false, false};
      return true;
    case ir::FrameworkOp::INIT_BUF_POOL:
      *out = {0, 0, 1, 2, 1, kNone, kNone, false, false};
      return true;
    case ir::FrameworkOp::POOL_INIT_BUFFER:
      *out = {1, 1, 0, 0, 2, kNone, kNone, false, false};
      return true;
    case ir::FrameworkOp::POOL_INIT_BUF_POOL:
      *out = {0, 1, 1, 2, 1, kNone, kNone, false, false};
      return true;
    case ir::FrameworkOp::POOL_RESET:
      *out = {0, 1, 0, 0, 0, kNone, kNone, false, false};
      return true;
    case ir::FrameworkOp::ALLOC_TENSOR:
    case ir::FrameworkOp::DEQUE:
    case ir::FrameworkOp::TBUF_GET:
      *out = {1, 0, 0, 0, 0, kU32, kU32, false, false};
      return true;
    case ir::FrameworkOp::ENQUE:
    case ir::FrameworkOp::FREE_TENSOR:
      *out = {1, 0, 0, 0, 1, kNone, kNone, false, false};
      return true;
    case ir::FrameworkOp::VACANT_IN_QUE:
    case ir::FrameworkOp::HAS_TENSOR_IN_QUE:
    case ir::FrameworkOp::HAS_IDLE_BUFFER:
      *out = {1, 0, 0, 0, 0, DType::kBool, kNone, false, false};
      return true;
    case ir::FrameworkOp::TENSOR_COUNT_IN_QUE:
      *out = {1, 0, 0, 0, 0, DType::kInt32, kNone, false, false};
      return true;
    case ir::FrameworkOp::FREE_ALL_EVENT:
      *out = {1, 0, 0, 0, 0, kNone, kNone, false, false};
      return true;
    case ir::FrameworkOp::ALLOC_EVENT_ID:
    case ir::FrameworkOp::FETCH_EVENT_ID:
      *out = {0, 0, 0, 0, 0, DType::kInt32, kNone, true, false};
      return true;
    case ir::FrameworkOp::RELEASE_EVENT_ID:
      *out = {0, 0, 0, 0, 1, kNone, kNone, true, false};
      return true;
    case ir::FrameworkOp::GET_BASE_ADDR:
      *out = {0, 0, 0, 0, 0, kU32, kNone, false, true};
      return true;
    case ir::FrameworkOp::STACK_BUFFER:
      *out = {0, 0, 0, 0, 1, kU32, kU32, false, false};
      return true;
    default:
      return false;
  }
}

std::string FwkOperandNames(FwkKind k) {
  switch (k) {
    case FwkKind::kInitBuffer:
    case FwkKind::kPoolInitBuffer:
      return "num, len";
    case FwkKind::kInitBufPool:
    case FwkKind::kPoolInitBufPool:
      return "len";
    case FwkKind::kEnque:
    case FwkKind::kFreeTensor:
      return "the tensor's address";
    case FwkKind::kReleaseEventId:
      return "id";
    case FwkKind::kStackBuffer:
      return "the bytes needed";
    default:
      return "none";
  }
}

std::string DeclName(const std::string& name, const char* what, uint32_t id) {
  return name.empty() ? std::string(what) + " #" + std::to_string(id) : name;
}

}  // namespace

Status DecodeContext::DecodeFrameworkDecls() {
  p_->sync.erase_user_flags = k_.sync().erase_user_flags();
  p_->sync.auto_sync = k_.sync().auto_sync() || k_.sync().erase_user_flags();
  for (int i = 0; i < k_.queues_size(); ++i) {
    const ir::QueueDecl& q = k_.queues(i);
    std::string f = "queues[" + std::to_string(i) + "]";
    if (q.id() == 0) return KernelError(f + ".id", "must be >= 1 (ids are 1-based)");
    if (!queue_index_.emplace(q.id(), i).second) {
      return KernelError(f + ".id", std::to_string(q.id()) + " is declared twice");
    }
    QueueInfo info;
    if (q.kind() != ir::QueueDecl::QUEUE && q.kind() != ir::QueueDecl::TBUF) {
      return KernelError(f + ".kind", std::to_string(q.kind()) + " is not QUEUE or TBUF");
    }
    info.is_tbuf = q.kind() == ir::QueueDecl::TBUF;
    int src = q.src_position(), dst = q.dst_position();
    const char* what = info.is_tbuf ? "TBuf" : (src == dst ? "TQue" : "TQueBind");
    info.name = DeclName(q.name(), what, q.id());
    info.label = std::string(what) + " " + info.name;
    info.where = DeclWhere(q.loc());
    std::string legal =
        "POS_VECIN, POS_VECOUT, POS_VECCALC, POS_A1, POS_B1, POS_C1, POS_A2, POS_B2, "
        "POS_CO1 or POS_C2";
    MemSpace from = MemSpace::kInvalid, to = MemSpace::kInvalid;
    if (info.is_tbuf || src == dst) {
      if (!IsQueuePosition(src)) {
        return KernelError(f + ".src_position", PositionName(src) + " is not a position of a " +
                                                    what + " (use " + legal + ")");
      }
      if (src != dst) {
        return KernelError(f + ".dst_position", PositionName(dst) + " differs from src_position " +
                                                    PositionName(src) +
                                                    "; a TBuf has one position");
      }
      TQueEnds(src, &from, &to);
      info.position = static_cast<uint8_t>(src);
    } else {
      for (int which = 0; which < 2; ++which) {
        int pos = which == 0 ? src : dst;
        if (pos != ir::POS_GM && !IsQueuePosition(pos)) {
          return KernelError(f + (which == 0 ? ".src_position" : ".dst_position"),
                             PositionName(pos) + " is not a position of a TQueBind (use " + legal +
                                 ", or POS_GM for one end)");
        }
      }
      from = MemoryOf(src);
      to = MemoryOf(dst);
      info.position = static_cast<uint8_t>(src == ir::POS_GM ? dst : src);
    }
    info.src_position = static_cast<uint8_t>(src);
    info.dst_position = static_cast<uint8_t>(dst);
    info.memory = MemoryOf(info.position);
    if (Status s = CheckMemoryOnCore(info.memory, info.position, f + ".src_position"); !s.ok()) {
      return s;
    }
    if (info.is_tbuf) {
      if (q.depth() != 0) return KernelError(f + ".depth", "must be 0 for a TBuf (no queue)");
    } else {
      if (!QueueEvents(from, to, &info.enque_event, &info.free_event)) {
        return KernelError(f + ".dst_position",
                           std::string("the library has no event pair for a queue from ") +
                               std::string(MemSpaceName(from)) + " (" + PositionName(src) +
                               ") to " + std::string(MemSpaceName(to)) + " (" + PositionName(dst) +
                               ") (ascendc-semantics.md 8.1)");
      }
      for (uint8_t e : {info.enque_event, info.free_event}) {
        const HardEventInfo& ev = HardEvent(e);
        bool aiv = p_->kernel_type == KernelType::kAivOnly;
        bool aic = p_->kernel_type == KernelType::kAicOnly;
        if (aiv ? ev.on_aiv : (aic ? ev.on_aic : (ev.on_aiv || ev.on_aic))) continue;
        return KernelError(
            f + ".dst_position",
            "a queue from " + PositionName(src) + " to " + PositionName(dst) +
                " synchronises with " + std::string(ev.name) + ", which is not a valid event on " +
                (aiv ? "a vector core (AIV_ONLY kernel)"
                     : (aic ? "a cube core (AIC_ONLY kernel)" : "Ascend 910B (C220)")) +
                " (hardware-910b.md 3.3)");
      }
      info.depth = q.depth();
    }
    p_->queues.push_back(std::move(info));
  }
  for (int i = 0; i < k_.pools_size(); ++i) {
    const ir::BufPoolDecl& d = k_.pools(i);
    std::string f = "pools[" + std::to_string(i) + "]";
    if (d.id() == 0) return KernelError(f + ".id", "must be >= 1 (ids are 1-based)");
    if (!pool_index_.emplace(d.id(), i).second) {
      return KernelError(f + ".id", std::to_string(d.id()) + " is declared twice");
    }
    int pos = d.position();
    if (!IsPoolPosition(pos)) {
      return KernelError(f + ".position", PositionName(pos) +
                                              " is not a TBufPool position (use POS_VECIN, "
                                              "POS_VECOUT, POS_VECCALC, POS_A1, POS_B1 or "
                                              "POS_C1)");
    }
    if (d.buf_id_size() < 1 || d.buf_id_size() > 16) {
      return KernelError(f + ".buf_id_size",
                         std::to_string(d.buf_id_size()) +
                             " is out of range 1..16 (the most buffers a TBufPool hands out; "
                             "TBufPool's default is 4)");
    }
    PoolInfo info;
    info.position = static_cast<uint8_t>(pos);
    info.memory = MemoryOf(pos);
    info.buf_id_size = d.buf_id_size();
    info.name = DeclName(d.name(), "TBufPool", d.id());
    info.label = "TBufPool " + info.name;
    info.where = DeclWhere(d.loc());
    if (Status s = CheckMemoryOnCore(info.memory, pos, f + ".position"); !s.ok()) return s;
    p_->pools.push_back(std::move(info));
  }
  return DecodeStaticTensors();
}

Status DecodeContext::DecodeStaticTensors() {
  constexpr uint64_t kMaxAddr = UINT32_MAX;  // pyasc converts addr and tile_size to uint32
  for (int i = 0; i < k_.static_tensors_size(); ++i) {
    const ir::StaticTensorDecl& d = k_.static_tensors(i);
    std::string f = "static_tensors[" + std::to_string(i) + "]";
    MemSpace memory = MemoryOf(d.position());
    if (memory == MemSpace::kInvalid || memory == MemSpace::kGm) {
      return KernelError(f + ".position",
                         PositionName(d.position()) + " is not a position of local memory");
    }
    if (d.addr() > kMaxAddr) {
      return KernelError(f + ".addr", std::to_string(d.addr()) + " does not fit in uint32");
    }
    if (d.bytes() > kMaxAddr * 8) {  // tile_size is uint32 and an element is at most 8 bytes
      return KernelError(f + ".bytes", std::to_string(d.bytes()) + " is more than a uint32 " +
                                           "count of 8-byte elements");
    }
    StaticTensorInfo info;
    info.position = static_cast<uint8_t>(d.position());
    info.memory = memory;
    info.addr = d.addr();
    info.bytes = d.bytes();
    info.name = DeclName(d.name(), "LocalTensor", static_cast<uint32_t>(i + 1));
    info.file =
        d.loc().file() < static_cast<uint32_t>(k_.files_size()) ? d.loc().file() : Program::kNoFile;
    info.line = d.loc().line();
    p_->static_tensors.push_back(std::move(info));
  }
  return Status::Ok();
}

Status DecodeContext::ResolveDeclRef(uint32_t id, uint8_t rule, bool is_pool,
                                     const std::string& field, const std::string& kind_name,
                                     uint32_t* index) const {
  *index = 0;
  const char* what = is_pool ? "pool" : "queue";
  if (id == 0) {
    if (rule == 1)
      return OpError(field, std::string("missing: ") + kind_name + " needs a " +
                                (is_pool ? "pool" : "queue or TBuf"));
    return Status::Ok();
  }
  if (rule == 0) {
    return OpError(field, "is " + std::to_string(id) + " but " + kind_name + " takes no " + what);
  }
  const auto& map = is_pool ? pool_index_ : queue_index_;
  auto it = map.find(id);
  if (it == map.end()) {
    return OpError(field, std::string(what) + " " + std::to_string(id) +
                              " is not declared (Kernel." + (is_pool ? "pools" : "queues") +
                              " has " + std::to_string(map.size()) + " entries)");
  }
  *index = it->second + 1;
  return Status::Ok();
}

Status DecodeContext::DecodeFramework(const ir::FrameworkOp& op, Instr* in) {
  in->opcode = Opcode::kFramework;
  FwkSpec spec;
  if (!FwkSpecOf(op.kind(), &spec)) {
    return OpError("kind", std::to_string(op.kind()) + " is not a FrameworkOp.Kind value");
  }
  std::string kind_name = ir::FrameworkOp::Kind_Name(op.kind());
  FwkInfo info;
  info.kind = static_cast<FwkKind>(op.kind());
  if (Status s = ResolveDeclRef(op.queue(), spec.queue, false, "queue", kind_name, &info.queue);
      !s.ok()) {
    return s;
  }
  if (Status s = ResolveDeclRef(op.pool(), spec.pool, true, "pool", kind_name, &info.pool);
      !s.ok()) {
    return s;
  }
  if (Status s =
          ResolveDeclRef(op.sub_pool(), spec.sub_pool, true, "sub_pool", kind_name, &info.sub_pool);
      !s.ok()) {
    return s;
  }
  if (Status s = ResolveDeclRef(op.share_pool(), spec.share_pool, true, "share_pool", kind_name,
                                &info.share_pool);
      !s.ok()) {
    return s;
  }
  const QueueInfo* queue = info.queue != 0 ? &p_->queues[info.queue - 1] : nullptr;
  if (queue != nullptr) {
    bool tbuf_only = info.kind == FwkKind::kTbufGet;
    bool queue_only = info.kind == FwkKind::kEnque || info.kind == FwkKind::kDeque ||
                      info.kind == FwkKind::kVacantInQue || info.kind == FwkKind::kHasTensorInQue ||
                      info.kind == FwkKind::kTensorCountInQue ||
                      info.kind == FwkKind::kHasIdleBuffer || info.kind == FwkKind::kFreeAllEvent;
    if (tbuf_only && !queue->is_tbuf) {
      return OpError("queue", queue->label + " is a queue; " + kind_name + " needs a TBuf");
    }
    if (queue_only && queue->is_tbuf) {
      return OpError("queue", queue->label + " is a TBuf, which has no queue; " + kind_name +
                                  " needs a TQue or TQueBind");
    }
  }
  if (info.sub_pool != 0) {
    if (info.sub_pool == info.pool) {
      return OpError("sub_pool", "is the pool it is carved from");
    }
    if (info.share_pool == info.sub_pool) {
      return OpError("share_pool", "is the pool being carved; a pool cannot share itself");
    }
    const PoolInfo& sub = p_->pools[info.sub_pool - 1];
    if (info.pool != 0 && p_->pools[info.pool - 1].memory != sub.memory) {
      const PoolInfo& parent = p_->pools[info.pool - 1];
      return OpError("sub_pool", sub.label + " (" + PositionName(sub.position) + ", " +
                                     std::string(MemSpaceName(sub.memory)) +
                                     ") is not in the "
                                     "memory of " +
                                     parent.label + " (" + PositionName(parent.position) + ", " +
                                     std::string(MemSpaceName(parent.memory)) + ")");
    }
    if (info.share_pool != 0 && p_->pools[info.share_pool - 1].memory != sub.memory) {
      const PoolInfo& share = p_->pools[info.share_pool - 1];
      return OpError("share_pool", share.label + " (" + std::string(MemSpaceName(share.memory)) +
                                       ") is not in the memory of " + sub.label + " (" +
                                       std::string(MemSpaceName(sub.memory)) +
                                       "); a shared pool aliases the same physical memory");
    }
  }
  if (info.kind == FwkKind::kPoolInitBuffer) {
    const PoolInfo& pool = p_->pools[info.pool - 1];
    if (queue->memory != pool.memory) {
      return OpError(
          "queue", queue->label + " lives in " + std::string(MemSpaceName(queue->memory)) + " (" +
                       PositionName(queue->position) + ") but " + pool.label + " is in " +
                       std::string(MemSpaceName(pool.memory)) + " (" + PositionName(pool.position) +
                       "); a pool only serves buffers of its own physical memory");
    }
  }
  if (op.operands_size() != spec.operands) {
    return OpError("operands", kind_name + " takes " + std::to_string(spec.operands) + " operand" +
                                   (spec.operands == 1 ? "" : "s") + " (" +
                                   FwkOperandNames(info.kind) + "), got " +
                                   std::to_string(op.operands_size()));
  }
  for (int i = 0; i < op.operands_size(); ++i) {
    if (Status u = UseInteger(op.operands(i), "operands[" + std::to_string(i) + "]"); !u.ok()) {
      return u;
    }
    info.operands[i] = op.operands(i);
  }
  if (spec.event) {
    if (Status s = CheckEventOnCore(op.event(), "event"); !s.ok()) return s;
    info.event = static_cast<uint8_t>(op.event());
  } else if (op.event() != 0) {
    return OpError("event", "is set but " + kind_name + " takes no event");
  }
  if (spec.position) {
    MemSpace m = MemoryOf(op.position());
    if (!ir::Position_IsValid(op.position()) || m == MemSpace::kInvalid || m == MemSpace::kGm) {
      return OpError("position", PositionName(op.position()) +
                                     " has no local memory (use a position such as POS_VECIN "
                                     "or POS_A1)");
    }
    if (Status s = CheckMemoryOnCore(m, op.position(), "position"); !s.ok()) {
      return OpError("position", PositionName(op.position()) + " is in " +
                                     std::string(MemSpaceName(m)) +
                                     ", which a vector core does not have (AIV_ONLY kernel)");
    }
    info.memory = m;
  } else if (op.position() != 0) {
    return OpError("position", "is set but " + kind_name + " takes no position");
  }
  if (spec.result == DType::kInvalid) {
    if (op.result() != 0) return OpError("result", "is set but " + kind_name + " has no result");
    if (op.result2() != 0) {
      return OpError("result2", "is set but " + kind_name + " has no result");
    }
  } else {
    if (Status d = Define(op.result(), spec.result, "result"); !d.ok()) return d;
    info.result = op.result();
    in->result = op.result();
    if (op.result2() != 0) {
      if (spec.result2 == DType::kInvalid) {
        return OpError("result2", "is set but " + kind_name + " has one result");
      }
      if (Status d = Define(op.result2(), spec.result2, "result2"); !d.ok()) return d;
      info.result2 = op.result2();
    }
  }
  in->aux = static_cast<uint32_t>(p_->fwk_ops.size());
  p_->fwk_ops.push_back(info);
  return Status::Ok();
}

}  // namespace aicore::sim
