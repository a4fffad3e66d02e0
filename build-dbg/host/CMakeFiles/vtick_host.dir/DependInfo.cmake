
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/host/host_sched.cpp" "host/CMakeFiles/vtick_host.dir/host_sched.cpp.o" "gcc" "host/CMakeFiles/vtick_host.dir/host_sched.cpp.o.d"
  "/work/main/host/host_threads.cpp" "host/CMakeFiles/vtick_host.dir/host_threads.cpp.o" "gcc" "host/CMakeFiles/vtick_host.dir/host_threads.cpp.o.d"
  "/work/main/host/kvm.cpp" "host/CMakeFiles/vtick_host.dir/kvm.cpp.o" "gcc" "host/CMakeFiles/vtick_host.dir/kvm.cpp.o.d"
  "/work/main/host/kvm_halt.cpp" "host/CMakeFiles/vtick_host.dir/kvm_halt.cpp.o" "gcc" "host/CMakeFiles/vtick_host.dir/kvm_halt.cpp.o.d"
  "/work/main/host/kvm_vcpu.cpp" "host/CMakeFiles/vtick_host.dir/kvm_vcpu.cpp.o" "gcc" "host/CMakeFiles/vtick_host.dir/kvm_vcpu.cpp.o.d"
  "/work/main/host/timer_aware.cpp" "host/CMakeFiles/vtick_host.dir/timer_aware.cpp.o" "gcc" "host/CMakeFiles/vtick_host.dir/timer_aware.cpp.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/main/build-dbg/platform/CMakeFiles/vtick_platform.dir/DependInfo.cmake"
  "/work/main/build-dbg/core/CMakeFiles/vtick_core.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
