// Protobuf parsing with the IR's message-depth limit (ir_limits.h) instead of protobuf's default,
// for every place that parses a message carrying a kernel from bytes.
#pragma once

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream.h>
#include <google/protobuf/message_lite.h>

#include <string>

#include "ir_limits.h"

namespace aicore::ir {

// Parses all of `input` into `message`; false if the bytes are not one valid message.
inline bool ParseDeep(google::protobuf::io::ZeroCopyInputStream* input,
                      google::protobuf::MessageLite* message) {
  google::protobuf::io::CodedInputStream coded(input);
  coded.SetRecursionLimit(kMaxIrMessageDepth);
  return message->ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage();
}

inline bool ParseDeep(const std::string& bytes, google::protobuf::MessageLite* message) {
  google::protobuf::io::CodedInputStream coded(reinterpret_cast<const uint8_t*>(bytes.data()),
                                               static_cast<int>(bytes.size()));
  coded.SetRecursionLimit(kMaxIrMessageDepth);
  return message->ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage();
}

}  // namespace aicore::ir
