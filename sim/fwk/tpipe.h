// The kernel's TPipe (asc-api.md 5.1, ascendc-semantics.md 8.3): one bump allocator per physical
// memory, the event id pool, and the state of every declared TQue/TBuf/TBufPool. Execute runs one
// FrameworkOp as the library does and returns the flag actions it issues plus its results, or
// the kernel fault it is. The scalar unit owns one TPipe per core and resets it per block.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/config.h"
#include "sim/fwk/action.h"
#include "sim/fwk/bump_allocator.h"
#include "sim/fwk/event_pool.h"
#include "sim/fwk/tbuf_pool.h"
#include "sim/fwk/tque.h"
#include "sim/isa/program.h"

namespace aicore::sim {

struct FwkOutcome {
  FwkActions actions;
  std::string fault;           // non-empty: the call is a kernel fault (cause and fix)
  bool out_of_memory = false;  // ... because a memory or pool ran out
  uint64_t result = 0, result2 = 0;

  // Ready for the next call; the actions keep their capacity (no allocation per call).
  void Clear() {
    actions.clear();
    fault.clear();
    out_of_memory = false;
    result = result2 = 0;
  }
};

class TPipe {
 public:
  TPipe(const Program& program, const SocConfig& config);

  // A new block: the kernel starts with a freshly constructed TPipe.
  void StartBlock();
  // `operands` holds the values of FwkInfo::operands.
  void Execute(const FwkInfo& op, const int64_t operands[2], FwkOutcome* out);

  EventPool& events() { return events_; }
  const EventPool& events() const { return events_; }

  // An access [lo, hi) to `memory` that touches a queue buffer no stage owns, and is not inside
  // a live buffer (allocated, enqueued or dequeued, or a TBuf): `what` names that buffer and its
  // queue, `freed` says whether free_tensor released it (else no alloc_tensor ever handed it
  // out: a tensor placed by hand overlaps the TPipe's buffers). `what` is "" when none.
  struct IdleOverlap {
    std::string what;
    bool freed = false;
  };
  IdleOverlap IdleBufferOverlap(MemSpace memory, uint64_t lo, uint64_t hi) const;
  // False while no queue has buffers: the check above has nothing to find.
  bool has_queue_buffers() const { return has_queue_buffers_; }

 private:
  std::string Label(const FwkInfo& op) const;
  BumpAllocator& Memory(MemSpace m) { return memories_[static_cast<int>(m)]; }
  void InitAll();
  void DropQueue(TQueState& q);
  void InitBuffer(const FwkInfo& op, const int64_t operands[2], FwkOutcome* out);
  void InitBufPool(const FwkInfo& op, int64_t length, FwkOutcome* out);
  void QueueCall(const FwkInfo& op, const int64_t operands[2], FwkOutcome* out);
  // The buffer at `address`: the queue's own first, then any other queue's.
  TQueState::Buffer* FindBuffer(TQueState& q, uint64_t address);

  const Program& program_;
  const SocConfig& config_;
  std::array<BumpAllocator, 9> memories_;  // by MemSpace value
  EventPool events_;
  std::vector<TQueState> queues_;
  std::vector<TBufPoolState> pools_;
  bool destroyed_ = false;
  bool has_queue_buffers_ = false;
};

}  // namespace aicore::sim
