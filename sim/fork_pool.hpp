// Runs independent simulations in forked child processes, at most `jobs` at a time.
#pragma once
#include <functional>
#include <vector>

namespace vtick {

// Calls job(i) in a child process for i in [0, n); the child's return value is its exit
// status. `done(i, status)` runs in the parent as each child ends (in completion order).
// Returns the exit statuses by index (-1 when a child died from a signal).
std::vector<int> run_forked(int n, int jobs, const std::function<int(int)>& job,
                            const std::function<void(int, int)>& done);

int default_jobs();  // online CPUs

}  // namespace vtick
