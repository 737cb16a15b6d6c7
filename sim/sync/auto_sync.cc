// auto_sync's plans (see auto_sync.h).
#include "sim/sync/auto_sync.h"

#include "sim/sync/hard_event.h"

namespace aicore::sim {
namespace {

// Unordered accesses the dependency tracker keeps per pipe and memory before it folds the oldest
// together: bounds the cost of a check; folding only ever adds a sync, never misses one.
constexpr uint32_t kMaxUnorderedRecords = 64;

}  // namespace

AutoSync::AutoSync(CoreType type, uint32_t pipes, uint32_t ids_per_event, uint32_t num_flags,
                   const HappensBefore& order)
    : type_(type),
      ids_per_event_(ids_per_event),
      order_(order),
      tracker_(pipes, kMaxUnorderedRecords),
      outstanding_(num_flags, 0) {}

void AutoSync::Reset() { tracker_.Reset(); }

uint32_t AutoSync::BusyIds(uint32_t event) const {
  uint32_t busy = 0;
  for (uint32_t id = 0; id < ids_per_event_ && id < 32; ++id) {
    if (outstanding_[event * ids_per_event_ + id] > 0) busy |= 1u << id;
  }
  return busy;
}

AutoSync::Plan AutoSync::PlanFor(PipeId consumer, const MemRange* ranges, int num_ranges) const {
  Plan plan;
  if (num_ranges == 0) return plan;
  uint32_t mask = tracker_.Unordered(order_, consumer, ranges, num_ranges, nullptr);
  if (mask == 0) return plan;
  // Same-pipe order: the compiler guards PIPE_V with a barrier; MTE2->MTE2 and MTE3->MTE3
  // overlaps stay manual (ascendc-semantics.md 8.4).
  uint32_t self = 1u << PipeIndex(consumer);
  if ((mask & self) != 0) {
    plan.barrier = consumer == PipeId::kV;
    mask &= ~self;
  }
  for (int q = 0; q < kNumPipes; ++q) {
    if ((mask >> q & 1u) == 0) continue;
    int event = HardEventBetween(static_cast<PipeId>(q), consumer, type_);
    if (event < 0) {
      plan.drain_all = true;  // no flag pair between these pipes: order them with PIPE_ALL
    } else {
      plan.events[plan.num_events++] = static_cast<uint32_t>(event);
    }
  }
  return plan;
}

void AutoSync::OnAccess(PipeId pipe, uint64_t seq, const MemRange* ranges, int num_ranges,
                        const Instr* instr) {
  tracker_.OnAccess(pipe, seq, ranges, num_ranges, instr);
}

void AutoSync::OnSetFlag(uint32_t flag) { ++outstanding_[flag]; }

void AutoSync::OnOrderChanged() { tracker_.Prune(order_); }

void AutoSync::OnWaitPassed(uint32_t flag) {
  if (outstanding_[flag] > 0) --outstanding_[flag];
}

}  // namespace aicore::sim
