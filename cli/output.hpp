// Every file an output option names goes through here:
//   "-"                      stdout;
//   the process's own stdout or stderr reached by a path (/dev/stdout, /proc/self/fd/1):
//                            that descriptor, never reopened or renamed over;
//   a regular file or a new path (also a symlink to a regular file: its target):
//                            a temporary file in the same directory, then a rename, so a
//                            reader never sees half a file;
//   any other existing path (a FIFO, a character device such as /dev/null or /dev/full,
//   a symlink to one): opened for writing in place, never renamed over;
//   ""  or a directory:      refused (bad input, exit 2).
// A write that fails (ENOSPC on /dev/full, a closed pipe, ...) is reported naming the
// option and path, and the command exits 1.
#pragma once
#include <cstdio>
#include <string>

namespace vtick {

// Checks an output path before any work is done; 0, or 2 after logging why not.
int check_output(const std::string& option, const std::string& path);

// Whether the path writes to this process's stdout ("-", /dev/stdout, ...).
bool output_is_stdout(const std::string& path);

// An output being written: open(), file() for fprintf, commit() at the end.
class OutputFile {
 public:
  OutputFile(std::string option, std::string path) : option_(std::move(option)), path_(std::move(path)) {}
  ~OutputFile();  // not committed: the temporary file is removed
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  bool open();    // false after logging
  std::FILE* file() const { return f_; }
  void write(const std::string& text);  // or fprintf(file(), ...): commit() reports any failure
  bool commit();  // flush, close, rename; false after logging

 private:
  bool fail(const std::string& what, int err);
  std::string option_, path_, target_, tmp_;
  std::FILE* f_ = nullptr;
  bool own_ = false;  // f_ is ours to close (not stdout / stderr)
  int err_ = 0;       // errno of the first failed write()
};

// The whole text at once through an OutputFile; false after logging.
bool write_output(const std::string& option, const std::string& path, const std::string& text);

// mkdir -p: `path` and every missing parent; false with errno set (ENOTDIR when a part of
// it is not a directory).
bool make_dirs(const std::string& path);

// Figures: whether gnuplot is there (else logs that `who` needs it, with the Debian
// package), and a script piped to it (false when gnuplot failed).
bool gnuplot_available(const char* who);
bool run_gnuplot(const std::string& script);

}  // namespace vtick
