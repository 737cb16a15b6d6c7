// The add-a-pipe recipe, done in a test: a pipe is one implementation of the Pipe interface with a
// factory, and a core gets it through its core spec (a pipe row and a route row), without a
// change to AiCore, the scalar unit or the issue stage. A test-only "echo" engine on PIPE_MTE1
// takes over the vector core's UB -> UB copies; its timing, statistics and trace lane are its
// own. A pipe whose invariant fails makes the launch INTERNAL, naming the pipe and instruction.
#include <gtest/gtest.h>

#include "sim/core/invariant.h"
#include "sim/pipe/launch_context.h"
#include "sim/pipe/pipe.h"
#include "sim/pipe/pipe_factory.h"
#include "sim/soc/core_spec.h"
#include "tests/sim/test_util.h"

namespace aicore::sim::testing {
namespace {

// Accepts a copy every 3 cycles and writes its destination 10 cycles after it starts.
class EchoPipe : public Pipe {
 public:
  EchoPipe(PipeId id, uint32_t queue_depth, const PipeEnv& env)
      : Pipe(id, env.core, queue_depth, env.ctx, env.flags, env.listener) {}

 protected:
  PipeTiming Execute(const IssuedInstr& in, Cycle now, uint8_t* scratch) override {
    Gather(in.src0, scratch);  // read at the start, written at the end
    return PipeTiming{now + Cycle(3), now + Cycle(10)};
  }
};

std::unique_ptr<Pipe> CreateEchoPipe(PipeId id, uint32_t queue_depth, const PipeEnv& env) {
  return std::make_unique<EchoPipe>(id, queue_depth, env);
}

// A pipe whose implementation breaks one of its invariants.
class BrokenPipe : public Pipe {
 public:
  BrokenPipe(PipeId id, uint32_t queue_depth, const PipeEnv& env)
      : Pipe(id, env.core, queue_depth, env.ctx, env.flags, env.listener) {}

 protected:
  PipeTiming Execute(const IssuedInstr& in, Cycle now, uint8_t* scratch) override {
    SIM_CHECK(in.bytes == 0, "the broken pipe refuses " + std::to_string(in.bytes) + " bytes");
    return PipeTiming{now + Cycle(1), now + Cycle(1)};
  }
};

std::unique_ptr<Pipe> CreateBrokenPipe(PipeId id, uint32_t queue_depth, const PipeEnv& env) {
  return std::make_unique<BrokenPipe>(id, queue_depth, env);
}

// The platform's vector core with `create` as PIPE_MTE1 moving UB -> UB.
CoreSpec VectorCoreWithMte1(const SocConfig& config, PipeFactory create) {
  StatusOr<CoreSpec> spec = CoreSpecFor(CoreType::kAiv, config);
  EXPECT_TRUE(spec.ok()) << spec.status().message();
  spec->pipes.push_back(PipeSpec{PipeId::kMte1, 4, create});
  for (Route& r : spec->routes) {
    if (r.src == MemSpace::kUb && r.dst == MemSpace::kUb) r.pipe = PipeId::kMte1;
  }
  return *spec;
}

// GM -> UB, UB -> UB (line 12), UB -> GM of 64 fp32, ordered by PIPE_ALL barriers.
ir::Kernel CopyThroughUb() {
  KernelBuilder b("echo");
  uint32_t x = b.PointerParam("x", ir::DT_FLOAT32);
  uint32_t y = b.PointerParam("y", ir::DT_FLOAT32);
  uint32_t n = b.Const(64);
  uint32_t a = b.Const(0), c = b.Const(256);
  b.At(11).DataCopy(KernelBuilder::Ub(a, ir::DT_FLOAT32), KernelBuilder::Gm(x, ir::DT_FLOAT32), n);
  b.Barrier(ir::PIPE_ALL);
  b.At(12).DataCopy(KernelBuilder::Ub(c, ir::DT_FLOAT32), KernelBuilder::Ub(a, ir::DT_FLOAT32), n);
  b.Barrier(ir::PIPE_ALL);
  b.At(13).DataCopy(KernelBuilder::Gm(y, ir::DT_FLOAT32), KernelBuilder::Ub(c, ir::DT_FLOAT32), n);
  return b.Build();
}

TEST(PipeRecipe, ATestOnlyPipeJoinsACoreThroughItsSpec) {
  SocConfig config = Config();
  Device device(config);
  CoreSpec spec = VectorCoreWithMte1(config, &CreateEchoPipe);
  EXPECT_EQ(spec.PipeList(), "S, V, MTE2, MTE3, MTE1");
  std::vector<float> in(64);
  for (int i = 0; i < 64; ++i) in[i] = 0.5f * static_cast<float>(i);
  uint64_t x = Upload(device, in), y = Upload(device, std::vector<float>(64, 0));
  auto program = Decode(CopyThroughUb());
  LaunchOptions options;
  options.record_timeline = true;
  options.vector_core = &spec;
  auto r = device.Launch(*program, 1, {ArgValue::Address(x), ArgValue::Address(y)}, options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->status, LaunchResult::Status::kOk);
  EXPECT_EQ(Download<float>(device, y, 64), in);
  const InstrRecord* copy = Find(*r, "data_copy", 12);
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->pipe, "MTE1");
  EXPECT_EQ(copy->end_cycle - copy->start_cycle, 10u);  // the echo engine's own timing
  const PipeStats* mte1 = FindPipe(r->cores[0], "MTE1");
  ASSERT_NE(mte1, nullptr);
  EXPECT_EQ(mte1->instructions, 1u);
  EXPECT_EQ(mte1->bytes, 256u);
  EXPECT_EQ(FindPipe(r->cores[0], "V")->instructions, 0u);

  // The platform's core still runs UB -> UB copies on PIPE_V.
  options.vector_core = nullptr;
  r = device.Launch(*program, 1, {ArgValue::Address(x), ArgValue::Address(y)}, options);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Find(*r, "data_copy", 12)->pipe, "V");
}

TEST(PipeRecipe, ACoreWithoutThePathFaultsAtTheCopy) {
  SocConfig config = Config();
  Device device(config);
  CoreSpec spec = *CoreSpecFor(CoreType::kAiv, config);
  std::erase_if(spec.routes, [](const Route& r) { return r.src == r.dst; });
  uint64_t x = Upload(device, std::vector<float>(64, 1)),
           y = Upload(device, std::vector<float>(64));
  LaunchOptions options;
  options.vector_core = &spec;
  auto r = device.Launch(*Decode(CopyThroughUb()), 1, {ArgValue::Address(x), ArgValue::Address(y)},
                         options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->status, LaunchResult::Status::kKernelFault);
  ASSERT_EQ(r->diagnostics.size(), 1u);
  EXPECT_NE(r->diagnostics[0].message.find("data_copy from UB to UB has no data path on a vector "
                                           "core"),
            std::string::npos)
      << r->diagnostics[0].message;
  EXPECT_EQ(r->diagnostics[0].location.line, 12u);
}

TEST(PipeRecipe, ABrokenInvariantIsAnInternalErrorNamingThePipeAndTheInstruction) {
  SocConfig config = Config();
  Device device(config);
  CoreSpec spec = VectorCoreWithMte1(config, &CreateBrokenPipe);
  uint64_t x = Upload(device, std::vector<float>(64, 1)),
           y = Upload(device, std::vector<float>(64));
  LaunchOptions options;
  options.vector_core = &spec;
  auto r = device.Launch(*Decode(CopyThroughUb()), 1, {ArgValue::Address(x), ArgValue::Address(y)},
                         options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInternal);
  const std::string& m = r.status().message();
  EXPECT_NE(m.find("simulator bug (not a fault of your kernel)"), std::string::npos) << m;
  EXPECT_NE(m.find("the broken pipe refuses 256 bytes"), std::string::npos) << m;
  EXPECT_NE(m.find("tests/sim/dummy_pipe_test.cc:"), std::string::npos) << m;
  EXPECT_NE(m.find("while core 0 (block 0) PIPE_MTE1 starting data_copy at kernel.py:12"),
            std::string::npos)
      << m;
  // The device stays usable after our bug.
  options.vector_core = nullptr;
  EXPECT_TRUE(device
                  .Launch(*Decode(CopyThroughUb()), 1, {ArgValue::Address(x), ArgValue::Address(y)},
                          options)
                  .ok());
}

}  // namespace
}  // namespace aicore::sim::testing
