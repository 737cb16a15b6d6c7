// The embedded transport: the simulator runs in this process on one sim::DeviceHost. Launches go
// through the launch path the daemon uses too (decode once per distinct kernel, launch, trace,
// report) and run synchronously on the caller's thread, so Synchronize has nothing left to wait
// for.
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "aicore/runtime.h"
#include "report.pb.h"
#include "runtime/src/check_level.h"
#include "runtime/src/sim_status.h"
#include "runtime/src/stream_table.h"
#include "sim/bridge/bridge.h"
#include "sim/host/device_host.h"
#include "sim/host/program_cache.h"

namespace aicore::runtime {
namespace {

class EmbeddedRuntime final : public Runtime {
 public:
  explicit EmbeddedRuntime(sim::SocConfig config)
      : platform_(config.name), host_(std::move(config)) {}

  std::string transport() const override { return "embedded"; }
  const std::string& platform() const override { return platform_; }

  StatusOr<uint64_t> Malloc(uint64_t bytes) override {
    std::lock_guard<std::mutex> lock(mu_);
    sim::StatusOr<uint64_t> address = host_.device().Malloc(bytes);
    if (!address.ok()) return FromSim(address.status());
    return *address;
  }

  Status Free(uint64_t address) override {
    std::lock_guard<std::mutex> lock(mu_);
    return FromSim(host_.device().Free(address));
  }

  Status MemcpyToDevice(uint64_t dst, const void* src, uint64_t bytes) override {
    if (bytes == 0) return Status::Ok();
    std::lock_guard<std::mutex> lock(mu_);
    return FromSim(host_.device().Write(dst, src, bytes));
  }

  Status MemcpyToHost(void* dst, uint64_t src, uint64_t bytes) override {
    if (bytes == 0) return Status::Ok();
    std::lock_guard<std::mutex> lock(mu_);
    return FromSim(host_.device().Read(src, dst, bytes));
  }

  StatusOr<uint32_t> CreateStream() override { return streams_.Create(); }
  Status DestroyStream(uint32_t stream) override { return streams_.Destroy(stream); }

  StatusOr<std::string> Launch(const std::string& kernel_ir, uint32_t block_dim,
                               const std::vector<ArgValue>& args, uint32_t stream,
                               const LaunchSettings& settings) override {
    if (Status s = streams_.Check(stream); !s.ok()) return s;
    StatusOr<CheckLevel> check = ResolveCheckLevel(settings.check);
    if (!check.ok()) return check.status();
    sim::HostLaunch launch;
    launch.check = ToSim(*check);
    launch.block_dim = block_dim;
    launch.args = ToSim(args);
    launch.max_cycles = settings.max_cycles;
    launch.record_timeline = settings.record_timeline;
    launch.timing_only = settings.timing_only;
    launch.trace_dir = settings.trace_dir;
    aicore::report::v1::LaunchReport report;
    {
      // One Device runs one launch at a time; memory copies wait for it, as they would behind a
      // real stream.
      std::lock_guard<std::mutex> lock(mu_);
      sim::Status s = host_.Launch(programs_, kernel_ir, nullptr, launch, &report);
      if (!s.ok()) return FromSim(s);
    }
    std::string bytes;
    if (!report.SerializeToString(&bytes)) {
      return Status(StatusCode::kInternal, "cannot serialize LaunchReport");
    }
    return bytes;
  }

  Status Synchronize(uint32_t stream) override {
    // Launch returned only after the kernel finished: nothing is pending on any stream.
    return streams_.Check(stream);
  }

 private:
  const std::string platform_;
  std::mutex mu_;  // guards host_
  sim::DeviceHost host_;
  sim::ProgramCache programs_;
  StreamTable streams_;
};

}  // namespace

StatusOr<std::unique_ptr<Runtime>> Runtime::CreateEmbedded(const std::string& platform,
                                                           const std::string& config_overrides) {
  auto config = sim::LoadSocConfig(platform, config_overrides);
  if (!config.ok()) return FromSim(config.status());
  return std::unique_ptr<Runtime>(std::make_unique<EmbeddedRuntime>(std::move(*config)));
}

std::vector<std::string> Runtime::ListPlatforms() { return sim::ListPlatforms(); }

}  // namespace aicore::runtime
