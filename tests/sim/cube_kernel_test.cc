// Whole AIC_ONLY launches of the cube instructions, as the raw-instruction linear layer of
// asc-api.md 10.6 writes them: A (M x K, ND in GM) -> L1 by ND2NZ, B^T (N x K, ND in GM) -> L1 by
// ND2NZ, one load_data per 16-row band of A into L0A and one contiguous load of B into L0B,
// mmad over K slices (the first initialises, the others accumulate) and fixpipe NZ2ND to GM,
// pipe_barrier(PIPE_ALL) between the stages. Results are checked against a reference that sums
// in the documented order (docs/cube.md), bit for bit, and against float64 within tolerance.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <tuple>

#include "sim/isa/fp16.h"
#include "sim/isa/semantics/cube.h"
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
  bool bias = false;        // C = bias + A*B on the first slice (bias table row from GM via L1)
  int hf32 = 0;             // float inputs: 1 set_hf32_mode, 2 also set_hf32_trans_mode (toward 0)
  uint64_t quant_word = 0;  // the scalar quant modes' QUANT_PRE
  // The vector modes' words: one per column, GM -> L1 (cbuf_workspace). The initializer keeps
  // GCC's -Wmissing-field-initializers quiet for the shapes given as brace lists.
  std::vector<uint64_t> words = {};  // NOLINT(readability-redundant-member-init)
};

bool ScalarQuant(ir::FixpipeOp::QuantMode q) {
  return q == ir::FixpipeOp::DEQF16 || q == ir::FixpipeOp::QF322B8_PRE || q == ir::FixpipeOp::REQ8;
}

int64_t Ceil16(int64_t x) { return (x + 15) / 16 * 16; }

uint32_t ElementSize(ir::DType t) {
  switch (t) {
    case ir::DT_INT8:
    case ir::DT_UINT8:
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
  for (int r = 0; r < s.hf32; ++r) {
    uint32_t on = b.Const(1, ir::DT_BOOL);
    auto* cfg = b.AddOp()->mutable_store_config();
    cfg->set_kind(r == 0 ? ir::StoreConfigOp::SET_HF32_MODE
                         : ir::StoreConfigOp::SET_HF32_TRANS_MODE);
    cfg->set_value(on);
  }
  uint32_t gwords = s.words.empty() ? 0 : b.PointerParam("words", ir::DT_UINT64);
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
  // The quant words as the library sets them (ascendc-semantics.md 4.2): QUANT_PRE, then a
  // PIPE_FIX barrier; or the per-column vector copied into L1 for cbuf_workspace.
  int64_t words_l1 = bias_l1 + np * 4;
  if (ScalarQuant(s.quant)) {
    b.At(18);
    uint32_t word = b.Const(static_cast<int64_t>(s.quant_word), ir::DT_UINT64);
    auto* sc = b.AddOp()->mutable_store_config();
    sc->set_kind(ir::StoreConfigOp::SET_FIX_PIPE_PRE_QUANT);
    sc->set_value(word);
    b.Barrier(ir::PIPE_FIX);
  }
  if (gwords != 0) {
    b.At(19);
    ir::TensorRef l1 = Local(ir::MEM_L1, ir::POS_C1, u(words_l1), ir::DT_UINT64);
    uint32_t one = c(1), len = c((s.n * 8 + 31) / 32), zero = c(0);
    b.DataCopyParams(l1, KB::Gm(gwords, ir::DT_UINT64), one, len, zero, zero);
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
  if (gwords != 0)
    *fp.mutable_cbuf_workspace() = Local(ir::MEM_L1, ir::POS_C1, u(words_l1), ir::DT_UINT64);
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
std::vector<double> Reference(const LinearShape& s, const Matrix& a_in, const Matrix& bt_in,
                              const std::vector<double>& bias) {
  int64_t c0 = C0Of(s.in);
  // HF32: every float input rounded before it is multiplied.
  Matrix a = a_in, bt = bt_in;
  if (s.hf32 > 0) {
    for (Matrix* x : {&a, &bt}) {
      for (double& v : x->values) v = cube::RoundToHf32(static_cast<float>(v), s.hf32 == 2);
    }
  }
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
  if (t == ir::DT_INT8) return static_cast<int8_t>(*p);
  if (t == ir::DT_UINT8) return *p;
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

// 4.4's golden arithmetic, restated from the reference for one element x of C in column j:
// (MCB) shift and int16 saturation, times M1 (or 0 for a negative x with ReLU), then half with
// saturation (DEQF16) or round half to even, [-256, 255], + offset, int8 / uint8 per bit 46.
double Quantised(const LinearShape& s, double x, int64_t j) {
  uint64_t w = s.words.empty() ? s.quant_word : s.words[j];
  double m1 = std::bit_cast<float>(static_cast<uint32_t>(w) & 0xffffe000u);
  bool integer = s.in == ir::DT_INT8;
  if (integer && ((w >> 36) & 1)) {
    x = std::clamp(std::floor(x / std::ldexp(1.0, static_cast<int>((w >> 32) & 15))), -32768.0,
                   32767.0);
  }
  double p = s.relu && x < 0 ? 0.0 : x * m1;
  if (s.out == ir::DT_FLOAT16) return std::clamp(HalfToFloat(DoubleToHalf(p)), -65504.0f, 65504.0f);
  double r = std::clamp(std::nearbyint(p), -256.0, 255.0) + static_cast<double>((w >> 37) & 511);
  return ((w >> 46) & 1) ? std::clamp(r, -128.0, 127.0) : std::clamp(r, 0.0, 255.0);
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
  if (!s.words.empty()) {
    std::vector<uint8_t> words(s.words.size() * 8);
    std::memcpy(words.data(), s.words.data(), words.size());
    args.push_back(ArgValue::Address(Upload(device, words)));
  }
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
    bool quantised = s.quant >= ir::FixpipeOp::DEQF16;
    double w = s.relu ? std::max(0.0, want[i]) : want[i];
    run.want.push_back(quantised ? Quantised(s, want[i], i % s.n) : RoundTo(s.out, w));
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

TEST(CubeLinear, Hf32RoundsFloatInputsAndDoublesTheRate) {
  LinearShape s{32, 32, 64, 64, ir::DT_FLOAT32, ir::DT_FLOAT32, ir::FixpipeOp::NO_QUANT};
  LinearRun plain = RunLinear(s);
  ExpectExact(plain);
  for (int mode : {1, 2}) {
    s.hf32 = mode;  // 1: nearest even, 2: toward zero
    LinearRun hf32 = RunLinear(s);
    ExpectExact(hf32);
    EXPECT_NE(hf32.c, plain.c) << "HF32 should round the inputs (mode " << mode << ")";
    ASSERT_FALSE(hf32.result.cores.empty());
    // 2 x 2 x 8 steps of 16 x 16 x 8: at 2 cycles each as float, 1 in HF32.
    EXPECT_EQ(FindPipe(plain.result.cores[0], "M")->busy_cycles,
              FindPipe(hf32.result.cores[0], "M")->busy_cycles + 32u)
        << mode;
  }
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

// A quant word from its fields (ascendc-semantics.md 4.4).
uint64_t QuantWord(float m1, uint32_t shift, bool mcb, uint32_t offset, bool to_int8) {
  return std::bit_cast<uint32_t>(m1) | uint64_t{shift} << 32 | uint64_t{mcb} << 36 |
         uint64_t{offset} << 37 | uint64_t{to_int8} << 46;
}

// Counts of the distinct outputs and of those at the type's bounds: a quantising test whose
// outputs all saturate (or are all equal) would prove little.
void ExpectSpread(const LinearRun& run, double lo, double hi) {
  ASSERT_FALSE(run.c.empty());
  int at_bounds = 0;
  for (double v : run.c) at_bounds += (v == lo || v == hi) ? 1 : 0;
  std::vector<double> sorted = run.c;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_GT(std::unique(sorted.begin(), sorted.end()) - sorted.begin(), 20);
  EXPECT_LT(at_bounds, static_cast<int>(run.c.size()) / 2);
}

TEST(CubeLinear, Int8ToInt8WithReq8ShiftOffsetAndRelu) {
  // C reaches about +-40000: MCB shifts it by 4 and saturates to int16, M1 = 1/64 scales it
  // into int8's range, the offset 3 moves it, ReLU zeroes the negative half.
  LinearShape s{20, 33, 100, 64, ir::DT_INT8, ir::DT_INT8, ir::FixpipeOp::REQ8};
  s.quant_word = QuantWord(1.0f / 64, 4, true, 3, true);
  LinearRun run = RunLinear(s);
  ExpectExact(run);
  ExpectSpread(run, -128, 127);
  s.relu = true;
  run = RunLinear(s);
  ExpectExact(run);
  EXPECT_EQ(*std::min_element(run.c.begin(), run.c.end()), 3.0) << "ReLU'd zeros plus the offset";
}

TEST(CubeLinear, Int8ToUint8WithVreq8TakesAWordPerColumn) {
  LinearShape s{20, 32, 100, 64, ir::DT_INT8, ir::DT_UINT8, ir::FixpipeOp::VREQ8};
  for (int j = 0; j < 32; ++j) {
    s.words.push_back(QuantWord(1.0f / static_cast<float>(256 + 32 * j), 0, false, 128, false));
  }
  LinearRun run = RunLinear(s);
  ExpectExact(run);
  ExpectSpread(run, 0, 255);
}

TEST(CubeLinear, Int8ToHalfWithDeqF16AndVdeqF16) {
  LinearShape s{20, 33, 100, 64, ir::DT_INT8, ir::DT_FLOAT16, ir::FixpipeOp::DEQF16};
  s.quant_word = QuantWord(1.0f / 3, 0, false, 0, false);
  ExpectExact(RunLinear(s));
  s.quant = ir::FixpipeOp::VDEQF16;
  s.n = 32;
  for (int j = 0; j < 32; ++j) s.words.push_back(QuantWord(0.125f * (j + 1), 2, true, 0, false));
  ExpectExact(RunLinear(s));
}

TEST(CubeLinear, Fp16ToInt8WithQf322B8AndVqf322B8) {
  LinearShape s{21, 37, 72, 32, ir::DT_FLOAT16, ir::DT_INT8, ir::FixpipeOp::QF322B8_PRE};
  s.quant_word = QuantWord(4.0f, 0, false, 0, true);
  LinearRun run = RunLinear(s);
  ExpectExact(run);
  ExpectSpread(run, -128, 127);
  s.quant = ir::FixpipeOp::VQF322B8_PRE;
  s.out = ir::DT_UINT8;
  s.n = 32;
  for (int j = 0; j < 32; ++j) s.words.push_back(QuantWord(0.5f + 0.25f * j, 0, false, 100, false));
  ExpectExact(RunLinear(s));
}

std::string Refusal(const LinearShape& s) {
  auto p = DecodeKernel(LinearKernel(s));
  return p.ok() ? "(accepted)" : std::string(p.status().message());
}

TEST(CubeLinear, TheDecoderRefusesFixpipeTypesAndOperandsTheChipLacks) {
  LinearShape s{16, 32, 32, 32, ir::DT_INT8, ir::DT_BFLOAT16, ir::FixpipeOp::DEQF16};
  EXPECT_NE(Refusal(s).find("Ascend 910B (C220)'s fixpipe has no int32 -> bf16"), std::string::npos)
      << Refusal(s);
  s.out = ir::DT_FLOAT32;
  EXPECT_NE(Refusal(s).find("is not what QuantModes.DEQF16 converts (DT_INT32 -> DT_FLOAT16)"),
            std::string::npos)
      << Refusal(s);
  s.out = ir::DT_INT8;
  s.quant = ir::FixpipeOp::VREQ8;
  EXPECT_NE(Refusal(s).find("reads one quant word per column from the workspace"),
            std::string::npos)
      << Refusal(s);
  s.quant = ir::FixpipeOp::REQ8;
  s.words.assign(32, 0);
  EXPECT_NE(Refusal(s).find("takes no per-column words"), std::string::npos) << Refusal(s);
}

TEST(CubeLinear, AnInfiniteScalarScaleIsAnErrorAtTheFixpipe) {
  LinearShape s{16, 32, 32, 32, ir::DT_INT8, ir::DT_INT8, ir::FixpipeOp::REQ8};
  s.quant_word = 0x7f800000u | uint64_t{1} << 46;
  Device device(Config());
  uint64_t d = Upload(device, std::vector<uint8_t>(16 * 32 * 4, 0));
  auto program = Decode(LinearKernel(s));
  ASSERT_NE(program, nullptr);
  auto r = device.Launch(
      *program, 1, {ArgValue::Address(d), ArgValue::Address(d), ArgValue::Address(d)}, Strict());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_NE(r->status, LaunchResult::Status::kOk);
  std::string found;
  for (const Diagnostic& diag : r->diagnostics) found += diag.message + "\n";
  EXPECT_NE(found.find("QUANT_PRE = 0x40007f800000 has an infinite, NaN or denormal scale"),
            std::string::npos)
      << found;
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

// ---- Pipe ordering, races and bound pipes ----------------------------------------------------

constexpr uint32_t kMte2Mte1 = 0, kMte1M = 2, kMFix = 17, kFixM = 18;

// A (m x k) and B^T (n x k) fp16 in GM, loaded once; then `mmads` Mmads of m x n x k into L0C,
// the first initialising, the others accumulating, with `barrier` PIPE_M barriers between them
// or none; a fixpipe to C (float32), after an M_FIX flag unless `fix_before_mmad`.
struct LoopShape {
  int64_t m, n, k;
  int mmads = 1;
  bool barrier = false;
  bool fix_flag = true;    // false: the fixpipe reads L0C with nothing ordering it after the mmads
  int loads_per_mmad = 0;  // > 0: reload L0A/L0B this often before each Mmad (an MTE1-bound loop)
  // The unit flags (ascendc-semantics.md 3.5) of the K loop's Mmads but the last, of the last
  // and of the fixpipe; `tiles` repeats the Mmads and the fixpipe (into the next C of a
  // tiles x m x n output), after a FIX_M flag when fix_flag is set.
  int mmad_unit = 0, last_unit = 0, fix_unit = 0;
  int tiles = 1;
};

ir::Kernel LoopKernel(const LoopShape& s) {
  KernelBuilder b("mmad_loop", "loop.py", ir::KERNEL_AIC_ONLY);
  uint32_t ga = b.PointerParam("a", ir::DT_FLOAT16);
  uint32_t gb = b.PointerParam("bt", ir::DT_FLOAT16);
  uint32_t gc = b.PointerParam("c", ir::DT_FLOAT32);
  auto c = [&](int64_t v) { return b.Const(v, ir::DT_INT64); };
  auto u = [&](int64_t v) { return b.Const(v, ir::DT_UINT64); };
  int64_t mp = Ceil16(s.m), np = Ceil16(s.n), k1 = Ceil16(s.k) / 16;
  int64_t b_l1 = mp * Ceil16(s.k) * 2;
  for (auto [space_gm, dst, rows, pitch] :
       {std::tuple{ga, int64_t{0}, s.m, mp}, std::tuple{gb, b_l1, s.n, np}}) {
    b.At(10);
    ir::Nd2NzCopyOp cp;
    *cp.mutable_dst() =
        Local(ir::MEM_L1, dst == 0 ? ir::POS_A1 : ir::POS_B1, u(dst), ir::DT_FLOAT16);
    *cp.mutable_src() = KB::Gm(space_gm, ir::DT_FLOAT16);
    cp.set_nd_num(c(1));
    cp.set_n_value(c(rows));
    cp.set_d_value(c(s.k));
    cp.set_src_d_value(c(s.k));
    cp.set_dst_nz_c0_stride(c(pitch));
    cp.set_dst_nz_n_stride(c(1));
    *b.AddOp()->mutable_nd2nz_copy() = cp;
  }
  uint32_t id0 = b.Const(0, ir::DT_INT32);
  b.At(11).SetFlag(kMte2Mte1, id0);
  b.At(11).WaitFlag(kMte2Mte1, id0);
  auto loads = [&]() {
    for (int64_t band = 0; band < mp / 16; ++band) {
      b.At(12);
      ir::LoadData2DOp la;
      *la.mutable_dst() = Local(ir::MEM_L0A, ir::POS_A2, u(band * k1 * 512), ir::DT_FLOAT16);
      *la.mutable_src() = Local(ir::MEM_L1, ir::POS_A1, u(0), ir::DT_FLOAT16);
      la.set_start_index(c(band));
      la.set_repeat_times(c(k1));
      la.set_src_stride(c(mp / 16));
      *b.AddOp()->mutable_load_data_2d() = la;
    }
    b.At(13);
    ir::LoadData2DOp lb;
    *lb.mutable_dst() = Local(ir::MEM_L0B, ir::POS_B2, u(0), ir::DT_FLOAT16);
    *lb.mutable_src() = Local(ir::MEM_L1, ir::POS_B1, u(b_l1), ir::DT_FLOAT16);
    lb.set_repeat_times(c(k1 * np / 16));
    lb.set_src_stride(c(1));
    *b.AddOp()->mutable_load_data_2d() = lb;
  };
  loads();
  b.At(14).SetFlag(kMte1M, id0);
  b.At(14).WaitFlag(kMte1M, id0);
  for (int tile = 0; tile < s.tiles; ++tile) {
    if (tile > 0 && s.fix_flag) {
      b.At(19).SetFlag(kFixM, id0);  // the next tile's Mmads overwrite what the fixpipe reads
      b.At(19).WaitFlag(kFixM, id0);
    }
    for (int i = 0; i < s.mmads; ++i) {
      for (int r = 0; r < s.loads_per_mmad; ++r) {
        b.Barrier(ir::PIPE_MTE1);  // a reload rewrites what the last one wrote
        loads();
        b.At(14).SetFlag(kMte1M, id0);
        b.At(14).WaitFlag(kMte1M, id0);
      }
      if (i > 0 && s.barrier) b.Barrier(ir::PIPE_M);
      b.At(20);
      ir::MmadOp mm;
      *mm.mutable_dst() = Local(ir::MEM_L0C, ir::POS_CO1, u(0), ir::DT_FLOAT32);
      *mm.mutable_fm() = Local(ir::MEM_L0A, ir::POS_A2, u(0), ir::DT_FLOAT16);
      *mm.mutable_filter() = Local(ir::MEM_L0B, ir::POS_B2, u(0), ir::DT_FLOAT16);
      mm.set_m(c(s.m));
      mm.set_n(c(s.n));
      mm.set_k(c(s.k));
      mm.set_cmatrix_init_val(b.Const(i == 0 ? 1 : 0, ir::DT_BOOL));
      mm.set_unit_flag(b.Const(i + 1 == s.mmads ? s.last_unit : s.mmad_unit, ir::DT_UINT8));
      *b.AddOp()->mutable_mmad() = mm;
      if (s.loads_per_mmad > 0) {
        // The next reload overwrites L0A/L0B: after this Mmad has read them.
        b.At(21).SetFlag(3 /* M_MTE1 */, id0);
        b.At(21).WaitFlag(3, id0);
      }
    }
    if (s.fix_flag) {
      b.At(22).SetFlag(kMFix, id0);
      b.At(22).WaitFlag(kMFix, id0);
    }
    b.At(23);
    ir::FixpipeOp fp;
    *fp.mutable_dst() = KB::Gm(b.GmAddr(gc, c(tile * s.m * s.n), 4), ir::DT_FLOAT32);
    *fp.mutable_src() = Local(ir::MEM_L0C, ir::POS_CO1, u(0), ir::DT_FLOAT32);
    fp.set_n_size(c(s.n));
    fp.set_m_size(c(s.m));
    fp.set_src_stride(c(mp));
    fp.set_dst_stride(c(s.n));
    fp.set_unit_flag(b.Const(s.fix_unit, ir::DT_UINT8));
    *b.AddOp()->mutable_fixpipe() = fp;
  }
  return b.Build();
}

struct LoopRun {
  LaunchResult result;
  std::vector<float> c, want;
};

LoopRun RunLoop(const LoopShape& s, bool expect_clean, bool auto_sync = false) {
  Matrix a = Random(ir::DT_FLOAT16, s.m, s.k, 3);
  Matrix bt = Random(ir::DT_FLOAT16, s.n, s.k, 4);
  Device device(Config());
  uint64_t da = Upload(device, a.bits), db = Upload(device, bt.bits);
  uint64_t dc = Upload(device, std::vector<float>(s.tiles * s.m * s.n, -7.0f));
  ir::Kernel kernel = LoopKernel(s);
  kernel.mutable_sync()->set_auto_sync(auto_sync);
  auto program = Decode(kernel);
  LoopRun run;
  if (program == nullptr) return run;
  LaunchOptions options = Strict();
  options.record_timeline = true;
  auto r = device.Launch(
      *program, 1, {ArgValue::Address(da), ArgValue::Address(db), ArgValue::Address(dc)}, options);
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (!r.ok()) return run;
  run.result = *r;
  if (expect_clean) ExpectStrictClean(*r);
  run.c = Download<float>(device, dc, s.tiles * s.m * s.n);
  LinearShape one{s.m, s.n, s.k, s.k, ir::DT_FLOAT16, ir::DT_FLOAT32, ir::FixpipeOp::NO_QUANT};
  std::vector<double> once = Reference(one, a, bt, {});
  // `mmads` accumulations of the same product, each rounded to float.
  for (int64_t i = 0; i < s.m * s.n; ++i) {
    float acc = 0;
    for (int t = 0; t < s.mmads; ++t) {
      acc = static_cast<float>(acc + once[i]);
    }
    run.want.push_back(acc);
  }
  for (int t = 1; t < s.tiles; ++t)
    run.want.insert(run.want.end(), run.want.begin(), run.want.begin() + s.m * s.n);
  return run;
}

bool HasRace(const LaunchResult& r, const std::string& needle) {
  for (const Diagnostic& d : r.diagnostics) {
    if (d.kind == Diagnostic::Kind::kRace && d.message.find(needle) != std::string::npos) {
      return true;
    }
  }
  return false;
}

// Two Nd2Nz copies of one 32 x 32 half tile into L1, 16 rows each (a Norm Matmul's slices):
// panels 32 rows high, the second copy 16 rows down. With `overlap` the second copy writes the
// first one's rows instead.
LaunchResult RunSlices(bool overlap) {
  KernelBuilder b("slices", "slices.py", ir::KERNEL_AIC_ONLY);
  uint32_t ga = b.PointerParam("a", ir::DT_FLOAT16);
  auto c = [&](int64_t v) { return b.Const(v, ir::DT_INT64); };
  auto u = [&](int64_t v) { return b.Const(v, ir::DT_UINT64); };
  for (int64_t slice = 0; slice < 2; ++slice) {
    b.At(20 + static_cast<uint32_t>(slice));
    ir::Nd2NzCopyOp cp;
    int64_t rows_down = overlap ? 0 : slice * 16;
    *cp.mutable_dst() = Local(ir::MEM_L1, ir::POS_A1, u(rows_down * 32), ir::DT_FLOAT16);
    *cp.mutable_src() = KB::Gm(ga, ir::DT_FLOAT16);
    cp.set_nd_num(c(1));
    cp.set_n_value(c(16));
    cp.set_d_value(c(32));
    cp.set_src_d_value(c(32));
    cp.set_dst_nz_c0_stride(c(32));
    cp.set_dst_nz_n_stride(c(1));
    *b.AddOp()->mutable_nd2nz_copy() = cp;
  }
  Device device(Config());
  uint64_t da = Upload(device, Random(ir::DT_FLOAT16, 32, 32, 5).bits);
  auto program = Decode(b.Build());
  EXPECT_NE(program, nullptr);
  if (program == nullptr) return {};
  auto r = device.Launch(*program, 1, {ArgValue::Address(da)}, Strict());
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : LaunchResult{};
}

TEST(CubePipe, Nd2NzSlicesOfOneTileWriteTheirOwnRowsOnly) {
  // Each copy writes 16 rows of each of the two C0 columns, 32 rows apart: side by side they
  // share no byte, so nothing orders them; writing the same rows twice is a WAW race.
  LaunchResult apart = RunSlices(false);
  EXPECT_FALSE(HasRace(apart, "race")) << apart.check.Text();
  LaunchResult same = RunSlices(true);
  EXPECT_TRUE(HasRace(same, "race (WAW) on L1")) << same.check.Text();
}

TEST(CubePipe, LargeAccumulatingMmadsAreOrderedByTheCube) {
  // 64 x 64 is 16 fractals of C: the cube orders the chain itself (ascendc-semantics.md 3.4).
  LoopRun run = RunLoop({64, 64, 64, 4}, true);
  ASSERT_FALSE(run.c.empty());
  // Each accumulation of a chunk sum is one rounding; K = 64 is four chunks, so compare with
  // tolerance against four roundings per Mmad rather than one.
  for (size_t i = 0; i < run.c.size(); ++i) {
    ASSERT_NEAR(run.c[i], run.want[i], 1e-3 * (1 + std::abs(run.want[i]))) << i;
  }
}

TEST(CubePipe, SmallAccumulatingMmadsNeedAPipeBarrier) {
  // 16 x 16 is one fractal: without pipe_barrier(PIPE_M) the next Mmad reads L0C before the
  // previous result lands, as on the chip, and the checker says which barrier is missing.
  LoopRun racy = RunLoop({16, 16, 16, 3}, false);
  EXPECT_TRUE(HasRace(racy.result, "pipe_barrier(PIPE_M)")) << racy.result.check.Text();
  LoopRun fixed = RunLoop({16, 16, 16, 3, true}, true);
  ASSERT_FALSE(fixed.c.empty());
  for (size_t i = 0; i < fixed.c.size(); ++i) {
    ASSERT_NEAR(fixed.c[i], fixed.want[i], 1e-3 * (1 + std::abs(fixed.want[i]))) << i;
  }
  EXPECT_NE(racy.c, fixed.c) << "the racy chain should have lost accumulations";
}

TEST(CubePipe, FixpipeBeforeTheMmadWritesL0CIsARace) {
  LoopRun run = RunLoop({32, 32, 32, 1, false, false}, false);
  bool found = false;
  for (const Diagnostic& d : run.result.diagnostics) {
    if (d.kind != Diagnostic::Kind::kRace) continue;
    found = true;
    EXPECT_NE(d.message.find("fixpipe"), std::string::npos) << d.message;
    EXPECT_NE(d.message.find("mmad"), std::string::npos) << d.message;
    EXPECT_NE(d.message.find("loop.py:23"), std::string::npos) << d.message;
    EXPECT_NE(d.message.find("loop.py:20"), std::string::npos) << d.message;
  }
  EXPECT_TRUE(found) << run.result.check.Text();
}

TEST(CubePipe, AComputeBoundMmadLoopKeepsTheCubeBusy) {
  // Operands stay in L0: 128 Mmads of 128 x 128 x 64 (256 fractal steps each) back to back.
  LoopRun run = RunLoop({128, 128, 64, 128}, true);
  ASSERT_EQ(run.result.cores.size(), 1u);
  const CoreStats& core = run.result.cores[0];
  EXPECT_EQ(core.bound_pipe, "M");
  const PipeStats* m = FindPipe(core, "M");
  ASSERT_NE(m, nullptr);
  // From the first Mmad's start to the fixpipe's end, the cube is busy 85% of the time or more.
  uint64_t first = UINT64_MAX, last = 0;
  for (const InstrRecord& rec : run.result.timeline) {
    if (rec.op == "mmad") first = std::min(first, rec.start_cycle);
    last = std::max(last, rec.end_cycle);
  }
  ASSERT_LT(first, last);
  double utilisation = static_cast<double>(m->busy_cycles) / static_cast<double>(last - first);
  EXPECT_GE(utilisation, 0.85) << m->busy_cycles << " of " << (last - first);
  // And over the whole launch, loads and launch overhead included, as the report states it.
  EXPECT_GE(static_cast<double>(m->busy_cycles) / static_cast<double>(core.cycles), 0.85)
      << m->busy_cycles << " of " << core.cycles;
}

TEST(CubePipe, ReloadingL0BeforeEveryMmadIsMte1Bound) {
  // 16 Mmads of 16 x 16 x 256 (16 steps each), each after reloading 8 KiB of L0A and 8 KiB of
  // L0B four times.
  LoopRun run = RunLoop({16, 16, 256, 16, true, true, 4}, true);
  ASSERT_EQ(run.result.cores.size(), 1u);
  EXPECT_EQ(run.result.cores[0].bound_pipe, "MTE1");
}

// The unit flag (ascendc-semantics.md 3.5): K-loop Mmads with 2, the last with 3, the fixpipe
// with 3, and no M_FIX / FIX_M flag. {m, n, k, mmads, barrier, fix_flag, loads, mmad_unit,
// last_unit, fix_unit, tiles}.
LoopShape UnitLoop(int tiles) { return {64, 64, 64, 4, false, false, 0, 2, 3, 3, tiles}; }

void ExpectNear(const LoopRun& run) {
  ASSERT_FALSE(run.c.empty());
  ASSERT_EQ(run.c.size(), run.want.size());
  for (size_t i = 0; i < run.c.size(); ++i) {
    ASSERT_NEAR(run.c[i], run.want[i], 1e-3 * (1 + std::abs(run.want[i]))) << i;
  }
}

const InstrRecord* Nth(const LaunchResult& r, const std::string& op, int n) {
  for (const InstrRecord& rec : r.timeline) {
    if (rec.op == op && n-- == 0) return &rec;
  }
  return nullptr;
}

TEST(CubeUnitFlag, AKLoopHandsL0CToTheFixpipeWithoutAFlag) {
  ExpectNear(RunLoop(UnitLoop(1), true));
}

TEST(CubeUnitFlag, AutoSyncInsertsNoFlagPairWhereTheUnitFlagOrdersTheHandOver) {
  LoopRun run = RunLoop(UnitLoop(2), true, /*auto_sync=*/true);
  ExpectNear(run);
  // (Its loads reach the Mmads through an inserted MTE1_M; the hand-over needs no M_FIX/FIX_M.)
  for (const InstrRecord& rec : run.result.timeline) {
    bool flag = rec.op == "set_flag" || rec.op == "wait_flag";
    EXPECT_FALSE(flag && (rec.detail.find("M_FIX") != std::string::npos ||
                          rec.detail.find("FIX_M") != std::string::npos))
        << rec.op << " on " << rec.pipe << ": " << rec.detail;
  }
}

TEST(CubeUnitFlag, TheNextTilesMmadsWaitForTheFixpipeToClearTheBits) {
  LoopRun run = RunLoop(UnitLoop(2), true);
  ExpectNear(run);
  // Tile 1's first Mmad waits for the bits tile 0's fixpipe clears as it ends.
  const InstrRecord* fix0 = Nth(run.result, "fixpipe", 0);
  const InstrRecord* mmad4 = Nth(run.result, "mmad", 4);
  ASSERT_NE(fix0, nullptr);
  ASSERT_NE(mmad4, nullptr);
  EXPECT_EQ(mmad4->start_cycle, fix0->end_cycle);
}

TEST(CubeUnitFlag, WithoutUnitFlagsOrFlagsTheHandoffsRace) {
  LoopShape none = UnitLoop(2);
  none.mmad_unit = none.last_unit = none.fix_unit = 0;
  LoopRun run = RunLoop(none, false);
  EXPECT_TRUE(HasRace(run.result, "race (RAW) on L0C")) << run.result.check.Text();
  EXPECT_TRUE(HasRace(run.result, "race (WAR) on L0C")) << run.result.check.Text();
  // Mismatched: the Mmads set the bits, the fixpipe does not wait for them.
  LoopShape mismatched = UnitLoop(1);
  mismatched.fix_unit = 0;
  LoopRun racy = RunLoop(mismatched, false);
  EXPECT_TRUE(HasRace(racy.result, "set_flag(HardEvent.M_FIX")) << racy.result.check.Text();
}

TEST(CubeUnitFlag, AFixpipeWaitingForBitsNoMmadSetsIsADeadlockNamingTheBlock) {
  LoopShape never = UnitLoop(1);
  never.mmad_unit = never.last_unit = 0;
  LoopRun run = RunLoop(never, false);
  EXPECT_EQ(run.result.status, LaunchResult::Status::kDeadlock);
  bool found = false;
  for (const Diagnostic& d : run.result.diagnostics) {
    if (d.kind != Diagnostic::Kind::kDeadlock) continue;
    found = true;
    EXPECT_EQ(d.op, "fixpipe");
    EXPECT_EQ(d.pipe, "FIX");
    EXPECT_EQ(d.location.line, 23u);
    EXPECT_NE(d.message.find("ready bit of L0C[0, 512) to be 1"), std::string::npos) << d.message;
    EXPECT_NE(d.message.find("no mmad with unit_flag 3"), std::string::npos) << d.message;
  }
  EXPECT_TRUE(found) << run.result.check.Text();
  EXPECT_EQ(Nth(run.result, "fixpipe", 0), nullptr) << "the fixpipe must not have run";
}

TEST(CubeUnitFlag, TheFixpipeStartsWhenTheLastMmadsResultLands) {
  LoopRun unit = RunLoop(UnitLoop(1), true);
  LoopRun flagged = RunLoop({64, 64, 64, 4}, true);
  const InstrRecord* last = Nth(unit.result, "mmad", 3);
  const InstrRecord* fix = Nth(unit.result, "fixpipe", 0);
  const InstrRecord* fix_flagged = Nth(flagged.result, "fixpipe", 0);
  ASSERT_NE(last, nullptr);
  ASSERT_NE(fix, nullptr);
  ASSERT_NE(fix_flagged, nullptr);
  // Whole-instruction granularity (docs/cube.md, "UnitFlag"): the bits are set when the result
  // lands, and the fixpipe starts then, not a cycle before; the M_FIX pair costs its latency.
  EXPECT_EQ(fix->start_cycle, last->end_cycle);
  EXPECT_LT(fix->start_cycle, fix_flagged->start_cycle);
}

// A filled with ones by init_const_value; B (K x N, row-major in GM) in L1 as NZ of K rows, each
// K panel's fractals transposed into L0B by load_data_with_transpose: C[m][n] = sum_k B[k][n].
TEST(CubeLoads, InitConstAndTransposingLoadsFeedTheCube) {
  constexpr int64_t m = 32, n = 48, k = 64, kp = 64, n1 = 3;
  KernelBuilder b("ones_times_b", "ones.py", ir::KERNEL_AIC_ONLY);
  uint32_t gb = b.PointerParam("b", ir::DT_FLOAT16);
  uint32_t gc = b.PointerParam("c", ir::DT_FLOAT32);
  auto c = [&](int64_t v) { return b.Const(v, ir::DT_INT64); };
  auto u = [&](int64_t v) { return b.Const(v, ir::DT_UINT64); };
  b.At(5);
  ir::InitConstValueOp fill;
  *fill.mutable_dst() = Local(ir::MEM_L0A, ir::POS_A2, u(0), ir::DT_FLOAT16);
  fill.set_repeat_times(c(1));
  fill.set_block_num(c(m * k * 2 / 512));
  fill.set_init_value(b.ConstF(1.0, ir::DT_FLOAT32));
  *b.AddOp()->mutable_init_const_value() = fill;
  b.At(6);
  ir::Nd2NzCopyOp cp;
  *cp.mutable_dst() = Local(ir::MEM_L1, ir::POS_B1, u(0), ir::DT_FLOAT16);
  *cp.mutable_src() = KB::Gm(gb, ir::DT_FLOAT16);
  cp.set_nd_num(c(1));
  cp.set_n_value(c(k));
  cp.set_d_value(c(n));
  cp.set_src_d_value(c(n));
  cp.set_dst_nz_c0_stride(c(kp));
  cp.set_dst_nz_n_stride(c(1));
  *b.AddOp()->mutable_nd2nz_copy() = cp;
  b.Barrier(ir::PIPE_ALL);
  for (int64_t p = 0; p < kp / 16; ++p) {
    b.At(7);
    ir::LoadDataTransposeOp lt;
    *lt.mutable_dst() = Local(ir::MEM_L0B, ir::POS_B2, u(p * n1 * 512), ir::DT_FLOAT16);
    *lt.mutable_src() = Local(ir::MEM_L1, ir::POS_B1, u(0), ir::DT_FLOAT16);
    lt.set_start_index(c(p));
    lt.set_repeat_times(c(n1));
    lt.set_src_stride(c(kp / 16));
    *b.AddOp()->mutable_load_data_transpose() = lt;
  }
  b.Barrier(ir::PIPE_ALL);
  b.At(8);
  ir::MmadOp mm;
  *mm.mutable_dst() = Local(ir::MEM_L0C, ir::POS_CO1, u(0), ir::DT_FLOAT32);
  *mm.mutable_fm() = Local(ir::MEM_L0A, ir::POS_A2, u(0), ir::DT_FLOAT16);
  *mm.mutable_filter() = Local(ir::MEM_L0B, ir::POS_B2, u(0), ir::DT_FLOAT16);
  mm.set_m(c(m));
  mm.set_n(c(n));
  mm.set_k(c(k));
  *b.AddOp()->mutable_mmad() = mm;
  b.Barrier(ir::PIPE_ALL);
  b.At(9);
  ir::FixpipeOp fp;
  *fp.mutable_dst() = KB::Gm(gc, ir::DT_FLOAT32);
  *fp.mutable_src() = Local(ir::MEM_L0C, ir::POS_CO1, u(0), ir::DT_FLOAT32);
  fp.set_n_size(c(n));
  fp.set_m_size(c(m));
  fp.set_src_stride(c(m));
  fp.set_dst_stride(c(n));
  *b.AddOp()->mutable_fixpipe() = fp;

  Matrix bk = Random(ir::DT_FLOAT16, k, n, 9);
  Device device(Config());
  uint64_t db = Upload(device, bk.bits);
  uint64_t dc = Upload(device, std::vector<float>(m * n, -1.0f));
  auto program = Decode(b.Build());
  ASSERT_NE(program, nullptr);
  LaunchOptions options = Strict();
  options.record_timeline = true;
  auto r = device.Launch(*program, 1, {ArgValue::Address(db), ArgValue::Address(dc)}, options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ExpectStrictClean(*r);
  std::vector<float> out = Download<float>(device, dc, m * n);
  for (int64_t j = 0; j < n; ++j) {
    float acc = 0;  // chunks of 16 k, each summed exactly, one rounding per chunk
    for (int64_t q = 0; q < k; q += 16) {
      double chunk = 0;
      for (int64_t kk = q; kk < q + 16; ++kk) chunk += bk.values[kk * n + j];
      acc = static_cast<float>(static_cast<double>(acc) + chunk);
    }
    for (int64_t i = 0; i < m; ++i) ASSERT_EQ(out[i * n + j], acc) << i << " " << j;
  }
  for (auto [op, line] :
       {std::pair{"init_const_value", 5u}, std::pair{"load_data_with_transpose", 7u}}) {
    const InstrRecord* rec = Find(*r, op, line);
    ASSERT_NE(rec, nullptr) << op;
    EXPECT_EQ(rec->pipe, "MTE1") << op;  // into L0A / L0B
  }
}

// ---- Core identity and the checkers on the cube's memories
// ---------------------------------------

TEST(CubeCores, AnAicOnlyLaunchRunsOnTheCubeCoresWithTheirIdentity) {
  // y[5b..5b+4] = block_idx, block_num, sub_block_idx, sub_block_num, is_aic on block b; 30
  // blocks on Ascend910B1's 25 cube cores, so five run in a second wave.
  KernelBuilder b("identity", "id.py", ir::KERNEL_AIC_ONLY);
  uint32_t y = b.PointerParam("y", ir::DT_INT64);
  uint32_t at = b.Mul(b.Sys(ir::SysValueOp::BLOCK_IDX), b.Const(5));
  ir::TensorRef out = KernelBuilder::Gm(y, ir::DT_INT64);
  const ir::SysValueOp::Kind kinds[] = {ir::SysValueOp::BLOCK_IDX, ir::SysValueOp::BLOCK_NUM,
                                        ir::SysValueOp::SUB_BLOCK_IDX,
                                        ir::SysValueOp::SUB_BLOCK_NUM, ir::SysValueOp::IS_AIC};
  for (int i = 0; i < 5; ++i) {
    uint32_t v = b.Sys(kinds[i]);
    b.At(3 + i).ScalarStore(out, b.Add(at, b.Const(i)), v);
  }
  Device device(Config());
  uint64_t z = Upload(device, std::vector<int64_t>(150, -1));
  auto program = Decode(b.Build());
  ASSERT_NE(program, nullptr);
  auto r = device.Launch(*program, 30, {ArgValue::Address(z)}, Strict());
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->status, LaunchResult::Status::kOk);
  ExpectStrictClean(*r);
  ASSERT_EQ(r->cores.size(), 30u);
  for (const CoreStats& core : r->cores) EXPECT_EQ(core.core_type, "aic");
  std::vector<int64_t> got = Download<int64_t>(device, z, 150);
  for (int64_t block = 0; block < 30; ++block) {
    EXPECT_EQ(got[5 * block], block);
    EXPECT_EQ(got[5 * block + 1], 30) << block;
    EXPECT_EQ(got[5 * block + 2], 0) << block;  // a cube core is sub-block 0 of 1
    EXPECT_EQ(got[5 * block + 3], 1) << block;
    EXPECT_EQ(got[5 * block + 4], 1) << block;
  }
}

// One load_data into L0A at `dst`, of `repeats` fractals, on an otherwise empty cube kernel.
LaunchResult LoadInto(int64_t dst, int64_t repeats) {
  KernelBuilder b("bad_load", "bad.py", ir::KERNEL_AIC_ONLY);
  b.PointerParam("x", ir::DT_FLOAT16);
  ir::LoadData2DOp ld;
  *ld.mutable_dst() = Local(ir::MEM_L0A, ir::POS_A2, b.Const(dst, ir::DT_UINT64), ir::DT_FLOAT16);
  *ld.mutable_src() = Local(ir::MEM_L1, ir::POS_A1, b.Const(0, ir::DT_UINT64), ir::DT_FLOAT16);
  ld.set_repeat_times(b.Const(repeats));
  ld.set_src_stride(b.Const(1));
  b.At(4);
  *b.AddOp()->mutable_load_data_2d() = ld;
  Device device(Config());
  uint64_t x = Upload(device, std::vector<uint16_t>(16, 0));
  auto program = Decode(b.Build());
  EXPECT_NE(program, nullptr);
  if (program == nullptr) return {};
  auto r = device.Launch(*program, 1, {ArgValue::Address(x)}, Strict());
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : LaunchResult{};
}

std::string Messages(const LaunchResult& r) {
  std::string all;
  for (const Diagnostic& d : r.diagnostics) all += d.message + "\n";
  return all;
}

TEST(CubeCores, L0OperandsAreCheckedForAlignmentAndBounds) {
  // L0A fractals start 512-byte aligned (hardware-910b.md 5); 64 KiB hold 128 fractals.
  LaunchResult misaligned = LoadInto(256, 1);
  EXPECT_NE(misaligned.status, LaunchResult::Status::kOk);
  EXPECT_NE(Messages(misaligned).find("512"), std::string::npos) << Messages(misaligned);
  EXPECT_NE(Messages(misaligned).find("bad.py:4"), std::string::npos) << Messages(misaligned);
  LaunchResult past_end = LoadInto(127 * 512, 2);
  EXPECT_NE(past_end.status, LaunchResult::Status::kOk);
  EXPECT_NE(Messages(past_end).find("L0A"), std::string::npos) << Messages(past_end);
  // The source's unwritten L1 bytes are a hull: a load of whole fractals warns nothing.
  LaunchResult fine = LoadInto(126 * 512, 2);
  EXPECT_EQ(fine.status, LaunchResult::Status::kOk) << Messages(fine);
  EXPECT_TRUE(fine.diagnostics.empty()) << Messages(fine);
}

TEST(CubeCores, AVectorOnlyKernelHasNoCubeMemories) {
  KernelBuilder b("no_cube", "nc.py");
  ir::LoadData2DOp ld;
  *ld.mutable_dst() = Local(ir::MEM_L0A, ir::POS_A2, b.Const(0, ir::DT_UINT64), ir::DT_FLOAT16);
  *ld.mutable_src() = Local(ir::MEM_L1, ir::POS_A1, b.Const(0, ir::DT_UINT64), ir::DT_FLOAT16);
  *b.AddOp()->mutable_load_data_2d() = ld;
  auto p = DecodeKernel(b.Build());
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("L0A is not on the cores of a AIV_ONLY kernel"),
            std::string::npos)
      << p.status().message();
}

TEST(CubeCores, L0CToUbIsRefusedNamingTheChip) {
  KernelBuilder b("c_to_ub", "cu.py", ir::KERNEL_MIX_AIC_1_2);
  ir::FixpipeOp fp;
  *fp.mutable_dst() = KB::Ub(b.Const(0, ir::DT_UINT64), ir::DT_FLOAT32);
  *fp.mutable_src() = Local(ir::MEM_L0C, ir::POS_CO1, b.Const(0, ir::DT_UINT64), ir::DT_FLOAT32);
  *b.AddOp()->mutable_fixpipe() = fp;
  auto p = DecodeKernel(b.Build());
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("Ascend 910B (C220) has no L0C -> UB path; C reaches a "
                                      "vector core through GM"),
            std::string::npos)
      << p.status().message();
}
// A 3x3 convolution as the cube computes it: the NC1HWC0 feature map GM -> L1, img2col into L0A
// (LoadData3DParamsV2), the weights as B^T by ND2NZ and one LoadData2D, mmad, fixpipe. Small
// integers keep every sum exact, so the result equals a direct convolution bit for bit.
struct ConvShape {
  int64_t h, w, stride, dilation, pad;
};

void RunConv(const ConvShape& s) {
  constexpr int64_t kC = 16, kN = 16, kF = 3;  // channels (one C1 plane), filters, window
  int64_t span = (kF - 1) * s.dilation + 1;
  int64_t ho = (s.h + 2 * s.pad - span) / s.stride + 1,
          wo = (s.w + 2 * s.pad - span) / s.stride + 1;
  int64_t m = ho * wo, k = kF * kF * kC;
  KernelBuilder b("conv", "conv.py", ir::KERNEL_AIC_ONLY);
  uint32_t gx = b.PointerParam("x", ir::DT_FLOAT16);
  uint32_t gw = b.PointerParam("w", ir::DT_FLOAT16);
  uint32_t gy = b.PointerParam("y", ir::DT_FLOAT32);
  auto c = [&](int64_t v) { return b.Const(v, ir::DT_INT64); };
  auto u = [&](int64_t v) { return b.Const(v, ir::DT_UINT64); };
  int64_t w_l1 = (s.h * s.w * kC * 2 + 511) / 512 * 512;
  b.At(5);
  b.DataCopyParams(Local(ir::MEM_L1, ir::POS_A1, u(0), ir::DT_FLOAT16), KB::Gm(gx, ir::DT_FLOAT16),
                   c(1), c(s.h * s.w * kC * 2 / 32), c(0), c(0));
  b.At(6);
  ir::Nd2NzCopyOp cp;
  *cp.mutable_dst() = Local(ir::MEM_L1, ir::POS_B1, u(w_l1), ir::DT_FLOAT16);
  *cp.mutable_src() = KB::Gm(gw, ir::DT_FLOAT16);
  cp.set_nd_num(c(1));
  cp.set_n_value(c(kN));
  cp.set_d_value(c(k));
  cp.set_src_d_value(c(k));
  cp.set_dst_nz_c0_stride(c(kN));
  cp.set_dst_nz_n_stride(c(1));
  *b.AddOp()->mutable_nd2nz_copy() = cp;
  b.Barrier(ir::PIPE_ALL);
  b.At(7);
  ir::LoadData3DOp l3;
  *l3.mutable_dst() = Local(ir::MEM_L0A, ir::POS_A2, u(0), ir::DT_FLOAT16);
  *l3.mutable_src() = Local(ir::MEM_L1, ir::POS_A1, u(0), ir::DT_FLOAT16);
  for (int i = 0; i < 4; ++i) l3.add_pad_list(c(s.pad));
  l3.set_l1_h(c(s.h));
  l3.set_l1_w(c(s.w));
  l3.set_channel_size(c(kC));
  l3.set_k_extension(c(k));
  l3.set_m_extension(c(m));
  l3.set_stride_w(c(s.stride));
  l3.set_stride_h(c(s.stride));
  l3.set_filter_w(c(kF));
  l3.set_filter_h(c(kF));
  l3.set_dilation_filter_w(c(s.dilation));
  l3.set_dilation_filter_h(c(s.dilation));
  l3.set_pad_value(b.ConstF(0.0, ir::DT_FLOAT16));
  *b.AddOp()->mutable_load_data_3d() = l3;
  b.At(8);
  ir::LoadData2DOp lb;
  *lb.mutable_dst() = Local(ir::MEM_L0B, ir::POS_B2, u(0), ir::DT_FLOAT16);
  *lb.mutable_src() = Local(ir::MEM_L1, ir::POS_B1, u(w_l1), ir::DT_FLOAT16);
  lb.set_repeat_times(c(k / 16));
  lb.set_src_stride(c(1));
  *b.AddOp()->mutable_load_data_2d() = lb;
  b.Barrier(ir::PIPE_ALL);
  b.At(9);
  ir::MmadOp mm;
  *mm.mutable_dst() = Local(ir::MEM_L0C, ir::POS_CO1, u(0), ir::DT_FLOAT32);
  *mm.mutable_fm() = Local(ir::MEM_L0A, ir::POS_A2, u(0), ir::DT_FLOAT16);
  *mm.mutable_filter() = Local(ir::MEM_L0B, ir::POS_B2, u(0), ir::DT_FLOAT16);
  mm.set_m(c(m));
  mm.set_n(c(kN));
  mm.set_k(c(k));
  *b.AddOp()->mutable_mmad() = mm;
  b.Barrier(ir::PIPE_ALL);
  b.At(10);
  ir::FixpipeOp fp;
  *fp.mutable_dst() = KB::Gm(gy, ir::DT_FLOAT32);
  *fp.mutable_src() = Local(ir::MEM_L0C, ir::POS_CO1, u(0), ir::DT_FLOAT32);
  fp.set_n_size(c(kN));
  fp.set_m_size(c(m));
  fp.set_src_stride(c(Ceil16(m)));
  fp.set_dst_stride(c(kN));
  *b.AddOp()->mutable_fixpipe() = fp;

  // x[h][w][c] (NC1HWC0 with C1 = 1) and w[n][(kh * 3 + kw) * 16 + c], small integers.
  std::vector<float> x(s.h * s.w * kC), wt(kN * k);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>(i * 7 % 5) - 2);
  for (size_t i = 0; i < wt.size(); ++i)
    wt[i] = static_cast<float>(static_cast<int>(i * 3 % 7) - 3);
  auto halves = [](const std::vector<float>& v) {
    std::vector<uint16_t> h(v.size());
    for (size_t i = 0; i < v.size(); ++i) h[i] = FloatToHalf(v[i]);
    return h;
  };
  Device device(Config());
  uint64_t dx = Upload(device, halves(x)), dw = Upload(device, halves(wt));
  uint64_t dy = Upload(device, std::vector<float>(m * kN, -1.0f));
  auto program = Decode(b.Build());
  ASSERT_NE(program, nullptr);
  auto r = device.Launch(
      *program, 1, {ArgValue::Address(dx), ArgValue::Address(dw), ArgValue::Address(dy)}, Strict());
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::string found;
  for (const Diagnostic& d : r->diagnostics) found += "\n  " + d.message;
  ASSERT_EQ(r->status, LaunchResult::Status::kOk) << found;
  ExpectStrictClean(*r);
  std::vector<float> y = Download<float>(device, dy, m * kN);
  for (int64_t oh = 0; oh < ho; ++oh) {
    for (int64_t ow = 0; ow < wo; ++ow) {
      for (int64_t n = 0; n < kN; ++n) {
        double want = 0;
        for (int64_t kh = 0; kh < kF; ++kh) {
          for (int64_t kw = 0; kw < kF; ++kw) {
            int64_t ih = oh * s.stride + kh * s.dilation - s.pad;
            int64_t iw = ow * s.stride + kw * s.dilation - s.pad;
            if (ih < 0 || iw < 0 || ih >= s.h || iw >= s.w) continue;
            for (int64_t ch = 0; ch < kC; ++ch)
              want += x[(ih * s.w + iw) * kC + ch] * wt[n * k + (kh * kF + kw) * kC + ch];
          }
        }
        ASSERT_EQ(y[(oh * wo + ow) * kN + n], want) << oh << " " << ow << " " << n;
      }
    }
  }
}

TEST(CubeConv, A3x3ConvolutionThroughImg2colMatchesTheDirectOne) { RunConv({6, 5, 1, 1, 1}); }

TEST(CubeConv, StrideAndDilation) { RunConv({9, 8, 2, 2, 1}); }

// ---- Mixed kernels: a group's cube core and vector cores run one program
// ---------------------------

TEST(MixedCores, EachCoreOfAMixAic12GroupHasItsIdentity) {
  // 3 groups of one cube core and two vector cores; each core writes (block_idx, block_num,
  // sub_block_idx, task_ratio) at 4 * slot, the cube cores' slots first, then the vector cores'.
  KernelBuilder b("identity", "mix.py", ir::KERNEL_MIX_AIC_1_2);
  uint32_t y = b.PointerParam("y", ir::DT_INT64);
  ir::TensorRef out = KernelBuilder::Gm(y, ir::DT_INT64);
  uint32_t is_aic = b.Sys(ir::SysValueOp::IS_AIC, ir::DT_BOOL);
  uint32_t idx = b.Sys(ir::SysValueOp::BLOCK_IDX);
  uint32_t slot = b.Select(ir::DT_INT64, is_aic, idx, b.Add(idx, b.Const(3)));
  uint32_t at = b.Mul(slot, b.Const(4));
  const ir::SysValueOp::Kind kinds[] = {ir::SysValueOp::BLOCK_IDX, ir::SysValueOp::BLOCK_NUM,
                                        ir::SysValueOp::SUB_BLOCK_IDX, ir::SysValueOp::TASK_RATIO};
  for (int i = 0; i < 4; ++i) {
    uint32_t v = b.Sys(kinds[i]);
    b.At(3 + i).ScalarStore(out, b.Add(at, b.Const(i)), v);
  }
  Device device(Config());
  uint64_t z = Upload(device, std::vector<int64_t>(36, -1));
  auto program = Decode(b.Build());
  ASSERT_NE(program, nullptr);
  auto r = device.Launch(*program, 3, {ArgValue::Address(z)}, Strict());
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->status, LaunchResult::Status::kOk);
  ExpectStrictClean(*r);
  ASSERT_EQ(r->cores.size(), 9u);
  std::vector<int64_t> got = Download<int64_t>(device, z, 36);
  for (int64_t g = 0; g < 3; ++g) {  // cube core of group g: block g of 3, ratio 1
    EXPECT_EQ((std::vector<int64_t>(got.begin() + 4 * g, got.begin() + 4 * g + 4)),
              (std::vector<int64_t>{g, 3, 0, 1}))
        << g;
  }
  for (int64_t v = 0; v < 6; ++v) {  // vector core `sub` of group g: block 2g + sub, ratio 2
    int64_t base = 4 * (3 + v);
    EXPECT_EQ((std::vector<int64_t>(got.begin() + base, got.begin() + base + 4)),
              (std::vector<int64_t>{v, 3, v % 2, 2}))
        << v;
  }
}

TEST(MixedCores, AnInstructionOnTheWrongCoreTypeFaultsNamingTheGuard) {
  // init_const_value into L1 runs on MTE2, which a vector core has too: unguarded, the vector
  // cores reach it and have no L1.
  KernelBuilder b("unguarded", "ug.py", ir::KERNEL_MIX_AIC_1_1);
  b.PointerParam("x", ir::DT_FLOAT16);
  ir::InitConstValueOp fill;
  *fill.mutable_dst() = Local(ir::MEM_L1, ir::POS_A1, b.Const(0, ir::DT_UINT64), ir::DT_FLOAT16);
  fill.set_repeat_times(b.Const(1));
  fill.set_block_num(b.Const(1));
  b.At(7);
  *b.AddOp()->mutable_init_const_value() = fill;
  Device device(Config());
  uint64_t x = Upload(device, std::vector<uint16_t>(16, 0));
  auto program = Decode(b.Build());
  ASSERT_NE(program, nullptr);
  auto r = device.Launch(*program, 1, {ArgValue::Address(x)}, Strict());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->status, LaunchResult::Status::kKernelFault);
  std::string all = Messages(*r);
  EXPECT_NE(all.find("ug.py:7"), std::string::npos) << all;
  EXPECT_NE(all.find("its dst is in L1, which this core does not have"), std::string::npos) << all;
  EXPECT_NE(all.find("asc.ascend_is_aic()"), std::string::npos) << all;
}

}  // namespace
}  // namespace aicore::sim::testing
