// The cube family's semantics (see cube.h; ascendc-semantics.md 1-4).
#include "sim/isa/semantics/cube.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "sim/core/invariant.h"
#include "sim/isa/fp16.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define AICORE_CUBE_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define AICORE_CUBE_CLONES
#endif

namespace aicore::sim::cube {

namespace {

constexpr MmadTypeRow kMmadTypes[] = {
    {MmadTypes::kF16F32, "f16_to_f32", 16, 16, false},
    {MmadTypes::kBf16F32, "bf16_2_f32", 16, 16, false},
    {MmadTypes::kF32F32, "f32_2_f32", 32, 8, false},
    {MmadTypes::kS8S32, "s8", 8, 32, true},
    {MmadTypes::kS4S32, "s4", 4, 64, true},
};

void Mark(uint8_t* written, uint64_t at, uint64_t bytes) { std::memset(written + at, 1, bytes); }

// Element `e` of an operand of `row`'s input type, exactly: half and bf16 widen to float
// without rounding, int4 elements are packed two per byte, the even one in the low nibble (the
// model's choice: the references do not give the nibble order).
// Every half's value, built once: an Mmad decodes each of its operands' elements, and a table
// read is several times faster than converting the bits (the same values: HalfToFloat's).
const std::vector<float>& HalfValues() {
  static const std::vector<float> kValues = [] {
    std::vector<float> v(1u << 16);
    for (uint32_t bits = 0; bits < v.size(); ++bits) {
      v[bits] = HalfToFloat(static_cast<uint16_t>(bits));
    }
    return v;
  }();
  return kValues;
}

double FloatElement(const MmadTypeRow& row, const uint8_t* base, uint64_t e) {
  if (row.types == MmadTypes::kF32F32) {
    float f;
    std::memcpy(&f, base + e * 4, 4);
    return f;
  }
  uint16_t bits;
  std::memcpy(&bits, base + e * 2, 2);
  return row.types == MmadTypes::kF16F32 ? HalfValues()[bits] : Bf16ToFloat(bits);
}

// Element `e` of a float operand as an HF32 Mmad multiplies it.
double Hf32Element(const uint8_t* base, uint64_t e, bool toward_zero) {
  float f;
  std::memcpy(&f, base + e * 4, 4);
  return RoundToHf32(f, toward_zero);
}

int64_t IntElement(const MmadTypeRow& row, const uint8_t* base, uint64_t e) {
  if (row.types == MmadTypes::kS8S32) return static_cast<int8_t>(base[e]);
  uint8_t nibble = (base[e / 2] >> ((e % 2) * 4)) & 0xfu;
  return nibble >= 8 ? static_cast<int64_t>(nibble) - 16 : nibble;
}

int32_t SaturateInt32(int64_t v) {
  return static_cast<int32_t>(std::clamp<int64_t>(v, std::numeric_limits<int32_t>::min(),
                                                  std::numeric_limits<int32_t>::max()));
}

}  // namespace

float RoundToHf32(float x, bool toward_zero) {
  constexpr uint32_t kDropped = 13;  // 23 - 10 mantissa bits
  constexpr uint32_t kLow = (1u << kDropped) - 1;
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  if ((bits & 0x7f800000u) == 0x7f800000u) return x;  // inf, NaN
  if (!toward_zero) {
    uint32_t lsb = (bits >> kDropped) & 1u;
    bits += (kLow >> 1) + lsb;  // ties to even; a carry into the exponent rounds up, to inf at most
  }
  bits &= ~kLow;
  float out;
  std::memcpy(&out, &bits, 4);
  return out;
}

const MmadTypeRow& MmadTypeOf(MmadTypes t) {
  for (const MmadTypeRow& row : kMmadTypes) {
    if (row.types == t) return row;
  }
  SIM_CHECK(false, "an Mmad type combination without a row");
  return kMmadTypes[0];
}

// ---- ND -> NZ -----------------------------------------------------------------------------------

uint64_t Nd2NzSrcElements(const Nd2NzArgs& a) {
  if (a.nd_num == 0 || a.n_value == 0 || a.d_value == 0) return 0;
  return uint64_t{a.nd_num - 1} * a.src_nd_matrix_stride + uint64_t{a.n_value - 1} * a.src_d_value +
         a.d_value;
}

uint64_t Nd2NzDstBytes(const Nd2NzArgs& a) {
  if (a.nd_num == 0 || a.n_value == 0 || a.d_value == 0) return 0;
  uint64_t c0 = kRowBytes / a.esize;
  uint64_t blocks = CeilTo(a.d_value, c0) / c0;
  return uint64_t{a.nd_num - 1} * a.dst_nz_matrix_stride * a.esize +
         (blocks - 1) * a.dst_nz_c0_stride * kRowBytes +
         uint64_t{a.n_value - 1} * a.dst_nz_n_stride * kRowBytes + kRowBytes;
}

void Nd2Nz(const Nd2NzArgs& a, const uint8_t* src, uint8_t* image, uint8_t* written) {
  if (Nd2NzDstBytes(a) == 0) return;
  uint64_t es = a.esize;
  uint64_t c0 = kRowBytes / es;
  uint64_t padded = CeilTo(a.d_value, c0);
  for (uint64_t i = 0; i < a.nd_num; ++i) {
    for (uint64_t r = 0; r < a.n_value; ++r) {
      const uint8_t* row = src + (i * a.src_nd_matrix_stride + r * a.src_d_value) * es;
      for (uint64_t d = 0; d < padded; ++d) {
        uint64_t at = i * a.dst_nz_matrix_stride * es + (d / c0) * a.dst_nz_c0_stride * kRowBytes +
                      r * a.dst_nz_n_stride * kRowBytes + (d % c0) * es;
        if (d < a.d_value) {
          std::memcpy(image + at, row + d * es, es);
        } else {
          std::memset(image + at, 0, es);  // the last block's row is padded to 32 bytes
        }
        Mark(written, at, es);
      }
    }
  }
}

// ---- LoadData 2D ----------------------------------------------------------------------------

uint64_t LoadData2DSrcBytes(const LoadData2DArgs& a) {
  if (a.repeat_times == 0) return 0;
  return (uint64_t{a.start_index} + uint64_t{a.repeat_times - 1} * a.src_stride + 1) *
         kFractalBytes;
}

uint64_t LoadData2DDstBytes(const LoadData2DArgs& a) {
  if (a.repeat_times == 0) return 0;
  return (uint64_t{a.repeat_times - 1} * (uint64_t{a.dst_gap} + 1) + 1) * kFractalBytes;
}

void LoadData2D(const LoadData2DArgs& a, const uint8_t* src, uint8_t* image, uint8_t* written) {
  for (uint64_t i = 0; i < a.repeat_times; ++i) {
    const uint8_t* from = src + (a.start_index + i * a.src_stride) * kFractalBytes;
    uint8_t* to = image + i * (uint64_t{a.dst_gap} + 1) * kFractalBytes;
    if (!a.transpose) {
      std::memcpy(to, from, kFractalBytes);
    } else {
      // 16 x 16 two-byte elements: output row j is source column j.
      for (uint64_t j = 0; j < 16; ++j) {
        for (uint64_t t = 0; t < 16; ++t)
          std::memcpy(to + j * 32 + t * 2, from + t * 32 + j * 2, 2);
      }
    }
    Mark(written, static_cast<uint64_t>(to - image), kFractalBytes);
  }
}

// ---- LoadDataWithTranspose ---------------------------------------------------------------------

uint64_t TransposeSquareFractals(uint32_t esize) { return esize == 2 ? 1 : 2; }

uint64_t LoadTransposeSrcBytes(const LoadTransposeArgs& a) {
  if (a.repeat_times == 0) return 0;
  uint64_t square = TransposeSquareFractals(a.esize) * kFractalBytes;
  return (uint64_t{a.start_index} + uint64_t{a.repeat_times - 1} * a.src_stride + 1) * square;
}

uint64_t LoadTransposeDstBytes(const LoadTransposeArgs& a) {
  if (a.repeat_times == 0) return 0;
  uint64_t last = uint64_t{a.repeat_times - 1} * (uint64_t{a.dst_gap} + 1) +
                  (TransposeSquareFractals(a.esize) - 1) * (uint64_t{a.dst_frac_gap} + 1);
  return (last + 1) * kFractalBytes;
}

void LoadTranspose(const LoadTransposeArgs& a, const uint8_t* src, uint8_t* image,
                   uint8_t* written) {
  uint64_t es = a.esize;
  uint64_t fractals = TransposeSquareFractals(a.esize);
  // A square is n x n elements (16 for b16 and b32, 32 for b8). Where its element (r, c) sits in
  // the source's fractals, and where transposed element (r, c) lands among the output's: b16 one
  // row-major 16 x 16 fractal; b8 two fractals of 16 rows of 32 (rows 0-15, then 16-31); b32 two
  // 16 x 8 fractals (columns 0-7, then 8-15), in and out alike (2.2).
  uint64_t n = es == 1 ? 32 : 16;
  uint64_t cols = kRowBytes / es;  // a fractal row's elements
  auto offset = [&](uint64_t r, uint64_t c, uint64_t frac_pitch) {
    uint64_t frac = es == 4 ? c / cols : (es == 1 ? r / 16 : 0);
    uint64_t row = es == 1 ? r % 16 : r;
    return frac * frac_pitch + row * kRowBytes + (c % cols) * es;
  };
  for (uint64_t i = 0; i < a.repeat_times; ++i) {
    const uint8_t* square = src + (a.start_index + i * a.src_stride) * fractals * kFractalBytes;
    uint8_t* out = image + i * (uint64_t{a.dst_gap} + 1) * kFractalBytes;
    uint64_t out_pitch = (uint64_t{a.dst_frac_gap} + 1) * kFractalBytes;
    for (uint64_t r = 0; r < n; ++r) {
      for (uint64_t c = 0; c < n; ++c) {
        uint64_t to = offset(r, c, out_pitch);
        std::memcpy(out + to, square + offset(c, r, kFractalBytes), es);
        Mark(written, static_cast<uint64_t>(out - image) + to, es);
      }
    }
  }
}

// ---- LoadData 3D
// ----------------------------------------------------------------------------------

int64_t Load3DOutW(const LoadData3DArgs& a) {
  int64_t span = int64_t{a.filter_w - 1} * a.dilation_w + 1;
  return (int64_t{a.l1_w} + a.pad_left + a.pad_right - span) / a.stride_w + 1;
}

int64_t Load3DOutH(const LoadData3DArgs& a) {
  int64_t span = int64_t{a.filter_h - 1} * a.dilation_h + 1;
  return (int64_t{a.l1_h} + a.pad_top + a.pad_bottom - span) / a.stride_h + 1;
}

uint64_t Load3DColumns(const LoadData3DArgs& a) {
  return uint64_t{a.channels} * a.filter_h * a.filter_w;
}

uint64_t Load3DSrcBytes(const LoadData3DArgs& a) {
  return uint64_t{a.channels} * a.l1_h * a.l1_w * a.esize;
}

namespace {
// The big matrix the repeats fill: rows x columns.
uint64_t Load3DRows(const LoadData3DArgs& a) {
  return uint64_t{a.m_ext} * (a.repeat_mode == 0 ? a.repeat_time : 1);
}
uint64_t Load3DCols(const LoadData3DArgs& a) {
  return uint64_t{a.k_ext} * (a.repeat_mode == 1 ? a.repeat_time : 1);
}
}  // namespace

uint64_t Load3DDstFractals(const LoadData3DArgs& a) {
  if (a.repeat_time == 0 || a.k_ext == 0 || a.m_ext == 0) return 0;
  uint64_t c0 = kRowBytes / a.esize, rows = Load3DRows(a), cols = Load3DCols(a);
  // L0A: ceil16(rows) / 16 x ceil(cols / C0); its transpose and L0B take both sides in whole
  // 16-element fractal sides and C0-element rows (the vendor's pseudocode pads both).
  if (!a.to_l0b && !a.transpose) return CeilTo(rows, 16) / 16 * (CeilTo(cols, c0) / c0);
  return CeilTo(rows, 16) / c0 * (CeilTo(cols, 16) / 16);
}

void LoadData3D(const LoadData3DArgs& a, const uint8_t* l1, uint8_t* image, uint8_t* written) {
  uint64_t es = a.esize, c0 = kRowBytes / es;
  int64_t w_out = Load3DOutW(a);
  uint64_t taps = uint64_t{a.filter_h} * a.filter_w;
  uint64_t rows = Load3DRows(a), cols = Load3DCols(a);
  uint64_t zz_k1 = CeilTo(cols, c0) / c0;  // L0A
  uint64_t zt_k1 = CeilTo(rows, 16) / c0;  // L0A transposed: the rows are its columns
  uint64_t zn_n1 = CeilTo(cols, 16) / 16;  // L0B: the columns are B's N
  for (uint64_t r = 0; r < a.repeat_time; ++r) {
    uint64_t row_shift = a.repeat_mode == 0 ? r * a.repeat_stride * 16 : 0;
    uint64_t col_shift = a.repeat_mode == 1 ? r * a.repeat_stride * c0 : 0;
    uint64_t dst_row0 = a.repeat_mode == 0 ? r * a.m_ext : 0;
    uint64_t dst_col0 = a.repeat_mode == 1 ? r * a.k_ext : 0;
    for (uint64_t m = 0; m < a.m_ext; ++m) {
      // Rows past h_out * w_out keep sliding the window (the model's choice, docs/cube.md).
      uint64_t row = a.m_start + row_shift + m;
      int64_t oh = static_cast<int64_t>(row) / w_out, ow = static_cast<int64_t>(row) % w_out;
      for (uint64_t k = 0; k < a.k_ext; ++k) {
        uint64_t q = a.k_start + col_shift + k;
        uint64_t chunk = q / c0, c1 = chunk / taps, tap = chunk % taps;
        int64_t h =
            oh * a.stride_h + static_cast<int64_t>(tap / a.filter_w) * a.dilation_h - a.pad_top;
        int64_t w =
            ow * a.stride_w + static_cast<int64_t>(tap % a.filter_w) * a.dilation_w - a.pad_left;
        uint64_t mb = dst_row0 + m, kb = dst_col0 + k;
        uint64_t at = a.to_l0b      ? ZnOffset(mb, kb, zn_n1, c0)
                      : a.transpose ? ZzOffset(kb, mb, zt_k1, c0)
                                    : ZzOffset(mb, kb, zz_k1, c0);
        at *= es;
        if (h < 0 || w < 0 || h >= int64_t{a.l1_h} || w >= int64_t{a.l1_w}) {
          std::memcpy(image + at, &a.pad_bits, es);
        } else {
          uint64_t from =
              a.src_offset +
              ((c1 * a.l1_h + static_cast<uint64_t>(h)) * a.l1_w + static_cast<uint64_t>(w)) * c0 *
                  es +
              (q % c0) * es;
          if (a.boundary != 0) from %= a.boundary;  // SetLoadDataBoundary: wrap to L1's start
          std::memcpy(image + at, l1 + from, es);
        }
        Mark(written, at, es);
      }
    }
  }
}

// ---- InitConstValue -----------------------------------------------------------------------------

uint64_t InitConstDstBytes(const InitConstArgs& a) {
  if (a.repeat_times == 0 || a.block_num == 0) return 0;
  return (uint64_t{a.repeat_times - 1} * (uint64_t{a.block_num} + a.dst_gap) + a.block_num) *
         a.block_bytes;
}

void InitConst(const InitConstArgs& a, uint8_t* image, uint8_t* written) {
  uint64_t run = uint64_t{a.block_num} * a.block_bytes;
  for (uint64_t i = 0; i < a.repeat_times && run > 0; ++i) {
    uint64_t at = i * (uint64_t{a.block_num} + a.dst_gap) * a.block_bytes;
    for (uint64_t b = 0; b < run; b += a.esize) std::memcpy(image + at + b, &a.value_bits, a.esize);
    Mark(written, at, run);
  }
}

// ---- Mmad -------------------------------------------------------------------------------------

uint64_t MmadKExtent(const MmadArgs& a) {
  const MmadTypeRow& row = MmadTypeOf(a.types);
  uint64_t align = a.types == MmadTypes::kF32F32 && a.k_direction_align ? 16 : row.c0;
  return CeilTo(a.k, align);
}

uint64_t MmadABytes(const MmadArgs& a) {
  if (a.m == 0 || a.n == 0 || a.k == 0) return 0;
  const MmadTypeRow& row = MmadTypeOf(a.types);
  uint64_t k_ext = MmadKExtent(a);
  uint64_t rows = a.m == 1 ? 1 : CeilTo(a.m, kFractalRows);  // GEMV: one ND row
  return rows * k_ext * row.input_bits / 8;
}

uint64_t MmadBBytes(const MmadArgs& a) {
  if (a.m == 0 || a.n == 0 || a.k == 0) return 0;
  const MmadTypeRow& row = MmadTypeOf(a.types);
  return MmadKExtent(a) * CeilTo(a.n, kFractalRows) * row.input_bits / 8;
}

uint64_t MmadBiasBytes(const MmadArgs& a) {
  return a.bias && a.m != 0 && a.n != 0 && a.k != 0 ? uint64_t{a.n} * 4 : 0;
}

uint64_t MmadCBytes(const MmadArgs& a) {
  if (a.m == 0 || a.n == 0 || a.k == 0) return 0;
  return CeilTo(a.n, 16) * CeilTo(a.m, 16) * 4;
}

namespace {

// Register blocking of the chunk sums: kRowBlock rows of A times kColBlock columns of B per
// pass, the partial sums in registers; each output element still sums its chunk's products in
// increasing k, so nothing is reassociated and the loops over columns vectorise.
constexpr uint64_t kRowBlock = 2;  // the loop below names its two rows
constexpr uint64_t kColBlock = 16;
// 32 bytes of lanes (GCC/Clang vector extensions; two 16-byte halves where the host has no
// 32-byte vectors): each lane is an IEEE multiply and add of its own, exactly the scalar loop's,
// on any host (no FMA: -ffp-contract=off). On x86-64, Mmad is also compiled for AVX2 and picked
// at load time where the CPU has it: the same lane operations, the same bits, twice the width.
template <typename V>
using Lanes __attribute__((vector_size(32))) = V;
template <typename V>
constexpr uint64_t kLanes = 32 / sizeof(V);
// A double lane pair rounded to float (round to nearest even, as a scalar conversion).
using Floats __attribute__((vector_size(16))) = float;

// A and B decoded once into exact values: A as rows of K (row-major, rows padded with zeros to
// a whole row block), B as K rows of n (k-major, columns padded to a whole column block).
// A's and B's elements in layout order: each fractal row holds C0 consecutive k of one m (A,
// Zz) or one n (B, Zn), so every row converts as a run. `conv(base, e)` is element e's exact
// value (chosen once per Mmad, below).
template <typename V, typename Conv>
void DecodeWith(const MmadArgs& a, const MmadTypeRow& row, const uint8_t* l0a, const uint8_t* l0b,
                uint64_t n_pad, V* ap, V* bp, Conv conv) {
  uint64_t c0 = row.c0;
  uint64_t k1 = MmadKExtent(a) / c0;
  uint64_t n1 = CeilTo(a.n, 16) / 16;
  bool gemv = a.m == 1;
  for (uint64_t m = 0; m < a.m; ++m) {
    for (uint64_t k0 = 0; k0 < a.k; k0 += c0) {
      uint64_t e = gemv ? k0 : ZzOffset(m, k0, k1, c0);
      uint64_t run = std::min<uint64_t>(c0, a.k - k0);
      for (uint64_t j = 0; j < run; ++j) ap[m * a.k + k0 + j] = conv(l0a, e + j);
    }
  }
  for (uint64_t n = 0; n < a.n; ++n) {
    for (uint64_t k0 = 0; k0 < a.k; k0 += c0) {
      uint64_t e = ZnOffset(k0, n, n1, c0);
      uint64_t run = std::min<uint64_t>(c0, a.k - k0);
      for (uint64_t j = 0; j < run; ++j) bp[(k0 + j) * n_pad + n] = conv(l0b, e + j);
    }
  }
}

// A and B decoded once into exact values: A as rows of K (row-major, rows padded with zeros to
// a whole row block), B as K rows of n (k-major, columns padded to a whole column block).
template <typename V>
void DecodeOperands(const MmadArgs& a, const MmadTypeRow& row, const uint8_t* l0a,
                    const uint8_t* l0b, uint64_t m_pad, uint64_t n_pad, std::vector<V>* av,
                    std::vector<V>* bv) {
  av->assign(m_pad * a.k, V{0});
  bv->assign(uint64_t{a.k} * n_pad, V{0});
  V* ap = av->data();
  V* bp = bv->data();
  if (row.integer) {
    DecodeWith<V>(a, row, l0a, l0b, n_pad, ap, bp, [&row](const uint8_t* base, uint64_t e) {
      return static_cast<V>(IntElement(row, base, e));
    });
  } else if (row.types == MmadTypes::kF16F32) {
    const float* halves = HalfValues().data();
    DecodeWith<V>(a, row, l0a, l0b, n_pad, ap, bp, [halves](const uint8_t* base, uint64_t e) {
      uint16_t bits;
      std::memcpy(&bits, base + e * 2, 2);
      return static_cast<V>(halves[bits]);
    });
  } else if (row.types == MmadTypes::kF32F32 && a.hf32) {
    bool toward_zero = a.hf32_toward_zero;
    DecodeWith<V>(a, row, l0a, l0b, n_pad, ap, bp, [toward_zero](const uint8_t* base, uint64_t e) {
      return static_cast<V>(Hf32Element(base, e, toward_zero));
    });
  } else {
    DecodeWith<V>(a, row, l0a, l0b, n_pad, ap, bp, [&row](const uint8_t* base, uint64_t e) {
      return static_cast<V>(FloatElement(row, base, e));
    });
  }
}

// One output element per (m, n), C of type T (float, or int32 for the integer rows): its start
// (0, C_old or the bias), then one chunk of K at a time, rounded or saturated after each. A
// chunk's products are exact and summed exactly in V: double for half, bf16 and float (their
// products fit its mantissa, and the sum is in increasing k), int32 for int8 and int4 (a chunk
// of 32 int8 or 64 int4 products cannot overflow it).
template <typename T>
__attribute__((always_inline)) inline void MmadElements(const MmadArgs& a, const MmadTypeRow& row,
                                                        const uint8_t* l0a, const uint8_t* l0b,
                                                        const uint8_t* bias, const uint8_t* c_old,
                                                        uint8_t* image, uint8_t* written) {
  constexpr bool kInt = std::is_same_v<T, int32_t>;
  using V = std::conditional_t<kInt, int32_t, double>;
  constexpr uint64_t kVectors = kColBlock / kLanes<V>;
  // C while it accumulates: int32, or each float held exactly in a double.
  static thread_local std::vector<V> av, bv, c;
  uint64_t m_pad = CeilTo(a.m, kRowBlock);
  uint64_t n_pad = CeilTo(a.n, kColBlock);
  DecodeOperands(a, row, l0a, l0b, m_pad, n_pad, &av, &bv);
  uint64_t c0 = row.c0;
  uint64_t m_rows = CeilTo(a.m, 16);
  // cmatrixInitVal wins over cmatrixSource when both are set (3.2: unconfirmed, the doc implies).
  bool from_bias = a.bias && !a.init;
  bool accumulate = !a.init && !a.bias;
  c.assign(m_pad * n_pad, V{0});
  V* cp = c.data();
  const V* ap = av.data();
  const V* bp = bv.data();
  // C's start and, below, its result: each row of a 16-column block of L0C is 16 consecutive
  // elements, so both go a row of a block at a time.
  for (uint64_t m = 0; m < a.m; ++m) {
    for (uint64_t n0 = 0; n0 < a.n; n0 += 16) {
      uint64_t cols = std::min<uint64_t>(16, a.n - n0);
      T start[16] = {};
      if (from_bias) std::memcpy(start, bias + n0 * 4, cols * 4);
      if (accumulate) std::memcpy(start, c_old + L0cOffset(m, n0, m_rows) * 4, cols * 4);
      for (uint64_t j = 0; j < cols; ++j) cp[m * n_pad + n0 + j] = static_cast<V>(start[j]);
    }
  }
  for (uint64_t m = 0; m < m_pad; m += kRowBlock) {
    for (uint64_t n = 0; n < n_pad; n += kColBlock) {
      for (uint64_t q = 0; q * c0 < a.k; ++q) {
        uint64_t end = std::min<uint64_t>((q + 1) * c0, a.k);
        Lanes<V> sum[kRowBlock][kVectors] = {};
        for (uint64_t k = q * c0; k < end; ++k) {
          const V* brow = bp + k * n_pad + n;
          const V x0 = ap[m * a.k + k];
          const V x1 = ap[(m + 1) * a.k + k];
          for (uint64_t j = 0; j < kVectors; ++j) {
            Lanes<V> b;
            std::memcpy(&b, brow + j * kLanes<V>, sizeof(b));
            sum[0][j] += x0 * b;
            sum[1][j] += x1 * b;
          }
        }
        // C += the chunk's sum: one rounding to float (or int32 saturation) per element.
        for (uint64_t i = 0; i < kRowBlock; ++i) {
          V* out = cp + (m + i) * n_pad + n;
          for (uint64_t j = 0; j < kVectors; ++j) {
            Lanes<V> cv;
            std::memcpy(&cv, out + j * kLanes<V>, sizeof(cv));
            if constexpr (kInt) {
              V lanes[kLanes<V>], old[kLanes<V>];
              std::memcpy(lanes, &sum[i][j], sizeof(lanes));
              std::memcpy(old, &cv, sizeof(old));
              for (uint64_t l = 0; l < kLanes<V>; ++l) {
                old[l] = SaturateInt32(int64_t{old[l]} + lanes[l]);
              }
              std::memcpy(&cv, old, sizeof(cv));
            } else {
              cv = __builtin_convertvector(__builtin_convertvector(cv + sum[i][j], Floats),
                                           Lanes<double>);
            }
            std::memcpy(out + j * kLanes<V>, &cv, sizeof(cv));
          }
        }
      }
    }
  }
  for (uint64_t m = 0; m < a.m; ++m) {
    for (uint64_t n0 = 0; n0 < a.n; n0 += 16) {
      uint64_t cols = std::min<uint64_t>(16, a.n - n0);
      T out[16];
      for (uint64_t j = 0; j < cols; ++j) out[j] = static_cast<T>(cp[m * n_pad + n0 + j]);
      uint64_t at = L0cOffset(m, n0, m_rows) * 4;
      std::memcpy(image + at, out, cols * 4);
      Mark(written, at, cols * 4);
    }
  }
}

}  // namespace

AICORE_CUBE_CLONES void Mmad(const MmadArgs& a, const uint8_t* l0a, const uint8_t* l0b,
                             const uint8_t* bias, const uint8_t* c_old, uint8_t* image,
                             uint8_t* written) {
  if (MmadCBytes(a) == 0) return;
  const MmadTypeRow& row = MmadTypeOf(a.types);
  if (row.integer) {
    MmadElements<int32_t>(a, row, l0a, l0b, bias, c_old, image, written);
  } else {
    MmadElements<float>(a, row, l0a, l0b, bias, c_old, image, written);
  }
}

// ---- Fixpipe ----------------------------------------------------------------------------------

namespace {

uint64_t FixpipeSrcElement(const FixpipeArgs& a, uint64_t j, uint64_t c) {
  return (c / 16) * a.src_stride * 16 + j * 16 + c % 16;
}

uint64_t FixpipeDstByte(const FixpipeArgs& a, uint64_t j, uint64_t c) {
  uint64_t es = FixpipeDstElementBytes(a);
  if (a.nz2nd) return (j * a.dst_stride + c) * es;
  return (c / 16) * a.dst_stride * kRowBytes + j * 16 * es + (c % 16) * es;
}

// F322F16 / F322BF16 "do not support INF_NAN mode" (4.4): out-of-range values saturate to the
// largest finite value and NaN becomes 0 (the model's reading of "saturate").
uint16_t SaturatingHalf(float x) {
  if (std::isnan(x)) return 0;
  uint16_t h = FloatToHalf(x);
  if ((h & 0x7fffu) == 0x7c00u) h = static_cast<uint16_t>((h & 0x8000u) | 0x7bffu);
  return h;
}

uint16_t SaturatingBf16(float x) {
  if (std::isnan(x)) return 0;
  uint16_t b = FloatToBf16(x);
  if ((b & 0x7fffu) == 0x7f80u) b = static_cast<uint16_t>((b & 0x8000u) | 0x7f7fu);
  return b;
}

// Step 1 of 4.4 (REQ8, DEQF16 with MCB): an arithmetic shift right, saturated to int16.
int64_t PreShifted(int32_t x, const QuantWord& q) {
  if (!q.pre_shift) return x;
  return std::clamp<int64_t>(x >> q.shift, std::numeric_limits<int16_t>::min(),
                             std::numeric_limits<int16_t>::max());
}

// Step 2: x times M1, or times M2 = 0 when x is negative and ReLU is on. In double the product
// is exact (a 32-bit integer or a float times M1's 11 significant bits), so the one rounding is
// the destination's, as the vendor golden computes in float64. A ReLU'd value is +0 (the
// model's choice).
double Scaled(double x, const QuantWord& q, bool relu) {
  if (relu && x < 0) return 0.0;
  return x * static_cast<double>(q.m1);
}

// Step 3 of REQ8 / QF322B8: round half to even, clamp to [-256, 255], add the offset, clamp to
// int8 or uint8 per the sign bit. NaN becomes 0 (the model's choice, as the half saturation).
uint8_t ToB8(double v, const QuantWord& q) {
  if (std::isnan(v)) return 0;
  double r = std::clamp(std::nearbyint(v), -256.0, 255.0) + q.offset;
  double lo = q.to_int8 ? -128.0 : 0.0, hi = q.to_int8 ? 127.0 : 255.0;
  return static_cast<uint8_t>(static_cast<int32_t>(std::clamp(r, lo, hi)));
}

constexpr uint32_t kFixpipeDstBytes[] = {4, 2, 2, 2, 1, 1};  // by FixpipeQuant

}  // namespace

QuantWord DecodeQuantWord(uint64_t word) {
  QuantWord q;
  q.m1 = std::bit_cast<float>(static_cast<uint32_t>(word) & ~uint32_t{0x1fff});
  q.shift = static_cast<uint32_t>((word >> 32) & 0xf);
  q.pre_shift = ((word >> 36) & 1) != 0;
  q.offset = static_cast<int32_t>((word >> 37) & 0x1ff);
  q.to_int8 = ((word >> 46) & 1) != 0;
  return q;
}

bool QuantScaleIsNormal(uint64_t word) {
  float m1 = DecodeQuantWord(word).m1;
  return m1 == 0 || std::isnormal(m1);
}

uint16_t DeqF16(int32_t x, const QuantWord& q, bool relu) {
  double v = Scaled(static_cast<double>(PreShifted(x, q)), q, relu);
  uint16_t h = DoubleToHalf(v);
  if ((h & 0x7fffu) == 0x7c00u) h = static_cast<uint16_t>((h & 0x8000u) | 0x7bffu);  // ±65504
  return h;
}

uint8_t Qf322B8(float x, const QuantWord& q, bool relu) { return ToB8(Scaled(x, q, relu), q); }

uint8_t Req8(int32_t x, const QuantWord& q, bool relu) {
  return ToB8(Scaled(static_cast<double>(PreShifted(x, q)), q, relu), q);
}

uint32_t FixpipeDstElementBytes(const FixpipeArgs& a) {
  return kFixpipeDstBytes[static_cast<int>(a.quant)];
}

uint64_t FixpipeSrcBytes(const FixpipeArgs& a) {
  uint64_t end = 0;
  for (uint64_t c = 0; a.m != 0 && c < a.n; ++c) {
    end = std::max(end, FixpipeSrcElement(a, a.m - 1, c) + 1);
  }
  return end * 4;
}

uint64_t FixpipeDstBytes(const FixpipeArgs& a) {
  uint64_t end = 0;
  for (uint64_t c = 0; a.m != 0 && c < a.n; ++c) {
    end = std::max(end, FixpipeDstByte(a, a.m - 1, c) + FixpipeDstElementBytes(a));
  }
  return end;
}

void Fixpipe(const FixpipeArgs& a, const uint8_t* l0c, uint8_t* image, uint8_t* written) {
  uint32_t es = FixpipeDstElementBytes(a);
  for (uint64_t c = 0; c < a.n; ++c) {
    uint64_t word = a.quant_word;
    if (a.quant_words != nullptr) std::memcpy(&word, a.quant_words + c * 8, 8);
    const QuantWord q = DecodeQuantWord(word);
    for (uint64_t j = 0; j < a.m; ++j) {
      const uint8_t* from = l0c + FixpipeSrcElement(a, j, c) * 4;
      uint8_t* to = image + FixpipeDstByte(a, j, c);
      int32_t v;
      float x;
      std::memcpy(&v, from, 4);
      std::memcpy(&x, from, 4);
      uint16_t h = 0;
      uint8_t b = 0;
      switch (a.quant) {
        case FixpipeQuant::kNone:
          if (a.relu && (a.integer ? v < 0 : x < 0)) v = 0;  // a float NaN stays NaN
          std::memcpy(to, &v, 4);
          break;
        case FixpipeQuant::kF322F16:
        case FixpipeQuant::kF322Bf16:
          if (a.relu && x < 0) x = 0;
          h = a.quant == FixpipeQuant::kF322F16 ? SaturatingHalf(x) : SaturatingBf16(x);
          std::memcpy(to, &h, 2);
          break;
        case FixpipeQuant::kDeqF16:
          h = DeqF16(v, q, a.relu);
          std::memcpy(to, &h, 2);
          break;
        case FixpipeQuant::kQf322B8:
          b = Qf322B8(x, q, a.relu);
          *to = b;
          break;
        case FixpipeQuant::kReq8:
          b = Req8(v, q, a.relu);
          *to = b;
          break;
      }
      Mark(written, static_cast<uint64_t>(to - image), es);
    }
  }
}

}  // namespace aicore::sim::cube
