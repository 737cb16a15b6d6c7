// One AI Core built from its core spec (sim/soc/core_spec.h) in its place of a core group
// (sim/soc/core_group.h): its memory map, routes, flag file, scalar unit and the pipes the spec
// lists, wired once. It runs the blocks assigned to it one after another (waves when block_dim
// exceeds the core count), dispatches its events to the right unit and records per-block
// statistics.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/check/deadlock.h"
#include "sim/core/event_queue.h"
#include "sim/core/launch_progress.h"
#include "sim/mem/memory_map.h"
#include "sim/pipe/pipe.h"
#include "sim/pipe/route.h"
#include "sim/pipe/scalar_unit.h"
#include "sim/soc/core_spec.h"
#include "sim/sync/cross_core_sync.h"
#include "sim/sync/flags.h"

namespace aicore::sim {

struct LaunchContext;

// A core's place among its group's cores of its type (sim/soc/core_group.h).
struct SubBlock {
  uint32_t idx = 0;
  uint32_t num = 1;
};

class AiCore : public PipeListener, public ScalarHost, public CrossCoreHost {
 public:
  // `spec` must outlive the core.
  AiCore(uint32_t index, const CoreSpec& spec, SubBlock sub_block, LaunchContext& ctx,
         const std::vector<ScalarValue>& initial_values);
  ~AiCore() override;

  void AddBlock(uint32_t block) {
    pending_blocks_.push_back(block);
    ++blocks_assigned_;
  }
  // Starts the first assigned block at `at`.
  void Begin(Cycle at);
  void HandleEvent(const Event& e);

  bool finished() const { return finished_; }
  // Statistics of finished blocks plus, after a fault/deadlock, the block that was running
  // (ended at `now`).
  std::vector<CoreStats> TakeStats(Cycle now);
  // Cycle at which this core's last block ended.
  Cycle end_cycle() const { return end_cycle_; }
  void CollectWaiters(std::vector<WaiterInfo>* out) const;
  // Every instruction still in a pipe queue (issued, never started), with its pipe.
  void CollectUnstarted(std::vector<std::pair<PipeId, const Instr*>>* out) const;
  // Where this core is, for LaunchProgress.
  CoreProgress Progress() const;
  // "core 3 (block 3) PIPE_V at add (add.py:12)": the unit event `e` drives, for invariant
  // messages.
  std::string DescribeEvent(const Event& e) const;

  // PipeListener
  void OnQueueSpace(PipeId pipe, Cycle now) override;
  void OnInstrEnd(PipeId pipe, Cycle now) override;
  void OnSetFlag(uint32_t flag, const Instr* instr, Cycle now) override;
  void OnCrossCoreSet(uint32_t id, const Instr* instr, Cycle now) override;
  void OnWaitPassed(uint32_t flag, const Instr* instr, Cycle now) override;
  Cycle StartGate(const IssuedInstr& in) override;
  void OnStart(const IssuedInstr& in, Cycle now, Cycle end) override;
  // ScalarHost
  CoreType core_type() const override { return spec_.type; }
  uint32_t sub_block_idx() const override { return sub_block_.idx; }
  uint32_t sub_block_num() const override { return sub_block_.num; }
  const std::string& core_name() const override { return spec_.name; }
  std::string pipe_list() const override { return spec_.PipeList(); }
  Pipe* pipe(PipeId id) override;
  bool AllPipesDrained() const override;
  void OnScalarDone(Cycle now) override;
  void OnFlagCleared(uint32_t flag, Cycle now) override;
  // CrossCoreHost
  void WakeScalar(Cycle now) override { scalar_->WakeForSync(now); }

 private:
  void StartBlock(uint32_t block, Cycle at);
  void CheckBlockEnd(Cycle now);
  CoreStats BlockStats(Cycle end) const;
  void OnFlagVisible(uint32_t flag, Cycle now);
  // A parked cross-core set lands on this core's counter.
  void OnCrossFlagVisible(uint64_t parked, Cycle now);
  // The scalar unit blocked in a cross-core or GM wait, as a waiter.
  void SyncWaiter(const WaiterInfo& base, std::vector<WaiterInfo>* out) const;
  // `p`'s head, blocked by the unit flag's L0C ready bits, as a waiter; false if it is not.
  bool UnitFlagWaiter(const Pipe& p, const WaiterInfo& base, std::vector<WaiterInfo>* out) const;

  uint32_t index_;
  const CoreSpec& spec_;
  SubBlock sub_block_;
  LaunchContext& ctx_;
  const std::vector<ScalarValue>& initial_values_;
  MemoryMap memories_;
  RouteTable routes_;
  CoreRegisters registers_;  // built from the core type's row; shared by the scalar unit and pipes
  PayloadPool<MoveArgs> moves_;      // rearrangement operands between issue and PIPE_V
  PayloadPool<CubeArgs> cube_args_;  // cube operands between issue and the cube's pipes
  FlagFile flags_;
  std::array<std::unique_ptr<Pipe>, kNumPipes> pipes_;
  std::unique_ptr<ScalarUnit> scalar_;

  std::deque<uint32_t> pending_blocks_;
  uint32_t block_ = 0;
  bool running_ = false;
  bool finished_ = false;
  uint32_t blocks_assigned_ = 0;
  uint32_t blocks_done_ = 0;
  Cycle end_cycle_;
  uint32_t pending_flag_events_ = 0;
  std::vector<const Instr*> last_setter_;  // per flag: the set_flag that set it last
  // Per flag: the program's own wait_flag that consumed a set_flag auto_sync inserted, and that
  // set (for the deadlock report of the inserted wait left without one).
  std::unordered_map<uint32_t, std::pair<const Instr*, const Instr*>> consumed_inserted_;
  std::vector<CrossCoreSync::Delivery> deliveries_;  // scratch of OnCrossCoreSet
  std::vector<CoreStats> stats_;
};

}  // namespace aicore::sim
