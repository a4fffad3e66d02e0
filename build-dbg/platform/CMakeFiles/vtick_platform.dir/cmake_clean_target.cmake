file(REMOVE_RECURSE
  "libvtick_platform.a"
)
