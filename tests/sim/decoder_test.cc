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

}  // namespace
}  // namespace aicore::sim::testing
