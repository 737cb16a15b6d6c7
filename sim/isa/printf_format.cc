// Ascend C printf formats (see printf_format.h).
#include "sim/isa/printf_format.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

namespace aicore::sim {
namespace {

constexpr std::string_view kFlags = "-+ #0";
constexpr std::string_view kIntConversions = "diuxXo";
constexpr std::string_view kFloatConversions = "fFeEgGaA";
// Bounds one conversion's text: a width or precision of this many digits at most.
constexpr size_t kMaxSpecDigits = 3;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The <cinttypes> conversion of a 64-bit integer for `conv` ("ld" for 'd' on LP64 hosts).
const char* Int64Conversion(char conv) {
  switch (conv) {
    case 'd':
      return PRId64;
    case 'i':
      return PRIi64;
    case 'u':
      return PRIu64;
    case 'x':
      return PRIx64;
    case 'X':
      return PRIX64;
    default:
      return PRIo64;
  }
}

// One conversion: "%" + `spec` + `conversion` for `value`.
template <typename T>
void Append(std::string* out, const std::string& spec, const char* conversion, T value) {
  std::string fmt = "%" + spec + conversion;
  char buf[512];
  int n = std::snprintf(buf, sizeof buf, fmt.c_str(), value);
  if (n > 0) out->append(buf, static_cast<size_t>(n) < sizeof buf ? n : sizeof buf - 1);
}

}  // namespace

std::string ParsePrintfFormat(std::string_view format, std::vector<FormatPiece>* out) {
  out->clear();
  FormatPiece piece;
  size_t i = 0;
  while (i < format.size()) {
    char c = format[i++];
    if (c != '%') {
      piece.literal += c;
      continue;
    }
    if (i < format.size() && format[i] == '%') {
      piece.literal += '%';
      ++i;
      continue;
    }
    size_t start = i - 1;
    std::string spec;
    while (i < format.size() && kFlags.find(format[i]) != std::string_view::npos) {
      spec += format[i++];
    }
    size_t digits = 0;
    while (i < format.size() && IsDigit(format[i])) spec += format[i++], ++digits;
    if (i < format.size() && format[i] == '.') {
      spec += format[i++];
      size_t precision = 0;
      while (i < format.size() && IsDigit(format[i])) spec += format[i++], ++precision;
      digits = precision > digits ? precision : digits;
    }
    if (i < format.size() && format[i] == '*') {
      return "conversion at offset " + std::to_string(start) +
             ": a '*' width or precision is not supported; write the number into the format";
    }
    if (digits > kMaxSpecDigits) {
      return "conversion at offset " + std::to_string(start) +
             ": width or precision has more than 3 digits";
    }
    // Length modifiers only say how C reads the vararg; the value's own type decides here.
    while (i < format.size() && std::strchr("hlLqjzt", format[i]) != nullptr) ++i;
    if (i >= format.size()) {
      return "the format ends inside a conversion at offset " + std::to_string(start) +
             " (write %% for a literal '%')";
    }
    char conv = format[i++];
    bool known = kIntConversions.find(conv) != std::string_view::npos ||
                 kFloatConversions.find(conv) != std::string_view::npos || conv == 'c' ||
                 conv == 'p';
    if (conv == 's') {
      return "%s at offset " + std::to_string(start) +
             " has no string argument at run time: pass a Python str, which the frontend "
             "substitutes when it traces the kernel";
    }
    if (!known) {
      return std::string("unsupported conversion '%") + conv + "' at offset " +
             std::to_string(start) + " (use d i u x X o f F e E g G a A c p or %%)";
    }
    piece.conversion = conv;
    piece.spec = spec;
    out->push_back(std::move(piece));
    piece = FormatPiece();
  }
  if (!piece.literal.empty()) out->push_back(std::move(piece));
  return "";
}

namespace {

// A float as an integer conversion sees it: truncated toward zero, NaN as 0 and out-of-range
// values saturated (C leaves those undefined; the simulator must not be).
int64_t FloatToInt64(double f) {
  if (std::isnan(f)) return 0;
  if (f >= 9.2233720368547758e18) return std::numeric_limits<int64_t>::max();
  if (f <= -9.2233720368547758e18) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(f);
}

// Bytes that are not valid UTF-8 (a %c of 0x80..0xff on its own) become "\xNN": the report's
// text is a protobuf string, which every client would otherwise refuse to parse. Valid
// sequences, including ones a kernel prints byte by byte with %c, are kept.
std::string EscapeInvalidUtf8(const std::string& text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    size_t length = lead < 0x80           ? 1
                    : (lead >> 5) == 0x6  ? 2
                    : (lead >> 4) == 0xe  ? 3
                    : (lead >> 3) == 0x1e ? 4
                                          : 0;
    bool valid = length != 0 && i + length <= text.size();
    for (size_t k = 1; valid && k < length; ++k) {
      valid = (static_cast<unsigned char>(text[i + k]) & 0xc0) == 0x80;
    }
    if (valid && length > 1) {  // no overlong forms or surrogates
      const auto second = static_cast<unsigned char>(text[i + 1]);
      valid = !(lead == 0xc0 || lead == 0xc1) && !(lead == 0xe0 && second < 0xa0) &&
              !(lead == 0xed && second >= 0xa0) && !(lead == 0xf0 && second < 0x90) &&
              !(lead == 0xf4 && second >= 0x90) && lead <= 0xf4;
    }
    if (valid) {
      out.append(text, i, length);
      i += length;
    } else {
      out += "\\x";
      out += kHex[lead >> 4];
      out += kHex[lead & 0xf];
      ++i;
    }
  }
  return out;
}

}  // namespace

uint32_t CountConversions(const std::vector<FormatPiece>& pieces) {
  uint32_t n = 0;
  for (const FormatPiece& p : pieces) n += p.conversion != 0 ? 1 : 0;
  return n;
}

std::string FormatPrintf(const std::vector<FormatPiece>& pieces, const ScalarValue* values,
                         const DType* types) {
  std::string out;
  uint32_t arg = 0;
  for (const FormatPiece& p : pieces) {
    out += p.literal;
    if (p.conversion == 0) continue;
    ScalarValue v = values[arg];
    DType t = types[arg];
    ++arg;
    char conv = p.conversion;
    bool is_float = IsFloat(t);
    if (kFloatConversions.find(conv) != std::string_view::npos) {
      const char f[2] = {conv, 0};
      Append(&out, p.spec, f, is_float ? v.f : static_cast<double>(AsInt64(v, t)));
    } else if (conv == 'p') {
      // The 64-bit address in 0x-prefixed hex (glibc's %p would print 0 as "(nil)").
      out += "0x";
      Append(&out, p.spec, PRIx64, v.u);
    } else if (conv == 'c') {
      // C's %c prints the argument converted to unsigned char.
      const int64_t value = is_float ? FloatToInt64(v.f) : AsInt64(v, t);
      Append(&out, p.spec, "c", static_cast<int>(static_cast<unsigned char>(value & 0xff)));
    } else {
      int64_t i = is_float ? FloatToInt64(v.f) : AsInt64(v, t);
      bool is_signed_conv = conv == 'd' || conv == 'i';
      if (is_signed_conv) {
        Append(&out, p.spec, Int64Conversion(conv), i);
      } else {
        // Unsigned conversions of a narrower signed value see its two's complement in its
        // own width, as C's promotion would (printf("%x", -1) of an int32 is ffffffff).
        uint64_t u = static_cast<uint64_t>(i);
        uint32_t bits = DTypeBits(t);
        if (!is_float && bits < 64 && bits > 0) u &= (uint64_t{1} << bits) - 1;
        if (t == DType::kUInt64) u = v.u;
        Append(&out, p.spec, Int64Conversion(conv), u);
      }
    }
  }
  return EscapeInvalidUtf8(out);
}

}  // namespace aicore::sim
