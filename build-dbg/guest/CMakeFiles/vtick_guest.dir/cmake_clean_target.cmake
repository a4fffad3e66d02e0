file(REMOVE_RECURSE
  "libvtick_guest.a"
)
