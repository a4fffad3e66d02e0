// User space, not kernel code: a task's program of phases (guest/task.hpp) run on its CPU,
// as an application's main loop is. Each phase is user work or the system calls it makes
// (guest/syscalls.cpp); the kernel's scheduler calls in here to run the current task.
#pragma once

namespace vtick {

class GuestCpu;
struct Task;

// Runs `t`'s program on `c` until the task blocks or the CPU must reschedule.
void run_task_program(GuestCpu& c, Task& t);

}  // namespace vtick
