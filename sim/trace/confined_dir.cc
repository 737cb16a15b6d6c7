// Folders and files by descriptor (see confined_dir.h).
#include "sim/trace/confined_dir.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <streambuf>
#include <utility>

namespace aicore::sim {
namespace {

std::string Why(int error) { return std::strerror(error); }

// A write-only stream buffer over a file descriptor, so the renderers' std::ostream output goes
// to a file opened with openat.
class FdBuffer : public std::streambuf {
 public:
  explicit FdBuffer(int fd) : fd_(fd) { setp(buffer_, buffer_ + sizeof(buffer_)); }
  ~FdBuffer() override { sync(); }
  bool failed() const { return failed_; }

 protected:
  int_type overflow(int_type c) override {
    if (Flush() != 0) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override { return Flush(); }

 private:
  int Flush() {
    const char* p = pbase();
    while (p < pptr()) {
      const ssize_t n = ::write(fd_, p, pptr() - p);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        failed_ = true;
        return -1;
      }
      p += n;
    }
    setp(buffer_, buffer_ + sizeof(buffer_));
    return 0;
  }
  int fd_;
  bool failed_ = false;
  char buffer_[1 << 16];
};

bool IsLink(int dir_fd, const std::string& name) {
  struct stat st {};
  return ::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
}

bool OneComponent(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos;
}

}  // namespace

ConfinedDir::ConfinedDir(ConfinedDir&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {}

ConfinedDir& ConfinedDir::operator=(ConfinedDir&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
  }
  return *this;
}

ConfinedDir::~ConfinedDir() {
  if (fd_ >= 0) ::close(fd_);
}

StatusOr<ConfinedDir> ConfinedDir::Open(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return FailedPrecondition("cannot create the trace folder " + dir + ": " + ec.message());
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return FailedPrecondition("cannot open the trace folder " + dir + ": " + Why(errno));
  return ConfinedDir(fd, dir);
}

StatusOr<ConfinedDir> ConfinedDir::OpenBelow(const std::string& root, const std::string& relative) {
  const int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return FailedPrecondition("cannot open the trace root " + root + ": " + Why(errno));
  ConfinedDir dir(fd, root);
  for (const auto& part : std::filesystem::path(relative)) {
    const std::string name = part.string();
    if (name.empty() || name == ".") continue;
    if (!OneComponent(name)) {
      return InvalidArgument("trace folder " + relative + " below " + root + " has a \"" + name +
                             "\" component");
    }
    StatusOr<ConfinedDir> sub = dir.Sub(name);
    if (!sub.ok()) return sub.status();
    dir = std::move(*sub);
  }
  return dir;
}

StatusOr<ConfinedDir> ConfinedDir::Sub(const std::string& name, bool* created) const {
  const std::string path = path_ + "/" + name;
  if (!OneComponent(name)) return InvalidArgument("not a folder name: " + path);
  const bool made = ::mkdirat(fd_, name.c_str(), 0755) == 0;
  if (!made && errno != EEXIST) {
    return FailedPrecondition("cannot create the trace folder " + path + ": " + Why(errno));
  }
  if (created != nullptr) *created = made;
  const int fd = ::openat(fd_, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    // A link fails with ELOOP, or ENOTDIR when O_DIRECTORY is checked first: look at it.
    if (IsLink(fd_, name)) {
      return FailedPrecondition("the trace folder " + path +
                                " is a symbolic link; traces are never written through one");
    }
    return FailedPrecondition("cannot open the trace folder " + path + ": " + Why(error));
  }
  return ConfinedDir(fd, path);
}

Status ConfinedDir::WriteFile(const std::string& name,
                              const std::function<void(std::ostream&)>& write) const {
  const std::string path = path_ + "/" + name;
  if (!OneComponent(name)) return InvalidArgument("not a file name: " + path);
  const int fd =
      ::openat(fd_, name.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int error = errno;
    if (IsLink(fd_, name)) {
      return FailedPrecondition("the trace file " + path +
                                " is a symbolic link; traces are never written through one");
    }
    return FailedPrecondition("cannot create the trace file " + path + ": " + Why(error));
  }
  bool failed = false;
  {
    FdBuffer buffer(fd);
    std::ostream out(&buffer);
    write(out);
    out.flush();
    failed = buffer.failed() || !out;
  }
  if (::close(fd) != 0) failed = true;
  if (failed) return FailedPrecondition("cannot write the trace file " + path);
  return Status::Ok();
}

}  // namespace aicore::sim
