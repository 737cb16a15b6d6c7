// The scalar unit of one core: walks the structured program in order with an explicit frame
// stack (so it can stop at any op and resume later), executes scalar ops itself and issues every
// other instruction into its pipe's bounded queue; the scalar ALU (scalar_alu.h) computes the
// ALU rows, the core's registers are its CoreRegisters. Pure scalar ops run ahead of global time
// (they touch nothing shared); anything that interacts with pipes or flags waits for the global
// event clock to reach the scalar unit's local time, which keeps the whole launch deterministic.
// Framework library calls (sim/fwk) run here too and issue their set_flag/wait_flag as real
// pipe instructions; with auto_sync the syncs a dependency lacks are inserted at issue time.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "sim/check/flag_pairing.h"
#include "sim/check/memory_watch.h"
#include "sim/check/race_checker.h"
#include "sim/core/cycle.h"
#include "sim/core/launch_result.h"
#include "sim/fwk/tpipe.h"
#include "sim/isa/core_type.h"
#include "sim/isa/program.h"
#include "sim/isa/scalar_ops.h"
#include "sim/pipe/issue.h"
#include "sim/pipe/pipe.h"
#include "sim/pipe/scalar_alu.h"
#include "sim/sync/auto_sync.h"
#include "sim/sync/happens_before.h"

namespace aicore::sim {

struct LaunchContext;

// What the scalar unit needs from its core.
class ScalarHost {
 public:
  virtual ~ScalarHost() = default;
  virtual CoreType core_type() const = 0;
  // The core's place among its group's cores of its type (get_sub_block_idx / _num).
  virtual uint32_t sub_block_idx() const = 0;
  virtual uint32_t sub_block_num() const = 0;
  // "vector core" and "S, V, MTE2, MTE3", for messages.
  virtual const std::string& core_name() const = 0;
  virtual std::string pipe_list() const = 0;
  virtual Pipe* pipe(PipeId id) = 0;  // nullptr if this core type has no such pipe
  virtual bool AllPipesDrained() const = 0;
  virtual void OnSetFlag(uint32_t flag, const Instr* instr, Cycle now) = 0;
  // A wait on the scalar unit consumed `flag`: a set waiting for its clear may go on.
  virtual void OnFlagCleared(uint32_t flag, Cycle now) = 0;
  virtual void OnScalarDone(Cycle now) = 0;
};

class ScalarUnit {
 public:
  enum class Wait : uint8_t {
    kNone,
    kQueueFull,
    kFlag,
    kDrain,
    kEventId,
    kDrainV,
    kCrossFlag,  // cross_core_wait_flag: waiting_flag() is the cross-core id
    kGmWait,     // gm_wait: gm_wait_state() says which element does not hold yet
    kFlagClear,  // a set_flag waiting for its flag to clear (flag_set_waits_for_clear)
  };

  // `registers` are the core's (CoreRegisters), shared with its pipes.
  ScalarUnit(uint32_t core, LaunchContext& ctx, ScalarHost& host, const IssueEnv& env,
             CoreRegisters& registers);

  // Begins block `block` with the launch's argument values at cycle `at`.
  void StartBlock(uint32_t block, const std::vector<ScalarValue>& initial_values, Cycle at);
  // The kScalar event.
  void Resume(Cycle now);
  void OnQueueSpace(PipeId pipe, Cycle now);
  void OnFlagVisible(uint32_t flag, Cycle now);
  void OnFlagCleared(uint32_t flag, Cycle now);
  void OnDrainProgress(Cycle now);
  // A wait_flag passed on a pipe (its flag is consumed): the flag is free again.
  void OnWaitPassed(uint32_t flag, const Instr* instr, Cycle now);
  // A cross-core set arrived on this core or a watched GM write landed: a blocked cross-core or
  // GM wait polls again.
  void WakeForSync(Cycle now);
  const std::string& gm_wait_state() const { return gm_wait_state_; }

  bool done() const { return done_; }
  // The op the program walk stands at (nullptr when done), for invariant messages.
  const Instr* current_instr() const;
  Cycle time() const { return time_; }
  Wait waiting() const { return wait_; }
  const Instr* waiting_instr() const { return wait_instr_; }
  uint32_t waiting_flag() const { return wait_flag_; }
  PipeId stalled_pipe() const { return stalled_pipe_; }

  const PipeStats& stats() const { return stats_; }
  uint64_t queue_full_stall_cycles() const { return queue_full_stall_cycles_; }
  // The same, split by the pipe whose queue was full.
  uint64_t queue_full_stall_cycles(PipeId pipe) const {
    return queue_full_by_pipe_[PipeIndex(pipe)];
  }
  void ResetStats();

 private:
  struct PendingIssue;
  struct Frame {
    uint32_t region = 0;
    uint32_t pc = 0;
    const Instr* owner = nullptr;  // the for/if op of this region; nullptr for the body
    int64_t upper = 0;             // for loops: bound and step captured at entry
    int64_t step = 0;
    bool then_branch = false;  // if: which region runs
  };

  void Run(Cycle now);
  // The executor of `in`'s layout row (ExecUnit::kScalar and kDebug ops); false when the
  // scalar unit must stop (blocked, fault). Each executor retires its op (RetireScalar).
  bool ExecOnScalar(const Instr& in, Cycle now);
  // Retires the op at the pc that took `cycles` of the scalar unit. This and the other hot
  // helpers marked "scalar_unit_inline.h" are defined inline there, for the scalar unit's files.
  bool RetireScalar(uint32_t cycles);  // scalar_unit_inline.h
  bool NoScalarExec(const Instr& in, Cycle now);
  // The ALU's rows (scalar_exec.cc, on alu_): run the op, then retire it or fault.
  bool RetireAlu(const Instr& in, bool ok);  // scalar_unit_inline.h
  bool ExecConst(const Instr& in, Cycle now);
  bool ExecScalarBinary(const Instr& in, Cycle now);  // scalar_unit_inline.h
  bool ExecScalarUnary(const Instr& in, Cycle now);
  bool ExecSysValue(const Instr& in, Cycle now);
  bool ExecSelect(const Instr& in, Cycle now);
  bool ExecVectorMask(const Instr& in, Cycle now);
  bool ExecStoreConfig(const Instr& in, Cycle now);
  bool ExecGatherMaskCount(const Instr& in, Cycle now);
  // The kSync rows (scalar_sync.cc).
  bool ExecCrossCoreWait(const Instr& in, Cycle now);
  bool ExecGmWait(const Instr& in, Cycle now);
  // A passed wait that blocked since `since`, for traces: a cross-core wait names the core and
  // cycle of the set that released it (-1: none) and its flag id.
  void RecordWait(const Instr& in, Cycle since, int32_t released_by_core,
                  uint64_t released_by_cycle, uint32_t id);
  bool VectorDrained() const;
  bool EnterControl(const Instr& in);
  bool EndRegion();
  // Returns false when the scalar unit must stop (blocked, fault).
  // They may catch `now` up to the unit's time (CatchUp).
  bool IssuePipeInstr(const Instr& in, Cycle& now);
  bool ExecFramework(const Instr& in, Cycle now);
  // get_value / set_value: checks the element, plans auto_sync's waits, queues the access.
  bool IssueScalarAccess(const Instr& in, Cycle& now);
  // A queued item of the scalar unit itself (an inserted S-side set_flag / wait_flag, or an
  // element access); false when it must wait for its flag.
  bool RunOnScalar(const PendingIssue& p, Cycle now);
  void ExecScalarAccess(const IssuedInstr& issued);
  // set_flag / wait_flag executed by the scalar unit itself (the program's or an inserted one);
  // the wait returns false (and waits) while its flag is not set, the set while its flag is
  // still set (flag_set_waits_for_clear).
  bool ScalarSetFlag(const Instr& in, uint32_t flag, Cycle now);
  // FLAG_OVERFLOW when a set follows an earlier set of its flag with no wait issued between.
  void CheckPairing(const Instr& in, PipeId pipe, bool set, uint32_t flag, Cycle now);
  bool ScalarWaitFlag(const Instr& in, uint32_t flag, Cycle now);
  // printf, dump_tensor, trap, profiling marks (scalar_debug.cc); false when it must stop.
  bool ExecPrintf(const Instr& in, Cycle now);
  bool ExecDumpTensor(const Instr& in, Cycle now);
  bool ExecTrap(const Instr& in, Cycle now);
  bool ExecProfMark(const Instr& in, Cycle now);
  void Emit(const Instr& in, DebugRecord::Kind kind, std::string text);
  // get_system_cycle(): the 50 MHz system counter at the scalar unit's time, derived from the
  // core clock (counter = cycles * counter_mhz / clock_mhz, rounded down).
  int64_t SystemCounter() const;
  // The pipe `in` issues to on this core: its table rule, or its route for a copy. kS after a
  // fault when this core has no route for the copy.
  PipeId PipeFor(const Instr& in);
  // Pushes the queued items into their pipes in order; false when it must stop (queue full,
  // PIPE_ALL drain, not yet at global time).
  bool DrainPending(Cycle& now);
  // auto_sync: queues the set/wait pairs and PIPE_V barrier `issued` needs before it enters
  // `pipe`. False (and waiting) when no event id is free for a pair.
  bool PlanAutoSync(const Instr& in, PipeId pipe, const IssuedInstr& issued);
  // Plans auto_sync for the instruction last in pending_ and queues the syncs before it; false
  // (the instruction taken back) when it must wait for an event id.
  bool QueueAfterAutoSync(const Instr& in, PipeId pipe);
  // Tells the happens-before clocks, auto_sync and the race checker what entered `pipe`.
  void NoteIssued(PipeId pipe, const IssuedInstr& issued);
  // The scalar unit's own set_flag / wait_flag and PIPE_ALL drains, likewise.
  void NoteScalarSet(uint32_t flag);
  void NoteScalarWait(uint32_t flag);
  void NoteBarrierAll();
  // A set_flag / wait_flag / pipe_barrier made on behalf of `at` (framework call or auto_sync).
  const Instr* SyncInstr(const Instr& at, Opcode op, SyncOrigin origin, uint32_t event,
                         PipeId pipe);
  void QueueFlag(const Instr& at, bool set, SyncOrigin origin, uint32_t event, uint32_t id);
  void ScheduleResume(Cycle at);
  // Before touching shared state (pipes, flags, memory) the unit must be at the global time.
  // When it has run ahead and no queued event comes before its own resume would, that resume
  // is certainly the next event: `now` moves to the unit's time here, without the queue (true).
  // Else the resume is queued and the unit stops (false).
  bool CatchUp(Cycle& now);
  void Wake(Cycle now);
  bool Fault(const Instr& in, const std::string& why);
  // An access check_local_memory_ia watches for: a kernel fault (MEMORY_WATCH) at its line.
  // True when the access may go on.
  bool PassesWatch(const IssuedInstr& issued, PipeId pipe);
  // Timing-only launches: `in` (a scalar read) may read `r`, which holds no byte the launch did
  // not compute; else a TIMING_ONLY_READ fault at its line (false).
  bool ReadsKnown(const Instr& in, const MemRange& r);
  Site SiteOf(const Instr* in, PipeId pipe) const;
  int64_t Int(uint32_t slot) const;
  void Advance(uint32_t cycles);  // scalar_unit_inline.h

  uint32_t core_;
  LaunchContext& ctx_;
  ScalarHost& host_;
  IssueEnv env_;

  uint32_t block_ = 0;
  std::vector<ScalarValue> values_;
  std::vector<ScalarValue> tmp_;
  std::vector<Frame> frames_;
  Cycle time_;
  bool done_ = true;
  Cycle pending_resume_ = Cycle::Max();

  Wait wait_ = Wait::kNone;
  const Instr* wait_instr_ = nullptr;
  uint32_t wait_flag_ = 0;
  PipeId stalled_pipe_ = PipeId::kS;
  Cycle wait_since_;
  std::string gm_wait_state_;  // kGmWait: the element that does not hold yet

  PipeStats stats_;
  CoreRegisters& regs_;  // the core's registers: mask, store configuration, SPRs, watch
  ScalarAlu alu_;        // on values_ and regs_
  uint64_t queue_full_stall_cycles_ = 0;
  std::array<uint64_t, kNumPipes> queue_full_by_pipe_{};

  // An instruction on its way into a pipe, the PIPE_ALL drain of TPipe.destroy, or (pipe kS) an
  // S-side sync or element access the scalar unit runs itself, in the same order.
  struct PendingIssue : IssueSlot {
    PipeId pipe = PipeId::kS;
    bool drain_all = false;
  };
  // A FIFO that keeps its capacity: the common path queues one item and drains it at once.
  std::vector<PendingIssue> pending_;
  size_t pending_head_ = 0;
  TPipe tpipe_;
  FwkOutcome fwk_out_;   // what the last framework call did, reused from call to call
  HappensBefore order_;  // fed in issue order when auto_sync or the race checker needs it
  AutoSync auto_sync_;
  std::unique_ptr<RaceChecker> races_;    // null when checking is off
  std::unique_ptr<FlagPairing> pairing_;  // null when checking is off
  bool track_ = false;                    // auto_sync plans syncs
  bool observe_ = false;                  // track_ or races_: keep order_ current
  std::unordered_map<uint64_t, std::unique_ptr<Instr>> synth_;
};

}  // namespace aicore::sim
