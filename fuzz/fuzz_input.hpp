// The fuzz targets' common part: the input as a file (the loaders read paths), and the
// rule that only InputError may leave a loader (anything else escapes to libFuzzer, which
// reports it as a crash).
#pragma once
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>
#include <unistd.h>

namespace vtick::fuzz {

// The input written to a file of this process (the same path each time), in memory
// (/dev/shm) where there is one: a write to /tmp once stalled in open() for a second while
// a build ran beside, which libFuzzer reported as a hang of the loader.
inline std::string as_file(const std::uint8_t* data, std::size_t size, const char* ext) {
  static const std::string dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  std::string path = dir + "/vtick-fuzz-" + std::to_string(getpid()) + ext;
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}

inline std::string as_text(const std::uint8_t* data, std::size_t size) { return std::string(reinterpret_cast<const char*>(data), size); }

}  // namespace vtick::fuzz
