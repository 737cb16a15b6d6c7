// The cube family's semantics (sim/isa/semantics/cube.h), bit for bit: the fractal layouts, the
// ND -> NZ copy, LoadData 2D, Mmad for every A2 type combination (initialise, accumulate, bias,
// GEMV, partial fractals, the per-chunk rounding), and the Fixpipe's NZ -> ND conversion and
// quantisation (4.4: the quant word, pre-shift, rounding, offset, clamps, ReLU). The
// pipeline test moves a matrix product through L1, L0A/L0B and L0C as asc-api.md 10.6's linear
// layer does and compares it with a host computation in the documented order.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "sim/isa/fp16.h"
#include "sim/isa/semantics/cube.h"

namespace aicore::sim::cube {
namespace {

std::vector<uint16_t> RandomHalves(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<uint16_t> v(n);
  for (uint16_t& h : v) h = FloatToHalf(dist(rng));
  return v;
}

const uint8_t* Bytes(const std::vector<uint16_t>& v) {
  return reinterpret_cast<const uint8_t*>(v.data());
}

TEST(CubeLayouts, OffsetsFollowTheFractalFormulas) {
  // Zz: fractal (m/16, k/C0) row-major with K1 fractals per row; inside, row-major.
  EXPECT_EQ(ZzOffset(0, 0, 3, 16), 0u);
  EXPECT_EQ(ZzOffset(1, 2, 3, 16), 18u);
  EXPECT_EQ(ZzOffset(0, 16, 3, 16), 256u);       // the next K fractal
  EXPECT_EQ(ZzOffset(16, 0, 3, 16), 3u * 256u);  // the next row of fractals
  // Zn: K fractals outer, N fractals inner; a fractal row is one column n.
  EXPECT_EQ(ZnOffset(0, 1, 2, 16), 16u);
  EXPECT_EQ(ZnOffset(1, 0, 2, 16), 1u);
  EXPECT_EQ(ZnOffset(0, 16, 2, 16), 256u);
  EXPECT_EQ(ZnOffset(16, 0, 2, 16), 512u);
  // L0C Nz: 16-column blocks of ceil16(M) rows.
  EXPECT_EQ(L0cOffset(1, 0, 32), 16u);
  EXPECT_EQ(L0cOffset(0, 16, 32), 512u);
  EXPECT_EQ(NzOffset(2, 17, 16, 32), 32u * 16u + 2u * 16u + 1u);
}

TEST(CubeNd2Nz, CopiesRowsIntoC0BlocksAndPadsOnlyTheLastBlocksColumns) {
  // A 3 x 20 half matrix (row pitch 24) into blocks of 16 rows: columns 20..31 of each row are
  // written as zeros, rows 3..15 are not written.
  std::vector<uint16_t> src(3 * 24);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint16_t>(i + 1);
  Nd2NzArgs a;
  a.esize = 2;
  a.nd_num = 1;
  a.n_value = 3;
  a.d_value = 20;
  a.src_d_value = 24;
  a.dst_nz_c0_stride = 16;  // 16 rows of 32 bytes per C0 block
  a.dst_nz_n_stride = 1;
  EXPECT_EQ(Nd2NzSrcElements(a), 2u * 24u + 20u);
  ASSERT_EQ(Nd2NzDstBytes(a), 16u * 32u + 2u * 32u + 32u);
  std::vector<uint8_t> image(Nd2NzDstBytes(a), 0xee), written(image.size(), 0);
  Nd2Nz(a, Bytes(src), image.data(), written.data());
  auto at = [&](uint64_t r, uint64_t c) {
    uint16_t v;
    std::memcpy(&v, image.data() + NzOffset(r, c, 16, 16) * 2, 2);
    return v;
  };
  for (uint64_t r = 0; r < 3; ++r) {
    for (uint64_t c = 0; c < 32; ++c) {
      EXPECT_EQ(at(r, c), c < 20 ? src[r * 24 + c] : 0) << r << "," << c;
      EXPECT_EQ(written[NzOffset(r, c, 16, 16) * 2], 1);
    }
  }
  EXPECT_EQ(written[NzOffset(3, 0, 16, 16) * 2], 0);  // rows past n_value are the caller's
  EXPECT_EQ(image[NzOffset(3, 0, 16, 16) * 2], 0xee);
}

TEST(CubeLoadData2D, MovesFractalsWithStridesGapsAndTheB16Transpose) {
  std::vector<uint16_t> src(4 * 256);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint16_t>(i);
  LoadData2DArgs a;
  a.start_index = 1;
  a.repeat_times = 2;
  a.src_stride = 2;  // fractals 1 and 3
  a.dst_gap = 1;     // destination slots 0 and 2
  EXPECT_EQ(LoadData2DSrcBytes(a), 4u * 512u);
  ASSERT_EQ(LoadData2DDstBytes(a), 3u * 512u);
  std::vector<uint8_t> image(LoadData2DDstBytes(a)), written(image.size(), 0);
  LoadData2D(a, Bytes(src), image.data(), written.data());
  EXPECT_EQ(std::memcmp(image.data(), Bytes(src) + 512, 512), 0);
  EXPECT_EQ(std::memcmp(image.data() + 1024, Bytes(src) + 3 * 512, 512), 0);
  EXPECT_EQ(written[512], 0);  // the gap is not written
  a = LoadData2DArgs{};
  a.repeat_times = 1;
  a.transpose = true;
  std::vector<uint8_t> t(512), tw(512, 0);
  LoadData2D(a, Bytes(src), t.data(), tw.data());
  for (int j = 0; j < 16; ++j) {
    for (int s = 0; s < 16; ++s) {
      uint16_t v;
      std::memcpy(&v, t.data() + j * 32 + s * 2, 2);
      EXPECT_EQ(v, src[s * 16 + j]);
    }
  }
}

// C = A x B for half A (M x K) and B (K x N) as the host computes it in the documented order:
// per C0-wide chunk of K, the exact products summed in double, then one rounding to float.
std::vector<float> ChunkedProduct(const std::vector<uint16_t>& a, const std::vector<uint16_t>& b,
                                  int m, int k, int n) {
  std::vector<float> c(static_cast<size_t>(m) * n, 0.0f);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      float acc = 0;
      for (int q = 0; q < k; q += 16) {
        double sum = 0;
        for (int x = q; x < std::min(q + 16, k); ++x) {
          sum += static_cast<double>(HalfToFloat(a[i * k + x])) * HalfToFloat(b[x * n + j]);
        }
        acc = static_cast<float>(acc + sum);
      }
      c[static_cast<size_t>(i) * n + j] = acc;
    }
  }
  return c;
}

// The linear layer's data path (asc-api.md 10.6, ascendc-semantics.md 1.3): A and B^T ND in GM,
// ND -> NZ into L1, A's fractals into L0A Zz (a LoadData2D per row of fractals), B^T's L1 Nz is
// already L0B's Zn (one LoadData2D), Mmad, Fixpipe NZ -> ND as float or half.
void LinearLayer(int m, int k, int n, FixpipeQuant quant) {
  SCOPED_TRACE(testing::Message() << m << "x" << k << "x" << n);
  std::vector<uint16_t> a = RandomHalves(static_cast<size_t>(m) * k, 1);
  std::vector<uint16_t> b = RandomHalves(static_cast<size_t>(k) * n, 2);
  std::vector<uint16_t> bt(static_cast<size_t>(n) * k);  // B^T, N x K
  for (int x = 0; x < k; ++x) {
    for (int j = 0; j < n; ++j) bt[j * k + x] = b[x * n + j];
  }
  uint64_t m16 = CeilTo(m, 16), n16 = CeilTo(n, 16), k1 = CeilTo(k, 16) / 16;
  auto to_l1 = [&](const std::vector<uint16_t>& nd, int rows, int cols, uint64_t rows16) {
    Nd2NzArgs c;
    c.nd_num = 1;
    c.n_value = static_cast<uint32_t>(rows);
    c.d_value = static_cast<uint32_t>(cols);
    c.src_d_value = static_cast<uint32_t>(cols);
    c.dst_nz_c0_stride = static_cast<uint32_t>(rows16);
    c.dst_nz_n_stride = 1;
    // L1 holds whole fractals: the rows the copy does not write are zeroed first, as kernels do.
    std::vector<uint8_t> l1(rows16 * CeilTo(cols, 16) * 2, 0), w(l1.size(), 0);
    Nd2Nz(c, Bytes(nd), l1.data(), w.data());
    return l1;
  };
  std::vector<uint8_t> l1a = to_l1(a, m, k, m16);
  std::vector<uint8_t> l1b = to_l1(bt, n, k, n16);
  std::vector<uint8_t> l0a(m16 / 16 * k1 * 512), l0b(k1 * n16 / 16 * 512), w(8 << 20);
  for (uint64_t m1 = 0; m1 < m16 / 16; ++m1) {
    LoadData2DArgs l;
    l.start_index = static_cast<uint32_t>(m1);
    l.repeat_times = static_cast<uint32_t>(k1);
    l.src_stride = static_cast<uint32_t>(m16 / 16);
    LoadData2D(l, l1a.data(), l0a.data() + m1 * k1 * 512, w.data());
  }
  LoadData2DArgs lb;
  lb.repeat_times = static_cast<uint32_t>(k1 * n16 / 16);
  lb.src_stride = 1;
  LoadData2D(lb, l1b.data(), l0b.data(), w.data());

  MmadArgs mm;
  mm.m = static_cast<uint32_t>(m);
  mm.n = static_cast<uint32_t>(n);
  mm.k = static_cast<uint32_t>(k);
  ASSERT_EQ(MmadABytes(mm), l0a.size());
  ASSERT_EQ(MmadBBytes(mm), l0b.size());
  std::vector<uint8_t> l0c(MmadCBytes(mm), 0);
  Mmad(mm, l0a.data(), l0b.data(), nullptr, l0c.data(), l0c.data(), w.data());

  FixpipeArgs f;
  f.m = mm.m;
  f.n = mm.n;
  f.src_stride = static_cast<uint32_t>(m16);
  f.dst_stride = mm.n;
  f.quant = quant;
  ASSERT_EQ(FixpipeDstBytes(f), static_cast<uint64_t>(m) * n * FixpipeDstElementBytes(f));
  std::vector<uint8_t> out(FixpipeDstBytes(f)), ow(out.size(), 0);
  Fixpipe(f, l0c.data(), out.data(), ow.data());
  std::vector<float> want = ChunkedProduct(a, b, m, k, n);
  for (int i = 0; i < m * n; ++i) {
    if (quant == FixpipeQuant::kNone) {
      float got;
      std::memcpy(&got, out.data() + i * 4, 4);
      ASSERT_EQ(got, want[i]) << "element " << i;
    } else {
      uint16_t got;
      std::memcpy(&got, out.data() + i * 2, 2);
      ASSERT_EQ(got, FloatToHalf(want[i])) << "element " << i;
    }
  }
}

TEST(CubePipeline, ALinearLayerThroughL1L0AndL0CMatchesTheChunkedProduct) {
  LinearLayer(16, 16, 16, FixpipeQuant::kNone);
  LinearLayer(32, 64, 48, FixpipeQuant::kNone);
  LinearLayer(20, 40, 24, FixpipeQuant::kNone);  // partial fractals in M, K and N
  LinearLayer(37, 23, 5, FixpipeQuant::kF322F16);
}

// An L0A / L0B pair for m x k and k x n, every element `va` / `vb` (half bits) up to k.
struct Operands {
  std::vector<uint8_t> l0a, l0b;
};
Operands Constant(const MmadArgs& mm, uint16_t va, uint16_t vb) {
  Operands o{std::vector<uint8_t>(MmadABytes(mm), 0), std::vector<uint8_t>(MmadBBytes(mm), 0)};
  uint64_t k1 = MmadKExtent(mm) / 16, n1 = CeilTo(mm.n, 16) / 16;
  for (uint64_t x = 0; x < mm.k; ++x) {
    for (uint64_t i = 0; i < mm.m; ++i) {
      uint64_t e = mm.m == 1 ? x : ZzOffset(i, x, k1, 16);
      std::memcpy(o.l0a.data() + e * 2, &va, 2);
    }
    for (uint64_t j = 0; j < mm.n; ++j)
      std::memcpy(o.l0b.data() + ZnOffset(x, j, n1, 16) * 2, &vb, 2);
  }
  return o;
}

float CAt(const std::vector<uint8_t>& l0c, const MmadArgs& mm, uint64_t i, uint64_t j) {
  float v;
  std::memcpy(&v, l0c.data() + L0cOffset(i, j, CeilTo(mm.m, 16)) * 4, 4);
  return v;
}

TEST(CubeMmad, RoundsOncePerChunkOfK) {
  // k = 32 halves: the first chunk's products sum to 2^24 exactly, the second adds 1 (then 3).
  // One rounding per chunk: 2^24 + 1 rounds to 2^24 (nearest-even), 2^24 + 3 to 2^24 + 4.
  MmadArgs mm;
  mm.m = 16;
  mm.n = 16;
  mm.k = 32;
  for (auto [second, want] : {std::pair{1.0f, 16777216.0f}, std::pair{3.0f, 16777220.0f}}) {
    Operands o = Constant(mm, FloatToHalf(0), FloatToHalf(0));
    uint16_t big = FloatToHalf(2048), one = FloatToHalf(1), s = FloatToHalf(second);
    uint64_t n1 = 1;
    for (uint64_t x : {0, 1, 2, 3}) {
      std::memcpy(o.l0a.data() + ZzOffset(0, x, 2, 16) * 2, &big, 2);
      std::memcpy(o.l0b.data() + ZnOffset(x, 0, n1, 16) * 2, &big, 2);
    }
    std::memcpy(o.l0a.data() + ZzOffset(0, 16, 2, 16) * 2, &one, 2);
    std::memcpy(o.l0b.data() + ZnOffset(16, 0, n1, 16) * 2, &s, 2);
    std::vector<uint8_t> c(MmadCBytes(mm)), w(c.size(), 0);
    Mmad(mm, o.l0a.data(), o.l0b.data(), nullptr, c.data(), c.data(), w.data());
    EXPECT_EQ(CAt(c, mm, 0, 0), want);
    EXPECT_EQ(CAt(c, mm, 1, 0), 0.0f);
  }
}

TEST(CubeMmad, InitialisesAccumulatesOrStartsFromTheBias) {
  MmadArgs mm;
  mm.m = 20;
  mm.n = 5;
  mm.k = 3;  // a partial chunk: elements past k do not count
  Operands o = Constant(mm, FloatToHalf(2), FloatToHalf(0.5f));
  std::vector<uint8_t> old(MmadCBytes(mm)), c(old.size()), w(old.size(), 0);
  float seven = 7;
  for (uint64_t i = 0; i < old.size(); i += 4) std::memcpy(old.data() + i, &seven, 4);
  Mmad(mm, o.l0a.data(), o.l0b.data(), nullptr, old.data(), c.data(), w.data());
  EXPECT_EQ(CAt(c, mm, 19, 4), 3.0f);         // C = A*B
  EXPECT_EQ(w[L0cOffset(19, 5, 32) * 4], 0);  // outside m x n: not written
  mm.init = false;
  Mmad(mm, o.l0a.data(), o.l0b.data(), nullptr, old.data(), c.data(), w.data());
  EXPECT_EQ(CAt(c, mm, 19, 4), 10.0f);  // C = C_old + A*B
  mm.bias = true;
  std::vector<float> bias = {1, 2, 3, 4, 5};
  Mmad(mm, o.l0a.data(), o.l0b.data(), reinterpret_cast<const uint8_t*>(bias.data()), old.data(),
       c.data(), w.data());
  EXPECT_EQ(CAt(c, mm, 0, 3), 7.0f);  // C = bias[n] + A*B
  EXPECT_EQ(MmadBiasBytes(mm), 20u);
}

TEST(CubeMmad, GemvReadsL0AAsOneNdRow) {
  MmadArgs mm;
  mm.m = 1;
  mm.n = 16;
  mm.k = 40;
  EXPECT_EQ(MmadABytes(mm), 48u * 2u);  // k contiguous halves, whole chunks
  Operands o = Constant(mm, FloatToHalf(1.5f), FloatToHalf(2));
  std::vector<uint8_t> c(MmadCBytes(mm)), w(c.size(), 0);
  Mmad(mm, o.l0a.data(), o.l0b.data(), nullptr, c.data(), c.data(), w.data());
  EXPECT_EQ(CAt(c, mm, 0, 15), 120.0f);
}

TEST(CubeMmad, Bf16ProductsAreExactInFloat) {
  MmadArgs mm;
  mm.types = MmadTypes::kBf16F32;
  mm.m = 16;
  mm.n = 16;
  mm.k = 16;
  // bf16 keeps 8 significant bits: 1 + 2^-7 squared needs 15, exact in the float accumulator.
  Operands o = Constant(mm, FloatToBf16(1.0078125f), FloatToBf16(1.0078125f));
  std::vector<uint8_t> c(MmadCBytes(mm)), w(c.size(), 0);
  Mmad(mm, o.l0a.data(), o.l0b.data(), nullptr, c.data(), c.data(), w.data());
  EXPECT_EQ(CAt(c, mm, 5, 7), 16.0f * 1.0078125f * 1.0078125f);
}

TEST(CubeMmad, IntegerPathsAreExactAndSaturate) {
  MmadArgs mm;
  mm.types = MmadTypes::kS8S32;
  mm.m = 16;
  mm.n = 16;
  mm.k = 64;
  std::vector<uint8_t> l0a(MmadABytes(mm)), l0b(MmadBBytes(mm));
  std::memset(l0a.data(), 0x81, l0a.size());  // -127
  std::memset(l0b.data(), 0x7f, l0b.size());  // 127
  std::vector<uint8_t> old(MmadCBytes(mm)), c(old.size()), w(old.size(), 0);
  Mmad(mm, l0a.data(), l0b.data(), nullptr, old.data(), c.data(), w.data());
  int32_t v;
  std::memcpy(&v, c.data(), 4);
  EXPECT_EQ(v, -127 * 127 * 64);
  int32_t low = std::numeric_limits<int32_t>::min() + 5;
  for (uint64_t i = 0; i < old.size(); i += 4) std::memcpy(old.data() + i, &low, 4);
  mm.init = false;
  Mmad(mm, l0a.data(), l0b.data(), nullptr, old.data(), c.data(), w.data());
  std::memcpy(&v, c.data(), 4);
  EXPECT_EQ(v, std::numeric_limits<int32_t>::min());

  // int4: two per byte, the even element in the low nibble; -8..7.
  mm.types = MmadTypes::kS4S32;
  mm.k = 64;
  std::vector<uint8_t> a4(MmadABytes(mm), 0), b4(MmadBBytes(mm), 0);
  EXPECT_EQ(a4.size(), 16u * 64u / 2u);
  a4[0] = 0x9f;  // element 0 = -1 (0xf), element 1 = -7 (0x9)
  b4[0] = 0x37;  // B(0, 0) = 7, B(1, 0) = 3
  mm.init = true;
  Mmad(mm, a4.data(), b4.data(), nullptr, c.data(), c.data(), w.data());
  std::memcpy(&v, c.data(), 4);
  EXPECT_EQ(v, -1 * 7 + -7 * 3);
}

TEST(CubeMmad, Fp32ReadsKInChunksOfEightOrSixteen) {
  MmadArgs mm;
  mm.types = MmadTypes::kF32F32;
  mm.m = 16;
  mm.n = 16;
  mm.k = 9;
  EXPECT_EQ(MmadKExtent(mm), 16u);
  EXPECT_EQ(MmadABytes(mm), 16u * 16u * 4u);
  mm.k = 5;
  EXPECT_EQ(MmadKExtent(mm), 8u);
  mm.k_direction_align = true;
  EXPECT_EQ(MmadKExtent(mm), 16u);
  EXPECT_STREQ(MmadTypeOf(MmadTypes::kBf16F32).name, "bf16_2_f32");
}

// m x n of one 16-row block of L0C, out row-major with n elements a row.
FixpipeArgs RowMajor(uint32_t m, uint32_t n, FixpipeQuant quant) {
  FixpipeArgs f;
  f.m = m;
  f.n = n;
  f.src_stride = 16;
  f.dst_stride = n;
  f.quant = quant;
  return f;
}

TEST(CubeFixpipe, ConvertsWithReluAndSaturatesHalfAndBf16) {
  FixpipeArgs f = RowMajor(1, 4, FixpipeQuant::kF322F16);
  f.relu = true;
  std::vector<float> l0c(16 * 16, 0);
  l0c[0] = 70000.0f;  // past half's range
  l0c[1] = -3.0f;     // ReLU
  l0c[2] = std::numeric_limits<float>::quiet_NaN();
  l0c[3] = 1.0f / 3.0f;
  std::vector<uint8_t> out(FixpipeDstBytes(f)), w(out.size(), 0);
  Fixpipe(f, reinterpret_cast<const uint8_t*>(l0c.data()), out.data(), w.data());
  uint16_t h[4];
  std::memcpy(h, out.data(), 8);
  EXPECT_EQ(h[0], 0x7bff);  // 65504
  EXPECT_EQ(h[1], 0);
  EXPECT_EQ(h[2], 0);  // NaN saturates to 0
  EXPECT_EQ(h[3], FloatToHalf(1.0f / 3.0f));
  f.quant = FixpipeQuant::kF322Bf16;
  f.relu = false;
  l0c[0] = std::numeric_limits<float>::infinity();
  Fixpipe(f, reinterpret_cast<const uint8_t*>(l0c.data()), out.data(), w.data());
  std::memcpy(h, out.data(), 8);
  EXPECT_EQ(h[0], 0x7f7f);
  EXPECT_EQ(h[1], FloatToBf16(-3.0f));
  // NZ out: 16-column blocks dst_stride 32-byte units apart.
  f.nz2nd = false;
  f.quant = FixpipeQuant::kNone;
  f.n = 20;
  f.dst_stride = 2;
  EXPECT_EQ(FixpipeDstBytes(f), 2u * 32u + 4u * 4u);
}

TEST(CubeHf32, RoundsToTenMantissaBits) {
  auto bits = [](float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
  };
  auto from = [](uint32_t b) {
    float f;
    std::memcpy(&f, &b, 4);
    return f;
  };
  // 1 + 2^-11 is half an HF32 ulp above 1: a tie, to even (1); 1 + 3 * 2^-11 ties up to 1 + 2^-9.
  EXPECT_EQ(RoundToHf32(from(0x3f800000u | 0x1000u), false), 1.0f);
  EXPECT_EQ(bits(RoundToHf32(from(0x3f800000u | 0x3000u), false)), 0x3f804000u);
  // Just above the tie rounds up; toward zero always truncates.
  EXPECT_EQ(bits(RoundToHf32(from(0x3f801001u), false)), 0x3f802000u);
  EXPECT_EQ(bits(RoundToHf32(from(0x3f801fffu), true)), 0x3f800000u);
  EXPECT_EQ(bits(RoundToHf32(from(0xbf801fffu), true)), 0xbf800000u);  // magnitude, sign kept
  // The largest float rounds up to inf; inf and NaN pass.
  EXPECT_EQ(RoundToHf32(from(0x7f7fffffu), false), std::numeric_limits<float>::infinity());
  EXPECT_EQ(RoundToHf32(std::numeric_limits<float>::infinity(), false),
            std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(RoundToHf32(std::numeric_limits<float>::quiet_NaN(), true)));
}

TEST(CubeLoadTranspose, TransposesEachSquareByElementSize) {
  // Two repeats of each size, sources one square apart, dst_gap 1 and dst_frac_gap 1.
  for (uint32_t es : {1u, 2u, 4u}) {
    LoadTransposeArgs a;
    a.esize = es;
    a.repeat_times = 2;
    a.src_stride = 1;
    a.dst_gap = es == 2 ? 1 : 3;
    a.dst_frac_gap = es == 2 ? 0 : 1;
    uint64_t n = es == 1 ? 32 : 16, cols = 32 / es;
    std::vector<uint8_t> src(LoadTransposeSrcBytes(a));
    for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 7 + 3);
    std::vector<uint8_t> image(LoadTransposeDstBytes(a)), written(image.size());
    LoadTranspose(a, src.data(), image.data(), written.data());
    uint64_t square = TransposeSquareFractals(es) * kFractalBytes;
    // Square element (r, c): b8 rows 16-31 in the second fractal, b32 columns 8-15 in it.
    auto at = [&](uint64_t r, uint64_t c, uint64_t pitch) {
      uint64_t frac = es == 4 ? c / cols : (es == 1 ? r / 16 : 0);
      return frac * pitch + (es == 1 ? r % 16 : r) * 32 + (c % cols) * es;
    };
    for (uint64_t i = 0; i < 2; ++i) {
      uint64_t out = i * (a.dst_gap + 1) * kFractalBytes;
      for (uint64_t r = 0; r < n; ++r) {
        for (uint64_t c = 0; c < n; ++c) {
          uint64_t to = out + at(r, c, (a.dst_frac_gap + 1) * kFractalBytes);
          uint64_t from = i * square + at(c, r, kFractalBytes);
          ASSERT_EQ(std::memcmp(&image[to], &src[from], es), 0)
              << es << " " << i << " " << r << " " << c;
          ASSERT_EQ(written[to], 1);
        }
      }
    }
    // The gap fractals are not written.
    if (es != 2) {
      EXPECT_EQ(written[kFractalBytes], 0) << es;
    }
  }
}

TEST(CubeInitConst, FillsBlocksWithGapsBetweenRepeats) {
  InitConstArgs a;
  a.esize = 2;
  a.block_bytes = 32;
  a.repeat_times = 3;
  a.block_num = 2;
  a.dst_gap = 1;
  a.value_bits = 0x3c00;  // half 1.0
  std::vector<uint8_t> image(InitConstDstBytes(a)), written(image.size());
  ASSERT_EQ(image.size(), (2u * 3u + 2u) * 32u);
  InitConst(a, image.data(), written.data());
  for (uint64_t b = 0; b < image.size() / 32; ++b) {
    bool filled = b % 3 != 2;  // two blocks, then the gap
    for (uint64_t e = 0; e < 16; ++e) {
      uint16_t h;
      std::memcpy(&h, &image[b * 32 + e * 2], 2);
      EXPECT_EQ(h, filled ? 0x3c00 : 0) << b;
      EXPECT_EQ(written[b * 32 + e * 2], filled ? 1 : 0) << b;
    }
  }
  a.block_num = 0;  // A2's form with every field: no blocks, nothing written
  EXPECT_EQ(InitConstDstBytes(a), 0u);
}

// ---- Quantisation (4.4) ----------------------------------------------------------------------

uint64_t Bits(float f) { return std::bit_cast<uint32_t>(f); }
// A quant word from its fields (4.4's layout).
uint64_t Word(float m1, uint32_t shift, bool mcb, uint32_t offset, bool to_int8) {
  return Bits(m1) | uint64_t{shift} << 32 | uint64_t{mcb} << 36 | uint64_t{offset} << 37 |
         uint64_t{to_int8} << 46;
}
int8_t S8(uint8_t b) { return static_cast<int8_t>(b); }

TEST(CubeQuant, TheWordsFields) {
  // M1 keeps bits 31..13 only: the low 13 bits of 1/3 are dropped, not rounded.
  QuantWord q = DecodeQuantWord(Word(1.0f / 3.0f, 5, true, 300, true) | 0xffff800000000000ull);
  EXPECT_EQ(Bits(q.m1), 0x3eaaa000u);
  EXPECT_EQ(q.shift, 5u);
  EXPECT_TRUE(q.pre_shift);
  EXPECT_EQ(q.offset, 300);
  EXPECT_TRUE(q.to_int8);
  QuantWord u = DecodeQuantWord(Word(2.0f, 15, false, 511, false));
  EXPECT_EQ(u.m1, 2.0f);
  EXPECT_EQ(u.shift, 15u);  // the raw 4-bit value (the model's choice)
  EXPECT_FALSE(u.pre_shift);
  EXPECT_EQ(u.offset, 511);  // unsigned (the model's choice)
  EXPECT_FALSE(u.to_int8);
}

TEST(CubeQuant, ScalesMustBeNormal) {
  EXPECT_TRUE(QuantScaleIsNormal(Word(1.0f, 0, false, 0, true)));
  EXPECT_TRUE(QuantScaleIsNormal(0));             // M1 = 0 is a normal zero
  EXPECT_FALSE(QuantScaleIsNormal(0x7f800000u));  // inf
  EXPECT_FALSE(QuantScaleIsNormal(0xffc00000u));  // NaN
  EXPECT_FALSE(QuantScaleIsNormal(0x00400000u));  // a denormal
  EXPECT_TRUE(QuantScaleIsNormal(0x00001fffu));   // the cleared bits leave 0
}

TEST(CubeQuant, Req8RoundsHalfToEvenAndClamps) {
  QuantWord half = DecodeQuantWord(Word(0.5f, 0, false, 0, true));
  EXPECT_EQ(S8(Req8(5, half, false)), 2);    // 2.5 -> 2
  EXPECT_EQ(S8(Req8(7, half, false)), 4);    // 3.5 -> 4
  EXPECT_EQ(S8(Req8(-5, half, false)), -2);  // -2.5 -> -2
  EXPECT_EQ(S8(Req8(-7, half, false)), -4);  // -3.5 -> -4
  EXPECT_EQ(S8(Req8(1000, half, false)), 127);
  EXPECT_EQ(S8(Req8(-1000, half, false)), -128);
  EXPECT_EQ(S8(Req8(-7, half, true)), 0);  // ReLU: M2 = 0
  QuantWord u8 = DecodeQuantWord(Word(0.5f, 0, false, 0, false));
  EXPECT_EQ(Req8(501, u8, false), 250);  // 250.5 -> 250
  EXPECT_EQ(Req8(600, u8, false), 255);
  EXPECT_EQ(Req8(-3, u8, false), 0);
}

TEST(CubeQuant, TheOffsetIsAddedAfterTheClampToNineBits) {
  QuantWord q = DecodeQuantWord(Word(1.0f, 0, false, 10, false));
  EXPECT_EQ(Req8(3, q, false), 13);
  EXPECT_EQ(Req8(-3, q, false), 7);
  EXPECT_EQ(Req8(250, q, false), 255);  // 260 clamps to 255
  QuantWord s = DecodeQuantWord(Word(1.0f, 0, false, 200, true));
  // -1000 clamps to -256 first: -256 + 200 = -56 (without the clamp it would be -128).
  EXPECT_EQ(S8(Req8(-1000, s, false)), -56);
}

TEST(CubeQuant, ThePreShiftRunsOnlyWithMcbAndSaturatesToInt16) {
  QuantWord shifted = DecodeQuantWord(Word(1.0f, 3, true, 0, true));
  EXPECT_EQ(S8(Req8(1000, shifted, false)), 125);  // 1000 >> 3
  EXPECT_EQ(S8(Req8(-9, shifted, false)), -2);     // arithmetic: -9 >> 3 = -2
  QuantWord plain = DecodeQuantWord(Word(1.0f, 3, false, 0, true));
  EXPECT_EQ(S8(Req8(100, plain, false)), 100);  // MCB = 0: no shift
  // 2^30 saturates to 32767 before the scale: 32767 / 256 = 127.99..., rounds to 128 -> 127.
  QuantWord sat = DecodeQuantWord(Word(1.0f / 256, 0, true, 0, true));
  EXPECT_EQ(S8(Req8(1 << 30, sat, false)), 127);
  EXPECT_EQ(DeqF16(1 << 30, sat, false), FloatToHalf(32767.0f / 256));
  EXPECT_EQ(DeqF16(-(1 << 30), sat, false), FloatToHalf(-32768.0f / 256));
}

TEST(CubeQuant, DeqF16RoundsOnceAndSaturates) {
  QuantWord one = DecodeQuantWord(Word(1.0f, 0, false, 77, true));  // the offset is ignored
  EXPECT_EQ(DeqF16(2049, one, false), 0x6800);    // tie between 2048 and 2050: even 2048
  EXPECT_EQ(DeqF16(2051, one, false), 0x6802);    // tie between 2050 and 2052: even 2052
  EXPECT_EQ(DeqF16(70000, one, false), 0x7bff);   // 65504
  EXPECT_EQ(DeqF16(-70000, one, false), 0xfbff);  // -65504
  EXPECT_EQ(DeqF16(-5, one, true), 0x0000);       // ReLU: +0 (the model's choice)
  // 4097 * (1 + 2^-10) = 4101.0009765625: nearest half 4100 (one rounding from the exact
  // product; rounding to float first would give the same here, but never a different tie).
  QuantWord m = DecodeQuantWord(Word(1.0f + 1.0f / 1024, 0, false, 0, true));
  EXPECT_EQ(DeqF16(4097, m, false), FloatToHalf(4100.0f));
}

TEST(CubeQuant, Qf322B8FromFloat) {
  QuantWord q = DecodeQuantWord(Word(1.0f, 0, false, 0, true));
  EXPECT_EQ(S8(Qf322B8(2.5f, q, false)), 2);
  EXPECT_EQ(S8(Qf322B8(-0.7f, q, false)), -1);
  EXPECT_EQ(S8(Qf322B8(-0.7f, q, true)), 0);
  EXPECT_EQ(S8(Qf322B8(std::numeric_limits<float>::infinity(), q, false)), 127);
  EXPECT_EQ(S8(Qf322B8(-std::numeric_limits<float>::infinity(), q, false)), -128);
  EXPECT_EQ(S8(Qf322B8(std::numeric_limits<float>::quiet_NaN(), q, false)), 0);
  QuantWord u = DecodeQuantWord(Word(4.0f, 0, false, 3, false));
  EXPECT_EQ(Qf322B8(10.25f, u, false), 44);  // 41 + 3
  EXPECT_EQ(Qf322B8(-10.25f, u, false), 0);
}

TEST(CubeFixpipe, VectorWordsGoColumnByColumn) {
  FixpipeArgs f = RowMajor(2, 3, FixpipeQuant::kReq8);
  f.integer = true;
  std::vector<int32_t> l0c(16 * 16, 0);
  for (int j = 0; j < 2; ++j) {
    for (int c = 0; c < 3; ++c) l0c[j * 16 + c] = 10 * (j + 1) + c;  // 10 11 12 / 20 21 22
  }
  const uint64_t words[3] = {Word(1.0f, 0, false, 0, true), Word(0.5f, 0, false, 0, true),
                             Word(-1.0f, 0, false, 0, true)};
  f.quant_words = reinterpret_cast<const uint8_t*>(words);
  ASSERT_EQ(FixpipeDstBytes(f), 6u);
  std::vector<uint8_t> out(6), w(6, 0);
  Fixpipe(f, reinterpret_cast<const uint8_t*>(l0c.data()), out.data(), w.data());
  const int8_t want[6] = {10, 6, -12, 20, 10, -22};  // 5.5 -> 6, 10.5 -> 10
  for (int i = 0; i < 6; ++i) EXPECT_EQ(S8(out[i]), want[i]) << i;
  EXPECT_EQ(w, std::vector<uint8_t>(6, 1));
  // The scalar word for every column when no vector is given.
  f.quant_words = nullptr;
  f.quant_word = words[2];
  Fixpipe(f, reinterpret_cast<const uint8_t*>(l0c.data()), out.data(), w.data());
  EXPECT_EQ(S8(out[1]), -11);
}

}  // namespace
}  // namespace aicore::sim::cube
