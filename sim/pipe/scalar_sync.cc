// The scalar unit's waits on other cores (ExecUnit::kSync rows): cross_core_wait_flag and the GM
// wait behind sync_all's software form, ib_wait and wait_pre_block (sim/sync/cross_core_sync.h).
// Both block the scalar unit, so later instructions do not issue, while pipes go on with what
// was issued before (hardware-910b.md 3.4).
#include <cstring>

#include "sim/pipe/issue.h"
#include "sim/pipe/launch_context.h"
#include "sim/pipe/scalar_access.h"
#include "sim/pipe/scalar_unit.h"
#include "sim/pipe/scalar_unit_inline.h"
#include "sim/pipe/timeline.h"

namespace aicore::sim {
namespace {

// The GmWaitOp.Cmp values (proto/kernel.proto).
bool Holds(uint8_t cmp, int64_t have, int64_t want) {
  switch (cmp) {
    case 1:
      return have == want;
    case 2:
      return have != want;
    case 3:
      return have >= want;
    case 4:
      return have > want;
    case 5:
      return have <= want;
    default:
      return have < want;
  }
}

constexpr const char* kCmpText[] = {"?", "==", "!=", ">=", ">", "<=", "<"};

// Largest element count of one GM wait: a sync_all over every block of the largest grid.
constexpr int64_t kMaxGmWaitElements = 65536;

}  // namespace

void ScalarUnit::WakeForSync(Cycle now) {
  if (wait_ == Wait::kCrossFlag || wait_ == Wait::kGmWait) Wake(now);
}

void ScalarUnit::RecordWait(const Instr& in, Cycle since, int32_t released_by_core,
                            uint64_t released_by_cycle, uint32_t id) {
  if (ctx_.timeline == nullptr) return;
  TimelineEntry& e = ctx_.timeline->emplace_back();
  e.released_by_core = released_by_core;
  e.released_by_cycle = released_by_cycle;
  e.event_id = id;
  e.instr = &in;
  e.core = core_;
  e.block_idx = block_;
  e.pipe = PipeId::kS;
  e.issue_cycle = since.value();
  e.start_cycle = since.value();
  e.end_cycle = time_.value();
}

bool ScalarUnit::ExecCrossCoreWait(const Instr& in, Cycle now) {
  uint32_t id = CrossCoreFlagId(Int(in.a), ctx_.config, ctx_.check != CheckLevel::kOff,
                                SiteOf(&in, PipeId::kS), ctx_.diags, "cross_core_wait_flag");
  uint32_t from = 0;
  uint64_t fired = 0;
  if (!ctx_.cross->TryWait(core_, id, &from, &fired)) {
    if (wait_ != Wait::kCrossFlag) wait_since_ = now;
    wait_ = Wait::kCrossFlag;
    wait_instr_ = &in;
    wait_flag_ = id;
    return false;
  }
  Cycle since = wait_ == Wait::kCrossFlag ? wait_since_ : now;
  stats_.wait_flag_cycles += (now - since).value();
  wait_ = Wait::kNone;
  bool ok = RetireScalar(ctx_.config.scalar_op_cycles);
  RecordWait(in, since, static_cast<int32_t>(from), fired, id);
  return ok;
}

bool ScalarUnit::ExecGmWait(const Instr& in, Cycle now) {
  uint64_t addr = values_[in.a].u;
  int64_t count = in.c != 0 ? Int(in.c) : 1;
  uint32_t elem = DTypeSize(in.dtype);
  int64_t stride = in.aux != 0 ? Int(in.aux) : elem;
  if (count < 1 || count > kMaxGmWaitElements || stride < 0) {
    return Fault(in, "gm_wait of " + std::to_string(count) + " elements " + std::to_string(stride) +
                         " bytes apart: the count must be 1.." +
                         std::to_string(kMaxGmWaitElements) + " and the stride not negative");
  }
  uint64_t hi = addr + static_cast<uint64_t>(count - 1) * static_cast<uint64_t>(stride) + elem;
  GmAccess access = ctx_.gm.Check(addr, hi - addr);
  if (access.kind == GmAccessKind::kOutOfBounds) {
    return Fault(in, "the GM wait polls " + RangeText("GM", addr, hi) +
                         ", which is outside every device allocation. Fix: pass a workspace of "
                         "at least " +
                         std::to_string(hi - addr) + " bytes");
  }
  if (ctx_.unknown != nullptr &&
      !ReadsKnown(in, MemRange{MemSpace::kGm, addr, hi, false, static_cast<uint64_t>(elem),
                               static_cast<uint64_t>(stride)})) {
    return false;
  }
  int64_t want =
      AsInt64(CastScalar(values_[in.b], ctx_.program.value_dtypes[in.b], in.dtype), in.dtype);
  bool any = in.event != 0;  // released by one element (a server polling several queues)
  bool any_holds = false;
  uint32_t held = 0;  // bit i: element i compares (the result, for the first 32 elements)
  for (int64_t i = 0; i < count; ++i) {
    uint64_t bits = 0;
    std::memcpy(&bits, access.host + i * stride, elem);
    int64_t have = AsInt64(FromElementBits(bits, in.dtype), in.dtype);
    bool holds = Holds(in.kind, have, want);
    if (holds && i < 32) held |= 1u << i;
    if (any) {
      any_holds = any_holds || holds;
      if (any_holds || i + 1 < count) continue;
    }
    if (!holds) {
      // Blocked until a write touches the polled bytes (never a simulated spin).
      ctx_.cross->WatchGm(core_, addr, hi);
      if (wait_ != Wait::kGmWait) wait_since_ = now;
      wait_ = Wait::kGmWait;
      wait_instr_ = &in;
      gm_wait_state_ = std::string(any ? "no element: the last, " : "element ") +
                       std::to_string(i) + " (" +
                       RangeText("GM", addr + i * stride, addr + i * stride + elem) + ") holds " +
                       std::to_string(have) + ", and the wait needs " +
                       kCmpText[in.kind < 7 ? in.kind : 0] + " " + std::to_string(want);
      return false;
    }
  }
  // What the writers of the polled bytes knew is ordered before what this core does next.
  if (ctx_.gm_check != nullptr) {
    for (uint32_t w : ctx_.gm_check->Writers(addr, hi))
      ctx_.cross->clocks().AcquireCurrent(core_, w);
  }
  if (in.result != 0) values_[in.result] = CastScalar(IntValue(held), DType::kInt64, DType::kInt32);
  Cycle since = wait_ == Wait::kGmWait ? wait_since_ : now;
  stats_.wait_flag_cycles += (now - since).value();
  wait_ = Wait::kNone;
  bool ok = RetireScalar(ctx_.config.gm_wait_poll_cycles);
  RecordWait(in, since, -1, 0, 0);
  return ok;
}

}  // namespace aicore::sim
