// The metrics HTTP endpoint on Boost.Beast (see metrics_server.h). One thread runs one
// io_context; connections are served asynchronously on it, each with a deadline per read and
// write, so none of them can hold the others up or keep the destructor waiting.
#include "src/metrics_server.h"

#include <array>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <charconv>
#include <exception>
#include <optional>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>

namespace aicore::daemon {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

constexpr std::string_view kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";
constexpr std::string_view kTextContentType = "text/plain; charset=utf-8";
constexpr std::string_view kNotFoundBody =
    "not found: this endpoint serves /metrics and /healthz\n";
// After a failed accept (e.g. out of file descriptors), wait before the next so it cannot spin.
constexpr std::chrono::milliseconds kAcceptRetryDelay{100};
// What a closing connection reads and drops at most before it closes anyway.
constexpr size_t kMaxDiscardedBytes = 64 * 1024;

// "HOST:PORT" with HOST an IPv4 address, "[IPv6]" or localhost; port 0..65535.
bool ParseHostPort(const std::string& host_port, tcp::endpoint* endpoint, std::string* error) {
  const auto fail = [&](const std::string& why) {
    *error = "bad metrics listen address \"" + host_port + "\": " + why +
             "; expected HOST:PORT such as 127.0.0.1:9464 or [::1]:0";
    return false;
  };
  const size_t colon = host_port.rfind(':');
  if (colon == std::string::npos) return fail("no port");
  std::string host = host_port.substr(0, colon);
  const std::string port_text = host_port.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (host.empty()) return fail("no host (write 0.0.0.0 to listen on every interface)");
  unsigned port = 0;
  const auto [end, parse_error] =
      std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || parse_error != std::errc() ||
      end != port_text.data() + port_text.size() || port > 65535) {
    return fail("port \"" + port_text + "\" is not a number from 0 to 65535");
  }
  if (host == "localhost") host = "127.0.0.1";
  beast::error_code ec;
  const asio::ip::address address = asio::ip::make_address(host, ec);
  if (ec) return fail("\"" + host + "\" is not a numeric IPv4 or IPv6 address");
  *endpoint = tcp::endpoint(address, static_cast<unsigned short>(port));
  return true;
}

bool IsHttpParseError(const beast::error_code& ec) {
  return ec.category() == http::make_error_code(http::error::bad_target).category();
}

}  // namespace

class MetricsConnection;

struct MetricsServer::State {
  State(std::function<std::string()> render_fn, MetricsServerOptions server_options)
      : render(std::move(render_fn)), options(server_options) {}

  void Accept();
  void OnAccept(beast::error_code ec, tcp::socket socket);
  void Stop();

  const std::function<std::string()> render;
  const MetricsServerOptions options;
  int port = 0;
  bool stopping = false;  // touched on the io thread only
  // Open connections, so Stop can close idle and stuck ones. Declared before io so it outlives
  // any connection that the io_context's destruction might still release.
  std::unordered_map<MetricsConnection*, std::weak_ptr<MetricsConnection>> connections;
  asio::io_context io{1};
  tcp::acceptor acceptor{io};
  asio::steady_timer accept_retry{io};
  std::thread thread;
};

// One client connection: read a request, answer it, and read the next while keep-alive lasts.
class MetricsConnection : public std::enable_shared_from_this<MetricsConnection> {
 public:
  MetricsConnection(MetricsServer::State* server, tcp::socket socket)
      : server_(server), stream_(std::move(socket)) {}
  ~MetricsConnection() { server_->connections.erase(this); }

  void Start() {
    server_->connections.emplace(this, weak_from_this());
    ReadRequest();
  }

  void Close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.close();
  }

 private:
  void ReadRequest() {
    if (server_->stopping) return Close();
    parser_.emplace();
    parser_->header_limit(static_cast<uint32_t>(server_->options.header_limit));
    parser_->body_limit(server_->options.body_limit);
    stream_.expires_after(server_->options.io_timeout);
    http::async_read(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->OnRead(ec); });
  }

  void OnRead(beast::error_code ec) {
    if (ec == http::error::end_of_stream) {
      // The client closed between requests: finish our side quietly.
      beast::error_code ignored;
      stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
      return Close();
    }
    if (ec == http::error::header_limit) {
      return Reply(
          http::status::request_header_fields_too_large,
          "request head larger than " + std::to_string(server_->options.header_limit) + " bytes\n",
          false);
    }
    if (ec == http::error::body_limit) {
      return Reply(
          http::status::payload_too_large,
          "request body larger than " + std::to_string(server_->options.body_limit) + " bytes\n",
          false);
    }
    if (ec && IsHttpParseError(ec) && ec != http::error::partial_message) {
      return Reply(http::status::bad_request, "malformed HTTP request: " + ec.message() + "\n",
                   false);
    }
    // Timeout, reset, a request cut short, or Stop closing the socket.
    if (ec) return Close();
    Answer(parser_->get());
  }

  void Answer(const http::request<http::string_body>& request) {
    std::string_view target(request.target().data(), request.target().size());
    target = target.substr(0, target.find('?'));
    const bool keep_alive = request.keep_alive();
    if (target != "/metrics" && target != "/healthz") {
      return Reply(http::status::not_found, std::string(kNotFoundBody), keep_alive);
    }
    if (request.method() != http::verb::get) {
      // A response to HEAD carries no body, whatever its Content-Length says.
      std::string body = request.method() == http::verb::head
                             ? std::string()
                             : "method not allowed: " + std::string(target) + " answers GET only\n";
      return Reply(http::status::method_not_allowed, std::move(body), keep_alive);
    }
    if (target == "/healthz") return Reply(http::status::ok, "ok\n", keep_alive);
    std::string body;
    try {
      body = server_->render();
    } catch (const std::exception& e) {
      return Reply(http::status::internal_server_error,
                   std::string("rendering the metrics failed: ") + e.what() + "\n", keep_alive);
    }
    Reply(http::status::ok, std::move(body), keep_alive, kMetricsContentType);
  }

  void Reply(http::status status, std::string body, bool keep_alive,
             std::string_view content_type = kTextContentType) {
    response_ = {};
    response_.result(status);
    response_.version(11);
    response_.set(http::field::server, "aicore-simd");
    response_.set(http::field::content_type,
                  beast::string_view(content_type.data(), content_type.size()));
    if (status == http::status::method_not_allowed) response_.set(http::field::allow, "GET");
    response_.keep_alive(keep_alive && !server_->stopping);
    response_.body() = std::move(body);
    response_.prepare_payload();
    stream_.expires_after(server_->options.io_timeout);
    http::async_write(
        stream_, response_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->OnWrite(ec); });
  }

  void OnWrite(beast::error_code ec) {
    if (ec) return Close();
    if (!response_.keep_alive()) return FinishAndClose();
    ReadRequest();
  }

  // Ends our side, then discards what the client still sends until it closes (or the deadline
  // or a byte bound passes): closing with unread input would reset the connection and could
  // destroy the response before the client reads it (a refused oversized request, say).
  void FinishAndClose() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.expires_after(server_->options.io_timeout);
    DiscardInput();
  }

  void DiscardInput() {
    stream_.async_read_some(
        asio::buffer(discard_), [self = shared_from_this()](beast::error_code ec, size_t bytes) {
          self->discarded_ += bytes;
          if (ec || self->server_->stopping || self->discarded_ > kMaxDiscardedBytes) {
            return self->Close();
          }
          self->DiscardInput();
        });
  }

  MetricsServer::State* server_;
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::response<http::string_body> response_;
  std::array<char, 4096> discard_;
  size_t discarded_ = 0;
};

void MetricsServer::State::Accept() {
  acceptor.async_accept(
      io, [this](beast::error_code ec, tcp::socket socket) { OnAccept(ec, std::move(socket)); });
}

void MetricsServer::State::OnAccept(beast::error_code ec, tcp::socket socket) {
  if (stopping || ec == asio::error::operation_aborted) return;
  if (ec) {
    accept_retry.expires_after(kAcceptRetryDelay);
    accept_retry.async_wait([this](beast::error_code wait_error) {
      if (!wait_error && !stopping) Accept();
    });
    return;
  }
  if (connections.size() >= options.max_connections) {
    // Full: the client sees the connection close at once rather than wait for a slot.
    beast::error_code ignored;
    socket.close(ignored);
  } else {
    std::make_shared<MetricsConnection>(this, std::move(socket))->Start();
  }
  Accept();
}

void MetricsServer::State::Stop() {
  stopping = true;
  beast::error_code ignored;
  acceptor.close(ignored);
  accept_retry.cancel();
  // Copy first: closing may release a connection, which erases itself from the map.
  std::vector<std::shared_ptr<MetricsConnection>> open;
  for (auto& [raw, weak] : connections) {
    if (auto connection = weak.lock()) open.push_back(std::move(connection));
  }
  for (auto& connection : open) connection->Close();
}

std::unique_ptr<MetricsServer> MetricsServer::Start(const std::string& host_port,
                                                    std::function<std::string()> render,
                                                    std::string* error,
                                                    MetricsServerOptions options) {
  std::string ignored_error;
  if (error == nullptr) error = &ignored_error;
  tcp::endpoint endpoint;
  if (!ParseHostPort(host_port, &endpoint, error)) return nullptr;

  auto state = std::make_unique<State>(std::move(render), options);
  beast::error_code ec;
  const auto fail = [&](const char* step) {
    *error = "cannot listen for metrics on " + host_port + " (" + step + "): " + ec.message() +
             "; choose another address or port (port 0 picks a free one)";
    return nullptr;
  };
  state->acceptor.open(endpoint.protocol(), ec);
  if (ec) return fail("open");
  state->acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (ec) return fail("SO_REUSEADDR");
  state->acceptor.bind(endpoint, ec);
  if (ec) return fail("bind");
  state->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return fail("listen");
  state->port = state->acceptor.local_endpoint(ec).port();
  if (ec) return fail("local address");

  state->Accept();
  State* raw = state.get();
  state->thread = std::thread([raw] {
    // A handler that throws must not end the endpoint: run() may simply be called again.
    for (;;) {
      try {
        raw->io.run();
        return;
      } catch (...) {
      }
    }
  });
  return std::unique_ptr<MetricsServer>(new MetricsServer(std::move(state)));
}

MetricsServer::MetricsServer(std::unique_ptr<State> state) : state_(std::move(state)) {}

MetricsServer::~MetricsServer() {
  State* state = state_.get();
  asio::post(state->io, [state] { state->Stop(); });
  // run() returns once the acceptor and every connection are closed and their handlers done.
  state->thread.join();
}

int MetricsServer::port() const { return state_->port; }

}  // namespace aicore::daemon
