// One TQue / TQueBind / TBuf of the kernel's TPipe, run exactly as Ascend C's library does
// (ascendc-semantics.md 8.2): a ring of buffers with a round-robin cursor, a FIFO of enqueued
// buffers, and per buffer the pending "buffer free" event id. Calls return the flag actions they
// issue; a misuse returns its reason and changes nothing.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "sim/fwk/action.h"
#include "sim/fwk/event_pool.h"
#include "sim/isa/program.h"

namespace aicore::sim {

class TQueState {
 public:
  enum class BufState : uint8_t { kFree, kAllocated, kEnqueued, kDequeued };
  struct Buffer {
    uint64_t address = 0;
    uint64_t length = 0;
    BufState state = BufState::kFree;
    int free_id = -1;        // pending "buffer free" event id (set by FreeTensor, not waited)
    uint8_t free_event = 0;  // ... and its HardEvent (another queue's, if that queue freed it)
    int enque_id = -1;       // "data ready" event id while enqueued
    bool freed = false;      // FreeTensor ran on it since init_buffer (use-after-free checks)
  };

  explicit TQueState(const QueueInfo& info) : info_(&info) {}

  const QueueInfo& info() const { return *info_; }
  bool initialized() const { return initialized_; }
  uint32_t owner_pool() const { return owner_pool_; }
  const std::vector<Buffer>& buffers() const { return buffers_; }

  // InitBuffer: `num` buffers of `length` bytes (rounded) from `base`. Depth-0 queues allocate
  // their two fixed ids here and set the free event at once (8.2).
  std::string Init(uint64_t base, uint32_t num, uint64_t length, uint32_t owner_pool,
                   EventPool& events, FwkActions* out);
  // Forgets the buffers (TPipe reset/init): they no longer exist.
  void Drop();

  std::string Alloc(EventPool& events, FwkActions* out, uint64_t* address, uint64_t* length);
  // EnQue / DeQue / FreeTensor act on a buffer found by address, normally one of this queue's;
  // a tensor of another queue may pass through this one (then this queue's events apply, as in
  // the library, which keeps the state in the buffer).
  std::string Enque(Buffer& buffer, EventPool& events, FwkActions* out);
  std::string Deque(EventPool& events, FwkActions* out, Buffer** buffer);
  std::string Free(Buffer& buffer, EventPool& events, FwkActions* out);
  // Buffer at `address` among this queue's, nullptr if none.
  Buffer* Find(uint64_t address);
  // Removes `buffer` from the FIFO (its owner dropped it).
  void Forget(const Buffer* buffer);
  // "[0, 1024) free, [1024, 2048) allocated": for messages.
  std::string DescribeBuffers() const;
  // Waits (and releases) every pending "buffer free" event: TPipe reset/destroy, pool reset,
  // free_all_event.
  void WaitPendingFrees(EventPool& events, FwkActions* out);

  uint32_t count_in_queue() const { return static_cast<uint32_t>(fifo_.size()); }
  bool vacant() const;
  bool has_idle_buffer() const;

 private:
  std::string NoIds(uint32_t event, const EventPool& events) const;

  const QueueInfo* info_;
  bool initialized_ = false;
  uint32_t owner_pool_ = 0;  // the TBufPool (index + 1) the buffers came from, 0 = the TPipe
  std::vector<Buffer> buffers_;
  uint32_t cursor_ = 0;
  std::deque<Buffer*> fifo_;
  // depth == 0: the ids fixed at InitBuffer, and whether the free event is set and not waited.
  int fixed_enque_id_ = -1;
  int fixed_free_id_ = -1;
  bool fixed_free_pending_ = false;
};

}  // namespace aicore::sim
