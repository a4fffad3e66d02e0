file(REMOVE_RECURSE
  "libvtick_core.a"
)
