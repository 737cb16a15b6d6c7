// Bit-level half/bfloat16 rounding (see fp16.h). The float->half path is specialised because
// vector ops call it per element; the double paths share one generic routine.
#include "sim/isa/fp16.h"

#include <array>

#if defined(__x86_64__)
#include <immintrin.h>
#define AICORE_HAVE_F16C_PATH 1
#endif

namespace aicore::sim {
namespace {

// The float bits of every half, in few constant-evaluation steps (compilers bound them): a
// normal half rebiases its exponent, a subnormal one is renormalised (floats hold it exactly),
// infinities and NaNs keep their payload; the negative half is the positive one with its sign.
constexpr std::array<uint32_t, 65536> MakeHalfTable() {
  std::array<uint32_t, 65536> t{};
  for (uint32_t mant = 1; mant < 1024; ++mant) {  // subnormals (mant 0: +-0, already 0)
    uint32_t e = 113, m = mant;                   // 113: float exponent of 2^-14
    while ((m & 0x400u) == 0) {
      m <<= 1;
      --e;
    }
    t[mant] = (e << 23) | ((m & 0x3ffu) << 13);
  }
  for (uint32_t exp = 1; exp < 31; ++exp) {
    for (uint32_t mant = 0; mant < 1024; ++mant)
      t[exp << 10 | mant] = (exp + 112) << 23 | mant << 13;
  }
  for (uint32_t mant = 0; mant < 1024; ++mant) t[31u << 10 | mant] = 0x7f800000u | mant << 13;
  for (uint32_t i = 0; i < 0x8000; ++i) t[i | 0x8000] = t[i] | 0x80000000u;
  return t;
}

// Rounds a double to a binary format with `kExpBits` exponent and `kMantBits` mantissa bits.
template <int kExpBits, int kMantBits>
uint32_t DoubleToSmallFloat(double d) {
  constexpr int kBias = (1 << (kExpBits - 1)) - 1;
  constexpr int kMinNormalExp = 1 - kBias;
  constexpr uint32_t kInf = ((1u << kExpBits) - 1) << kMantBits;
  constexpr int kShift = 52 - kMantBits;

  uint64_t x = std::bit_cast<uint64_t>(d);
  uint32_t sign = static_cast<uint32_t>(x >> 63) << (kExpBits + kMantBits);
  uint64_t abs = x & 0x7fffffffffffffffull;
  if (abs >= 0x7ff0000000000000ull) {
    if (abs == 0x7ff0000000000000ull) return sign | kInf;
    uint32_t payload = static_cast<uint32_t>(abs >> kShift) & ((1u << kMantBits) - 1);
    return sign | kInf | (1u << (kMantBits - 1)) | payload;  // quiet NaN
  }
  uint64_t exp_field = abs >> 52;
  if (exp_field == 0) return sign;  // double subnormals are far below any target subnormal
  int e = static_cast<int>(exp_field) - 1023;
  if (e >= kMinNormalExp) {
    uint64_t r = abs - (static_cast<uint64_t>(1023 - kBias) << 52);
    uint64_t lsb = (r >> kShift) & 1u;
    r += (1ull << (kShift - 1)) - 1 + lsb;
    r >>= kShift;
    if (r >= kInf) return sign | kInf;
    return sign | static_cast<uint32_t>(r);
  }
  // Target subnormal: count units of 2^(kMinNormalExp - kMantBits).
  int shift = kMinNormalExp - kMantBits - e + 52;
  if (shift > 63) return sign;
  uint64_t m = (abs & 0xfffffffffffffull) | (1ull << 52);
  uint64_t q = m >> shift;
  uint64_t rem = m & ((1ull << shift) - 1);
  uint64_t half = 1ull << (shift - 1);
  if (rem > half || (rem == half && (q & 1u))) ++q;
  return sign | static_cast<uint32_t>(q);  // q == 1 << kMantBits is the smallest normal: correct
}

#ifdef AICORE_HAVE_F16C_PATH
// F16C converts eight at a time. Its float-to-half rounding (nearest-even, NaNs quieted with
// their payload) is FloatToHalf's for every float; its half-to-float sets the quiet bit of a
// signalling NaN, which the table keeps as it is, so those lanes clear it again.
__attribute__((target("avx2,f16c"))) void HalvesToFloatsF16c(const uint16_t* src, float* dst,
                                                             uint64_t n) {
  const __m128i exp_quiet = _mm_set1_epi16(0x7e00);
  const __m128i signalling_exp = _mm_set1_epi16(0x7c00);
  const __m128i low_payload = _mm_set1_epi16(0x1ff);
  const __m256i float_quiet_bit = _mm256_set1_epi32(0x00400000);
  uint64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    __m128i snan =
        _mm_andnot_si128(_mm_cmpeq_epi16(_mm_and_si128(h, low_payload), _mm_setzero_si128()),
                         _mm_cmpeq_epi16(_mm_and_si128(h, exp_quiet), signalling_exp));
    __m256i bits = _mm256_castps_si256(_mm256_cvtph_ps(h));
    __m256i clear = _mm256_and_si256(_mm256_cvtepi16_epi32(snan), float_quiet_bit);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm256_andnot_si256(clear, bits));
  }
  for (; i < n; ++i) dst[i] = HalfToFloat(src[i]);
}

__attribute__((target("avx2,f16c"))) void FloatsToHalvesF16c(const float* src, uint16_t* dst,
                                                             uint64_t n) {
  uint64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i h =
        _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), h);
  }
  for (; i < n; ++i) dst[i] = FloatToHalf(src[i]);
}

bool HostHasF16c() {
  __builtin_cpu_init();  // may run before the library's constructors: initialise explicitly
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
}
const bool kHostHasF16c = HostHasF16c();
#endif

}  // namespace

void HalvesToFloats(const uint16_t* src, float* dst, uint64_t n) {
#ifdef AICORE_HAVE_F16C_PATH
  if (kHostHasF16c) return HalvesToFloatsF16c(src, dst, n);
#endif
  for (uint64_t i = 0; i < n; ++i) dst[i] = HalfToFloat(src[i]);
}

void FloatsToHalves(const float* src, uint16_t* dst, uint64_t n) {
#ifdef AICORE_HAVE_F16C_PATH
  if (kHostHasF16c) return FloatsToHalvesF16c(src, dst, n);
#endif
  for (uint64_t i = 0; i < n; ++i) dst[i] = FloatToHalf(src[i]);
}

constinit const std::array<uint32_t, 65536> fp16_detail::kHalfToFloatBits = MakeHalfTable();

uint16_t DoubleToHalf(double d) { return static_cast<uint16_t>(DoubleToSmallFloat<5, 10>(d)); }

uint16_t FloatToBf16(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

uint16_t DoubleToBf16(double d) { return static_cast<uint16_t>(DoubleToSmallFloat<8, 7>(d)); }

}  // namespace aicore::sim
