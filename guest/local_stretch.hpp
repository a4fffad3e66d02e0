// Not kernel code: the simulation's lookahead for a guest CPU running one task on its own
// (core/sg.hpp local stretches). How long the task's program touches nothing another CPU
// reads or writes, as long as nothing arrives.
#pragma once

#include "core/time.hpp"

namespace vtick {

class GuestCpu;
struct Task;
struct Phase;

// Whether running `ph` now touches only `c`'s own state: `t` alone on the run queue,
// nothing pending for the scheduler, no trace, and a lock only `t` can take.
bool phase_is_local(GuestCpu& c, const Task& t, const Phase& ph);
// A lower bound on when `t`'s program next does something that is not local (the end
// of its loop of local phases); 0 when it cannot say.
sim_ns local_horizon(GuestCpu& c, const Task& t);

}  // namespace vtick
