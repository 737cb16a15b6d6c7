// One in-order pipe of an AI Core: a bounded instruction queue (a full queue stalls the scalar
// unit), the start rule (issued, pipe can accept, wait satisfied) and the bookkeeping shared by
// every pipe: set_flag / wait_flag / pipe_barrier items, in-flight instructions whose writes
// happen at their end event, busy/wait statistics and timeline records. Subclasses (vector, DMA,
// later cube/MTE1/fixpipe) only say what an instruction reads at its start and how long it takes.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/check/diagnostics.h"
#include "sim/check/gm_checker.h"
#include "sim/core/cycle.h"
#include "sim/core/event_queue.h"
#include "sim/core/launch_result.h"
#include "sim/core/ring_queue.h"
#include "sim/pipe/instr.h"
#include "sim/sync/flags.h"

namespace aicore::sim {

struct LaunchContext;

// Callbacks from a pipe to its core.
class PipeListener {
 public:
  virtual ~PipeListener() = default;
  // The head instruction left the queue (a stalled scalar unit may issue again).
  virtual void OnQueueSpace(PipeId pipe, Cycle now) = 0;
  // An instruction ended (PIPE_ALL barriers and end-of-block checks re-evaluate).
  virtual void OnInstrEnd(PipeId pipe, Cycle now) = 0;
  // A set_flag fired on this pipe; the flag becomes visible after the flag latency.
  virtual void OnSetFlag(uint32_t flag, const Instr* instr, Cycle now) = 0;
  // A cross_core_set_flag (`instr`, of flag `id`) fired on this pipe: its core routes it.
  virtual void OnCrossCoreSet(uint32_t id, const Instr* instr, Cycle now) = 0;
  // A wait_flag passed on this pipe and consumed its flag.
  virtual void OnWaitPassed(uint32_t flag, const Instr* instr, Cycle now) = 0;
  // State the core's units share beyond the flags (the unit flag's L0C ready bits), asked only
  // for an instruction with a unit flag: the earliest cycle `in` may start, Cycle::Max() while
  // it is blocked (the core then calls Pipe::Wake when the state changes); and `in` started at
  // `now`, ending at `end`.
  virtual Cycle StartGate(const IssuedInstr& /*in*/) { return Cycle(); }
  virtual void OnStart(const IssuedInstr& /*in*/, Cycle /*now*/, Cycle /*end*/) {}
};

// When an instruction that starts now lets the pipe start its next one, and when it ends.
struct PipeTiming {
  Cycle accept_next;  // the pipe can start its next instruction here
  Cycle end;          // destination written here
};

// Reusable byte buffers for in-flight instructions: no allocation per instruction once the pool
// has grown to the pipe's maximum concurrency.
class ScratchPool {
 public:
  uint32_t Acquire(uint64_t bytes);
  void Release(uint32_t index) { free_.push_back(index); }
  uint8_t* data(uint32_t index) { return buffers_[index].data(); }

 private:
  std::vector<std::vector<uint8_t>> buffers_;
  std::vector<uint32_t> free_;
};

class Pipe {
 public:
  Pipe(PipeId id, uint32_t core, uint32_t queue_depth, LaunchContext& ctx, FlagFile& flags,
       PipeListener& listener);
  virtual ~Pipe() = default;
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;

  PipeId id() const { return id_; }
  // A zero depth (a hand-built config; loaded configs reject it) still holds one instruction.
  bool Full() const { return queue_.full(); }
  // Enqueues an issued instruction; it may start at `in.ready`.
  void Push(const IssuedInstr& in);
  // Starts every head instruction that can start at `now`; schedules the next attempt.
  void TryStart(Cycle now);
  // What its head waits for may have changed: try to start it at `now` (an event, so a pipe
  // never starts inside another's start).
  void Wake(Cycle now) {
    if (!queue_.empty()) ScheduleStart(now);
  }
  // The end event of in-flight slot `slot`: performs its writes.
  void OnEnd(uint64_t slot, Cycle now);

  bool Drained() const { return queue_.empty() && in_flight_ == 0; }
  // Last cycle this pipe did anything (end of an instruction or of a barrier's occupancy).
  Cycle last_activity() const { return last_activity_; }
  // The head instruction if it is a wait_flag that cannot pass, else nullptr (deadlock report).
  const IssuedInstr* BlockedWait() const;
  // The head instruction if it is a set_flag waiting for its flag to clear
  // (flag_set_waits_for_clear), else nullptr (deadlock report).
  const IssuedInstr* BlockedSet() const;
  // Queued-but-not-started instructions, oldest first (deadlock report).
  const RingQueue<IssuedInstr>& queue() const { return queue_; }

  // The instruction an event of this pipe concerns (the head for a start, the in-flight one for an
  // end), for invariant messages; nullptr if none.
  const Instr* EventInstr(EventKind kind, uint64_t payload) const;

  const PipeStats& stats() const { return stats_; }
  // Called between blocks running on the same core: statistics restart, time does not.
  void ResetStats();
  void set_block(uint32_t block) { block_ = block; }

 protected:
  // Begins executing `in` at `now`: reads its sources and leaves the bytes to write at the end
  // in `scratch` (sized to in.bytes, laid out as in.dst's chunks back to back), and returns its
  // timing.
  virtual PipeTiming Execute(const IssuedInstr& in, Cycle now, uint8_t* scratch) = 0;

  // Subclasses add their own stall causes and traffic.
  PipeStats& mutable_stats() { return stats_; }
  // Where `instr` runs on this pipe at `now`, for diagnostics.
  Site SiteOf(const Instr* instr, Cycle now) const { return Site{core_, block_, id_, instr, now}; }

  LaunchContext& ctx_;

 private:
  // A queued instruction's memory ranges, kept in timing-only launches (the issue stage keeps
  // them only until the push): what its start reads and its end writes.
  struct HeldRanges {
    MemRange r[IssuedInstr::kMaxRanges];
    uint8_t n = 0;
  };

  struct InFlight {
    bool used = false;
    bool is_set_flag = false;
    bool is_cross_set = false;  // with is_set_flag: a cross-core set of id `flag`
    uint32_t scratch = 0;
    uint32_t flag = 0;
    const Instr* instr = nullptr;  // for set_flag overflow reports and invariant messages
    Transfer dst;
    bool gm_write = false;  // a copy into GM: the GM checker sees its bytes land
    GmSpan gm;
    bool masked = false;  // the scratch is dst's image then a byte mask: write masked bytes only
    DType atomic_type = DType::kInvalid;  // a GM store under an atomic mode
    AtomicOp atomic_op = AtomicOp::kSum;
    Transfer reg;  // masked: a register written from the scratch after the mask
    // Timing-only: the element math was skipped (nothing lands; the writes become unknown),
    // whether the writes cover their ranges (known then) and the ranges written.
    bool skipped = false;
    bool exact = false;
    HeldRanges writes;
  };

  // Timing-only: whether the head's element math can run (its sources are known) into *skip; a
  // source that decides its addresses or timing but is not known stops the launch (false).
  bool SourcesKnown(const IssuedInstr& in, const HeldRanges& held, Cycle now, bool* skip);
  // Timing-only: what computed slot `f` wrote is known as it lands.
  void MarkWrites(const InFlight& f);

  bool StartHead(Cycle now);  // false if the head cannot start at `now`
  void ScheduleStart(Cycle at);
  uint32_t AllocateSlot();
  void Record(const IssuedInstr& in, Cycle start, Cycle end);
  void AccountBusy(Cycle start, Cycle end);

  PipeId id_;
  uint32_t core_;
  uint32_t block_ = 0;
  FlagFile& flags_;
  PipeListener& listener_;

  RingQueue<IssuedInstr> queue_;
  RingQueue<HeldRanges> held_;  // timing-only: queue_'s ranges, element for element
  std::vector<InFlight> slots_;
  std::vector<uint32_t> free_slots_;
  uint32_t in_flight_ = 0;
  ScratchPool scratch_;

  Cycle accept_at_;   // earliest start of the next instruction
  Cycle max_end_;     // latest end of every started instruction
  Cycle busy_until_;  // for the union of busy intervals
  Cycle last_activity_;
  // When the previous instruction left the queue: the head has waited only since then (a wait
  // right after another sync instruction must not count the time its predecessor waited).
  Cycle last_start_;
  Cycle pending_start_ = Cycle::Max();  // a kStart event is scheduled for this cycle
  Cycle blocked_since_ = Cycle::Max();  // head wait_flag blocked since
  PipeStats stats_;
};

}  // namespace aicore::sim
