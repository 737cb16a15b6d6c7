// Launches a kernel IR file (a serialized aicore.ir.v1.Kernel: the tutorial vector add, float32,
// params x, y, z, block_length) through the installed runtime and checks z = x + y. Embedded by
// default; against a daemon when AICORE_SIM_ADDRESS is set. Prints the transport, both versions,
// the kernel's name (from the IR, parsed with aicoresim::proto's headers), then PASS with the
// report's status and cycles, or what failed.
//
//   vadd_consumer KERNEL.pb BLOCKS BLOCK_LENGTH
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "aicore/runtime.h"
#include "aicore/version.h"
#include "kernel.pb.h"
#include "report.pb.h"

namespace rt = aicore::runtime;

static int Fail(const std::string& what, const rt::Status& s) {
  std::fprintf(stderr, "%s: [%s] %s\n", what.c_str(), rt::StatusCodeName(s.code()),
               s.message().c_str());
  return 1;
}

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s KERNEL.pb BLOCKS BLOCK_LENGTH\n", argv[0]);
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::string ir((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) {
    std::fprintf(stderr, "cannot read %s\n", argv[1]);
    return 2;
  }
  aicore::ir::v1::Kernel kernel;
  if (!kernel.ParseFromString(ir)) {
    std::fprintf(stderr, "%s is not a serialized aicore.ir.v1.Kernel\n", argv[1]);
    return 2;
  }
  uint32_t blocks = static_cast<uint32_t>(std::strtoul(argv[2], nullptr, 10));
  int64_t block_length = std::strtoll(argv[3], nullptr, 10);
  size_t n = static_cast<size_t>(blocks) * static_cast<size_t>(block_length);
  uint64_t bytes = n * sizeof(float);

  auto runtime = rt::Runtime::Create("Ascend910B1");
  if (!runtime.ok()) return Fail("create", runtime.status());
  rt::Runtime& r = **runtime;
  std::printf("transport %s\nheaders %s library %s\nkernel %s\n", r.transport().c_str(),
              AICORE_SIM_VERSION, rt::Version().c_str(), kernel.name().c_str());

  std::vector<float> x(n), y(n), z(n, -1.0f);
  for (size_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i % 97);
    y[i] = 0.5f * static_cast<float>(i % 13);
  }
  uint64_t addr[3];
  for (uint64_t& a : addr) {
    auto m = r.Malloc(bytes);
    if (!m.ok()) return Fail("malloc", m.status());
    a = *m;
  }
  if (rt::Status s = r.MemcpyToDevice(addr[0], x.data(), bytes); !s.ok()) return Fail("copy x", s);
  if (rt::Status s = r.MemcpyToDevice(addr[1], y.data(), bytes); !s.ok()) return Fail("copy y", s);
  std::vector<rt::ArgValue> args = {rt::ArgValue::Address(addr[0]), rt::ArgValue::Address(addr[1]),
                                    rt::ArgValue::Address(addr[2]),
                                    rt::ArgValue::Int(block_length)};
  rt::LaunchSettings settings;
  settings.check = rt::CheckLevel::kStrict;
  auto report = r.Launch(ir, blocks, args, 0, settings);
  if (!report.ok()) return Fail("launch", report.status());
  if (rt::Status s = r.Synchronize(0); !s.ok()) return Fail("synchronize", s);
  if (rt::Status s = r.MemcpyToHost(z.data(), addr[2], bytes); !s.ok()) return Fail("copy z", s);
  for (size_t i = 0; i < n; ++i) {
    if (z[i] != x[i] + y[i]) {
      std::fprintf(stderr, "FAIL: z[%zu] = %g, want %g\n", i, z[i], x[i] + y[i]);
      return 1;
    }
  }
  aicore::report::v1::LaunchReport parsed;
  if (!parsed.ParseFromString(*report)) {
    std::fprintf(stderr, "the launch returned no LaunchReport\n");
    return 1;
  }
  std::printf("PASS %zu elements on %u cores: %s, %llu cycles\n", n, blocks,
              aicore::report::v1::LaunchReport::Status_Name(parsed.status()).c_str(),
              static_cast<unsigned long long>(parsed.cycles()));
  return 0;
}
