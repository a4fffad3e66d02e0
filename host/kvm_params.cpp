#include "host/kvm_params.hpp"

namespace vtick {

VTICK_PARAM_TABLE(KvmParams, VTICK_KVM_PARAMS)
VTICK_PARAM_CTOR(KvmParams)
VTICK_PARAM_TABLE(HostParams, VTICK_HOST_PARAMS)
VTICK_PARAM_CTOR(HostParams)

}  // namespace vtick
