// Starts the real aicore-simd binary for end-to-end tests: --listen 127.0.0.1:0, the port read
// from its first stdout line, stderr kept in a file for failure messages, SIGTERM on teardown.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace aicore::testing {

class DaemonProcess {
 public:
  // Starts `AICORE_SIMD_PATH --listen 127.0.0.1:0 extra_args...` and waits for its first line.
  explicit DaemonProcess(const std::vector<std::string>& extra_args = {});
  ~DaemonProcess();
  DaemonProcess(const DaemonProcess&) = delete;
  DaemonProcess& operator=(const DaemonProcess&) = delete;

  bool started() const { return port_ != 0; }
  const std::string& first_line() const { return first_line_; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  pid_t pid() const { return pid_; }
  std::string Stderr() const;  // the daemon's log so far

  // Sends `signal` and waits up to `timeout` for the process to exit. Returns its wait status, or
  // nothing if it is still running (it is then killed by the destructor).
  std::optional<int> SignalAndWait(int signal, std::chrono::milliseconds timeout);

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::string first_line_;
  std::string stderr_path_;
  int stdout_fd_ = -1;  // read end of the daemon's stdout, open while it runs
  bool reaped_ = false;
};

}  // namespace aicore::testing
