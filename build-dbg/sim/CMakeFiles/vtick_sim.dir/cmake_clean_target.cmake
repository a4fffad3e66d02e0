file(REMOVE_RECURSE
  "libvtick_sim.a"
)
