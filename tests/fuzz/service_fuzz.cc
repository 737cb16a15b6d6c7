// libFuzzer target on the daemon's launch handling, offline (docs/fuzzing.md): bytes ->
// aicore.service.v1.LaunchRequest -> the argument and option conversion of the Launch handler ->
// the launch path the daemon and the embedded runtime share (the program cache, then
// sim::DeviceHost::Launch) on a fresh device of "Ascend910B1" with a small cycle cap. A crash, a
// sanitizer report, a leak, an INTERNAL status (the simulator's word for its own bug), an
// oversized error message, a report the client could not parse, or a device left unusable after
// the launch is a finding.
//
// The request is parsed as the daemon's transport parses it (aicore::ir::ParseDeep) and converted
// by the handlers' own code (src/launch_request.h); what needs a live gRPC call (the watchdog,
// the --trace-root sandbox) is not fuzzed.
#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <google/protobuf/stubs/common.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "deep_parse.h"
#include "sim/bridge/bridge.h"
#include "sim/core/quote.h"
#include "sim/host/device_host.h"
#include "sim/host/program_cache.h"
#include "simulator.pb.h"
#include "src/launch_request.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

namespace sim = aicore::sim;
namespace svc = aicore::service::v1;
using aicore::fuzz::CodeName;
using aicore::fuzz::Finding;
using aicore::fuzz::kMaxErrorMessageBytes;

constexpr char kPlatform[] = "Ascend910B1";
// The daemon's --max-cycles for every fuzzed launch: small, so one input stays well under a
// second even on every core; a request asking for more gets this.
constexpr uint64_t kMaxCycles = 20'000;

// Buffers every input finds on its fresh device, filled with a pattern, so the seeds' kernels
// (tests/fuzz/make_corpus.py, BUFFERS) read and write real memory. A fresh device places them at
// 2^32 + i * 2 MiB (the allocator's block); the seeds pass those addresses.
constexpr int kBuffers = 4;
constexpr uint64_t kBufferBytes = 64 << 10;
constexpr uint64_t kFirstBufferAddress = 1ull << 32;
constexpr uint64_t kBufferStride = 2ull << 20;

const sim::SocConfig* g_config = nullptr;
// Daemon-wide, as the daemon's: later inputs may hit what earlier ones decoded.
sim::ProgramCache* g_programs = nullptr;

// The conversions the daemon's handlers use (src/launch_request.h), on a daemon started with
// --max-cycles kMaxCycles and without --trace-root.
sim::Status ConvertRequest(const svc::LaunchRequest& request, sim::HostLaunch* launch) {
  if (!request.options().trace_dir().empty()) {
    return {sim::StatusCode::kFailedPrecondition, "no --trace-root: trace_dir is refused"};
  }
  if (sim::Status s = aicore::daemon::ToArgValues(request.args(), &launch->args); !s.ok()) {
    return s;
  }
  launch->block_dim = request.block_dim();
  return aicore::daemon::ToHostLaunch(request.options(), {kMaxCycles, sim::CheckLevel::kWarn},
                                      launch);
}

void AllocateBuffers(sim::Device& device) {
  std::vector<uint8_t> pattern(kBufferBytes);
  for (int i = 0; i < kBuffers; ++i) {
    auto address = device.Malloc(kBufferBytes);
    const uint64_t expected = kFirstBufferAddress + i * kBufferStride;
    if (!address.ok() || *address != expected) {
      Finding("buffer " + std::to_string(i) + " of a fresh device is not at " +
              std::to_string(expected) + " as tests/fuzz/make_corpus.py assumes: " +
              (address.ok() ? std::to_string(*address) : address.status().message()));
    }
    // Small integers, valid as every dtype (fp16/fp32 too), none zero (no division by zero).
    for (uint64_t b = 0; b < kBufferBytes; ++b) pattern[b] = static_cast<uint8_t>(1 + (b + i) % 7);
    if (!device.Write(*address, pattern.data(), pattern.size()).ok()) {
      Finding("could not fill buffer " + std::to_string(i) + " of a fresh device");
    }
  }
}

// After any launch, faulted or stopped, the session's device keeps serving copies and frees.
void CheckDeviceUsable(sim::Device& device) {
  uint8_t head[32];
  for (int i = 0; i < kBuffers; ++i) {
    const uint64_t address = kFirstBufferAddress + i * kBufferStride;
    sim::Status read = device.Read(address, head, sizeof(head));
    if (!read.ok()) Finding("a read after the launch failed: " + read.message());
    sim::Status freed = device.Free(address);
    if (!freed.ok()) Finding("a free after the launch failed: " + freed.message());
  }
  if (device.bytes_allocated() != 0) Finding("device memory is still allocated after freeing all");
}

// The path of the first `string` field of `message` that is not UTF-8 ("" when all are), so a
// finding names the field the client would fail on.
std::string FirstNonUtf8Field(const google::protobuf::Message& message) {
  using google::protobuf::FieldDescriptor;
  const google::protobuf::Reflection* reflection = message.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);
  for (const FieldDescriptor* field : fields) {
    const int count = field->is_repeated() ? reflection->FieldSize(message, field) : 1;
    for (int i = 0; i < count; ++i) {
      const std::string where =
          field->name() + (field->is_repeated() ? "[" + std::to_string(i) + "]" : "");
      if (field->type() == FieldDescriptor::TYPE_STRING) {
        const std::string value = field->is_repeated()
                                      ? reflection->GetRepeatedString(message, field, i)
                                      : reflection->GetString(message, field);
        // The check the peer's parser applies to a proto3 string.
        if (!google::protobuf::internal::IsStructurallyValidUTF8(value.data(),
                                                                 static_cast<int>(value.size()))) {
          return where + " = " + sim::Quoted(value, 256);
        }
      } else if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
        const google::protobuf::Message& inner =
            field->is_repeated() ? reflection->GetRepeatedMessage(message, field, i)
                                 : reflection->GetMessage(message, field);
        std::string bad = FirstNonUtf8Field(inner);
        if (!bad.empty()) return where + "." + bad;
      }
    }
  }
  return "";
}

void CheckStatus(const sim::Status& status) {
  if (status.code() == sim::StatusCode::kInternal) {
    Finding("the launch answered INTERNAL (a simulator bug): " + status.message().substr(0, 2048));
  }
  if (status.message().size() > kMaxErrorMessageBytes) {
    Finding(std::string("the launch answered ") + CodeName(status.code()) + " with a message of " +
            std::to_string(status.message().size()) + " bytes, over " +
            std::to_string(kMaxErrorMessageBytes) + ": " + status.message().substr(0, 512));
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  aicore::fuzz::QuietLogs();
  auto config = sim::LoadSocConfig(kPlatform);
  if (!config.ok()) {
    Finding(std::string("cannot load ") + kPlatform + ": " + config.status().message());
  }
  g_config = new sim::SocConfig(*config);
  g_programs = new sim::ProgramCache(/*capacity=*/16);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  svc::LaunchRequest request;
  // The daemon's parse (proto/service_parse_traits.h): the IR's depth limit, not protobuf's.
  // A message that does not parse is refused before any handler runs.
  if (!aicore::ir::ParseDeep(std::string(reinterpret_cast<const char*>(data), size), &request)) {
    return 0;
  }

  sim::HostLaunch launch;
  sim::Status status = ConvertRequest(request, &launch);
  if (!status.ok()) return 0;

  sim::DeviceHost host(*g_config);
  AllocateBuffers(host.device());
  aicore::report::v1::LaunchReport report;
  // The daemon's cache key: the kernel as it arrived inside the request, serialized again.
  status = host.Launch(*g_programs, sim::SerializeKernelForCache(request.kernel()),
                       &request.kernel(), launch, &report);
  CheckStatus(status);
  if (status.ok()) {
    // The reply as the client parses it.
    svc::LaunchResponse response;
    *response.mutable_report() = std::move(report);
    svc::LaunchResponse parsed;
    if (!parsed.ParseFromString(response.SerializeAsString())) {
      Finding("the LaunchResponse does not parse back: " + FirstNonUtf8Field(response) +
              " is not UTF-8");
    }
  }
  CheckDeviceUsable(host.device());
  return 0;
}
