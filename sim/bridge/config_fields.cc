// Fields by dotted path through protobuf reflection (see config_fields.h).
#include "sim/bridge/config_fields.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include <type_traits>

#include "sim/core/invariant.h"

namespace aicore::sim {
namespace {

namespace pb = google::protobuf;
using CppType = pb::FieldDescriptor::CppType;

// The field `name` of `m`'s type, which must exist, be singular and be of C++ type `type`.
const pb::FieldDescriptor* FieldOf(const pb::Message& m, std::string_view name, CppType type,
                                   std::string_view path) {
  const pb::FieldDescriptor* f = m.GetDescriptor()->FindFieldByName(std::string(name));
  SIM_CHECK(f != nullptr && !f->is_repeated() && f->cpp_type() == type,
            "config figure \"" + std::string(path) + "\" names no singular " +
                pb::FieldDescriptor::CppTypeName(type) + " field of " +
                m.GetDescriptor()->full_name());
  return f;
}

// The message holding the last component of `path` (created on the way when `M` is mutable), and
// that component in `*leaf`.
template <typename M>
M* Holder(M* m, std::string_view path, std::string_view* leaf) {
  std::string_view rest = path;
  for (size_t dot = rest.find('.'); dot != std::string_view::npos; dot = rest.find('.')) {
    const pb::FieldDescriptor* f =
        FieldOf(*m, rest.substr(0, dot), pb::FieldDescriptor::CPPTYPE_MESSAGE, path);
    if constexpr (std::is_const_v<M>) {
      m = &m->GetReflection()->GetMessage(*m, f);
    } else {
      m = m->GetReflection()->MutableMessage(m, f);
    }
    rest.remove_prefix(dot + 1);
  }
  *leaf = rest;
  return m;
}

// The reflection accessors of each C++ type a figure can have, one row per type.
template <typename T>
struct Access;
#define AICORE_FIELD_ACCESS(T, Name, CPPTYPE)                                   \
  template <>                                                                   \
  struct Access<T> {                                                            \
    static constexpr CppType kType = pb::FieldDescriptor::CPPTYPE;              \
    static T Get(const pb::Message& m, const pb::FieldDescriptor* f) {          \
      return m.GetReflection()->Get##Name(m, f);                                \
    }                                                                           \
    static void Set(pb::Message* m, const pb::FieldDescriptor* f, const T& v) { \
      m->GetReflection()->Set##Name(m, f, v);                                   \
    }                                                                           \
  };
AICORE_FIELD_ACCESS(uint32_t, UInt32, CPPTYPE_UINT32)
AICORE_FIELD_ACCESS(uint64_t, UInt64, CPPTYPE_UINT64)
AICORE_FIELD_ACCESS(double, Double, CPPTYPE_DOUBLE)
AICORE_FIELD_ACCESS(bool, Bool, CPPTYPE_BOOL)
AICORE_FIELD_ACCESS(std::string, String, CPPTYPE_STRING)
#undef AICORE_FIELD_ACCESS

}  // namespace

template <typename T>
void GetField(const pb::Message& m, std::string_view path, T* out) {
  std::string_view leaf;
  const pb::Message* holder = Holder(&m, path, &leaf);
  *out = Access<T>::Get(*holder, FieldOf(*holder, leaf, Access<T>::kType, path));
}

template <typename T>
void SetField(pb::Message* m, std::string_view path, const T& v) {
  std::string_view leaf;
  pb::Message* holder = Holder(m, path, &leaf);
  Access<T>::Set(holder, FieldOf(*holder, leaf, Access<T>::kType, path), v);
}

// The types of figures (see config_fields.h).
template void GetField(const pb::Message&, std::string_view, uint32_t*);
template void GetField(const pb::Message&, std::string_view, uint64_t*);
template void GetField(const pb::Message&, std::string_view, double*);
template void GetField(const pb::Message&, std::string_view, bool*);
template void GetField(const pb::Message&, std::string_view, std::string*);
template void SetField(pb::Message*, std::string_view, const uint32_t&);
template void SetField(pb::Message*, std::string_view, const uint64_t&);
template void SetField(pb::Message*, std::string_view, const double&);
template void SetField(pb::Message*, std::string_view, const bool&);
template void SetField(pb::Message*, std::string_view, const std::string&);

}  // namespace aicore::sim
