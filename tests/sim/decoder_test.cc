// DecodeKernel: golden rejection messages (op index, kind, source line, field, reason), SSA
// scoping, and fuzzing: random bytes and random field mutations must never crash the decoder
// or, when they decode, the engine.
#include <google/protobuf/descriptor.h>
#include <google/protobuf/reflection.h>
#include <gtest/gtest.h>

#include <random>

#include "tests/sim/test_util.h"

namespace aicore::sim::testing {
namespace {

std::string Reject(const ir::Kernel& k) {
  auto p = DecodeKernel(k);
  EXPECT_FALSE(p.ok()) << "decoded unexpectedly";
  if (p.ok()) return "";
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
  return p.status().message();
}

TEST(Decoder, AcceptsTheVectorAddKernel) {
  auto p = DecodeKernel(AddKernel({}));
  ASSERT_TRUE(p.ok()) << p.status().message();
  const Program& prog = **p;
  EXPECT_EQ(prog.name, "vadd");
  EXPECT_EQ(prog.params.size(), 3u);
  EXPECT_EQ(prog.value_dtypes[prog.params[0].slot], DType::kUInt64);
  ASSERT_EQ(prog.regions.size(), 2u);  // body + loop body
  ASSERT_EQ(prog.fors.size(), 1u);
}

TEST(Decoder, VectorOperandInGmIsRejectedWithOpLineFieldAndReason) {
  KernelBuilder b("vadd", "add.py");
  uint32_t x = b.PointerParam("x", ir::DT_FLOAT16);
  uint32_t ub = b.Const(0);                                                        // op 0
  uint32_t n = b.Const(128, ir::DT_INT32);                                         // op 1
  b.At(34).VecBinary(ir::VecBinaryOp::ADD, KernelBuilder::Ub(ub, ir::DT_FLOAT16),  // op 2
                     KernelBuilder::Ub(ub, ir::DT_FLOAT16), KernelBuilder::Gm(x, ir::DT_FLOAT16),
                     n);
  EXPECT_EQ(Reject(b.Build()),
            "op 2 (vec_binary) at add.py:34: field src1.space: MEM_GM is not allowed for a vector "
            "operand; vector operands live in UB");
}

TEST(Decoder, VersionMustBeOne) {
  KernelBuilder b("k");
  ir::Kernel k = b.Build();
  k.set_version(ir::IR_VERSION_UNSPECIFIED);
  EXPECT_EQ(Reject(k), "kernel k: field version: got 0; this simulator accepts IR_VERSION_1 (1)");
}

TEST(Decoder, UseBeforeDefinition) {
  KernelBuilder b("k", "k.py");
  uint32_t later = b.NewValue();
  b.At(3).Add(later, later);
  EXPECT_EQ(Reject(b.Build()),
            "op 0 (scalar_binary) at k.py:3: field lhs: %1 is used before it is defined");
}

TEST(Decoder, ValuesDoNotEscapeTheirRegion) {
  KernelBuilder b("k", "k.py");
  auto loop = b.BeginFor(b.Const(0), b.Const(4), b.Const(1));  // ops 0-2 consts, 3 for
  uint32_t inner = b.At(5).Add(loop.iv, loop.iv);              // op 4
  b.EndFor();
  b.At(7).Add(inner, inner);  // op 5
  std::string m = Reject(b.Build());
  EXPECT_EQ(m.rfind("op 5 (scalar_binary) at k.py:7: field lhs: %", 0), 0u) << m;
  EXPECT_NE(m.find("is defined inside a region of op 4 and is not visible here"), std::string::npos)
      << m;
}

TEST(Decoder, EachValueIsDefinedOnce) {
  KernelBuilder b("k", "k.py");
  uint32_t a = b.Const(1);
  b.kernel().mutable_body()->add_ops()->CopyFrom(b.kernel().body().ops(0));
  EXPECT_EQ(Reject(b.Build()), "op 1 (constant) at k.py:1: field result: %" + std::to_string(a) +
                                   " is already defined by op 0");
}

TEST(Decoder, SsaIdsAreInRange) {
  KernelBuilder b("k", "k.py");
  b.Const(1);
  ir::Kernel k = b.Build();
  k.set_num_values(0);
  EXPECT_EQ(Reject(k),
            "op 0 (constant) at k.py:1: field result: SSA id %1 is out of range 1..0 "
            "(num_values)");
}

TEST(Decoder, ScalarOperandTypesMustMatch) {
  KernelBuilder b("k", "k.py");
  uint32_t a = b.Const(1, ir::DT_INT32);
  uint32_t c = b.Const(2, ir::DT_INT64);
  b.Binary(ir::ScalarBinaryOp::ADD, ir::DT_INT32, a, c);
  std::string m = Reject(b.Build());
  EXPECT_NE(m.find("field rhs: %2 has dtype DT_INT64 but DT_INT32 is required here"),
            std::string::npos)
      << m;
}

TEST(Decoder, VectorDtypeMustBeSupported) {
  KernelBuilder b("k", "k.py");
  uint32_t a = b.Const(0);
  uint32_t n = b.Const(16, ir::DT_INT32);
  b.VecBinary(ir::VecBinaryOp::DIV, KernelBuilder::Ub(a, ir::DT_INT16),
              KernelBuilder::Ub(a, ir::DT_INT16), KernelBuilder::Ub(a, ir::DT_INT16), n);
  EXPECT_EQ(Reject(b.Build()),
            "op 2 (vec_binary) at k.py:1: field dst.dtype: DT_INT16 is not "
            "supported by div (supported: DT_FLOAT16, DT_FLOAT32)");
}

TEST(Decoder, EventsAreCheckedAgainstTheTableAndTheCoreType) {
  {
    KernelBuilder b("k", "k.py");
    uint32_t id = b.Const(0, ir::DT_INT32);
    b.SetFlag(35, id);
    EXPECT_EQ(Reject(b.Build()),
              "op 1 (set_flag) at k.py:1: field event: 35 is not a HardEvent value (0..34)");
  }
  {
    KernelBuilder b("k", "k.py");
    uint32_t id = b.Const(0, ir::DT_INT32);
    b.WaitFlag(2 /* MTE1_M */, id);
    EXPECT_EQ(Reject(b.Build()),
              "op 1 (wait_flag) at k.py:1: field event: MTE1_M (2) is not a valid event on a "
              "vector core (AIV_ONLY kernel) (hardware-910b.md 3.3)");
  }
  {
    KernelBuilder b("k", "k.py");
    uint32_t f = b.ConstF(1.0);
    b.SetFlag(kMte2V, f);
    std::string m = Reject(b.Build());
    EXPECT_NE(m.find("field event_id: %1 has dtype DT_FLOAT32; an integer is required"),
              std::string::npos)
        << m;
  }
}

TEST(Decoder, DataCopyPathsAndForms) {
  {
    KernelBuilder b("k", "k.py");
    uint32_t x = b.PointerParam("x", ir::DT_FLOAT32);
    uint32_t n = b.Const(8, ir::DT_INT32);
    b.DataCopy(KernelBuilder::Gm(x, ir::DT_FLOAT32), KernelBuilder::Gm(x, ir::DT_FLOAT32), n);
    std::string m = Reject(b.Build());
    EXPECT_NE(m.find("field dst.space: GM -> GM is not a data_copy path"), std::string::npos) << m;
  }
  {
    KernelBuilder b("k", "k.py");
    uint32_t x = b.PointerParam("x", ir::DT_FLOAT32);
    uint32_t ub = b.Const(0);
    uint32_t n = b.Const(8, ir::DT_INT32);
    b.DataCopy(KernelBuilder::Ub(ub, ir::DT_FLOAT16), KernelBuilder::Gm(x, ir::DT_FLOAT32), n);
    std::string m = Reject(b.Build());
    EXPECT_NE(m.find("field dst.dtype: DT_FLOAT16 differs from src.dtype DT_FLOAT32"),
              std::string::npos)
        << m;
  }
  {
    KernelBuilder b("k", "k.py");
    uint32_t x = b.PointerParam("x", ir::DT_FLOAT32);
    uint32_t ub = b.Const(0);
    uint32_t n = b.Const(8, ir::DT_INT32);
    auto* c =
        b.DataCopy(KernelBuilder::Ub(ub, ir::DT_FLOAT32), KernelBuilder::Gm(x, ir::DT_FLOAT32), n);
    c->set_block_len(n);
    std::string m = Reject(b.Build());
    EXPECT_NE(m.find("field params_form: false, but block_count/block_len"), std::string::npos)
        << m;
  }
  {
    KernelBuilder b("k", "k.py");
    uint32_t x = b.PointerParam("x", ir::DT_FLOAT32);
    uint32_t ub = b.Const(0);
    b.DataCopy(KernelBuilder::Ub(ub, ir::DT_FLOAT32, ir::POS_GM),
               KernelBuilder::Gm(x, ir::DT_FLOAT32), b.Const(8));
    std::string m = Reject(b.Build());
    EXPECT_NE(m.find("field dst.position: POS_GM does not belong to MEM_UB"), std::string::npos)
        << m;
  }
}

TEST(Decoder, CacheModeIsDecodedForGmAndRejectedElsewhere) {
  auto copy = [](ir::TensorRef dst, ir::TensorRef src) {
    KernelBuilder b("k", "k.py");
    uint32_t x = b.PointerParam("x", ir::DT_FLOAT32);
    uint32_t ub = b.Const(0);
    uint32_t n = b.Const(8, ir::DT_INT32);
    dst.set_addr(dst.space() == ir::MEM_GM ? x : ub);
    src.set_addr(src.space() == ir::MEM_GM ? x : ub);
    b.At(4).DataCopy(dst, src, n);
    return b.Build();
  };
  ir::TensorRef gm = KernelBuilder::Gm(0, ir::DT_FLOAT32);
  ir::TensorRef ub = KernelBuilder::Ub(0, ir::DT_FLOAT32);
  ir::TensorRef bypass = gm;
  bypass.set_cache_mode(ir::CACHE_MODE_DISABLE);
  auto p = DecodeKernel(copy(ub, bypass));
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ((*p)->mem_ops.at(0).src0.cache_mode, CacheMode::kDisable);
  EXPECT_EQ((*p)->mem_ops.at(0).dst.cache_mode, CacheMode::kNormal);
  ir::TensorRef ub_hint = ub;
  ub_hint.set_cache_mode(ir::CACHE_MODE_DISABLE);
  EXPECT_EQ(Reject(copy(ub_hint, gm)),
            "op 2 (data_copy) at k.py:4: field dst.cache_mode: CACHE_MODE_DISABLE applies to GM "
            "operands only (set it with GlobalTensor.set_l2_cache_hint)");
  ir::TensorRef bad = gm;
  bad.set_cache_mode(static_cast<ir::CacheMode>(3));
  std::string m = Reject(copy(ub, bad));
  EXPECT_NE(m.find("field src.cache_mode: 3 is not a valid CacheMode"), std::string::npos) << m;
}

TEST(Decoder, ControlFlowTypes) {
  {
    KernelBuilder b("k", "k.py");
    uint32_t f = b.ConstF(1.0);
    b.BeginFor(f, f, f, ir::DT_FLOAT32);
    b.EndFor();
    std::string m = Reject(b.Build());
    EXPECT_NE(m.find("(for_op) at k.py:1: field dtype: DT_FLOAT32 is not allowed; loop bounds"),
              std::string::npos)
        << m;
  }
  {
    KernelBuilder b("k", "k.py");
    uint32_t c = b.Const(1, ir::DT_INT32);
    b.BeginIf(c);
    b.EndIf();
    std::string m = Reject(b.Build());
    EXPECT_NE(m.find("field cond: %1 has dtype DT_INT32 but DT_BOOL is required"),
              std::string::npos)
        << m;
  }
}

TEST(Decoder, LocationsEmptyOpsAndUnknownFields) {
  {
    KernelBuilder b("k", "k.py");
    b.Const(1);
    ir::Kernel k = b.Build();
    k.mutable_body()->mutable_ops(0)->mutable_loc()->set_file(3);
    EXPECT_EQ(Reject(k),
              "op 0 (constant): field loc.file: 3 is out of range (the kernel has 1 "
              "files)");
  }
  {
    KernelBuilder b("k", "k.py");
    b.AddOp();
    EXPECT_EQ(Reject(b.Build()),
              "op 0 (empty op) at k.py:1: field kind: no op kind is set (an "
              "empty op, or an op from a newer IR version)");
  }
  {
    KernelBuilder b("k", "k.py");
    ir::Kernel k = b.Build();
    std::string bytes = k.SerializeAsString();
    bytes += std::string("\xa8\x06\x01", 3);  // field 101, varint 1: unknown to IR v1
    ir::Kernel parsed;
    ASSERT_TRUE(parsed.ParseFromString(bytes));
    std::string m = Reject(parsed);
    EXPECT_NE(m.find("field <field 101>: unknown field"), std::string::npos) << m;
  }
}

// ---- fuzzing ----------------------------------------------------------------------------------

void LaunchIfDecodes(const ir::Kernel& k) {
  auto p = DecodeKernel(k);
  if (!p.ok()) {
    EXPECT_FALSE(p.status().message().empty());
    return;
  }
  static SocConfig config = Config();
  Device device(config);
  std::vector<ArgValue> args;
  for (const ParamInfo& param : (*p)->params) {
    if (param.kind == ParamInfo::Kind::kPointer) {
      args.push_back(ArgValue::Address(*device.Malloc(4096)));
    } else {
      args.push_back(ArgValue::Int(3));
    }
  }
  LaunchOptions options;
  options.max_cycles = 200000;
  auto r = device.Launch(**p, 2, args, options);
  if (!r.ok()) {
    EXPECT_FALSE(r.status().message().empty());
  }
}

TEST(DecoderFuzz, RandomBytesNeverCrash) {
  std::mt19937 rng(42);
  std::string base = AddKernel({}).SerializeAsString();
  int parsed = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string bytes;
    if (i % 2 == 0) {
      bytes.resize(rng() % 256);
      for (char& c : bytes) c = static_cast<char>(rng());
    } else {
      // Flip bytes of a valid kernel: most stay parseable and probe the validator harder.
      bytes = base;
      int flips = 1 + rng() % 4;
      for (int f = 0; f < flips; ++f) bytes[rng() % bytes.size()] = static_cast<char>(rng());
    }
    ir::Kernel k;
    if (!k.ParseFromString(bytes)) continue;
    ++parsed;
    LaunchIfDecodes(k);
  }
  EXPECT_GT(parsed, 100);
}

// Sets a random scalar field somewhere in the message to a random (often nonsensical) value.
void MutateOnce(google::protobuf::Message* m, std::mt19937& rng) {
  using google::protobuf::FieldDescriptor;
  const auto* d = m->GetDescriptor();
  const auto* r = m->GetReflection();
  for (int depth = 0; depth < 12; ++depth) {
    if (d->field_count() == 0) return;  // an empty message (TrapOp) has nothing to mutate
    const FieldDescriptor* f = d->field(rng() % d->field_count());
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (f->is_repeated()) {
        int n = r->FieldSize(*m, f);
        if (n == 0) return;
        m = r->MutableRepeatedMessage(m, f, rng() % n);
      } else {
        m = r->MutableMessage(m, f);
      }
      d = m->GetDescriptor();
      r = m->GetReflection();
      continue;
    }
    static const int64_t kValues[] = {0, 1, 2, 3, 7, 8, 31, 35, -1, 255, 4095, 65536, 1 << 30};
    int64_t v = (rng() % 2) ? kValues[rng() % 13] : static_cast<int64_t>(rng() % 64);
    if (f->is_repeated()) {
      int n = r->FieldSize(*m, f);
      if (n == 0) return;
      int i = rng() % n;
      if (f->cpp_type() == FieldDescriptor::CPPTYPE_UINT32) {
        r->SetRepeatedUInt32(m, f, i, static_cast<uint32_t>(v));
      }
      return;
    }
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_UINT32:
        r->SetUInt32(m, f, static_cast<uint32_t>(v));
        break;
      case FieldDescriptor::CPPTYPE_INT64:
        r->SetInt64(m, f, v);
        break;
      case FieldDescriptor::CPPTYPE_DOUBLE:
        r->SetDouble(m, f, static_cast<double>(v) / 3);
        break;
      case FieldDescriptor::CPPTYPE_BOOL:
        r->SetBool(m, f, v & 1);
        break;
      case FieldDescriptor::CPPTYPE_ENUM:
        r->SetEnumValue(m, f, static_cast<int>(v));
        break;
      case FieldDescriptor::CPPTYPE_STRING:
        r->SetString(m, f, std::to_string(v));
        break;
      default:
        break;
    }
    return;
  }
}

TEST(DecoderFuzz, NonsenseFieldsNeverCrash) {
  std::mt19937 rng(7);
  ir::Kernel base = AddKernel({});
  int decoded = 0;
  for (int i = 0; i < 3000; ++i) {
    ir::Kernel k = base;
    int n = 1 + rng() % 3;
    for (int j = 0; j < n; ++j) MutateOnce(&k, rng);
    if (DecodeKernel(k).ok()) ++decoded;
    LaunchIfDecodes(k);
  }
  // Some mutations are harmless (a line number, a constant), so some kernels still decode and
  // run against small buffers: those exercise the runtime checks.
  EXPECT_GT(decoded, 300);
  RecordProperty("decoded", decoded);
}

// A queue loop with a TBuf, a pool, event ids and auto_sync: the framework paths for the fuzzer.
ir::Kernel FrameworkKernel() {
  using FW = ir::FrameworkOp;
  KernelBuilder b("fw", "fw.py");
  uint32_t x = b.PointerParam("x", ir::DT_FLOAT32);
  uint32_t z = b.PointerParam("z", ir::DT_FLOAT32);
  b.Fwk(FW::PIPE_INIT);
  uint32_t in = b.Que("in", ir::POS_VECIN, 2);
  uint32_t out = b.Que("out", ir::POS_VECOUT, 2);
  uint32_t tmp = b.TBuf("tmp");
  uint32_t pool = b.Pool("pool", ir::POS_VECCALC, 2);
  b.InitBuffer(in, 2, 1024);
  b.InitBuffer(out, 2, 1024);
  b.PoolOp(FW::INIT_BUF_POOL, 0, pool, 0, {b.Const(2048, ir::DT_INT32)});
  ir::FrameworkOp* f =
      b.Fwk(FW::POOL_INIT_BUFFER, tmp, {b.Const(1, ir::DT_INT32), b.Const(512, ir::DT_INT32)});
  f->set_pool(pool);
  KernelBuilder::Tensor t = b.TBufGet(tmp);
  uint32_t id = b.FwkValue(FW::ALLOC_EVENT_ID, 0, kVMte3);
  uint32_t n = b.Const(256, ir::DT_INT32);
  auto loop = b.BeginFor(b.Const(0), b.Const(4), b.Const(1));
  KernelBuilder::Tensor a = b.AllocTensor(in);
  b.DataCopy(KernelBuilder::Ub(a.addr, ir::DT_FLOAT32, ir::POS_VECIN),
             KernelBuilder::Gm(x, ir::DT_FLOAT32), n);
  b.Enque(in, a.addr);
  KernelBuilder::Tensor ad = b.Deque(in);
  KernelBuilder::Tensor o = b.AllocTensor(out);
  b.VecUnary(ir::VecUnaryOp::ABS, KernelBuilder::Ub(t.addr, ir::DT_FLOAT32),
             KernelBuilder::Ub(ad.addr, ir::DT_FLOAT32, ir::POS_VECIN), n);
  b.VecBinary(ir::VecBinaryOp::ADD, KernelBuilder::Ub(o.addr, ir::DT_FLOAT32, ir::POS_VECOUT),
              KernelBuilder::Ub(t.addr, ir::DT_FLOAT32), KernelBuilder::Ub(t.addr, ir::DT_FLOAT32),
              n);
  b.Enque(out, o.addr);
  b.FreeTensor(in, ad.addr);
  KernelBuilder::Tensor od = b.Deque(out);
  // Each block writes its own tiles of z, one per iteration: no two copies write one range.
  uint32_t tile = b.Add(b.Mul(b.Sys(ir::SysValueOp::BLOCK_IDX), b.Const(4)), loop.iv);
  b.DataCopy(KernelBuilder::Gm(b.GmAddr(z, b.Mul(tile, b.Const(256)), 4), ir::DT_FLOAT32),
             KernelBuilder::Ub(od.addr, ir::DT_FLOAT32, ir::POS_VECOUT), n);
  b.FreeTensor(out, od.addr);
  b.EndFor();
  ir::FrameworkOp* rel = b.Fwk(FW::RELEASE_EVENT_ID, 0, {id});
  rel->set_event(kVMte3);
  b.PoolOp(FW::POOL_RESET, pool, 0, 0, {});
  b.Fwk(FW::PIPE_DESTROY);
  b.Sync(true);
  return b.Build();
}

TEST(DecoderFuzz, FrameworkKernelDecodesRunsAndSurvivesMutation) {
  {
    auto p = DecodeKernel(FrameworkKernel());
    ASSERT_TRUE(p.ok()) << p.status().message();
    Device device(Config());
    uint64_t x = *device.Malloc(4096), z = *device.Malloc(8192);
    ASSERT_TRUE(device.Write(x, std::vector<uint8_t>(4096, 0).data(), 4096).ok());
    auto r = device.Launch(**p, 2, {ArgValue::Address(x), ArgValue::Address(z)}, Strict());
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->status, LaunchResult::Status::kOk);
    ExpectStrictClean(*r);
    EXPECT_TRUE(r->diagnostics.empty()) << r->diagnostics[0].message;
  }
  std::mt19937 rng(11);
  ir::Kernel base = FrameworkKernel();
  int decoded = 0;
  for (int i = 0; i < 2000; ++i) {
    ir::Kernel k = base;
    int n = 1 + rng() % 3;
    for (int j = 0; j < n; ++j) MutateOnce(&k, rng);
    if (DecodeKernel(k).ok()) ++decoded;
    LaunchIfDecodes(k);
  }
  EXPECT_GT(decoded, 200);
}

// ---- framework declarations and ops -------------------------------------------------------------

TEST(DecoderFramework, QueuePositionsMustBeQueuePositions) {
  KernelBuilder b("k", "k.py");
  b.Que("q", ir::POS_GM, 1);
  EXPECT_EQ(Reject(b.Build()),
            "kernel k: field queues[0].src_position: POS_GM is not a position of a TQue (use "
            "POS_VECIN, POS_VECOUT, POS_VECCALC, POS_A1, POS_B1, POS_C1, POS_A2, POS_B2, POS_CO1 "
            "or POS_C2)");
}

TEST(DecoderFramework, QueueIdsAreUnique) {
  KernelBuilder b("k", "k.py");
  b.Que("a", ir::POS_VECIN, 1);
  b.Que("b", ir::POS_VECOUT, 1);
  ir::Kernel k = b.Build();
  k.mutable_queues(1)->set_id(1);
  EXPECT_EQ(Reject(k), "kernel k: field queues[1].id: 1 is declared twice");
}

TEST(DecoderFramework, CubeMemoriesAreRejectedOnAVectorKernel) {
  KernelBuilder b("k", "k.py");
  b.Que("a1", ir::POS_A1, 2);
  EXPECT_EQ(Reject(b.Build()),
            "kernel k: field queues[0].src_position: POS_A1 is in L1, which a vector core does "
            "not have (AIV_ONLY kernel: use POS_VECIN, POS_VECOUT or POS_VECCALC)");
}

TEST(DecoderFramework, QueueBindNeedsAnEventPair) {
  KernelBuilder b("k", "k.py", ir::KERNEL_AIC_ONLY);
  b.Queue("bind", ir::POS_A2, ir::POS_VECIN, 1);
  EXPECT_EQ(Reject(b.Build()),
            "kernel k: field queues[0].dst_position: the library has no event pair for a queue "
            "from L0A (POS_A2) to UB (POS_VECIN) (ascendc-semantics.md 8.1)");
}

TEST(DecoderFramework, TBufHasNoDepth) {
  KernelBuilder b("k", "k.py");
  b.TBuf("tmp");
  ir::Kernel k = b.Build();
  k.mutable_queues(0)->set_depth(2);
  EXPECT_EQ(Reject(k), "kernel k: field queues[0].depth: must be 0 for a TBuf (no queue)");
}

TEST(DecoderFramework, PoolBufIdSizeAndPosition) {
  for (uint32_t size : {0u, 17u}) {
    KernelBuilder b("k", "k.py");
    b.Pool("p", ir::POS_VECCALC, size);
    EXPECT_EQ(Reject(b.Build()),
              "kernel k: field pools[0].buf_id_size: " + std::to_string(size) +
                  " is out of range 1..16 (the most buffers a TBufPool hands out; TBufPool's "
                  "default is 4)");
  }
  KernelBuilder b("k", "k.py");
  b.Pool("p", ir::POS_A2, 4);
  EXPECT_EQ(Reject(b.Build()),
            "kernel k: field pools[0].position: POS_A2 is not a TBufPool position (use "
            "POS_VECIN, POS_VECOUT, POS_VECCALC, POS_A1, POS_B1 or POS_C1)");
}

TEST(DecoderFramework, OpsMustReferenceDeclaredObjects) {
  KernelBuilder b("k", "k.py");
  b.Que("q", ir::POS_VECIN, 1);
  b.At(5).AllocTensor(7);  // op 0
  EXPECT_EQ(Reject(b.Build()),
            "op 0 (framework) at k.py:5: field queue: queue 7 is not declared (Kernel.queues has 1 "
            "entries)");
}

TEST(DecoderFramework, QueueOnlyCallsRejectATBuf) {
  KernelBuilder b("k", "k.py");
  uint32_t t = b.TBuf("tmp");
  b.At(6).Deque(t);
  EXPECT_EQ(Reject(b.Build()),
            "op 0 (framework) at k.py:6: field queue: TBuf tmp is a TBuf, which has no queue; "
            "DEQUE needs a TQue or TQueBind");
  KernelBuilder c("k", "k.py");
  uint32_t q = c.Que("q", ir::POS_VECIN, 1);
  c.At(6).TBufGet(q);
  EXPECT_EQ(Reject(c.Build()),
            "op 0 (framework) at k.py:6: field queue: TQue q is a queue; TBUF_GET needs a TBuf");
}

TEST(DecoderFramework, OperandCountsPerKind) {
  KernelBuilder b("k", "k.py");
  uint32_t q = b.Que("q", ir::POS_VECIN, 1);
  uint32_t num = b.Const(1, ir::DT_INT32);  // op 0
  b.At(8).Fwk(ir::FrameworkOp::INIT_BUFFER, q, {num});
  EXPECT_EQ(Reject(b.Build()),
            "op 1 (framework) at k.py:8: field operands: INIT_BUFFER takes 2 operands (num, len), "
            "got 1");
}

TEST(DecoderFramework, ResultsHaveTheLibrarysTypes) {
  // ALLOC_TENSOR gives DT_UINT32 address and bytes: adding an int64 to it is a type error.
  KernelBuilder b("k", "k.py");
  uint32_t q = b.Que("q", ir::POS_VECIN, 1);
  KernelBuilder::Tensor t = b.At(3).AllocTensor(q);  // op 0
  b.At(4).Add(t.addr, b.Const(32));                  // op 1 const, op 2 add
  EXPECT_EQ(Reject(b.Build()),
            "op 2 (scalar_binary) at k.py:4: field lhs: %1 has dtype DT_UINT32 but DT_INT64 is "
            "required here (insert a scalar_unary CAST)");
  KernelBuilder c("k", "k.py");
  ir::FrameworkOp* f = c.At(3).Fwk(ir::FrameworkOp::ALLOC_TENSOR, c.Que("q", ir::POS_VECIN, 1));
  (void)f;
  EXPECT_EQ(Reject(c.Build()),
            "op 0 (framework) at k.py:3: field result: missing (SSA id 0 means absent)");
}

TEST(DecoderFramework, EventIdCallsNeedAnEventOfTheCore) {
  KernelBuilder b("k", "k.py");
  b.At(3).FwkValue(ir::FrameworkOp::ALLOC_EVENT_ID, 0, /*MTE2_MTE1=*/0);
  EXPECT_EQ(Reject(b.Build()),
            "op 0 (framework) at k.py:3: field event: MTE2_MTE1 (0) is not a valid event on a "
            "vector core (AIV_ONLY kernel) (hardware-910b.md 3.3)");
}

TEST(DecoderFramework, PoolServesOnlyItsOwnMemory) {
  KernelBuilder b("k", "k.py", ir::KERNEL_MIX_AIC_1_2);  // both UB and L1 exist
  uint32_t q = b.Que("q", ir::POS_VECIN, 1);
  uint32_t p = b.Pool("p", ir::POS_A1, 4);
  uint32_t one = b.Const(1, ir::DT_INT32);  // op 0
  ir::FrameworkOp* f = b.At(9).Fwk(ir::FrameworkOp::POOL_INIT_BUFFER, q, {one, one});
  f->set_pool(p);
  EXPECT_EQ(Reject(b.Build()),
            "op 1 (framework) at k.py:9: field queue: TQue q lives in UB (POS_VECIN) but TBufPool "
            "p is in L1 (POS_A1); a pool only serves buffers of its own physical memory");
}

TEST(DecoderFramework, SyncOptionsAndDerivedQueueEvents) {
  KernelBuilder b("k", "k.py");
  b.Que("in", ir::POS_VECIN, 2);
  b.Que("out", ir::POS_VECOUT, 2);
  b.Que("calc", ir::POS_VECCALC, 1);
  b.Queue("bind", ir::POS_VECIN, ir::POS_VECOUT, 1);
  b.Sync(/*auto_sync=*/false, /*erase_user_flags=*/true);
  auto p = DecodeKernel(b.Build());
  ASSERT_TRUE(p.ok()) << p.status().message();
  const Program& prog = **p;
  EXPECT_TRUE(prog.sync.auto_sync);  // implied by erase_user_flags
  EXPECT_TRUE(prog.sync.erase_user_flags);
  ASSERT_EQ(prog.queues.size(), 4u);
  // (enque/deque, free/alloc) per ascendc-semantics.md 8.1
  EXPECT_EQ(prog.queues[0].enque_event, kMte2V);
  EXPECT_EQ(prog.queues[0].free_event, kVMte2);
  EXPECT_EQ(prog.queues[1].enque_event, kVMte3);
  EXPECT_EQ(prog.queues[1].free_event, kMte3V);
  EXPECT_EQ(prog.queues[2].enque_event, kMte2Mte3);
  EXPECT_EQ(prog.queues[2].free_event, kMte3Mte2);
  EXPECT_EQ(prog.queues[3].enque_event, kMte2Mte3);
  EXPECT_EQ(prog.queues[3].free_event, kMte3Mte2);
  EXPECT_EQ(prog.queues[3].label, "TQueBind bind");
  EXPECT_EQ(prog.queues[0].memory, MemSpace::kUb);
}

}  // namespace
}  // namespace aicore::sim::testing

namespace aicore::sim::testing {
namespace {

// printf formats are checked once, at decode, against the op's arguments.
std::string RejectPrintf(const std::string& format, int args) {
  KernelBuilder b("k", "k.py");
  uint32_t v = b.Const(1, ir::DT_INT32);  // op 0
  ir::PrintfOp* p = b.At(7).AddOp()->mutable_printf();
  p->set_format(format);
  for (int i = 0; i < args; ++i) p->add_args(v);
  return Reject(b.Build());
}

TEST(Decoder, PrintfFormatsAreCheckedAgainstTheirArguments) {
  EXPECT_EQ(RejectPrintf("%d %d", 1),
            "op 1 (printf) at k.py:7: field args: the format has 2 conversion(s) but 1 "
            "argument(s) are given");
  EXPECT_NE(RejectPrintf("%s", 1).find("field format: %s at offset 0 has no string argument"),
            std::string::npos);
  EXPECT_NE(RejectPrintf(std::string(5000, 'a'), 0).find("exceed the limit of 4096"),
            std::string::npos);
  EXPECT_TRUE(DecodeKernel([] {
                KernelBuilder b("k", "k.py");
                uint32_t v = b.Const(1, ir::DT_INT32);
                ir::PrintfOp* p = b.AddOp()->mutable_printf();
                p->set_format("%5.2f%%\n");
                p->add_args(v);
                return b.Build();
              }())
                  .ok());
}

TEST(Decoder, DataCopyPadFormsAndStoreConfigAreChecked) {
  auto pad = [](ir::TensorRef dst, ir::TensorRef src, ir::DType dtype, bool set_pad) {
    KernelBuilder b("k", "k.py");
    uint32_t x = b.PointerParam("x", dtype);
    uint32_t ub = b.Const(0);
    uint32_t one = b.Const(1, ir::DT_INT32);
    dst.set_addr(dst.space() == ir::MEM_GM ? x : ub);
    src.set_addr(src.space() == ir::MEM_GM ? x : ub);
    auto* c = b.DataCopyParams(dst, src, one, one, one, one);
    c->set_pad_form(true);
    if (set_pad) c->set_left_padding(one);
    return b.Build();
  };
  ir::TensorRef gm = KernelBuilder::Gm(0, ir::DT_FLOAT32);
  ir::TensorRef ub = KernelBuilder::Ub(0, ir::DT_FLOAT32);
  EXPECT_TRUE(DecodeKernel(pad(ub, gm, ir::DT_FLOAT32, true)).ok());
  EXPECT_TRUE(DecodeKernel(pad(gm, ub, ir::DT_FLOAT32, false)).ok());
  std::string m = Reject(pad(ub, ub, ir::DT_FLOAT32, false));
  EXPECT_NE(m.find("UB -> UB is not a data_copy_pad path"), std::string::npos) << m;
  m = Reject(pad(gm, ub, ir::DT_FLOAT32, true));
  EXPECT_NE(m.find("padding is set on a UB -> GM data_copy_pad"), std::string::npos) << m;
  ir::TensorRef gm64 = KernelBuilder::Gm(0, ir::DT_INT64);
  ir::TensorRef ub64 = KernelBuilder::Ub(0, ir::DT_INT64);
  EXPECT_TRUE(DecodeKernel(pad(ub64, gm64, ir::DT_INT64, false)).ok());  // the b32 path
  {
    KernelBuilder b("k", "k.py");
    uint32_t x = b.PointerParam("x", ir::DT_FLOAT32);
    uint32_t ub0 = b.Const(0);
    uint32_t n = b.Const(8, ir::DT_INT32);
    uint32_t one = b.Const(1, ir::DT_INT32);
    auto* c =
        b.DataCopy(KernelBuilder::Ub(ub0, ir::DT_FLOAT32), KernelBuilder::Gm(x, ir::DT_FLOAT32), n);
    c->set_left_padding(one);
    m = Reject(b.Build());
    EXPECT_NE(m.find("field pad_form: false, but is_pad/left_padding"), std::string::npos) << m;
  }
  {
    KernelBuilder b("k", "k.py");
    uint32_t f = b.ConstF(1.0);
    auto* s = b.AddOp()->mutable_store_config();
    s->set_kind(ir::StoreConfigOp::SET_ATOMIC);
    s->set_atomic_type(f);
    m = Reject(b.Build());
    EXPECT_NE(m.find("field atomic_type: %"), std::string::npos) << m;
    EXPECT_NE(m.find("an integer is required"), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace aicore::sim::testing
