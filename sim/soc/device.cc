// Device: GM allocations plus the launch entry point (see device.h). A Device is not
// thread-safe; hosts serialise calls per device (the daemon: per session).
#include "sim/soc/device.h"

#include "sim/core/invariant.h"
#include "sim/isa/cost_table.h"
#include "sim/mem/global_memory.h"
#include "sim/soc/config_check.h"
#include "sim/soc/launch_engine.h"

namespace aicore::sim {

Device::Device(SocConfig config)
    : config_(std::move(config)),
      gm_(std::make_unique<GlobalMemory>(config_.hbm_bytes, config_.gm_alloc_alignment_bytes,
                                         config_.gm_alloc_block_bytes)) {}

Device::~Device() = default;

StatusOr<uint64_t> Device::Malloc(uint64_t bytes) { return gm_->Malloc(bytes); }
Status Device::Free(uint64_t address) { return gm_->Free(address); }
Status Device::Write(uint64_t address, const void* src, uint64_t bytes, uint64_t call_start) {
  return gm_->Write(address, src, bytes, call_start);
}
Status Device::Read(uint64_t address, void* dst, uint64_t bytes, uint64_t call_start) const {
  return gm_->Read(address, dst, bytes, call_start);
}
uint64_t Device::bytes_allocated() const { return gm_->bytes_allocated(); }

StatusOr<LaunchResult> Device::Launch(const Program& program, uint32_t block_dim,
                                      const std::vector<ArgValue>& args,
                                      const LaunchOptions& options) {
  // Checked per launch (cheap: a few dozen fields and rows) so a Device built from a hand-made
  // SocConfig gets the same validation as one loaded from configs/.
  Status valid = ValidateSocConfig(config_, "SocConfig " + config_.name);
  if (!valid.ok()) return valid;
  StatusOr<CostTable> costs = CostTable::Build(config_);
  if (!costs.ok()) return costs.status();
  LaunchEngine engine(config_, *costs, *gm_);
  try {
    return engine.Run(program, block_dim, args, options);
  } catch (const InvariantViolation& bug) {
    // Our bug, not the kernel's: INTERNAL, with the unit that was running. Device memory may hold
    // a partial result; the device stays usable.
    return Internal(bug.what());
  }
}

}  // namespace aicore::sim
