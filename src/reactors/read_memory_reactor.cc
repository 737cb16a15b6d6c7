// The ReadMemory reactor (see read_memory_reactor.h). It reads the next chunk only after the
// previous one is sent, so a slow client holds at most one chunk in the daemon.
#include "src/reactors/read_memory_reactor.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include "src/rpc_status.h"
#include "src/rpc_support.h"
#include "src/session_manager.h"

namespace aicore::daemon {
namespace {

using detail::AcquireSession;
using detail::Guarded;
using detail::kDefaultChunkBytes;
using detail::kMaxChunkBytes;
using detail::RequestLog;

class ReadMemoryReactor final : public grpc::ServerWriteReactor<svc::MemoryChunk> {
 public:
  ReadMemoryReactor(SimulatorService* service, grpc::CallbackServerContext* ctx,
                    const svc::ReadMemoryRequest* request)
      : request_(request), log_(service, ctx, "ReadMemory", RequestLog::Level::kDebugWhenOk) {
    if (grpc::Status parsed = detail::CheckParsed(*request); !parsed.ok()) {
      FinishWith(parsed);
      return;
    }
    if (grpc::Status s = AcquireSession(service, ctx, request->session_id(), &session_); !s.ok()) {
      FinishWith(s);
      return;
    }
    if (request->address() + request->bytes() < request->address()) {
      FinishWith({grpc::StatusCode::INVALID_ARGUMENT, "address + bytes overflows 64 bits"});
      return;
    }
    chunk_bytes_ = request->chunk_bytes() == 0
                       ? kDefaultChunkBytes
                       : std::min<uint64_t>(request->chunk_bytes(), kMaxChunkBytes);
    NextChunk();
  }

  void OnWriteDone(bool ok) override {
    if (!ok) return FinishWith({grpc::StatusCode::CANCELLED, "the client stopped reading"});
    NextChunk();
  }

  void OnDone() override {
    log_.Done(status_, "session=" + (session_ ? ShortId(session_->id()) : std::string("-")) +
                           " bytes=" + std::to_string(offset_));
    delete this;
  }

 private:
  void NextChunk() {
    if (offset_ >= request_->bytes()) return FinishWith(grpc::Status::OK);
    session_->lane().Post(SessionLane::Work::kMemory, [this] {
      const uint64_t n = std::min(chunk_bytes_, request_->bytes() - offset_);
      grpc::Status status = Guarded([&] {
        chunk_.set_address(request_->address() + offset_);
        std::string* data = chunk_.mutable_data();
        data->resize(n);
        return ToGrpcStatus(
            session_->device().Read(chunk_.address(), data->data(), n, request_->address()));
      });
      if (!status.ok()) return FinishWith(status);
      offset_ += n;
      StartWrite(&chunk_);
    });
  }

  void FinishWith(const grpc::Status& status) {
    status_ = status;
    Finish(status);
  }

  const svc::ReadMemoryRequest* const request_;
  RequestLog log_;
  SessionUse session_;
  svc::MemoryChunk chunk_;
  uint64_t chunk_bytes_ = kDefaultChunkBytes;
  uint64_t offset_ = 0;
  grpc::Status status_;
};

}  // namespace

grpc::ServerWriteReactor<svc::MemoryChunk>* NewReadMemoryReactor(
    SimulatorService* service, grpc::CallbackServerContext* ctx,
    const svc::ReadMemoryRequest* request) {
  return new ReadMemoryReactor(service, ctx, request);
}

}  // namespace aicore::daemon
