#include "sim/fork_pool.hpp"

#include <cstdio>
#include <map>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

namespace vtick {

int default_jobs() {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

std::vector<int> run_forked(int n, int jobs, const std::function<int(int)>& job, const std::function<void(int, int)>& done) {
  std::vector<int> status(static_cast<size_t>(n), -1);
  std::map<pid_t, int> running;
  int next = 0;
  if (jobs < 1) jobs = 1;
  while (next < n || !running.empty()) {
    while (next < n && static_cast<int>(running.size()) < jobs) {
      std::fflush(nullptr);
      pid_t pid = fork();
      if (pid < 0) throw std::runtime_error("fork failed");
      if (pid == 0) {
        int rc = 1;
        try {
          rc = job(next);
        } catch (...) {
          rc = 1;
        }
        std::fflush(nullptr);
        _exit(rc);
      }
      running[pid] = next++;
    }
    int ws = 0;
    pid_t pid = waitpid(-1, &ws, 0);
    if (pid < 0) throw std::runtime_error("waitpid failed");
    auto it = running.find(pid);
    if (it == running.end()) continue;
    int i = it->second;
    running.erase(it);
    status[static_cast<size_t>(i)] = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
    if (done) done(i, status[static_cast<size_t>(i)]);
  }
  return status;
}

}  // namespace vtick
