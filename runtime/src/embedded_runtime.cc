// The embedded transport: the simulator runs in this process on one sim::Device. Launches decode
// the IR once per distinct kernel (ProgramCache) and run synchronously on the caller's thread, so
// Synchronize has nothing left to wait for.
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "aicore/runtime.h"
#include "report.pb.h"
#include "runtime/src/program_cache.h"
#include "runtime/src/stream_table.h"
#include "runtime/src/trace_output.h"
#include "sim/bridge/bridge.h"

namespace aicore::runtime {
namespace {

class EmbeddedRuntime final : public Runtime {
 public:
  explicit EmbeddedRuntime(sim::SocConfig config)
      : platform_(config.name), device_(std::move(config)) {}

  std::string transport() const override { return "embedded"; }
  const std::string& platform() const override { return platform_; }

  StatusOr<uint64_t> Malloc(uint64_t bytes) override {
    std::lock_guard<std::mutex> lock(mu_);
    return device_.Malloc(bytes);
  }

  Status Free(uint64_t address) override {
    std::lock_guard<std::mutex> lock(mu_);
    return device_.Free(address);
  }

  Status MemcpyToDevice(uint64_t dst, const void* src, uint64_t bytes) override {
    if (bytes == 0) return Status::Ok();
    std::lock_guard<std::mutex> lock(mu_);
    return device_.Write(dst, src, bytes);
  }

  Status MemcpyToHost(void* dst, uint64_t src, uint64_t bytes) override {
    if (bytes == 0) return Status::Ok();
    std::lock_guard<std::mutex> lock(mu_);
    return device_.Read(src, dst, bytes);
  }

  StatusOr<uint32_t> CreateStream() override { return streams_.Create(); }
  Status DestroyStream(uint32_t stream) override { return streams_.Destroy(stream); }

  StatusOr<std::string> Launch(const std::string& kernel_ir, uint32_t block_dim,
                               const std::vector<ArgValue>& args, uint32_t stream,
                               const LaunchSettings& settings) override {
    if (Status s = streams_.Check(stream); !s.ok()) return s;
    auto program = cache_.Get(kernel_ir, nullptr);
    if (!program.ok()) return program.status();

    sim::LaunchOptions options;
    options.max_cycles = settings.max_cycles;
    // A trace needs the timeline even when the caller does not want it in the report.
    options.record_timeline = settings.record_timeline || !settings.trace_dir.empty();
    sim::StatusOr<sim::LaunchResult> result = sim::Internal("launch did not run");
    {
      // One Device runs one launch at a time; memory copies wait for it, as they would behind a
      // real stream.
      std::lock_guard<std::mutex> lock(mu_);
      result = device_.Launch(**program, block_dim, args, options);
    }
    if (!result.ok()) return result.status();
    if (!settings.trace_dir.empty()) {
      if (Status s = WriteLaunchTrace(*result, settings.trace_dir); !s.ok()) return s;
      if (!settings.record_timeline) result->timeline.clear();
    }
    aicore::report::v1::LaunchReport report;
    sim::ToProto(*result, &report);
    std::string bytes;
    if (!report.SerializeToString(&bytes)) return sim::Internal("cannot serialize LaunchReport");
    return bytes;
  }

  Status Synchronize(uint32_t stream) override {
    // Launch returned only after the kernel finished: nothing is pending on any stream.
    return streams_.Check(stream);
  }

 private:
  const std::string platform_;
  std::mutex mu_;  // guards device_
  sim::Device device_;
  ProgramCache cache_;
  StreamTable streams_;
};

}  // namespace

StatusOr<std::unique_ptr<Runtime>> Runtime::CreateEmbedded(const std::string& platform) {
  auto config = sim::LoadSocConfig(platform);
  if (!config.ok()) return config.status();
  return std::unique_ptr<Runtime>(std::make_unique<EmbeddedRuntime>(std::move(*config)));
}

}  // namespace aicore::runtime
