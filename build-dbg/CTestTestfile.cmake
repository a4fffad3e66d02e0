# CMake generated Testfile for 
# Source directory: /work/main
# Build directory: /work/main/build-dbg
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
subdirs("core")
subdirs("platform")
subdirs("guest")
subdirs("host")
subdirs("sim")
subdirs("cli")
subdirs("bench")
subdirs("tests")
