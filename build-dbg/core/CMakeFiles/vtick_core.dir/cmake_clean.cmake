file(REMOVE_RECURSE
  "CMakeFiles/vtick_core.dir/rng.cpp.o"
  "CMakeFiles/vtick_core.dir/rng.cpp.o.d"
  "CMakeFiles/vtick_core.dir/sg.cpp.o"
  "CMakeFiles/vtick_core.dir/sg.cpp.o.d"
  "CMakeFiles/vtick_core.dir/time.cpp.o"
  "CMakeFiles/vtick_core.dir/time.cpp.o.d"
  "libvtick_core.a"
  "libvtick_core.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/vtick_core.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
