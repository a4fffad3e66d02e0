
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/core/rng.cpp" "core/CMakeFiles/vtick_core.dir/rng.cpp.o" "gcc" "core/CMakeFiles/vtick_core.dir/rng.cpp.o.d"
  "/work/main/core/sg.cpp" "core/CMakeFiles/vtick_core.dir/sg.cpp.o" "gcc" "core/CMakeFiles/vtick_core.dir/sg.cpp.o.d"
  "/work/main/core/time.cpp" "core/CMakeFiles/vtick_core.dir/time.cpp.o" "gcc" "core/CMakeFiles/vtick_core.dir/time.cpp.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
