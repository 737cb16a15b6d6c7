// FrameworkOp execution over the TPipe's allocators, event pool, queues and pools (see tpipe.h).
#include "sim/fwk/tpipe.h"

#include "sim/core/invariant.h"
#include "sim/sync/hard_event.h"

namespace aicore::sim {
namespace {

uint64_t Capacity(const SocConfig& c, MemSpace m) {
  switch (m) {
    case MemSpace::kUb:
      return c.ub_bytes;
    case MemSpace::kL1:
      return c.l1_bytes;
    case MemSpace::kL0a:
      return c.l0a_bytes;
    case MemSpace::kL0b:
      return c.l0b_bytes;
    case MemSpace::kL0c:
      return c.l0c_bytes;
    case MemSpace::kBt:
      return c.bt_bytes;
    case MemSpace::kFb:
      return c.fb_bytes;
    default:
      return 0;
  }
}

}  // namespace

TPipe::TPipe(const Program& program, const SocConfig& config)
    : program_(program), config_(config), events_(config.flag_ids_per_event) {
  queues_.reserve(program.queues.size());
  for (const QueueInfo& q : program.queues) queues_.emplace_back(q);
  pools_.reserve(program.pools.size());
  for (const PoolInfo& p : program.pools) pools_.emplace_back(p);
  StartBlock();
}

void TPipe::StartBlock() {
  events_.ResetAll();
  InitAll();
  destroyed_ = false;
}

void TPipe::InitAll() {
  for (int m = 0; m < 9; ++m) {
    memories_[m] = BumpAllocator(0, Capacity(config_, static_cast<MemSpace>(m)));
  }
  for (TQueState& q : queues_) q.Drop();
  for (TBufPoolState& p : pools_) p.Drop();
  events_.ResetLibrary();
  has_queue_buffers_ = false;
}

std::string TPipe::Label(const FwkInfo& op) const {
  std::string call = std::string(FwkKindName(op.kind)) + "()";
  if (op.queue != 0) return program_.queues[op.queue - 1].label + "." + call;
  if (op.pool != 0) return program_.pools[op.pool - 1].label + "." + call;
  return "TPipe." + call;
}

void TPipe::DropQueue(TQueState& q) {
  // Another queue's FIFO may hold one of these buffers (a tensor passed between queues).
  for (const TQueState::Buffer& b : q.buffers()) {
    for (TQueState& other : queues_) other.Forget(&b);
  }
  q.Drop();
}

TQueState::Buffer* TPipe::FindBuffer(TQueState& q, uint64_t address) {
  if (TQueState::Buffer* b = q.Find(address)) return b;
  for (TQueState& other : queues_) {
    if (other.info().is_tbuf) continue;
    if (TQueState::Buffer* b = other.Find(address)) return b;
  }
  return nullptr;
}

void TPipe::Execute(const FwkInfo& op, const int64_t operands[2], FwkOutcome* out) {
  // The call's name, for a fault only: built when one is reported, not on every call.
  auto label = [&] { return Label(op); };
  if (destroyed_ && op.kind != FwkKind::kPipeInit && op.kind != FwkKind::kPipeDestroy) {
    out->fault = label() +
                 ": the TPipe was destroyed and not initialised again. Fix: call "
                 "pipe.init() after pipe.destroy() before using the pipe";
    return;
  }
  switch (op.kind) {
    case FwkKind::kPipeInit:
      InitAll();
      destroyed_ = false;
      return;
    case FwkKind::kPipeReset:
      for (TQueState& q : queues_) q.WaitPendingFrees(events_, &out->actions);
      InitAll();
      return;
    case FwkKind::kPipeDestroy:
      // The destructor after an explicit destroy() does nothing (8.3).
      if (destroyed_) return;
      for (TQueState& q : queues_) q.WaitPendingFrees(events_, &out->actions);
      out->actions.push_back(FwkAction{FwkAction::Kind::kBarrierAll, 0, 0});
      destroyed_ = true;
      return;
    case FwkKind::kInitBuffer:
    case FwkKind::kPoolInitBuffer:
      InitBuffer(op, operands, out);
      return;
    case FwkKind::kInitBufPool:
    case FwkKind::kPoolInitBufPool:
      InitBufPool(op, operands[0], out);
      return;
    case FwkKind::kPoolReset: {
      TBufPoolState& pool = pools_[op.pool - 1];
      if (!pool.initialized()) {
        out->fault = label() + ": the pool has no memory yet. Fix: call init_buf_pool for it first";
        return;
      }
      // Ends the pool's pending events; its buffers keep their addresses (their contents may be
      // overwritten by the next stage).
      for (TQueState& q : queues_) {
        if (q.owner_pool() == op.pool) q.WaitPendingFrees(events_, &out->actions);
      }
      pool.Rewind();
      return;
    }
    case FwkKind::kAllocEventId: {
      int id = events_.Alloc(op.event);
      if (id < 0) {
        out->fault = label() + ": no free event id of " + std::string(HardEvent(op.event).name) +
                     ": all " + std::to_string(events_.ids_per_event()) +
                     " ids are in use (queues, alloc_event_id and auto_sync share them). Fix: "
                     "release_event_id the ids you no longer need";
        return;
      }
      out->result = static_cast<uint64_t>(id);
      return;
    }
    case FwkKind::kFetchEventId: {
      int id = events_.Fetch(op.event);
      if (id < 0) {
        out->fault = label() + ": no free event id of " + std::string(HardEvent(op.event).name) +
                     ": all " + std::to_string(events_.ids_per_event()) + " ids are in use";
        return;
      }
      out->result = static_cast<uint64_t>(id);
      return;
    }
    case FwkKind::kReleaseEventId:
      if (operands[0] < 0 || !events_.Release(op.event, static_cast<uint32_t>(operands[0]))) {
        out->fault = label() + ": id " + std::to_string(operands[0]) + " of " +
                     std::string(HardEvent(op.event).name) + " is out of range 0.." +
                     std::to_string(events_.ids_per_event() - 1);
      }
      return;
    case FwkKind::kGetBaseAddr:
      // Every memory's allocation starts at its base, address 0 of that memory.
      out->result = Memory(op.memory).base();
      return;
    case FwkKind::kStackBuffer: {
      // Ascend C's PopStackBuffer: the library's scratch is the UB above what init_buffer and
      // init_buf_pool took; the caller checks that it is large enough.
      BumpAllocator& ub = Memory(MemSpace::kUb);
      if (operands[0] < 0 || static_cast<uint64_t>(operands[0]) > ub.left()) {
        // Named for the user's call (an asc.adv op at this line), not for this internal op.
        out->fault = "asc.adv: the library's scratch needs " + std::to_string(operands[0]) +
                     " bytes of UB but only " + std::to_string(ub.left()) + " of its " +
                     std::to_string(ub.length()) + " are left above the " +
                     std::to_string(ub.used()) +
                     " bytes init_buffer and init_buf_pool took. Fix: pass a temp buffer "
                     "(a uint8 tensor) or leave that much UB to the library";
        return;
      }
      out->result = ub.base() + ub.used();
      out->result2 = ub.left();
      return;
    }
    default:
      QueueCall(op, operands, out);
      return;
  }
}

void TPipe::InitBuffer(const FwkInfo& op, const int64_t operands[2], FwkOutcome* out) {
  TQueState& q = queues_[op.queue - 1];
  const QueueInfo& info = q.info();
  std::string label = Label(op);
  int64_t num = info.is_tbuf ? 1 : operands[0];
  int64_t len = operands[1];
  if (num < 0 || num > 255) {
    out->fault = label + ": num = " + std::to_string(num) +
                 " is out of range 0..255 (the library keeps it in a uint8)";
    return;
  }
  if (len < 0 || len > static_cast<int64_t>(UINT32_MAX)) {
    out->fault = label + ": len = " + std::to_string(len) + " is out of range 0.." +
                 std::to_string(UINT32_MAX);
    return;
  }
  uint64_t each = Round32(static_cast<uint64_t>(len));
  uint64_t bytes = static_cast<uint64_t>(num) * each;
  std::string request =
      std::to_string(num) + " x " + std::to_string(each) + " = " + std::to_string(bytes) + " bytes";
  uint64_t base = 0;
  if (op.kind == FwkKind::kInitBuffer) {
    BumpAllocator& mem = Memory(info.memory);
    if (!mem.Take(bytes, &base)) {
      out->out_of_memory = true;
      out->fault = label + " (" + info.label + " declared at " + info.where + ") needs " + request +
                   " of " + std::string(MemSpaceName(info.memory)) + " but only " +
                   std::to_string(mem.left()) + " of its " + std::to_string(mem.length()) +
                   " bytes are left (" + std::to_string(mem.used()) +
                   " taken by earlier init_buffer/init_buf_pool calls). Fix: shrink the buffers "
                   "or their number, or reuse memory between stages with TBufPool or "
                   "pipe.reset()";
      return;
    }
  } else {
    TBufPoolState& pool = pools_[op.pool - 1];
    if (!pool.initialized()) {
      out->fault = label + ": " + pool.info().label +
                   " has no memory yet. Fix: call init_buf_pool for it first";
      return;
    }
    std::string why = pool.TakeBuffers(bytes, static_cast<uint32_t>(num),
                                       label + " of " + info.label + " (" + request + ")", &base,
                                       &out->out_of_memory);
    if (!why.empty()) {
      out->fault = why;
      return;
    }
  }
  DropQueue(q);
  if (!info.is_tbuf) has_queue_buffers_ = true;
  std::string why = q.Init(base, static_cast<uint32_t>(num), static_cast<uint64_t>(len),
                           op.kind == FwkKind::kInitBuffer ? 0 : op.pool, events_, &out->actions);
  if (!why.empty()) out->fault = label + ": " + why;
}

void TPipe::InitBufPool(const FwkInfo& op, int64_t length, FwkOutcome* out) {
  TBufPoolState& sub = pools_[op.sub_pool - 1];
  const PoolInfo& info = sub.info();
  std::string label = (op.pool == 0 ? std::string("TPipe") : program_.pools[op.pool - 1].label) +
                      ".init_buf_pool(" + info.label + ")";
  if (length < 0 || length > static_cast<int64_t>(UINT32_MAX)) {
    out->fault = label + ": len = " + std::to_string(length) + " is out of range 0.." +
                 std::to_string(UINT32_MAX);
    return;
  }
  uint64_t bytes = Round32(static_cast<uint64_t>(length));
  if (op.share_pool != 0) {
    const TBufPoolState& share = pools_[op.share_pool - 1];
    if (!share.initialized()) {
      out->fault = label + ": the shared pool " + share.info().label +
                   " has no memory yet. Fix: initialise it before sharing it";
      return;
    }
    if (bytes > share.length()) {
      out->fault = label + ": len = " + std::to_string(bytes) + " bytes exceeds the " +
                   std::to_string(share.length()) + " bytes of the shared pool " +
                   share.info().label + "; a shared pool must fit in the range it aliases";
      return;
    }
    if (op.pool != 0) {
      const PoolInfo& parent = program_.pools[op.pool - 1];
      if (!pools_[op.pool - 1].initialized()) {
        out->fault = label + ": " + parent.label + " has no memory yet";
        return;
      }
      if (info.buf_id_size > parent.buf_id_size) {
        out->fault = label +
                     ": the shared sub-pool's buf_id_size = " + std::to_string(info.buf_id_size) +
                     " exceeds the buf_id_size = " + std::to_string(parent.buf_id_size) + " of " +
                     parent.label + ". Fix: lower the sub-pool's buf_id_size";
        return;
      }
    }
    sub.Init(share.base(), bytes);
    return;
  }
  uint64_t base = 0;
  if (op.pool == 0) {
    BumpAllocator& mem = Memory(info.memory);
    if (!mem.Take(bytes, &base)) {
      out->out_of_memory = true;
      out->fault = label + " needs " + std::to_string(bytes) + " bytes of " +
                   std::string(MemSpaceName(info.memory)) + " but only " +
                   std::to_string(mem.left()) + " of its " + std::to_string(mem.length()) +
                   " bytes are left. Fix: carve a smaller pool";
      return;
    }
  } else {
    TBufPoolState& parent = pools_[op.pool - 1];
    if (!parent.initialized()) {
      out->fault = label + ": " + parent.info().label +
                   " has no memory yet. Fix: call init_buf_pool for it first";
      return;
    }
    std::string why =
        parent.TakeSubPool(bytes, info.buf_id_size, label, &base, &out->out_of_memory);
    if (!why.empty()) {
      out->fault = why;
      return;
    }
  }
  sub.Init(base, bytes);
}

void TPipe::QueueCall(const FwkInfo& op, const int64_t operands[2], FwkOutcome* out) {
  TQueState& q = queues_[op.queue - 1];
  // The call's name is built only for a fault (alloc, enque, deque and free run per tile).
  auto fail = [&](const std::string& why) { out->fault = Label(op) + ": " + why; };
  if (!q.initialized() && op.kind != FwkKind::kVacantInQue && op.kind != FwkKind::kHasTensorInQue &&
      op.kind != FwkKind::kTensorCountInQue && op.kind != FwkKind::kHasIdleBuffer &&
      op.kind != FwkKind::kFreeAllEvent) {
    fail(std::string(FwkKindName(op.kind)) + " before init_buffer: the " +
         (q.info().is_tbuf ? "TBuf" : "queue") +
         " has no memory. Fix: call init_buffer for it first");
    return;
  }
  switch (op.kind) {
    case FwkKind::kAllocTensor: {
      std::string why = q.Alloc(events_, &out->actions, &out->result, &out->result2);
      if (!why.empty()) fail(why);
      return;
    }
    case FwkKind::kTbufGet:
      out->result = q.buffers()[0].address;
      out->result2 = q.buffers()[0].length;
      return;
    case FwkKind::kEnque:
    case FwkKind::kFreeTensor: {
      uint64_t address = static_cast<uint64_t>(operands[0]);
      bool enque = op.kind == FwkKind::kEnque;
      if (q.info().is_tbuf) {
        // A TBuf accepts free_tensor of its own buffer and has nothing to release.
        if (operands[0] != static_cast<int64_t>(q.buffers()[0].address)) {
          fail("free_tensor of address " + std::to_string(operands[0]) +
               ", which is not the TBuf's buffer at " + std::to_string(q.buffers()[0].address));
        }
        return;
      }
      TQueState::Buffer* b = operands[0] < 0 ? nullptr : FindBuffer(q, address);
      if (b == nullptr) {
        fail(std::string(enque ? "enque" : "free_tensor") + " of address " +
             std::to_string(operands[0]) +
             ", which is not the start of a buffer allocated from this queue (its buffers: " +
             q.DescribeBuffers() + "). Fix: pass the tensor alloc_tensor/deque returned");
        return;
      }
      std::string why =
          enque ? q.Enque(*b, events_, &out->actions) : q.Free(*b, events_, &out->actions);
      if (!why.empty()) {
        fail(why);
        return;
      }
      return;
    }
    case FwkKind::kDeque: {
      TQueState::Buffer* b = nullptr;
      std::string why = q.Deque(events_, &out->actions, &b);
      if (!why.empty()) {
        fail(why);
        return;
      }
      out->result = b->address;
      out->result2 = b->length;
      return;
    }
    case FwkKind::kVacantInQue:
      out->result = q.vacant() ? 1 : 0;
      return;
    case FwkKind::kHasTensorInQue:
      out->result = q.count_in_queue() > 0 ? 1 : 0;
      return;
    case FwkKind::kTensorCountInQue:
      out->result = q.count_in_queue();
      return;
    case FwkKind::kHasIdleBuffer:
      out->result = q.has_idle_buffer() ? 1 : 0;
      return;
    case FwkKind::kFreeAllEvent:
      q.WaitPendingFrees(events_, &out->actions);
      return;
    default:
      SIM_CHECK(false, std::string(FwkKindName(op.kind)) + " is not a queue call");
      return;
  }
}

TPipe::IdleOverlap TPipe::IdleBufferOverlap(MemSpace memory, uint64_t lo, uint64_t hi) const {
  if (!has_queue_buffers_ || lo >= hi) return {};
  const TQueState::Buffer* idle = nullptr;
  const TQueState* owner = nullptr;
  for (const TQueState& q : queues_) {
    if (q.info().memory != memory) continue;
    for (const TQueState::Buffer& b : q.buffers()) {
      bool live = q.info().is_tbuf || b.state != TQueState::BufState::kFree;
      // Inside a live buffer: TBufPools that share memory hand the same bytes to another
      // stage's queue, so an idle buffer there is no evidence of a bug.
      if (live && lo >= b.address && hi <= b.address + b.length) return {};
      // A freed buffer is the stronger finding: prefer it over one never allocated.
      bool better = idle == nullptr || (b.freed && !idle->freed);
      if (better && !live && lo < b.address + b.length && b.address < hi) {
        idle = &b;
        owner = &q;
      }
    }
  }
  if (idle == nullptr) return {};
  std::string what = "buffer [" + std::to_string(idle->address) + ", " +
                     std::to_string(idle->address + idle->length) + ") of " + owner->info().label +
                     " (declared at " + owner->info().where + "), which ";
  what += idle->freed ? "was freed by free_tensor" : "no alloc_tensor has handed out";
  return {what, idle->freed};
}

}  // namespace aicore::sim
