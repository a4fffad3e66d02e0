file(REMOVE_RECURSE
  "libvtick_host.a"
)
