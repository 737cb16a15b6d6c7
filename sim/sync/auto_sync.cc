// auto_sync's plans (see auto_sync.h).
#include "sim/sync/auto_sync.h"

#include "sim/sync/hard_event.h"

namespace aicore::sim {
namespace {

// Unordered accesses the dependency tracker keeps per pipe and memory before it folds the oldest
// together: bounds the cost of a check; folding only ever adds a sync, never misses one.
constexpr uint32_t kMaxUnorderedRecords = 64;

}  // namespace

AutoSync::AutoSync(CoreType type, uint32_t pipes, uint32_t ids_per_event, uint32_t num_flags)
    : type_(type),
      ids_per_event_(ids_per_event),
      tracker_(pipes, num_flags, kMaxUnorderedRecords),
      outstanding_(num_flags, 0) {}

void AutoSync::Reset() { tracker_.Reset(); }

uint32_t AutoSync::BusyIds(uint32_t event) const {
  uint32_t busy = 0;
  for (uint32_t id = 0; id < ids_per_event_ && id < 32; ++id) {
    if (outstanding_[event * ids_per_event_ + id] > 0) busy |= 1u << id;
  }
  return busy;
}

bool AutoSync::PlanFor(PipeId consumer, const IssuedInstr& issued, EventPool& events, Plan* plan) {
  *plan = Plan();
  if (issued.num_ranges == 0) return true;
  uint32_t mask = tracker_.Unordered(consumer, issued.ranges, issued.num_ranges, nullptr);
  if (mask == 0) return true;
  // Same-pipe order: the compiler guards PIPE_V with a barrier; MTE2->MTE2 and MTE3->MTE3
  // overlaps stay manual (ascendc-semantics.md 8.4).
  uint32_t self = 1u << PipeIndex(consumer);
  if ((mask & self) != 0) {
    plan->barrier = consumer == PipeId::kV;
    mask &= ~self;
  }
  for (int q = 0; q < kNumPipes; ++q) {
    if ((mask >> q & 1u) == 0) continue;
    int event = HardEventBetween(static_cast<PipeId>(q), consumer, type_);
    if (event < 0) {
      plan->drain_all = true;  // no flag pair between these pipes: order them with PIPE_ALL
      continue;
    }
    auto e = static_cast<uint32_t>(event);
    int id = events.AllocInserted(e, BusyIds(e));
    if (id < 0) {
      // Every id of the event is in flight: give back what this plan took and wait.
      for (int k = 0; k < plan->num_pairs; ++k) {
        events.ReleaseInserted(plan->pairs[k].event, plan->pairs[k].id);
      }
      *plan = Plan();
      return false;
    }
    plan->pairs[plan->num_pairs++] = Pair{e, static_cast<uint32_t>(id)};
  }
  return true;
}

void AutoSync::OnIssued(PipeId pipe, const IssuedInstr& issued) {
  switch (Info(issued.instr->opcode).op_class) {
    case OpClass::kSetFlag:
      ++outstanding_[issued.flag];
      tracker_.OnSetFlag(pipe, issued.flag);
      break;
    case OpClass::kWaitFlag:
      tracker_.OnWaitFlag(pipe, issued.flag);
      break;
    case OpClass::kPipeBarrier:
      tracker_.OnBarrier(pipe);
      break;
    default:
      tracker_.OnAccess(pipe, issued.ranges, issued.num_ranges, issued.instr);
      break;
  }
}

void AutoSync::OnScalarSetFlag(uint32_t flag) {
  ++outstanding_[flag];
  tracker_.OnSetFlag(PipeId::kS, flag);
}

void AutoSync::OnScalarWaitFlag(uint32_t flag) {
  if (outstanding_[flag] > 0) --outstanding_[flag];
  tracker_.OnWaitFlag(PipeId::kS, flag);
}

void AutoSync::OnBarrierAll() { tracker_.OnBarrierAll(); }

void AutoSync::OnWaitPassed(uint32_t flag) {
  if (outstanding_[flag] > 0) --outstanding_[flag];
}

}  // namespace aicore::sim
