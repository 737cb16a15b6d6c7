// LoadData 3D (img2col, sim/isa/semantics/cube.h) against a reference written the way the
// vendor's pseudocode computes it (load3d.py): the padded feature map, the im2col matrix as
// [C1 * taps][rows][C0], its block cut into fractals and reordered per destination. Small maps
// with padding, stride, dilation, several windows, L0A, L0B, the transpose, the repeats, a
// partial last fractal, the boundary's wrap and the rows past the matrix.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "sim/isa/semantics/cube.h"

namespace aicore::sim::cube {
namespace {

constexpr uint32_t kUnset = 0xdeadbeef;

// A feature map of C1 planes of h x w pixels of C0 elements, each a distinct value.
template <typename T>
std::vector<T> Map(const LoadData3DArgs& a) {
  std::vector<T> v(uint64_t{a.channels} * a.l1_h * a.l1_w);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<T>(i * 7 + 1);
  return v;
}

// The im2col matrix element (row, col) by the pseudocode: pad the map, slide the window.
template <typename T>
T Im2col(const LoadData3DArgs& a, const std::vector<T>& map, uint64_t row, uint64_t col) {
  uint64_t c0 = 32 / sizeof(T), taps = uint64_t{a.filter_h} * a.filter_w;
  uint64_t padded_w = a.l1_w + a.pad_left + a.pad_right;
  uint64_t kw_span = uint64_t{a.filter_w - 1} * a.dilation_w + 1;
  uint64_t w_out = (padded_w - kw_span) / a.stride_w + 1;
  uint64_t oh = row / w_out, ow = row % w_out;
  uint64_t c1 = col / c0 / taps, tap = col / c0 % taps;
  int64_t ph = static_cast<int64_t>(oh * a.stride_h + tap / a.filter_w * a.dilation_h);
  int64_t pw = static_cast<int64_t>(ow * a.stride_w + tap % a.filter_w * a.dilation_w);
  int64_t h = ph - a.pad_top, w = pw - a.pad_left;
  if (h < 0 || w < 0 || h >= int64_t{a.l1_h} || w >= int64_t{a.l1_w}) {
    return static_cast<T>(a.pad_bits);
  }
  return map[((c1 * a.l1_h + h) * a.l1_w + w) * c0 + col % c0];
}

// The destination as the pseudocode lays it out: fractals of the (repeated) block in the order
// of its transposes, unwritten cells kUnset.
template <typename T>
std::vector<uint32_t> Expected(const LoadData3DArgs& a, const std::vector<T>& map) {
  uint64_t c0 = 32 / sizeof(T);
  uint64_t rows = a.m_ext * (a.repeat_mode == 0 ? a.repeat_time : 1);
  uint64_t cols = a.k_ext * (a.repeat_mode == 1 ? a.repeat_time : 1);
  auto at_big = [&](uint64_t mb, uint64_t kb) -> T {
    uint64_t r = a.repeat_mode == 0 ? mb / a.m_ext : kb / a.k_ext;
    uint64_t m = a.repeat_mode == 0 ? mb % a.m_ext : mb, k = a.repeat_mode == 1 ? kb % a.k_ext : kb;
    uint64_t row = a.m_start + m + (a.repeat_mode == 0 ? r * a.repeat_stride * 16 : 0);
    uint64_t col = a.k_start + k + (a.repeat_mode == 1 ? r * a.repeat_stride * c0 : 0);
    return Im2col(a, map, row, col);
  };
  std::vector<uint32_t> out;
  uint64_t m16 = (rows + 15) / 16 * 16, k16 = (cols + 15) / 16 * 16;
  uint64_t kc = (cols + c0 - 1) / c0 * c0;
  if (!a.to_l0b && !a.transpose) {  // [M1][K1][16][C0]
    for (uint64_t m1 = 0; m1 < m16 / 16; ++m1)
      for (uint64_t k1 = 0; k1 < kc / c0; ++k1)
        for (uint64_t i = 0; i < 16; ++i)
          for (uint64_t j = 0; j < c0; ++j) {
            uint64_t mb = m1 * 16 + i, kb = k1 * c0 + j;
            out.push_back(mb < rows && kb < cols ? at_big(mb, kb) : kUnset);
          }
  } else if (!a.to_l0b) {  // the transpose: [K/16][M16/C0][16 k][C0 m]
    for (uint64_t k1 = 0; k1 < k16 / 16; ++k1)
      for (uint64_t m1 = 0; m1 < m16 / c0; ++m1)
        for (uint64_t i = 0; i < 16; ++i)
          for (uint64_t j = 0; j < c0; ++j) {
            uint64_t kb = k1 * 16 + i, mb = m1 * c0 + j;
            out.push_back(mb < rows && kb < cols ? at_big(mb, kb) : kUnset);
          }
  } else {  // L0B: [M16/C0][K16/16][16 k][C0 m]
    for (uint64_t m1 = 0; m1 < m16 / c0; ++m1)
      for (uint64_t k1 = 0; k1 < k16 / 16; ++k1)
        for (uint64_t i = 0; i < 16; ++i)
          for (uint64_t j = 0; j < c0; ++j) {
            uint64_t kb = k1 * 16 + i, mb = m1 * c0 + j;
            out.push_back(mb < rows && kb < cols ? at_big(mb, kb) : kUnset);
          }
  }
  return out;
}

// Runs the model into a destination of its fractals and reads it back (unwritten: kUnset).
template <typename T>
std::vector<uint32_t> Load(const LoadData3DArgs& a, const std::vector<T>& l1) {
  uint64_t bytes = Load3DDstFractals(a) * kFractalBytes;
  std::vector<uint8_t> image(bytes), written(bytes);
  LoadData3D(a, reinterpret_cast<const uint8_t*>(l1.data()), image.data(), written.data());
  std::vector<uint32_t> out(bytes / sizeof(T));
  for (size_t i = 0; i < out.size(); ++i) {
    T v;
    std::memcpy(&v, image.data() + i * sizeof(T), sizeof(T));
    out[i] = written[i * sizeof(T)] ? v : kUnset;
  }
  return out;
}

LoadData3DArgs Conv(uint32_t esize) {
  LoadData3DArgs a;
  a.esize = esize;
  a.l1_h = 5;
  a.l1_w = 6;
  a.channels = 2 * (32 / esize);  // C1 = 2
  a.pad_left = 1, a.pad_right = 0, a.pad_top = 1, a.pad_bottom = 2;
  a.stride_w = 1, a.stride_h = 2;
  a.filter_w = 2, a.filter_h = 3;
  a.dilation_w = 2, a.dilation_h = 1;
  a.pad_bits = 0x7c00;  // half +inf: easy to tell from the map's values
  return a;
}

TEST(CubeLoad3D, TheGeometryOfTheWindow) {
  LoadData3DArgs a = Conv(2);
  // w: 6 + 1 + 0 - ((2 - 1) * 2 + 1) = 4 -> 4 / 1 + 1 = 5; h: 5 + 1 + 2 - 3 = 5 -> 5 / 2 + 1 = 3.
  EXPECT_EQ(Load3DOutW(a), 5);
  EXPECT_EQ(Load3DOutH(a), 3);
  EXPECT_EQ(Load3DColumns(a), 32u * 6u);
  EXPECT_EQ(Load3DSrcBytes(a), 32u * 5u * 6u * 2u);
}

TEST(CubeLoad3D, HalfIntoL0AForSeveralWindows) {
  LoadData3DArgs a = Conv(2);
  std::vector<uint16_t> map = Map<uint16_t>(a);
  const uint32_t windows[][4] = {// m_start, m_ext, k_start, k_ext
                                 {0, 15, 0, 192},
                                 {0, 16, 16, 32},
                                 {3, 12, 176, 16},
                                 {1, 14, 48, 80}};
  for (const auto& w : windows) {
    a.m_start = w[0], a.m_ext = w[1], a.k_start = w[2], a.k_ext = w[3];
    EXPECT_EQ(Load(a, map), Expected(a, map)) << w[0] << " " << w[1] << " " << w[2];
  }
  // One cell by hand: row 0 (oh 0, ow 0), tap 0 (kh 0, kw 0) sits at (-1, -1): padding.
  a.m_start = 0, a.m_ext = 16, a.k_start = 0, a.k_ext = 16;
  EXPECT_EQ(Load(a, map)[0], 0x7c00u);
  // Row 1 (ow 1), tap 1 (kw 1: w = 1 + 2 - 1 = 2), kh 0 (h = -1): padding; row 6 (oh 1, ow 1),
  // tap 0: h = 2 - 1 = 1, w = 0: channel 0 of pixel (1, 0) = element 6 * 16 of the map.
  EXPECT_EQ(Load(a, map)[6 * 16], map[(1 * 6 + 0) * 16]);
}

TEST(CubeLoad3D, HalfIntoL0BIsZnOfTheBlock) {
  LoadData3DArgs a = Conv(2);
  a.to_l0b = true;
  std::vector<uint16_t> map = Map<uint16_t>(a);
  a.m_start = 0, a.m_ext = 15, a.k_start = 32, a.k_ext = 48;
  std::vector<uint32_t> got = Load(a, map);
  EXPECT_EQ(got, Expected(a, map));
  // B's element (k = row 2 of the block, n = column 17) at Zn: fractal (0, 1), row 1, col 2.
  EXPECT_EQ(got[256 + 1 * 16 + 2], Im2col(a, map, 2, 32 + 17));
}

TEST(CubeLoad3D, TransposedIntoL0AHalfAndFloat) {
  for (uint32_t es : {2u, 4u}) {
    LoadData3DArgs a = Conv(es);
    a.transpose = true;
    a.m_start = 1, a.m_ext = 14, a.k_start = es == 2 ? 16 : 8, a.k_ext = es == 2 ? 32 : 24;
    if (es == 2) {
      std::vector<uint16_t> map = Map<uint16_t>(a);
      EXPECT_EQ(Load(a, map), Expected(a, map));
    } else {
      std::vector<uint32_t> map = Map<uint32_t>(a);
      EXPECT_EQ(Load(a, map), Expected(a, map));
    }
  }
}

TEST(CubeLoad3D, FloatIntoL0BAndInt8IntoL0A) {
  LoadData3DArgs f = Conv(4);
  f.to_l0b = true;
  f.m_start = 0, f.m_ext = 15, f.k_start = 8, f.k_ext = 16;
  std::vector<uint32_t> fmap = Map<uint32_t>(f);
  EXPECT_EQ(Load(f, fmap), Expected(f, fmap));
  LoadData3DArgs b = Conv(1);
  b.pad_bits = 0x8080;  // int8 -128 twice, as Load3DSetPaddingCal writes a b8 value
  b.m_start = 0, b.m_ext = 15, b.k_start = 32, b.k_ext = 64;
  std::vector<uint8_t> bmap = Map<uint8_t>(b);
  EXPECT_EQ(Load(b, bmap), Expected(b, bmap));
}

TEST(CubeLoad3D, RepeatsAlongMAndK) {
  LoadData3DArgs a = Conv(2);
  a.l1_h = 9;  // 5 x 5 outputs: 25 rows
  std::vector<uint16_t> map = Map<uint16_t>(a);
  a.repeat_time = 3, a.repeat_stride = 1, a.repeat_mode = 0;  // rows 0, 16, 32 (past 25)
  a.m_start = 0, a.m_ext = 16, a.k_start = 0, a.k_ext = 32;
  EXPECT_EQ(Load(a, map), Expected(a, map));
  a.repeat_mode = 1, a.repeat_stride = 2;  // columns 0, 32, 64
  a.m_ext = 10;
  EXPECT_EQ(Load(a, map), Expected(a, map));
  a.transpose = true;
  EXPECT_EQ(Load(a, map), Expected(a, map));
}

TEST(CubeLoad3D, RowsPastTheMatrixKeepSlidingTheWindow) {
  LoadData3DArgs a = Conv(2);  // 15 rows
  std::vector<uint16_t> map = Map<uint16_t>(a);
  a.m_start = 0, a.m_ext = 32, a.k_start = 0, a.k_ext = 16;
  std::vector<uint32_t> got = Load(a, map);
  EXPECT_EQ(got, Expected(a, map));
  // Row 15 is (oh 3, ow 0): h = 6 - 1 = 5 is past the map: padding.
  EXPECT_EQ(got[15 * 16], 0x7c00u);
}

TEST(CubeLoad3D, TheBoundaryWrapsReadsToL1sStart) {
  LoadData3DArgs a;
  a.esize = 2, a.l1_h = 1, a.l1_w = 64, a.channels = 16;  // 2 KiB of map
  a.m_ext = 64, a.k_ext = 16;
  std::vector<uint16_t> l1(2048);  // 4 KiB of L1
  for (size_t i = 0; i < l1.size(); ++i) l1[i] = static_cast<uint16_t>(i);
  a.src_offset = 1024, a.boundary = 2048;  // pixels 32.. lie past the boundary: at 0..
  std::vector<uint32_t> got = Load(a, l1);
  EXPECT_EQ(got[0], 512u);                    // pixel 0 at byte 1024
  EXPECT_EQ(got[31 * 16 + 15], 512u + 511u);  // the last pixel before the boundary
  EXPECT_EQ(got[2 * 256], 0u);                // pixel 32 wraps to byte 0
  a.boundary = 0;
  EXPECT_EQ(Load(a, l1)[2 * 256], 1024u);
}

}  // namespace
}  // namespace aicore::sim::cube
