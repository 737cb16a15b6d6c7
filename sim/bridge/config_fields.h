// A config figure's protobuf field found by its dotted path ("memory.ub_bytes") and read or
// written through reflection, so a row of sim/core/soc_figures.def names its field once, as text,
// and serves the description and the resolved message in both directions. A path that names no
// field, or a field of another type than the row's member, is a simulator bug (SIM_CHECK).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace google::protobuf {
class Message;
}

namespace aicore::sim {

// The figure at `path` of `m` into `*out`. T is the field's C++ type: uint32_t, uint64_t, double,
// bool or std::string.
template <typename T>
void GetField(const google::protobuf::Message& m, std::string_view path, T* out);
// Sets the figure at `path` of `m`, creating the messages on the way.
template <typename T>
void SetField(google::protobuf::Message* m, std::string_view path, const T& v);

}  // namespace aicore::sim
