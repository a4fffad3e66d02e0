#include "host/kvm.hpp"

namespace vtick {

KvmVcpu& Kvm::create_vcpu(int id, int hw_thread) {
  vcpus_.push_back(std::make_unique<KvmVcpu>(*this, id, *machine_.threads.at(static_cast<size_t>(hw_thread))));
  return *vcpus_.back();
}

}  // namespace vtick
