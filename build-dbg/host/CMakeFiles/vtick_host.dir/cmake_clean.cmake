file(REMOVE_RECURSE
  "CMakeFiles/vtick_host.dir/host_sched.cpp.o"
  "CMakeFiles/vtick_host.dir/host_sched.cpp.o.d"
  "CMakeFiles/vtick_host.dir/host_threads.cpp.o"
  "CMakeFiles/vtick_host.dir/host_threads.cpp.o.d"
  "CMakeFiles/vtick_host.dir/kvm.cpp.o"
  "CMakeFiles/vtick_host.dir/kvm.cpp.o.d"
  "CMakeFiles/vtick_host.dir/kvm_halt.cpp.o"
  "CMakeFiles/vtick_host.dir/kvm_halt.cpp.o.d"
  "CMakeFiles/vtick_host.dir/kvm_vcpu.cpp.o"
  "CMakeFiles/vtick_host.dir/kvm_vcpu.cpp.o.d"
  "CMakeFiles/vtick_host.dir/timer_aware.cpp.o"
  "CMakeFiles/vtick_host.dir/timer_aware.cpp.o.d"
  "libvtick_host.a"
  "libvtick_host.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/vtick_host.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
