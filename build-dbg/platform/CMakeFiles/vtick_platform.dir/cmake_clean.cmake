file(REMOVE_RECURSE
  "CMakeFiles/vtick_platform.dir/arch.cpp.o"
  "CMakeFiles/vtick_platform.dir/arch.cpp.o.d"
  "CMakeFiles/vtick_platform.dir/hw_thread.cpp.o"
  "CMakeFiles/vtick_platform.dir/hw_thread.cpp.o.d"
  "CMakeFiles/vtick_platform.dir/sg_platform.cpp.o"
  "CMakeFiles/vtick_platform.dir/sg_platform.cpp.o.d"
  "CMakeFiles/vtick_platform.dir/shapes.cpp.o"
  "CMakeFiles/vtick_platform.dir/shapes.cpp.o.d"
  "CMakeFiles/vtick_platform.dir/topology.cpp.o"
  "CMakeFiles/vtick_platform.dir/topology.cpp.o.d"
  "CMakeFiles/vtick_platform.dir/vhw.cpp.o"
  "CMakeFiles/vtick_platform.dir/vhw.cpp.o.d"
  "libvtick_platform.a"
  "libvtick_platform.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/vtick_platform.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
