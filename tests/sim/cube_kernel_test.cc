// Whole AIC_ONLY launches of the cube instructions, as the raw-instruction linear layer of
// asc-api.md 10.6 writes them: A (M x K, ND in GM) -> L1 by ND2NZ, B^T (N x K, ND in GM) -> L1 by
// ND2NZ, one load_data per 16-row band of A into L0A and one contiguous load of B into L0B,
// mmad over K slices (the first initialises, the others accumulate) and fixpipe NZ2ND to GM,
// pipe_barrier(PIPE_ALL) between the stages. Results are checked against a reference that sums
// in the documented order (docs/cube.md), bit for bit, and against float64 within tolerance.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "sim/isa/fp16.h"
#include "tests/sim/test_util.h"

namespace aicore::sim::testing {
namespace {

using KB = KernelBuilder;

ir::TensorRef Local(ir::MemSpace space, ir::Position pos, uint32_t addr, ir::DType t) {
  ir::TensorRef r;
  r.set_space(space);
  r.set_position(pos);
  r.set_addr(addr);
  r.set_dtype(t);
  return r;
}

struct LinearShape {
  int64_t m, n, k;
  int64_t k_slice;  // K per mmad (a multiple of 16; the last slice may be shorter)
  ir::DType in = ir::DT_FLOAT16;
  ir::DType out = ir::DT_FLOAT16;
  ir::FixpipeOp::QuantMode quant = ir::FixpipeOp::F322F16;
  bool relu = false;
  bool bias = false;  // C = bias + A*B on the first slice (bias table row from GM via L1)
};

int64_t Ceil16(int64_t x) { return (x + 15) / 16 * 16; }

uint32_t ElementSize(ir::DType t) {
  switch (t) {
    case ir::DT_INT8:
      return 1;
    case ir::DT_FLOAT16:
    case ir::DT_BFLOAT16:
      return 2;
    default:
      return 4;
  }
}

// C0: elements per 32-byte fractal row of the input type.
int64_t C0Of(ir::DType t) { return 32 / ElementSize(t); }

// The kernel: params a (M x K), bt (N x K), c (M x N)[, bias (N)].
ir::Kernel LinearKernel(const LinearShape& s) {
  KernelBuilder b("linear", "linear.py", ir::KERNEL_AIC_ONLY);
  uint32_t ga = b.PointerParam("a", s.in);
  uint32_t gb = b.PointerParam("bt", s.in);
  uint32_t gc = b.PointerParam("c", s.out);
  ir::DType acc = s.in == ir::DT_INT8 ? ir::DT_INT32 : ir::DT_FLOAT32;
  uint32_t gbias = s.bias ? b.PointerParam("bias", acc) : 0;
  int64_t es = ElementSize(s.in), c0 = C0Of(s.in);
  int64_t mp = Ceil16(s.m), np = Ceil16(s.n);
  auto c = [&](int64_t v) { return b.Const(v, ir::DT_INT64); };
  auto u = [&](int64_t v) { return b.Const(v, ir::DT_UINT64); };
  // L1: A's slice at 0, B's after it (both NZ, panels of C0 columns).
  int64_t kp_max = (s.k_slice + c0 - 1) / c0 * c0;
  int64_t b_l1 = mp * kp_max * es;
  int64_t bias_l1 = b_l1 + np * kp_max * es;
  // Every operand value is defined before the op that uses it.
  for (int64_t k0 = 0, slice = 0; k0 < s.k; k0 += s.k_slice, ++slice) {
    int64_t kk = std::min(s.k_slice, s.k - k0);
    int64_t kp = (kk + c0 - 1) / c0 * c0;  // K padded to whole fractal columns
    int64_t k1 = kp / c0;
    b.At(10);
    ir::Nd2NzCopyOp a_copy;
    *a_copy.mutable_dst() = Local(ir::MEM_L1, ir::POS_A1, u(0), s.in);
    *a_copy.mutable_src() = KB::Gm(b.Add(ga, u(k0 * es), ir::DT_UINT64), s.in);
    a_copy.set_nd_num(c(1));
    a_copy.set_n_value(c(s.m));
    a_copy.set_d_value(c(kk));
    a_copy.set_src_d_value(c(s.k));
    a_copy.set_dst_nz_c0_stride(c(mp));
    a_copy.set_dst_nz_n_stride(c(1));
    *b.AddOp()->mutable_nd2nz_copy() = a_copy;
    b.At(11);
    ir::Nd2NzCopyOp b_copy;
    *b_copy.mutable_dst() = Local(ir::MEM_L1, ir::POS_B1, u(b_l1), s.in);
    *b_copy.mutable_src() = KB::Gm(b.Add(gb, u(k0 * es), ir::DT_UINT64), s.in);
    b_copy.set_nd_num(c(1));
    b_copy.set_n_value(c(s.n));
    b_copy.set_d_value(c(kk));
    b_copy.set_src_d_value(c(s.k));
    b_copy.set_dst_nz_c0_stride(c(np));
    b_copy.set_dst_nz_n_stride(c(1));
    *b.AddOp()->mutable_nd2nz_copy() = b_copy;
    bool with_bias = s.bias && slice == 0;
    if (with_bias) {
      b.At(12);
      ir::TensorRef l1 = Local(ir::MEM_L1, ir::POS_C1, u(bias_l1), acc);
      ir::TensorRef gm = KB::Gm(gbias, acc);
      uint32_t one = c(1), len = c(s.n * 4 / 32), zero = c(0);
      b.DataCopyParams(l1, gm, one, len, zero, zero);
    }
    b.Barrier(ir::PIPE_ALL);
    // L1 -> L0A, band by band: the band's K fractals, mp/16 fractals apart in L1.
    for (int64_t band = 0; band < mp / 16; ++band) {
      b.At(13);
      ir::LoadData2DOp la;
      *la.mutable_dst() = Local(ir::MEM_L0A, ir::POS_A2, u(band * k1 * 512), s.in);
      *la.mutable_src() = Local(ir::MEM_L1, ir::POS_A1, u(0), s.in);
      la.set_start_index(c(band));
      la.set_repeat_times(c(k1));
      la.set_src_stride(c(mp / 16));
      *b.AddOp()->mutable_load_data_2d() = la;
    }
    b.At(14);
    ir::LoadData2DOp lb;
    *lb.mutable_dst() = Local(ir::MEM_L0B, ir::POS_B2, u(0), s.in);
    *lb.mutable_src() = Local(ir::MEM_L1, ir::POS_B1, u(b_l1), s.in);
    lb.set_repeat_times(c(k1 * np / 16));
    lb.set_src_stride(c(1));
    *b.AddOp()->mutable_load_data_2d() = lb;
    if (with_bias) {
      b.At(15);
      // Into BT blockLen counts 64-byte units (ascendc-semantics.md 2.4).
      ir::TensorRef bt = Local(ir::MEM_BT, ir::POS_C2, u(0), acc);
      ir::TensorRef l1 = Local(ir::MEM_L1, ir::POS_C1, u(bias_l1), acc);
      uint32_t one = c(1), len = c(s.n * 4 / 64), zero = c(0);
      b.DataCopyParams(bt, l1, one, len, zero, zero);
    }
    b.Barrier(ir::PIPE_ALL);
    b.At(16);
    ir::MmadOp mm;
    *mm.mutable_dst() = Local(ir::MEM_L0C, ir::POS_CO1, u(0), acc);
    *mm.mutable_fm() = Local(ir::MEM_L0A, ir::POS_A2, u(0), s.in);
    *mm.mutable_filter() = Local(ir::MEM_L0B, ir::POS_B2, u(0), s.in);
    if (with_bias) *mm.mutable_bias() = Local(ir::MEM_BT, ir::POS_C2, u(0), acc);
    mm.set_m(c(s.m));
    mm.set_n(c(s.n));
    mm.set_k(c(kk));
    mm.set_cmatrix_init_val(b.Const(slice == 0 && !with_bias ? 1 : 0, ir::DT_BOOL));
    *b.AddOp()->mutable_mmad() = mm;
    b.Barrier(ir::PIPE_ALL);
  }
  b.At(17);
  ir::FixpipeOp fp;
  *fp.mutable_dst() = KB::Gm(gc, s.out);
  *fp.mutable_src() = Local(ir::MEM_L0C, ir::POS_CO1, u(0), acc);
  fp.set_n_size(c(s.n));
  fp.set_m_size(c(s.m));
  fp.set_src_stride(c(mp));
  fp.set_dst_stride(c(s.n));
  fp.set_quant_pre(s.quant);
  if (s.relu) fp.set_relu_en(b.Const(1, ir::DT_BOOL));
  *b.AddOp()->mutable_fixpipe() = fp;
  return b.Build();
}

// Inputs as the element type's bits, and their values as double.
struct Matrix {
  std::vector<uint8_t> bits;
  std::vector<double> values;
};

Matrix Random(ir::DType t, int64_t rows, int64_t cols, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uni(-2.0f, 2.0f);
  std::uniform_int_distribution<int> ints(-128, 127);
  Matrix x;
  int64_t es = ElementSize(t);
  x.bits.resize(rows * cols * es);
  x.values.resize(rows * cols);
  for (int64_t i = 0; i < rows * cols; ++i) {
    if (t == ir::DT_INT8) {
      auto v = static_cast<int8_t>(ints(rng));
      std::memcpy(&x.bits[i], &v, 1);
      x.values[i] = v;
    } else if (t == ir::DT_FLOAT16) {
      uint16_t h = FloatToHalf(uni(rng));
      std::memcpy(&x.bits[i * 2], &h, 2);
      x.values[i] = HalfToFloat(h);
    } else if (t == ir::DT_BFLOAT16) {
      uint16_t h = FloatToBf16(uni(rng));
      std::memcpy(&x.bits[i * 2], &h, 2);
      x.values[i] = Bf16ToFloat(h);
    } else {
      float f = uni(rng);
      std::memcpy(&x.bits[i * 4], &f, 4);
      x.values[i] = f;
    }
  }
  return x;
}

// C[m][n] in the documented order: per K slice and C0 chunk, the chunk's exact products summed
// in double, then one rounding to float (integers: exact, saturating).
std::vector<double> Reference(const LinearShape& s, const Matrix& a, const Matrix& bt,
                              const std::vector<double>& bias) {
  int64_t c0 = C0Of(s.in);
  std::vector<double> c(s.m * s.n);
  for (int64_t i = 0; i < s.m; ++i) {
    for (int64_t j = 0; j < s.n; ++j) {
      float acc = s.bias ? static_cast<float>(bias[j]) : 0.0f;
      double iacc = s.bias ? bias[j] : 0.0;
      for (int64_t k0 = 0; k0 < s.k; k0 += s.k_slice) {
        int64_t end = std::min(s.k, k0 + s.k_slice);
        for (int64_t q = k0; q < end; q += c0) {
          double sum = 0;
          for (int64_t k = q; k < std::min(end, q + c0); ++k) {
            sum += a.values[i * s.k + k] * bt.values[j * s.k + k];
          }
          acc = static_cast<float>(static_cast<double>(acc) + sum);
          iacc += sum;
        }
      }
      c[i * s.n + j] = s.in == ir::DT_INT8 ? iacc : acc;
    }
  }
  return c;
}

double OutputValue(ir::DType t, const uint8_t* p) {
  if (t == ir::DT_FLOAT16) {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return HalfToFloat(h);
  }
  if (t == ir::DT_BFLOAT16) {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return Bf16ToFloat(h);
  }
  if (t == ir::DT_INT32) {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  float f;
  std::memcpy(&f, p, 4);
  return f;
}

double RoundTo(ir::DType t, double x) {
  if (t == ir::DT_FLOAT16) return HalfToFloat(FloatToHalf(static_cast<float>(x)));
  if (t == ir::DT_BFLOAT16) return Bf16ToFloat(FloatToBf16(static_cast<float>(x)));
  return x;
}

struct LinearRun {
  LaunchResult result;
  std::vector<double> c, want;
};

LinearRun RunLinear(const LinearShape& s) {
  Matrix a = Random(s.in, s.m, s.k, 1);
  Matrix bt = Random(s.in, s.n, s.k, 2);
  std::vector<double> bias(s.n);
  std::vector<uint8_t> bias_bits(s.n * 4);
  for (int64_t j = 0; j < s.n; ++j) {
    bias[j] = s.in == ir::DT_INT8 ? static_cast<double>(j * 3 - 40) : 0.25 * (j % 7) - 0.5;
    if (s.in == ir::DT_INT8) {
      auto v = static_cast<int32_t>(bias[j]);
      std::memcpy(&bias_bits[j * 4], &v, 4);
    } else {
      auto v = static_cast<float>(bias[j]);
      std::memcpy(&bias_bits[j * 4], &v, 4);
    }
  }
  Device device(Config());
  uint64_t da = Upload(device, a.bits);
  uint64_t db = Upload(device, bt.bits);
  uint32_t out_es = ElementSize(s.out);
  uint64_t dc = Upload(device, std::vector<uint8_t>(s.m * s.n * out_es, 0xee));
  std::vector<ArgValue> args{ArgValue::Address(da), ArgValue::Address(db), ArgValue::Address(dc)};
  if (s.bias) args.push_back(ArgValue::Address(Upload(device, bias_bits)));
  auto program = Decode(LinearKernel(s));
  LinearRun run;
  if (program == nullptr) return run;
  auto r = device.Launch(*program, 1, args, Strict());
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (!r.ok()) return run;
  run.result = *r;
  std::string found;
  for (const Diagnostic& d : r->diagnostics) found += "\n  " + d.message;
  EXPECT_EQ(r->status, LaunchResult::Status::kOk) << found;
  ExpectStrictClean(*r);
  std::vector<uint8_t> out = Download<uint8_t>(device, dc, s.m * s.n * out_es);
  std::vector<double> want = Reference(s, a, bt, bias);
  for (int64_t i = 0; i < s.m * s.n; ++i) {
    run.c.push_back(OutputValue(s.out, &out[i * out_es]));
    double w = s.relu ? std::max(0.0, want[i]) : want[i];
    run.want.push_back(RoundTo(s.out, w));
  }
  return run;
}

void ExpectExact(const LinearRun& run) {
  ASSERT_FALSE(run.c.empty()) << "the launch did not run";
  ASSERT_EQ(run.c.size(), run.want.size());
  int bad = 0;
  for (size_t i = 0; i < run.c.size() && bad < 5; ++i) {
    if (run.c[i] != run.want[i]) {
      ++bad;
      ADD_FAILURE() << "element " << i << ": got " << run.c[i] << ", want " << run.want[i];
    }
  }
}

TEST(CubeLinear, Fp16ToFp16OneSlice) { ExpectExact(RunLinear({32, 32, 64, 64})); }

TEST(CubeLinear, Fp16TailsInEveryDimension) {
  // M, N and K all end inside a fractal; K runs over three slices, the last a partial one.
  ExpectExact(RunLinear({21, 37, 72, 32}));
}

TEST(CubeLinear, Fp16ToFp32) {
  LinearShape s{48, 16, 96, 48, ir::DT_FLOAT16, ir::DT_FLOAT32, ir::FixpipeOp::NO_QUANT};
  ExpectExact(RunLinear(s));
}

TEST(CubeLinear, Fp32Inputs) {
  LinearShape s{17, 24, 40, 16, ir::DT_FLOAT32, ir::DT_FLOAT32, ir::FixpipeOp::NO_QUANT};
  ExpectExact(RunLinear(s));
}

TEST(CubeLinear, Bf16InputsToBf16) {
  LinearShape s{16, 32, 48, 48, ir::DT_BFLOAT16, ir::DT_BFLOAT16, ir::FixpipeOp::F322BF16};
  ExpectExact(RunLinear(s));
}

TEST(CubeLinear, Int8ToInt32) {
  LinearShape s{20, 33, 100, 64, ir::DT_INT8, ir::DT_INT32, ir::FixpipeOp::NO_QUANT};
  LinearRun run = RunLinear(s);
  ExpectExact(run);
  // Exact integers: also the plain sum.
  ASSERT_FALSE(run.c.empty());
}

TEST(CubeLinear, BiasFromTheBiasTableAndRelu) {
  LinearShape s{16, 32, 32, 32, ir::DT_FLOAT16, ir::DT_FLOAT32, ir::FixpipeOp::NO_QUANT};
  s.bias = true;
  s.relu = true;
  LinearRun run = RunLinear(s);
  ExpectExact(run);
  int zeros = 0;
  for (double v : run.c) zeros += v == 0.0 ? 1 : 0;
  EXPECT_GT(zeros, 0) << "ReLU should have clipped some outputs";
}

TEST(CubeLinear, GemvWhenMIsOne) {
  // m = 1 reads L0A as one K-long row: the band load of A still fills L0A as fractals, whose
  // first row is the vector, so the load's layout gives the same first K elements.
  LinearShape s{1, 48, 16, 16, ir::DT_FLOAT16, ir::DT_FLOAT32, ir::FixpipeOp::NO_QUANT};
  ExpectExact(RunLinear(s));
}

TEST(CubeLinear, Fp16NearFloat64) {
  LinearRun run = RunLinear({64, 64, 256, 128});
  ASSERT_FALSE(run.c.empty());
  double worst = 0;
  for (size_t i = 0; i < run.c.size(); ++i) {
    worst = std::max(worst, std::abs(run.c[i] - run.want[i]) / (1.0 + std::abs(run.want[i])));
  }
  EXPECT_LT(worst, 1e-3);
}

TEST(CubeLinear, ReportsTheCubePipes) {
  LinearRun run = RunLinear({64, 64, 256, 128});
  ASSERT_EQ(run.result.cores.size(), 1u);
  const CoreStats& core = run.result.cores[0];
  for (const char* pipe : {"MTE2", "MTE1", "M", "FIX"}) {
    const PipeStats* p = FindPipe(core, pipe);
    ASSERT_NE(p, nullptr) << pipe;
    EXPECT_GT(p->busy_cycles, 0u) << pipe;
  }
  // Two 64 x 64 x 128 mmads of f16: 4 * 4 * 8 fractal steps each at one per cycle.
  EXPECT_GE(FindPipe(core, "M")->busy_cycles, 2u * 128u);
}

}  // namespace
}  // namespace aicore::sim::testing
