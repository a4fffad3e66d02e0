#include "host/kvm.hpp"

#include "core/sg.hpp"

namespace vtick {

KvmVcpu& Kvm::create_vcpu(int id, int hw_thread) {
  vcpus_.push_back(std::make_unique<KvmVcpu>(*this, id, *machine_.threads.at(static_cast<size_t>(hw_thread))));
  return *vcpus_.back();
}

void Kvm::io_submit(KvmVcpu& from, std::uint64_t request, sim_ns at) {
  from.inject_device_irq(request, at + params_.io_latency);
}

}  // namespace vtick
