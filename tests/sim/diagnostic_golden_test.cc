// Golden diagnostics: one kernel per finding the checkers make, each compared in full (kind,
// severity, both places, memory range, message) with tests/sim/golden/diagnostics/<case>.txt.
// A changed message is a changed user interface: review the diff, then regenerate the files with
// AICORE_UPDATE_GOLDENS=1 and commit them with the change that explains it.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "tests/sim/fault_kernels.h"
#include "tests/sim/test_util.h"

namespace aicore::sim::testing {
namespace {

struct Case {
  std::string name;       // golden file name
  Diagnostic::Kind kind;  // the finding of the case (the first of its kind)
  std::function<ir::Kernel()> kernel;
  uint32_t blocks = 1;
  // Host data per pointer parameter, in elements of 4 bytes; 0: allocate without writing.
  std::vector<size_t> args;
  uint64_t max_cycles = 0;
};

std::string Render(const Diagnostic& d) {
  std::ostringstream o;
  std::string severity(SeverityName(d.severity));
  for (char& c : severity) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  o << "kind: " << DiagnosticKindName(d.kind) << " (" << severity << ")\n";
  if (d.location.file.empty()) {
    o << "at: (the launch, no instruction)\n";
  } else {
    o << "at: " << d.location.file << ":" << d.location.line << " (PIPE_" << d.pipe << " " << d.op
      << ")\n";
  }
  if (!d.race.empty()) {
    o << "race: " << d.race << " with " << d.other_location.file << ":" << d.other_location.line
      << " (" << (d.other_core >= 0 ? "core " + std::to_string(d.other_core) + " " : "") << "PIPE_"
      << d.other_pipe << " " << d.other_op << ")\n";
  }
  if (!d.memory.empty()) {
    if (d.memory == "GM") o << std::hex << std::showbase;
    o << "memory: " << d.memory << "[" << d.address_lo << ", " << d.address_hi << ")\n"
      << std::dec << std::noshowbase;
  }
  o << "message: " << d.message << "\n";
  return o.str();
}

std::string GoldenPath(const std::string& name) {
  return std::string(AICORE_TEST_DATA_DIR) + "/golden/diagnostics/" + name + ".txt";
}

// Floats in one allocator block of the preset (gm.alloc_block_bytes, 2 MiB).
constexpr int64_t kBlockFloats = (2 << 20) / 4;

ir::Kernel WaitWithoutSet() {
  KernelBuilder b("stuck", "deadlock.py");
  b.At(7).WaitFlag(kMte2V, b.Const(3, ir::DT_INT32));
  return b.Build();
}

ir::Kernel CrossedWaits() {
  KernelBuilder b("cycle", "cycle.py");
  uint32_t id = b.Const(1, ir::DT_INT32);
  b.At(3).WaitFlag(kVMte2, id);  // on MTE2, before its own set below
  b.At(4).SetFlag(kMte2V, id);
  b.At(5).WaitFlag(kMte2V, id);  // on V
  b.At(6).SetFlag(kVMte2, id);
  return b.Build();
}

ir::Kernel EventIdOutOfRange() {
  KernelBuilder b("bad_id", "id.py");
  b.At(2).SetFlag(kMte2V, b.Const(8, ir::DT_INT32));
  return b.Build();
}

ir::Kernel FlagHygiene() {
  KernelBuilder b("flags", "f.py");
  uint32_t id = b.Const(2, ir::DT_INT32);
  b.At(3).SetFlag(kMte2V, id);
  b.At(4).SetFlag(kMte2V, id);  // already set: this set is lost
  b.At(5).SetFlag(kVMte3, id);  // never waited
  b.At(6).WaitFlag(kMte2V, id);
  return b.Build();
}

ir::Kernel Spin() {
  KernelBuilder b("spin", "spin.py");
  auto loop = b.BeginFor(b.Const(0), b.Const(int64_t{1} << 60), b.Const(1));
  b.At(3).Add(loop.iv, loop.iv);
  b.EndFor();
  return b.Build();
}

ir::Kernel AddMissingWait() {
  AddKernelOptions o;
  o.skip_mte2_v_wait = true;
  return AddKernel(o);
}

// A TPipe queue whose buffer [0, 1024) is freed (`free` true) or never allocated, touched by a
// vector op at line 8.
ir::Kernel IdleQueueBufferUse(bool free) {
  using FW = ir::FrameworkOp;
  KernelBuilder b("bad", "bad.py");
  b.At(2).Fwk(FW::PIPE_INIT);
  uint32_t q = b.At(3).Que("inQueueX", ir::POS_VECIN, 1);
  b.At(4).InitBuffer(q, 1, 1024);
  uint32_t n = b.Const(64, ir::DT_INT32);
  uint32_t at = b.Const(512, ir::DT_UINT32), other = b.Const(8192, ir::DT_UINT32);
  if (free) {
    KernelBuilder::Tensor t = b.At(5).AllocTensor(q);
    b.At(6).FreeTensor(q, t.addr);
    at = t.addr;
  }
  b.At(8).VecUnary(ir::VecUnaryOp::ABS, KernelBuilder::Ub(other, ir::DT_FLOAT32),
                   KernelBuilder::Ub(at, ir::DT_FLOAT32), n);
  return b.Build();
}

const std::vector<Case>& Cases() {
  static const auto* cases = new std::vector<Case>{
      {"deadlock_wait_without_set", Diagnostic::Kind::kDeadlock, WaitWithoutSet},
      {"deadlock_cycle", Diagnostic::Kind::kDeadlock, CrossedWaits, 2},
      {"out_of_bounds_ub",
       Diagnostic::Kind::kOutOfBounds,
       [] { return CopyToUb(196608 - 256, 128); },
       1,
       {128}},
      {"invalid_operand_misaligned_ub",
       Diagnostic::Kind::kInvalidOperand,
       [] { return CopyToUb(100, 64); },
       1,
       {64}},
      {"invalid_operand_event_id", Diagnostic::Kind::kInvalidOperand, EventIdOutOfRange},
      {"invalid_operand_freed_tensor", Diagnostic::Kind::kInvalidOperand,
       [] { return IdleQueueBufferUse(true); }},
      // x and y each start a 2 MiB block (gm.alloc_block_bytes), y's right behind x's: 2 blocks
      // from x is past y's block, unmapped.
      {"gm_out_of_bounds",
       Diagnostic::Kind::kGmOutOfBounds,
       [] { return CopyFromGm(2 * kBlockFloats, 8); },
       1,
       {8, 1024}},
      {"gm_overrun", Diagnostic::Kind::kGmOverrun, [] { return CopyFromGm(0, 16); }, 1, {8, 16}},
      {"gm_overrun_into_tensor",
       Diagnostic::Kind::kGmOverrun,
       [] { return CopyFromGm(kBlockFloats - 8, 16); },
       1,
       {8, 16}},
      {"cycle_limit", Diagnostic::Kind::kCycleLimit, Spin, 1, {}, 100000},
      {"flag_overflow", Diagnostic::Kind::kFlagOverflow, FlagHygiene},
      {"unmatched_flag", Diagnostic::Kind::kUnmatchedFlag, FlagHygiene},
      {"race_raw_missing_wait", Diagnostic::Kind::kRace, AddMissingWait, 1, {1024, 1024, 1024}},
      {"race_waw_mte2_without_barrier",
       Diagnostic::Kind::kRace,
       [] { return TwoCopiesInto(false); },
       1,
       {1024}},
      {"race_raw_vector_without_barrier", Diagnostic::Kind::kRace,
       [] { return DependentVectorOps(false); }},
      {"race_waw_across_cores",
       Diagnostic::Kind::kRace,
       [] { return EveryCoreWritesOneRange(true); },
       2,
       {64, 64}},
      {"gm_shared_write",
       Diagnostic::Kind::kGmSharedWrite,
       [] { return EveryCoreWritesOneRange(false); },
       2,
       {64, 64}},
      {"uninitialized_read_ub", Diagnostic::Kind::kUninitializedRead,
       [] { return DependentVectorOps(true); }},
      {"uninitialized_read_gm",
       Diagnostic::Kind::kUninitializedRead,
       [] { return EveryCoreWritesOneRange(false); },
       1,
       {0, 64}},
      {"unallocated_buffer", Diagnostic::Kind::kUnallocatedBuffer,
       [] { return IdleQueueBufferUse(false); }},
  };
  return *cases;
}

class DiagnosticGolden : public ::testing::TestWithParam<Case> {};

TEST_P(DiagnosticGolden, MatchesItsGoldenFile) {
  const Case& c = GetParam();
  Device device(Config());
  std::vector<ArgValue> args;
  for (size_t elements : c.args) {
    if (elements == 0) {
      args.push_back(ArgValue::Address(*device.Malloc(256)));
    } else {
      std::vector<float> data(elements);
      for (size_t i = 0; i < elements; ++i) data[i] = static_cast<float>(i % 7) + 1.0f;
      args.push_back(ArgValue::Address(Upload(device, data)));
    }
  }
  auto program = Decode(c.kernel());
  ASSERT_NE(program, nullptr);
  LaunchOptions options;
  options.max_cycles = c.max_cycles;
  auto r = device.Launch(*program, c.blocks, args, options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Diagnostic* found = nullptr;
  for (const Diagnostic& d : r->diagnostics) {
    if (d.kind == c.kind) {
      found = &d;
      break;
    }
  }
  ASSERT_NE(found, nullptr) << "no " << DiagnosticKindName(c.kind) << " among "
                            << r->diagnostics.size() << " diagnostics";
  const std::string got = Render(*found);
  const std::string path = GoldenPath(c.name);
  if (std::getenv("AICORE_UPDATE_GOLDENS") != nullptr) {
    std::ofstream(path, std::ios::binary) << got;
    GTEST_SKIP() << "wrote " << path;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in.good()) << path << " is missing: run with AICORE_UPDATE_GOLDENS=1 to write it";
  std::stringstream want;
  want << in.rdbuf();
  EXPECT_EQ(got, want.str()) << "golden " << path;
}

TEST(DiagnosticGolden, EveryKindHasAGolden) {
  std::vector<bool> covered(static_cast<size_t>(Diagnostic::Kind::kUnallocatedBuffer) + 1, false);
  for (const Case& c : Cases()) covered[static_cast<size_t>(c.kind)] = true;
  for (size_t k = 1; k < covered.size(); ++k) {
    EXPECT_TRUE(covered[k]) << DiagnosticKindName(static_cast<Diagnostic::Kind>(k))
                            << " has no golden case";
  }
}

INSTANTIATE_TEST_SUITE_P(Kinds, DiagnosticGolden, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace aicore::sim::testing
