
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/platform/arch.cpp" "platform/CMakeFiles/vtick_platform.dir/arch.cpp.o" "gcc" "platform/CMakeFiles/vtick_platform.dir/arch.cpp.o.d"
  "/work/main/platform/hw_thread.cpp" "platform/CMakeFiles/vtick_platform.dir/hw_thread.cpp.o" "gcc" "platform/CMakeFiles/vtick_platform.dir/hw_thread.cpp.o.d"
  "/work/main/platform/sg_platform.cpp" "platform/CMakeFiles/vtick_platform.dir/sg_platform.cpp.o" "gcc" "platform/CMakeFiles/vtick_platform.dir/sg_platform.cpp.o.d"
  "/work/main/platform/shapes.cpp" "platform/CMakeFiles/vtick_platform.dir/shapes.cpp.o" "gcc" "platform/CMakeFiles/vtick_platform.dir/shapes.cpp.o.d"
  "/work/main/platform/topology.cpp" "platform/CMakeFiles/vtick_platform.dir/topology.cpp.o" "gcc" "platform/CMakeFiles/vtick_platform.dir/topology.cpp.o.d"
  "/work/main/platform/vhw.cpp" "platform/CMakeFiles/vtick_platform.dir/vhw.cpp.o" "gcc" "platform/CMakeFiles/vtick_platform.dir/vhw.cpp.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/main/build-dbg/core/CMakeFiles/vtick_core.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
