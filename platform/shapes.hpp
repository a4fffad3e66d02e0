// Shape catalog: the cloud VM shapes of domain/mission.md and the host cores they use.
#pragma once
#include <string>
#include <vector>

namespace vtick {

struct Shape {
  std::string name;        // "VM.Standard2.1"
  std::string arch;        // key of the cost table: "skylake-sp", "milan", "altra"
  int cores = 1;           // host cores given to the VM
  int threads_per_core = 1;
  int vcpus() const { return cores * threads_per_core; }
};

struct ShapeFamily {
  std::string prefix;      // "VM.Standard2."
  std::string arch;
  int threads_per_core;
  std::vector<int> sizes;  // allowed N (OCPUs)
  std::string description;
};

const std::vector<ShapeFamily>& shape_families();

// Resolves "VM.Standard2.1" etc. "generic" is resolved by the scenario from
// platform.arch / cores / threads_per_core. Returns false if unknown.
bool lookup_shape(const std::string& name, Shape& out);
std::string shape_allowed_text();  // for error messages

}  // namespace vtick
