// The race checker: conflicting accesses that no set_flag/wait_flag, barrier or queue orders
// are RACE diagnostics naming both pipes, both instructions and both source lines, the memory
// range and the fix, judged by the ordering rules (not by how the timing happened to fall). The
// launch goes on: the chip computes with whatever it read. Across cores in GM too, with no limit
// on the number of cores. Golden messages for each kind.
#include <gtest/gtest.h>

#include <algorithm>

#include "sim/check/diagnostics.h"
#include "tests/sim/fault_kernels.h"
#include "tests/sim/test_util.h"

namespace aicore::sim::testing {
namespace {

LaunchResult Simulate(const ir::Kernel& k, uint32_t blocks = 1,
                      CheckLevel check = CheckLevel::kWarn) {
  Device device(Config());
  std::vector<ArgValue> args;
  for (const ir::Param& p : k.params()) {
    (void)p;
    args.push_back(ArgValue::Address(Upload(device, std::vector<uint16_t>(16384, 0x3C00))));
  }
  auto program = Decode(k);
  LaunchOptions options;
  options.check = check;
  auto r = device.Launch(*program, blocks, args, options);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : LaunchResult();
}

std::vector<const Diagnostic*> Races(const LaunchResult& r) {
  std::vector<const Diagnostic*> out;
  for (const Diagnostic& d : r.diagnostics) {
    if (d.kind == Diagnostic::Kind::kRace) out.push_back(&d);
  }
  return out;
}

const Diagnostic* FindKind(const LaunchResult& r, Diagnostic::Kind kind) {
  for (const Diagnostic& d : r.diagnostics) {
    if (d.kind == kind) return &d;
  }
  return nullptr;
}

const Diagnostic* Race(const LaunchResult& r, const std::string& kind, uint32_t line,
                       uint32_t other_line) {
  for (const Diagnostic* d : Races(r)) {
    if (d->race == kind && d->location.line == line && d->other_location.line == other_line) {
      return d;
    }
  }
  return nullptr;
}

TEST(Race, AMissingWaitIsARawNamingBothPipesAndLines) {
  AddKernelOptions o;
  o.skip_mte2_v_wait = true;  // the add reads x and y without waiting for their copies
  LaunchResult r = Simulate(AddKernel(o));
  EXPECT_EQ(r.status, LaunchResult::Status::kOk);  // the chip computes on, with stale data
  const Diagnostic* d = Race(r, "RAW", 14, 10);
  ASSERT_NE(d, nullptr) << (r.diagnostics.empty() ? "" : r.diagnostics[0].message);
  EXPECT_EQ(d->severity, Diagnostic::Severity::kError);
  EXPECT_EQ(d->pipe, "V");
  EXPECT_EQ(d->op, "add");
  EXPECT_EQ(d->other_pipe, "MTE2");
  EXPECT_EQ(d->other_op, "data_copy");
  EXPECT_EQ(d->location.file, "add.py");
  EXPECT_EQ(d->other_location.file, "add.py");
  EXPECT_EQ(d->memory, "UB");
  EXPECT_EQ(d->address_lo, 0u);
  EXPECT_EQ(d->address_hi, 1024u);
  EXPECT_EQ(d->message,
            "core 0 (block 0) PIPE_V add at add.py:14, cycle " + std::to_string(d->cycle) +
                ": race (RAW) on UB[0, 1024): this add reads bytes that PIPE_MTE2 data_copy at "
                "add.py:10 writes, and no flag, barrier or queue orders the two, so it can read "
                "them before they are written (the chip then computes with stale data). Fix: "
                "set_flag(HardEvent.MTE2_V, id) on PIPE_MTE2 after the data_copy and "
                "wait_flag(HardEvent.MTE2_V, id) on PIPE_V before the add (a TQue's enque/deque "
                "pair does this).");
  EXPECT_NE(Race(r, "RAW", 14, 11), nullptr);  // y too
  // In issue order the root cause comes first. What follows is its consequence: without the
  // wait, nothing orders the next copies into the double buffers after these ones (WAW on
  // MTE2), nor the next add into z after the copy-out and the previous add (WAR, WAW).
  EXPECT_EQ(r.diagnostics.data(), d);
  EXPECT_NE(Race(r, "WAW", 10, 10), nullptr);
  EXPECT_NE(Race(r, "WAR", 14, 17), nullptr);
  EXPECT_EQ(Races(r).size(), 6u);
  // The sets the skipped waits leave behind are sync-hygiene warnings: the third iteration's
  // set of id 0 follows the first's with no wait between (FLAG_OVERFLOW), and ids 0 and 1 are
  // still set at the end (UNMATCHED_FLAG).
  EXPECT_EQ(r.check.Text(), "6 races, 0 errors, 3 warnings");
  EXPECT_NE(FindKind(r, Diagnostic::Kind::kFlagOverflow), nullptr);
}

TEST(Race, EveryMissingPairIsReportedWhenAllFlagsAreRemoved) {
  AddKernelOptions o;
  o.flags = false;
  LaunchResult r = Simulate(AddKernel(o));
  // MTE2 -> V (x, y), V -> MTE3 (z), and across iterations MTE3 -> V (z again) and V -> MTE2
  // (the double-buffered x, y of two iterations back).
  EXPECT_NE(Race(r, "RAW", 14, 10), nullptr);
  EXPECT_NE(Race(r, "RAW", 14, 11), nullptr);
  const Diagnostic* out = Race(r, "RAW", 17, 14);
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out->pipe, "MTE3");
  EXPECT_NE(out->message.find("Fix: set_flag(HardEvent.V_MTE3, id) on PIPE_V after the add and "
                              "wait_flag(HardEvent.V_MTE3, id) on PIPE_MTE3 before the data_copy"),
            std::string::npos)
      << out->message;
  const Diagnostic* war = Race(r, "WAR", 14, 17);
  ASSERT_NE(war, nullptr);
  EXPECT_NE(war->message.find("race (WAR) on UB[4096, 5120): this add writes bytes that "
                              "PIPE_MTE3 data_copy at add.py:17 reads"),
            std::string::npos)
      << war->message;
  EXPECT_NE(Race(r, "WAR", 10, 14), nullptr);
  EXPECT_NE(Race(r, "WAR", 11, 14), nullptr);
  // The double buffers come back every second tile: the copies into them and the adds into z
  // are writes on one pipe with no barrier between them (WAW).
  EXPECT_NE(Race(r, "WAW", 10, 10), nullptr);
  EXPECT_NE(Race(r, "WAW", 11, 11), nullptr);
  EXPECT_NE(Race(r, "WAW", 14, 14), nullptr);
  // Each pair once, however many iterations repeat it.
  EXPECT_EQ(Races(r).size(), 9u);
  EXPECT_EQ(r.check.races, 9u);
}

TEST(Race, TheFullyFlaggedKernelIsClean) {
  LaunchResult r = Simulate(AddKernel(AddKernelOptions()));
  EXPECT_TRUE(r.diagnostics.empty()) << r.diagnostics[0].message;
  EXPECT_EQ(r.check.Text(), "0 races, 0 errors, 0 warnings");
}

TEST(Race, OverlappingMte2WritesWithoutABarrierAreAWaw) {
  LaunchResult r = Simulate(TwoCopiesInto(false));
  const Diagnostic* d = Race(r, "WAW", 5, 3);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->pipe, "MTE2");
  EXPECT_EQ(d->other_pipe, "MTE2");
  EXPECT_NE(d->message.find(": race (WAW) on UB[0, 1024): this data_copy writes bytes that "
                            "PIPE_MTE2 data_copy at overlap.py:3 also writes, and no flag, barrier "
                            "or queue orders the two, so either can land last. Fix: "
                            "pipe_barrier(PIPE_MTE2) between them."),
            std::string::npos)
      << d->message;
  EXPECT_TRUE(Races(Simulate(TwoCopiesInto(true))).empty());
}

TEST(Race, DependentVectorInstructionsWithoutABarrierAreARaw) {
  LaunchResult r = Simulate(DependentVectorOps(false));
  const Diagnostic* d = Race(r, "RAW", 5, 3);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->other_op, "exp");
  EXPECT_NE(d->message.find("race (RAW) on UB[256, 512): this add reads bytes that PIPE_V exp "
                            "at dep.py:3 writes"),
            std::string::npos)
      << d->message;
  EXPECT_NE(d->message.find("Fix: pipe_barrier(PIPE_V) between them."), std::string::npos);
  EXPECT_TRUE(Races(Simulate(DependentVectorOps(true))).empty());
}

TEST(Race, SamePipeWriteAfterReadIsOrderedByInOrderStarts) {
  KernelBuilder b("war", "war.py");
  uint32_t n = b.Const(64, ir::DT_INT32);
  uint32_t x = b.Const(0), y = b.Const(256);
  b.At(2).VecUnary(ir::VecUnaryOp::ABS, KernelBuilder::Ub(x, ir::DT_FLOAT32),
                   KernelBuilder::Ub(x, ir::DT_FLOAT32), n);
  b.Barrier(ir::PIPE_V);
  b.At(3).VecUnary(ir::VecUnaryOp::ABS, KernelBuilder::Ub(y, ir::DT_FLOAT32),
                   KernelBuilder::Ub(x, ir::DT_FLOAT32), n);
  // Overwrites x, which the previous instruction reads: starts are in order on PIPE_V.
  b.At(4).VecUnary(ir::VecUnaryOp::ABS, KernelBuilder::Ub(x, ir::DT_FLOAT32),
                   KernelBuilder::Ub(y, ir::DT_FLOAT32), n);
  LaunchResult r = Simulate(b.Build());
  // Line 4 reads y that line 3 writes without a barrier: a RAW, but no WAR on x.
  EXPECT_NE(Race(r, "RAW", 4, 3), nullptr);
  EXPECT_EQ(Races(r).size(), 1u);
}

TEST(Race, AutoSyncLeavesNothingToReport) {
  AddKernelOptions o;
  o.flags = false;
  ir::Kernel k = AddKernel(o);
  k.mutable_sync()->set_auto_sync(true);
  LaunchResult r = Simulate(k);
  EXPECT_TRUE(Races(r).empty()) << Races(r)[0]->message;
}

TEST(Race, CheckingOffReportsNothing) {
  AddKernelOptions o;
  o.flags = false;
  LaunchResult r = Simulate(AddKernel(o), 1, CheckLevel::kOff);
  EXPECT_TRUE(r.diagnostics.empty());
  EXPECT_EQ(r.check.level, CheckLevel::kOff);
}

TEST(Race, IdenticalFindingsOfSeveralCoresAreMerged) {
  AddKernelOptions o;
  o.skip_mte2_v_wait = true;
  LaunchResult r = Simulate(AddKernel(o), 4);
  const Diagnostic* d = Race(r, "RAW", 14, 10);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->cores, (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(d->message.rfind("cores 0-3 PIPE_V add at add.py:14: race (RAW)", 0), 0u) << d->message;
  EXPECT_EQ(Races(r).size(), 6u);  // each once for all four cores
  for (const Diagnostic* race : Races(r)) EXPECT_EQ(race->cores.size(), 4u) << race->message;
}

}  // namespace
}  // namespace aicore::sim::testing

namespace aicore::sim::testing {
namespace {

TEST(Race, TwoCoresWritingDifferentValuesToOneGmRangeRace) {
  LaunchResult r = Simulate(EveryCoreWritesOneRange(true), 2);
  std::vector<const Diagnostic*> races = Races(r);
  ASSERT_EQ(races.size(), 1u) << (r.diagnostics.empty() ? "" : r.diagnostics[0].message);
  const Diagnostic* d = races[0];
  EXPECT_EQ(d->race, "WAW");
  EXPECT_EQ(d->memory, "GM");
  EXPECT_EQ(d->address_hi - d->address_lo, 256u);
  EXPECT_EQ(d->location.line, 7u);
  EXPECT_EQ(d->other_location.line, 7u);
  EXPECT_NE(d->other_core, d->core);
  EXPECT_NE(d->message.find("race (WAW across cores) on GM["), std::string::npos) << d->message;
  EXPECT_NE(d->message.find("'s PIPE_MTE3 data_copy at shared.py:7 also writes in this launch, "
                            "with different values, and nothing orders the two cores, so the "
                            "result depends on which lands last. Fix: give each core its own "
                            "range"),
            std::string::npos)
      << d->message;
}

TEST(Race, TwoCoresWritingIdenticalBytesIsANoteOnly) {
  LaunchResult r = Simulate(EveryCoreWritesOneRange(false), 2);
  EXPECT_TRUE(Races(r).empty()) << Races(r)[0]->message;
  ASSERT_EQ(r.diagnostics.size(), 1u);
  const Diagnostic& d = r.diagnostics[0];
  EXPECT_EQ(d.kind, Diagnostic::Kind::kGmSharedWrite);
  EXPECT_EQ(d.severity, Diagnostic::Severity::kNote);
  EXPECT_NE(d.message.find("with identical values (whole-tile tail handling does this)"),
            std::string::npos)
      << d.message;
  EXPECT_EQ(r.check.notes, 1u);
  EXPECT_EQ(r.check.warnings, 0u);
  EXPECT_EQ(r.check.Text(), "0 races, 0 errors, 0 warnings, 1 note");
  CheckSummary one_note = r.check;
  one_note.level = CheckLevel::kStrict;
  EXPECT_FALSE(one_note.Fails());  // strict ignores notes
  one_note.level = CheckLevel::kStrictAll;
  EXPECT_TRUE(one_note.Fails());
  one_note.notes = 2;
  one_note.warnings = 1;
  EXPECT_EQ(one_note.Text(), "0 races, 0 errors, 1 warning, 2 notes");
  EXPECT_EQ(CheckSummary{}.Text(), "0 races, 0 errors, 0 warnings");  // no notes: as before
}

TEST(Race, SharedWritesOfSeveralCoresMergeIntoOneWithTheHullAndEveryCore) {
  // Block b writes z[32b, 32b + 64): each pair of neighbours shares 32 floats (128 bytes), each
  // reported by the later writer, naming the earlier one.
  constexpr uint32_t kBlocks = 4;
  Device device(Config());
  std::vector<float> x(32 * kBlocks + 32);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  uint64_t gx = Upload(device, x), gz = Upload(device, std::vector<float>(x.size(), 0.0f));
  auto program = Decode(OverlappingTiles(32, 64));
  auto r = device.Launch(*program, kBlocks, {ArgValue::Address(gx), ArgValue::Address(gz)}, {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->diagnostics.size(), 1u) << r->diagnostics[0].message;
  const Diagnostic& d = r->diagnostics[0];
  EXPECT_EQ(d.kind, Diagnostic::Kind::kGmSharedWrite);
  EXPECT_EQ(d.severity, Diagnostic::Severity::kNote);
  EXPECT_EQ(d.address_lo, gz + 128);
  EXPECT_EQ(d.address_hi, gz + 128 * kBlocks);
  std::vector<uint32_t> every(d.cores);
  every.insert(every.end(), d.other_cores.begin(), d.other_cores.end());
  std::sort(every.begin(), every.end());
  every.erase(std::unique(every.begin(), every.end()), every.end());
  EXPECT_EQ(every, (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_GE(d.cores.size(), 2u);
  EXPECT_EQ(d.message.find("core " + std::to_string(d.core) + " (block"), std::string::npos)
      << d.message;
  EXPECT_EQ(d.message.rfind("cores ", 0), 0u) << d.message;
  EXPECT_NE(d.message.find(" PIPE_MTE3 data_copy at tiles.py:5: shared write on " +
                           RangeText("GM", gz + 128, gz + 128 * kBlocks) +
                           ": this data_copy writes bytes that "),
            std::string::npos)
      << d.message;
  EXPECT_EQ(r->check.Text(), "0 races, 0 errors, 0 warnings, 1 note");
}

TEST(Race, TheGmCheckerFindsRacesOfCoresPast64) {
  // 72 cores, one block each: blocks 70 and 71 both read z[4480, 4544) and block 71 writes it
  // back, over the bytes core 70 read (a WAR a 64-bit core mask could not see).
  SocConfig config = Config();
  config.vector_cores = 72;
  Device device(config);
  std::vector<float> data(64 * 72);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(i);
  uint64_t z = Upload(device, data);
  auto program = Decode(OverlappingTiles(64, 64, /*last=*/70, /*write_back=*/71));
  auto r = device.Launch(*program, 72, {ArgValue::Address(z), ArgValue::Address(z)}, {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->cores.size(), 72u);
  std::vector<const Diagnostic*> races = Races(*r);
  ASSERT_EQ(races.size(), 1u) << (r->diagnostics.empty() ? "" : r->diagnostics[0].message);
  const Diagnostic* d = races[0];
  EXPECT_EQ(d->race, "WAR") << d->message;
  EXPECT_EQ(d->core, 71);
  EXPECT_EQ(d->other_core, 70);
  EXPECT_EQ(d->cores, (std::vector<uint32_t>{71}));
  EXPECT_EQ(d->address_lo, z + 70 * 64 * 4);
  EXPECT_EQ(d->address_hi, z + 71 * 64 * 4);
  EXPECT_NE(d->message.find("core 71 (block 71) PIPE_MTE3 data_copy at tiles.py:5"),
            std::string::npos)
      << d->message;
  EXPECT_NE(d->message.find("core 70's PIPE_MTE2 data_copy at tiles.py:3 reads"), std::string::npos)
      << d->message;
}

TEST(Race, ACoreReadingWhatAnotherCoreWritesRaces) {
  // Block b reads z[0:64) (what block 1 writes), so some core reads another's output.
  KernelBuilder b("chain", "chain.py");
  uint32_t z = b.PointerParam("z", ir::DT_FLOAT32);
  uint32_t n = b.Const(64, ir::DT_INT32);
  uint32_t id = b.Const(0, ir::DT_INT32);
  uint32_t ub = b.Const(0);
  uint32_t is_one =
      b.Binary(ir::ScalarBinaryOp::EQ, ir::DT_INT64, b.Sys(ir::SysValueOp::BLOCK_IDX), b.Const(1));
  b.BeginIf(is_one);
  b.At(4).DataCopy(KernelBuilder::Gm(z, ir::DT_FLOAT32), KernelBuilder::Ub(ub, ir::DT_FLOAT32), n);
  b.Else();
  b.At(6).DataCopy(KernelBuilder::Ub(ub, ir::DT_FLOAT32), KernelBuilder::Gm(z, ir::DT_FLOAT32), n);
  b.EndIf();
  (void)id;
  LaunchResult r = Simulate(b.Build(), 2);
  std::vector<const Diagnostic*> races = Races(r);
  ASSERT_EQ(races.size(), 1u);
  EXPECT_TRUE(races[0]->race == "RAW" || races[0]->race == "WAR") << races[0]->race;
  EXPECT_NE(races[0]->message.find("across cores"), std::string::npos) << races[0]->message;
}

TEST(InitCheck, ReadsOfBytesNothingWroteAreWarnings) {
  // The abs reads UB bytes nothing wrote: a warning, not a race.
  LaunchResult r = Simulate(DependentVectorOps(true));
  const Diagnostic* d = nullptr;
  for (const Diagnostic& x : r.diagnostics) {
    if (x.kind == Diagnostic::Kind::kUninitializedRead) d = &x;
  }
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, Diagnostic::Severity::kWarning);
  EXPECT_EQ(d->location.line, 2u);
  EXPECT_EQ(d->message, "core 0 (block 0) PIPE_V abs at dep.py:2, cycle " +
                            std::to_string(d->cycle) +
                            ": reads UB[0, 256), which nothing wrote in this launch: the bytes "
                            "are whatever the memory held before (on the chip, a previous "
                            "kernel's data). Fix: copy or compute the data into the buffer first, "
                            "or read only the part that was written.");
  EXPECT_EQ(r.check.warnings, 1u);

  // GM: bytes of an allocation the host never wrote.
  Device device(Config());
  uint64_t x = *device.Malloc(1024), z = *device.Malloc(1024);
  auto program = Decode(EveryCoreWritesOneRange(false));
  auto gm = device.Launch(*program, 1, {ArgValue::Address(x), ArgValue::Address(z)}, {});
  ASSERT_TRUE(gm.ok());
  ASSERT_EQ(gm->diagnostics.size(), 1u);
  EXPECT_EQ(gm->diagnostics[0].kind, Diagnostic::Kind::kUninitializedRead);
  EXPECT_EQ(gm->diagnostics[0].memory, "GM");
  EXPECT_EQ(gm->diagnostics[0].address_lo, x);
  EXPECT_EQ(gm->diagnostics[0].address_hi, x + 256);
  EXPECT_NE(gm->diagnostics[0].message.find("which neither the host nor a kernel wrote"),
            std::string::npos);
}

}  // namespace
}  // namespace aicore::sim::testing
