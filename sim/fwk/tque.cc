// Ascend C's TQueBind bookkeeping (see tque.h). Event ids come from the TPipe's pool: EnQue and
// FreeTensor allocate the lowest free id and set the flag on the event's source pipe; DeQue and
// AllocTensor wait it on the destination pipe and release the id (ascendc-semantics.md 8.2).
#include "sim/fwk/tque.h"

#include "sim/fwk/bump_allocator.h"
#include "sim/sync/hard_event.h"

namespace aicore::sim {
namespace {

const char* StateName(TQueState::BufState s) {
  switch (s) {
    case TQueState::BufState::kFree:
      return "free";
    case TQueState::BufState::kAllocated:
      return "allocated";
    case TQueState::BufState::kEnqueued:
      return "enqueued";
    case TQueState::BufState::kDequeued:
      return "dequeued";
  }
  return "?";
}

FwkAction Set(uint32_t event, uint32_t id) {
  return FwkAction{FwkAction::Kind::kSetFlag, static_cast<uint8_t>(event), id};
}
FwkAction Wait(uint32_t event, uint32_t id) {
  return FwkAction{FwkAction::Kind::kWaitFlag, static_cast<uint8_t>(event), id};
}

// The HardEvent from pipe `src` to pipe `dst`, -1 when there is none.
int EventBetween(PipeId src, PipeId dst) {
  for (uint32_t e = 0; e < kNumHardEvents; ++e) {
    if (HardEvent(e).src == src && HardEvent(e).dst == dst) return static_cast<int>(e);
  }
  return -1;
}

}  // namespace

std::string TQueState::Init(uint64_t base, uint32_t num, uint64_t length, uint32_t owner_pool,
                            EventPool& events, FwkActions* out) {
  if (info_->depth == 0 && !info_->is_tbuf && fixed_enque_id_ < 0) {
    int enque = events.Alloc(info_->enque_event);
    if (enque < 0) return NoIds(info_->enque_event, events);
    int free = events.Alloc(info_->free_event);
    if (free < 0) {
      events.Release(info_->enque_event, static_cast<uint32_t>(enque));
      return NoIds(info_->free_event, events);
    }
    fixed_enque_id_ = enque;
    fixed_free_id_ = free;
  }
  buffers_.clear();
  fifo_.clear();
  uint64_t rounded = Round32(length);
  for (uint32_t i = 0; i < num; ++i) {
    Buffer b;
    b.address = base + i * rounded;
    b.length = rounded;
    buffers_.push_back(b);
  }
  cursor_ = 0;
  owner_pool_ = owner_pool;
  initialized_ = true;
  if (info_->depth == 0 && !info_->is_tbuf && !fixed_free_pending_) {
    // The first AllocTensor of a depth-0 queue waits on this set.
    out->push_back(Set(info_->free_event, static_cast<uint32_t>(fixed_free_id_)));
    fixed_free_pending_ = true;
  }
  return "";
}

void TQueState::Drop() {
  buffers_.clear();
  fifo_.clear();
  cursor_ = 0;
  initialized_ = false;
  owner_pool_ = 0;
  fixed_enque_id_ = -1;
  fixed_free_id_ = -1;
  fixed_free_pending_ = false;
}

std::string TQueState::NoIds(uint32_t event, const EventPool& events) const {
  return "no free event id of " + std::string(HardEvent(event).name) + ": all " +
         std::to_string(events.ids_per_event()) +
         " ids are in use (queues, alloc_event_id and auto_sync share them). Fix: release ids "
         "with release_event_id, or free/deque the tensors that hold them";
}

TQueState::Buffer* TQueState::Find(uint64_t address) {
  for (Buffer& b : buffers_) {
    if (b.address == address) return &b;
  }
  return nullptr;
}

void TQueState::Forget(const Buffer* buffer) {
  for (auto it = fifo_.begin(); it != fifo_.end();) {
    it = *it == buffer ? fifo_.erase(it) : it + 1;
  }
}

std::string TQueState::DescribeBuffers() const {
  if (buffers_.empty()) return "none";
  std::string s;
  for (const Buffer& b : buffers_) {
    if (!s.empty()) s += ", ";
    s += "[" + std::to_string(b.address) + ", " + std::to_string(b.address + b.length) + ") " +
         StateName(b.state);
  }
  return s;
}

std::string TQueState::Alloc(EventPool& events, FwkActions* out, uint64_t* address,
                             uint64_t* length) {
  if (!initialized_) {
    return "alloc_tensor before init_buffer: the " +
           std::string(info_->is_tbuf ? "TBuf" : "queue") +
           " has no memory. Fix: call pipe.init_buffer(...) for it first";
  }
  if (info_->is_tbuf) {
    *address = buffers_[0].address;
    *length = buffers_[0].length;
    return "";
  }
  uint32_t n = static_cast<uint32_t>(buffers_.size());
  int chosen = -1;
  for (uint32_t k = 0; k < n; ++k) {
    uint32_t i = (cursor_ + k) % n;
    if (buffers_[i].state == BufState::kFree) {
      chosen = static_cast<int>(i);
      break;
    }
  }
  if (chosen < 0) {
    if (n == 0) return "alloc_tensor on a queue with no buffers (init_buffer gave it num = 0)";
    return "alloc_tensor with no free buffer: all " + std::to_string(n) + " buffers are in use (" +
           DescribeBuffers() +
           "). Fix: free_tensor a tensor of this queue before allocating the next one, or give "
           "init_buffer more buffers";
  }
  Buffer& b = buffers_[chosen];
  const HardEventInfo& own_free = HardEvent(info_->free_event);
  if (info_->depth == 0) {
    // The fixed free id: waited on every AllocTensor, never released (8.2).
    out->push_back(Wait(info_->free_event, static_cast<uint32_t>(fixed_free_id_)));
    fixed_free_pending_ = false;
  } else if (b.free_id >= 0) {
    const HardEventInfo& pending = HardEvent(b.free_event);
    out->push_back(Wait(b.free_event, static_cast<uint32_t>(b.free_id)));
    events.Release(b.free_event, static_cast<uint32_t>(b.free_id));
    if (pending.dst != own_free.dst) {
      // Freed through another queue: its wait orders the wrong pipe, so the library converts
      // it (e.g. MTE3_V, then MTE3_MTE2 set + wait) so the producer here is ordered too.
      int bridge = EventBetween(pending.src, own_free.dst);
      if (bridge >= 0) {
        int id = events.Fetch(static_cast<uint32_t>(bridge));
        if (id < 0) return NoIds(static_cast<uint32_t>(bridge), events);
        out->push_back(Set(static_cast<uint32_t>(bridge), static_cast<uint32_t>(id)));
        out->push_back(Wait(static_cast<uint32_t>(bridge), static_cast<uint32_t>(id)));
      }
    }
    b.free_id = -1;
  }
  b.state = BufState::kAllocated;
  b.freed = false;
  cursor_ = (static_cast<uint32_t>(chosen) + 1) % n;
  *address = b.address;
  *length = b.length;
  return "";
}

std::string TQueState::Enque(Buffer& b, EventPool& events, FwkActions* out) {
  if (b.state == BufState::kEnqueued) {
    return "enque of the tensor at " + std::to_string(b.address) +
           ", which is already in a queue. Fix: deque it first";
  }
  if (b.state == BufState::kFree) {
    return "enque of the tensor at " + std::to_string(b.address) +
           ", whose buffer is free (freed or never allocated). Fix: alloc_tensor first";
  }
  if (info_->depth != 0 && fifo_.size() >= info_->depth) {
    return "enque beyond depth: the queue already holds " + std::to_string(fifo_.size()) +
           " tensor" + (fifo_.size() == 1 ? "" : "s") +
           " (depth = " + std::to_string(info_->depth) +
           "). Fix: deque before enqueuing more, or declare the queue with a larger depth";
  }
  int id = fixed_enque_id_;
  if (info_->depth != 0) {
    id = events.Alloc(info_->enque_event);
    if (id < 0) return NoIds(info_->enque_event, events);
  }
  out->push_back(Set(info_->enque_event, static_cast<uint32_t>(id)));
  b.enque_id = id;
  b.state = BufState::kEnqueued;
  fifo_.push_back(&b);
  return "";
}

std::string TQueState::Deque(EventPool& events, FwkActions* out, Buffer** buffer) {
  if (fifo_.empty()) {
    return "deque of an empty queue: no tensor is enqueued. Fix: enque a tensor before this "
           "deque (every deque needs one earlier enque)";
  }
  Buffer* b = fifo_.front();
  fifo_.pop_front();
  out->push_back(Wait(info_->enque_event, static_cast<uint32_t>(b->enque_id)));
  if (info_->depth != 0) events.Release(info_->enque_event, static_cast<uint32_t>(b->enque_id));
  b->enque_id = -1;
  b->state = BufState::kDequeued;
  *buffer = b;
  return "";
}

std::string TQueState::Free(Buffer& b, EventPool& events, FwkActions* out) {
  if (b.state == BufState::kFree) {
    return "free_tensor of the tensor at " + std::to_string(b.address) +
           ", whose buffer is already free (a double free, or a tensor that was never "
           "allocated)";
  }
  if (b.state == BufState::kEnqueued) {
    return "free_tensor of the tensor at " + std::to_string(b.address) +
           " while it is still enqueued. Fix: deque it first";
  }
  if (info_->depth == 0) {
    out->push_back(Set(info_->free_event, static_cast<uint32_t>(fixed_free_id_)));
    fixed_free_pending_ = true;
  } else {
    int id = events.Alloc(info_->free_event);
    if (id < 0) return NoIds(info_->free_event, events);
    out->push_back(Set(info_->free_event, static_cast<uint32_t>(id)));
    b.free_id = id;
    b.free_event = info_->free_event;
  }
  b.state = BufState::kFree;
  b.freed = true;
  return "";
}

void TQueState::WaitPendingFrees(EventPool& events, FwkActions* out) {
  if (info_->is_tbuf) return;
  if (info_->depth == 0) {
    if (fixed_free_pending_) {
      out->push_back(Wait(info_->free_event, static_cast<uint32_t>(fixed_free_id_)));
      fixed_free_pending_ = false;
    }
    return;
  }
  for (Buffer& b : buffers_) {
    if (b.state != BufState::kFree || b.free_id < 0) continue;
    out->push_back(Wait(b.free_event, static_cast<uint32_t>(b.free_id)));
    events.Release(b.free_event, static_cast<uint32_t>(b.free_id));
    b.free_id = -1;
  }
}

bool TQueState::vacant() const {
  return info_->depth == 0 ? fifo_.size() < buffers_.size() : fifo_.size() < info_->depth;
}

bool TQueState::has_idle_buffer() const {
  for (const Buffer& b : buffers_) {
    if (b.state == BufState::kFree) return true;
  }
  return false;
}

}  // namespace aicore::sim
