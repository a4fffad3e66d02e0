#include "cli/output.hpp"

#include <cerrno>
#include <csignal>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

namespace vtick {

namespace {

enum class Kind { Fd, Atomic, InPlace };

struct Where {
  Kind kind = Kind::Atomic;
  int fd = -1;          // Kind::Fd: 1 or 2
  std::string target;   // the file written (Atomic: renamed onto; InPlace: opened)
};

std::string what(const std::string& option, const std::string& path) {
  return option.empty() ? path : option + " " + path;
}

std::string cannot_write(const std::string& option, const std::string& path, int err) {
  return (option.empty() ? "" : option + ": ") + "cannot write " + path + (err ? std::string(": ") + std::strerror(err) : " (write error)");
}

// Where `path` is written, or why it cannot be ("" when it can).
std::string locate(const std::string& path, Where& w) {
  if (path.empty()) return "empty file name; give a file name, or - for stdout";
  if (path == "-") {
    w.kind = Kind::Fd;
    w.fd = 1;
    return "";
  }
  struct stat ls, st;
  if (lstat(path.c_str(), &ls) != 0) {
    if (errno != ENOENT) return std::strerror(errno);
    w.kind = Kind::Atomic;  // a new file
    w.target = path;
    return "";
  }
  if (stat(path.c_str(), &st) != 0) {  // a dangling symlink: create its target in place
    w.kind = Kind::InPlace;
    w.target = path;
    return "";
  }
  if (S_ISDIR(st.st_mode)) return "is a directory; give a file name, or - for stdout";
  for (int fd : {1, 2}) {
    struct stat fs;
    if (fstat(fd, &fs) == 0 && fs.st_dev == st.st_dev && fs.st_ino == st.st_ino) {
      w.kind = Kind::Fd;  // /dev/stdout, /proc/self/fd/1, or the file stdout is redirected to
      w.fd = fd;
      return "";
    }
  }
  if (S_ISREG(st.st_mode)) {
    w.kind = Kind::Atomic;
    w.target = path;
    if (S_ISLNK(ls.st_mode)) {  // rename onto the link's target, so the link stays
      char buf[PATH_MAX];
      if (!realpath(path.c_str(), buf)) return std::strerror(errno);
      w.target = buf;
    }
    return "";
  }
  w.kind = Kind::InPlace;  // FIFO, device, socket, or a symlink to one
  w.target = path;
  return "";
}

// The writer's own temporary name (host and pid): processes writing the same file at
// once (Slurm array tasks on several nodes, a shared directory) never mix their bytes.
std::string temp_name(const std::string& target) {
  char host[256] = "host";
  gethostname(host, sizeof host - 1);
  return target + ".tmp." + host + "." + std::to_string(getpid());
}

// Fault injection for the tests (tests/test_sweep.cpp, tests/test_explain.cpp), as the
// kernel's fail_* knobs: VTICK_FAULT_KILL=NAME:N kills this process with SIGKILL at its
// Nth commit of a file whose name is NAME ("*.json": any name ending so), once the bytes
// are in the temporary file and before the rename (the moment a crash leaves the most
// behind). Each process counts its own commits.
void fault_point(const std::string& target) {
  static const char* spec = std::getenv("VTICK_FAULT_KILL");
  static int seen = 0;
  if (!spec) return;
  std::string s(spec), name = s.substr(0, s.rfind(':'));
  int n = s.rfind(':') == std::string::npos ? 1 : std::atoi(s.c_str() + s.rfind(':') + 1);
  std::string base = target.substr(target.rfind('/') + 1);
  bool any = !name.empty() && name[0] == '*';
  if (any ? base.size() < name.size() - 1 || base.compare(base.size() - (name.size() - 1), name.size() - 1, name, 1) != 0 : base != name)
    return;
  if (++seen == n) raise(SIGKILL);
}

// A killed writer (SIGKILL, an OOM kill, a node lost under Slurm) leaves its temporary
// file behind. Once this process has written `target`, the temporaries of it that a
// process of this host no longer running left are removed; another host's are left alone
// (its processes cannot be checked from here).
void remove_stale_temps(const std::string& target) {
  char host[256] = "host";
  gethostname(host, sizeof host - 1);
  std::size_t slash = target.rfind('/');
  std::string dir = slash == std::string::npos ? "." : target.substr(0, slash + 1);
  std::string prefix = target.substr(slash == std::string::npos ? 0 : slash + 1) + ".tmp." + host + ".";
  DIR* d = opendir(dir.c_str());
  if (!d) return;
  while (const dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    std::string pid_text = name.substr(prefix.size());
    if (pid_text.empty() || pid_text.find_first_not_of("0123456789") != std::string::npos || pid_text.size() > 9) continue;
    pid_t pid = static_cast<pid_t>(std::atol(pid_text.c_str()));
    if (pid == getpid() || ::kill(pid, 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to judge
    ::unlink((slash == std::string::npos ? name : dir + name).c_str());
  }
  closedir(d);
}

}  // namespace

int check_output(const std::string& option, const std::string& path) {
  Where w;
  std::string why = locate(path, w);
  if (why.empty() && w.kind == Kind::Atomic) {
    std::string tmp = temp_name(w.target);
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (fd < 0) {
      spdlog::error("{}", cannot_write(option, path, errno));
      return 2;
    }
    ::close(fd);
    ::unlink(tmp.c_str());
  } else if (why.empty() && w.kind == Kind::InPlace && access(w.target.c_str(), W_OK) != 0 && errno != ENOENT) {
    spdlog::error("{}", cannot_write(option, path, errno));
    return 2;
  }
  if (why.empty()) return 0;
  spdlog::error("{}: {}", path.empty() ? option : what(option, path), why);
  return 2;
}

bool output_is_stdout(const std::string& path) {
  Where w;
  return locate(path, w).empty() && w.kind == Kind::Fd && w.fd == 1;
}

OutputFile::~OutputFile() {
  if (f_ && own_) std::fclose(f_);
  if (!tmp_.empty()) std::remove(tmp_.c_str());
}

bool OutputFile::fail(const std::string& msg, int err) {
  if (msg.empty()) spdlog::error("{}", cannot_write(option_, path_, err));
  else spdlog::error("{}: {}{}{}", what(option_, path_), msg, err ? ": " : "", err ? std::strerror(err) : "");
  if (f_ && own_) std::fclose(f_);
  f_ = nullptr;
  if (!tmp_.empty()) std::remove(tmp_.c_str());
  tmp_.clear();
  return false;
}

bool OutputFile::open() {
  Where w;
  std::string why = locate(path_, w);
  if (!why.empty()) return fail(why, 0);
  target_ = w.target;
  if (w.kind == Kind::Fd) {
    f_ = w.fd == 1 ? stdout : stderr;
    own_ = false;
    spdlog::debug("{}: written to file descriptor {}", what(option_, path_), w.fd);
    return true;
  }
  own_ = true;
  if (w.kind == Kind::Atomic) {
    tmp_ = temp_name(target_);
    f_ = std::fopen(tmp_.c_str(), "wb");
    if (!f_) {
      tmp_.clear();
      return fail("", errno);
    }
    spdlog::debug("{}: written to {} and renamed to {}", what(option_, path_), tmp_, target_);
    return true;
  }
  int fd = ::open(target_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);  // O_TRUNC: ignored by FIFOs and devices
  if (fd < 0 || !(f_ = fdopen(fd, "wb"))) {
    int err = errno;
    if (fd >= 0) ::close(fd);
    return fail("", err);
  }
  spdlog::debug("{}: not a regular file, written in place", what(option_, path_));
  return true;
}

void OutputFile::write(const std::string& text) {
  if (f_ && std::fwrite(text.data(), 1, text.size(), f_) != text.size() && !err_) err_ = errno;
}

bool OutputFile::commit() {
  if (!f_) return false;
  errno = 0;
  bool ok = std::fflush(f_) == 0 && !std::ferror(f_);
  int err = err_ ? err_ : errno;
  // a file renamed into place is on the disk first: after a crash the name holds the old
  // bytes or the new ones, never a file cut short
  if (ok && !tmp_.empty() && ::fsync(fileno(f_)) != 0) {
    ok = false;
    err = errno;
  }
  if (ok && !tmp_.empty()) fault_point(target_);
  if (own_) {
    if (std::fclose(f_) != 0 && ok) {
      ok = false;
      err = errno;
    }
  } else {
    std::clearerr(f_);
  }
  f_ = nullptr;
  if (!ok) return fail("", err);
  if (!tmp_.empty()) {
    if (std::rename(tmp_.c_str(), target_.c_str()) != 0) return fail("cannot rename the temporary file " + tmp_ + " onto it", errno);
    tmp_.clear();
    remove_stale_temps(target_);
  }
  return true;
}

bool make_dirs(const std::string& path) {
  std::string p;
  std::size_t i = 0;
  while (i != std::string::npos) {
    i = path.find('/', i + 1);
    p = path.substr(0, i);
    if (!p.empty() && mkdir(p.c_str(), 0777) != 0 && errno != EEXIST) return false;
  }
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return false;
  if (!S_ISDIR(st.st_mode)) {
    errno = ENOTDIR;
    return false;
  }
  return true;
}

bool gnuplot_available(const char* who) {
  if (std::system("command -v gnuplot >/dev/null 2>&1") == 0) return true;
  spdlog::error("{} needs gnuplot (Debian: apt-get install gnuplot-nox)", who);
  return false;
}

bool run_gnuplot(const std::string& script) {
  FILE* p = popen("gnuplot 2>&1", "w");
  if (!p) return false;
  std::fwrite(script.data(), 1, script.size(), p);
  return pclose(p) == 0;
}

bool write_output(const std::string& option, const std::string& path, const std::string& text) {
  OutputFile out(option, path);
  if (!out.open()) return false;
  out.write(text);
  return out.commit();
}

}  // namespace vtick
