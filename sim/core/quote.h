// Client-given text inside a message or log line: quoted, control and non-ASCII bytes escaped
// (\n, \t, \xNN), and cut to a bounded length with the full size said, so no input can make a
// message huge or put raw control characters into a log.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace aicore::sim {

inline constexpr size_t kQuotedMaxBytes = 64;

inline std::string Quoted(std::string_view text, size_t max_bytes = kQuotedMaxBytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  size_t shown = text.size() < max_bytes ? text.size() : max_bytes;
  for (size_t i = 0; i < shown; ++i) {
    auto ch = static_cast<unsigned char>(text[i]);
    if (ch == '\n') {
      out += "\\n";
    } else if (ch == '\t') {
      out += "\\t";
    } else if (ch == '"' || ch == '\\') {
      out += '\\';
      out += static_cast<char>(ch);
    } else if (ch < 0x20 || ch >= 0x7f) {
      out += "\\x";
      out += kHex[ch >> 4];
      out += kHex[ch & 0xf];
    } else {
      out += static_cast<char>(ch);
    }
  }
  out += '"';
  if (shown < text.size()) out += "... (" + std::to_string(text.size()) + " bytes)";
  return out;
}

}  // namespace aicore::sim
