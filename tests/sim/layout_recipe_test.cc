// The add-an-operand-layout recipe, done in a test: a layout is a row (its shape data) plus its
// functions (the issue stage's builder, the pipe's executor), found by every stage through the
// layout table, with no change to the decoder's dispatch, the issue stage, the vector pipe or
// the scalar unit. A test-only "reverse" layout on PIPE_V writes its source's elements in
// reverse order with timing of its own; it has no proto message, so the test puts it into a
// decoded program by hand. The table's own rows are checked for the columns each stage needs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "sim/isa/layout.h"
#include "sim/isa/opcode.h"
#include "sim/pipe/issue.h"
#include "sim/pipe/issue_internal.h"
#include "sim/pipe/layout_functions.h"
#include "sim/pipe/pipe_executors.h"
#include "sim/pipe/vector_pipe.h"
#include "tests/sim/test_util.h"

namespace aicore::sim::testing {
namespace {

// Issue: the count form's dst and src, checked against UB and seen by the race checker.
bool BuildReverse(const Instr& instr, const std::vector<ScalarValue>& /*values*/,
                  const issue::Evaluator& ev, const IssueEnv& env, const Site& site,
                  IssuedInstr* out) {
  const MemOpInfo& m = env.program.mem_ops[instr.aux];
  int64_t count = ev.Int(m.count);
  if (count < 0) return ev.Fail("field count = " + std::to_string(count) + " is negative");
  uint64_t bytes = static_cast<uint64_t>(count) * DTypeSize(instr.dtype);
  uint64_t src = 0, dst = 0;
  uint8_t *src_host = nullptr, *dst_host = nullptr;
  if (!ev.Address(m.src0.addr, "src.addr", &src) || !ev.Address(m.dst.addr, "dst.addr", &dst) ||
      !issue::ResolveSide(m.src0, src, bytes, {"src", false}, env, site, &src_host, out) ||
      !issue::ResolveSide(m.dst, dst, bytes, {"dst", true}, env, site, &dst_host, out)) {
    return false;
  }
  out->src0 = Transfer{src_host, bytes, bytes, 1};
  out->dst = Transfer{dst_host, bytes, bytes, 1};
  out->count = static_cast<uint64_t>(count);
  out->bytes = bytes;
  out->bursts = 1;
  return true;
}

// PIPE_V: the elements reversed into the scratch (written to dst at the end); busy 2 cycles,
// the result lands after 7.
PipeTiming ExecuteReverse(VectorPipe& /*pipe*/, const IssuedInstr& in, Cycle now,
                          uint8_t* scratch) {
  uint64_t esize = in.count == 0 ? 0 : in.bytes / in.count;
  for (uint64_t i = 0; i < in.count; ++i) {
    std::memcpy(scratch + i * esize, in.src0.base + (in.count - 1 - i) * esize, esize);
  }
  return PipeTiming{now + Cycle(2), now + Cycle(7)};
}

const RegisteredInstruction& Reverse() {
  static const RegisteredInstruction reverse = [] {
    OpcodeInfo row{};
    row.mnemonic = "test_reverse";
    row.unit = ExecUnit::kPipe;
    row.pipe = PipeRule::kV;
    row.forms = kCountForm;
    row.dtypes = kF32;
    LayoutInfo layout{};
    layout.name = "reverse";
    layout.sync = SyncRole::kNone;
    layout.sources = 1;
    RegisteredInstruction r = RegisterInstruction(row, layout);
    RegisterLayoutFunctions(
        r.op_class, LayoutFunctions{&BuildReverse, &ExecuteReverse, &NoDmaExec, &NoCubeExec});
    return r;
  }();
  return reverse;
}

// GM -> UB, abs on line 12 (the op the test turns into test_reverse), UB -> GM of 64 fp32.
ir::Kernel ReverseKernel() {
  KernelBuilder b("reverse");
  uint32_t x = b.PointerParam("x", ir::DT_FLOAT32);
  uint32_t y = b.PointerParam("y", ir::DT_FLOAT32);
  uint32_t n = b.Const(64);
  uint32_t a = b.Const(0), c = b.Const(256);
  b.At(11).DataCopy(KernelBuilder::Ub(a, ir::DT_FLOAT32), KernelBuilder::Gm(x, ir::DT_FLOAT32), n);
  b.Barrier(ir::PIPE_ALL);
  b.At(12).VecUnary(ir::VecUnaryOp::ABS, KernelBuilder::Ub(c, ir::DT_FLOAT32),
                    KernelBuilder::Ub(a, ir::DT_FLOAT32), n);
  b.Barrier(ir::PIPE_ALL);
  b.At(13).DataCopy(KernelBuilder::Gm(y, ir::DT_FLOAT32), KernelBuilder::Ub(c, ir::DT_FLOAT32), n);
  return b.Build();
}

TEST(LayoutRecipe, ATestOnlyLayoutRunsThroughEveryStageFromItsRow) {
  const RegisteredInstruction& reverse = Reverse();
  EXPECT_EQ(Info(reverse.opcode).mnemonic, "test_reverse");
  EXPECT_EQ(Layout(reverse.op_class).name, "reverse");
  EXPECT_EQ(VectorSources(reverse.op_class), 1);

  auto decoded = Decode(ReverseKernel());
  ASSERT_NE(decoded, nullptr);
  Program program = *decoded;
  int replaced = 0;
  for (Instr& in : program.regions[0].ops) {
    if (in.line == 12 && in.opcode == Opcode::kVecAbs) {
      in.opcode = reverse.opcode;
      ++replaced;
    }
  }
  ASSERT_EQ(replaced, 1);

  SocConfig config = Config();
  Device device(config);
  std::vector<float> in(64);
  for (int i = 0; i < 64; ++i) in[i] = 0.25f * static_cast<float>(i) - 3.0f;
  uint64_t x = Upload(device, in), y = Upload(device, std::vector<float>(64, 0));
  LaunchOptions options = Strict();
  options.record_timeline = true;
  auto r = device.Launch(program, 1, {ArgValue::Address(x), ArgValue::Address(y)}, options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->status, LaunchResult::Status::kOk);
  ExpectStrictClean(*r);
  std::vector<float> want(in.rbegin(), in.rend());
  EXPECT_EQ(Download<float>(device, y, 64), want);
  const InstrRecord* rec = Find(*r, "test_reverse", 12);
  ASSERT_NE(rec, nullptr);
  EXPECT_EQ(rec->pipe, "V");
  EXPECT_EQ(rec->end_cycle - rec->start_cycle, 7u);  // the layout's own timing
}

TEST(LayoutRecipe, TheTableGivesEveryInstructionTheColumnsItsStagesRead) {
  for (const OpcodeInfo& row : kOpcodeTable) {
    const LayoutInfo& layout = Layout(row.op_class);
    EXPECT_EQ(layout.id, row.op_class) << row.mnemonic;
    const LayoutFunctions& f = FunctionsOf(row.op_class);
    bool pipe = row.unit == ExecUnit::kPipe;
    EXPECT_EQ(f.build != &issue::NoBuild, pipe) << row.mnemonic << " (" << layout.name << ")";
    // Every vector compute row has an executor on PIPE_V and a maker in the frontend.
    if (row.semantics != nullptr) {
      EXPECT_NE(f.vexec, &NoVectorExec) << row.mnemonic;
      EXPECT_FALSE(layout.maker.empty()) << row.mnemonic;
    }
    // Routed moves run on the data movers; data_copy also UB -> UB on PIPE_V.
    if (row.pipe == PipeRule::kRouted) {
      EXPECT_NE(f.dexec, &NoDmaExec) << row.mnemonic;
      if (row.op_class == OpClass::kDataCopy) {
        EXPECT_NE(f.vexec, &NoVectorExec) << row.mnemonic;
      }
    }
    // The cube's rows run on PIPE_M.
    if (row.pipe == PipeRule::kM) {
      EXPECT_NE(f.cexec, &NoCubeExec) << row.mnemonic;
    }
    // A pipe row with no executor of any pipe is a sync item.
    bool runs_somewhere =
        f.vexec != &NoVectorExec || f.dexec != &NoDmaExec || f.cexec != &NoCubeExec;
    if (pipe && !runs_somewhere) {
      EXPECT_NE(layout.sync, SyncRole::kNone) << row.mnemonic;
    }
  }
}

}  // namespace
}  // namespace aicore::sim::testing
