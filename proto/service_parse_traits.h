// How gRPC turns the bytes of the requests the daemon receives into messages. Compiled into every
// translation unit that uses the service (aicore_grpc adds it with -include), so gRPC's generic
// protobuf traits are never used for these types anywhere.
//
// Two differences from gRPC's generic traits: the IR's message-depth limit (ir_limits.h), so a
// kernel with 60 nested ifs is not refused by the transport; and a request that does not parse
// is not failed by gRPC (whose callback API answers UNIMPLEMENTED with an empty message) but
// handed to the handler empty and marked (ParseFailure), so the daemon answers INVALID_ARGUMENT
// naming the message.
#pragma once

#include <google/protobuf/message.h>
#include <google/protobuf/unknown_field_set.h>
#include <grpcpp/impl/codegen/proto_buffer_reader.h>
#include <grpcpp/impl/codegen/proto_buffer_writer.h>
#include <grpcpp/impl/codegen/proto_utils.h>
#include <grpcpp/impl/codegen/serialization_traits.h>

#include <optional>
#include <string>

#include "deep_parse.h"
#include "simulator.pb.h"

namespace aicore::service {

// An unknown field no version of the protocol uses (the largest field number protobuf allows).
inline constexpr int kParseFailureField = 536870911;

// Why the request could not be parsed, if it could not.
inline std::optional<std::string> ParseFailure(const google::protobuf::Message& message) {
  const google::protobuf::UnknownFieldSet& unknown =
      message.GetReflection()->GetUnknownFields(message);
  for (int i = 0; i < unknown.field_count(); ++i) {
    const google::protobuf::UnknownField& field = unknown.field(i);
    if (field.number() == kParseFailureField &&
        field.type() == google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED) {
      return field.length_delimited();
    }
  }
  return std::nullopt;
}

template <typename Request>
class RequestParseTraits {
 public:
  static grpc::Status Serialize(const grpc::protobuf::MessageLite& msg, grpc::ByteBuffer* bb,
                                bool* own_buffer) {
    return grpc::GenericSerialize<grpc::ProtoBufferWriter, Request>(msg, bb, own_buffer);
  }

  static grpc::Status Deserialize(grpc::ByteBuffer* buffer, grpc::protobuf::MessageLite* msg) {
    if (buffer == nullptr) return grpc::Status(grpc::StatusCode::INTERNAL, "No payload");
    auto* message = static_cast<google::protobuf::Message*>(msg);
    bool parsed = false;
    size_t bytes = 0;
    {
      grpc::ProtoBufferReader reader(buffer);
      if (!reader.status().ok()) return reader.status();
      bytes = buffer->Length();
      parsed = aicore::ir::ParseDeep(&reader, message);
    }
    buffer->Clear();
    if (!parsed) {
      message->Clear();
      message->GetReflection()->MutableUnknownFields(message)->AddLengthDelimited(
          kParseFailureField,
          "the " + message->GetDescriptor()->full_name() + " (" + std::to_string(bytes) +
              " bytes) is not a valid serialized message of that type, or nests deeper than " +
              std::to_string(aicore::ir::kMaxIrMessageDepth) +
              " levels; send it from a client generated from this daemon's proto/simulator.proto");
    }
    return grpc::Status::OK;
  }
};

}  // namespace aicore::service

#define AICORE_REQUEST_PARSE_TRAITS(Type)                          \
  template <>                                                      \
  class grpc::SerializationTraits<aicore::service::v1::Type, void> \
      : public aicore::service::RequestParseTraits<aicore::service::v1::Type> {};

AICORE_REQUEST_PARSE_TRAITS(CreateSessionRequest)
AICORE_REQUEST_PARSE_TRAITS(CloseSessionRequest)
AICORE_REQUEST_PARSE_TRAITS(MallocRequest)
AICORE_REQUEST_PARSE_TRAITS(FreeRequest)
AICORE_REQUEST_PARSE_TRAITS(ReadMemoryRequest)
AICORE_REQUEST_PARSE_TRAITS(LaunchRequest)
AICORE_REQUEST_PARSE_TRAITS(SynchronizeRequest)
AICORE_REQUEST_PARSE_TRAITS(RunRequest)

#undef AICORE_REQUEST_PARSE_TRAITS
