// The WriteMemory reactor (see write_memory_reactor.h). It reads the next chunk only after the
// previous one is written, so a fast client cannot queue unbounded data in the daemon.
#include "src/reactors/write_memory_reactor.h"

#include <memory>
#include <string>
#include <utility>

#include "src/rpc_status.h"
#include "src/rpc_support.h"
#include "src/session_manager.h"

namespace aicore::daemon {
namespace {

using detail::AcquireSession;
using detail::Guarded;
using detail::RequestLog;

class WriteMemoryReactor final : public grpc::ServerReadReactor<svc::MemoryChunk> {
 public:
  WriteMemoryReactor(SimulatorService* service, grpc::CallbackServerContext* ctx,
                     svc::WriteMemoryResponse* response)
      : service_(service),
        ctx_(ctx),
        response_(response),
        log_(service, ctx, "WriteMemory", RequestLog::Level::kDebugWhenOk) {
    StartRead(&chunk_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {  // client finished (or went away): report what was written
      response_->set_bytes_written(written_);
      FinishWith(grpc::Status::OK);
      return;
    }
    if (!session_) {
      if (grpc::Status s = AcquireSession(service_, ctx_, chunk_.session_id(), &session_);
          !s.ok()) {
        return FinishWith(s);
      }
    } else if (chunk_.session_id() != session_->id()) {
      return FinishWith({grpc::StatusCode::INVALID_ARGUMENT,
                         "every chunk of one WriteMemory call must name the same session"});
    }
    session_->lane().Post(SessionLane::Work::kMemory, [this] {
      grpc::Status status = Guarded([&] {
        const std::string& data = chunk_.data();
        if (!started_) call_start_ = chunk_.address();  // the call stays in this allocation
        started_ = true;
        return ToGrpcStatus(
            session_->device().Write(chunk_.address(), data.data(), data.size(), call_start_));
      });
      if (!status.ok()) return FinishWith(status);
      written_ += chunk_.data().size();
      StartRead(&chunk_);
    });
  }

  void OnDone() override {
    log_.Done(status_, "session=" + (session_ ? ShortId(session_->id()) : std::string("-")) +
                           " bytes=" + std::to_string(written_));
    delete this;
  }

 private:
  void FinishWith(const grpc::Status& status) {
    status_ = status;
    Finish(status);
  }

  SimulatorService* const service_;
  grpc::CallbackServerContext* const ctx_;
  svc::WriteMemoryResponse* const response_;
  RequestLog log_;
  svc::MemoryChunk chunk_;
  SessionUse session_;
  uint64_t written_ = 0;
  uint64_t call_start_ = 0;  // the first chunk's address
  bool started_ = false;
  grpc::Status status_;
};

}  // namespace

grpc::ServerReadReactor<svc::MemoryChunk>* NewWriteMemoryReactor(
    SimulatorService* service, grpc::CallbackServerContext* ctx,
    svc::WriteMemoryResponse* response) {
  return new WriteMemoryReactor(service, ctx, response);
}

}  // namespace aicore::daemon
