// sysbench OLTP (oltp_read_write.lua) against a MySQL-like server in the guest: client and
// server threads per connection, a table lock, commits flushed by a log writer through
// the block device, a purge thread.
#include "guest/workloads/kinds.hpp"

namespace vtick {

namespace {
class Oltp final : public Workload {
 public:
  void install(GuestKernel& k, const WorkloadSpec& w, std::uint64_t seed) override {
    const int n = k.nr_cpus();
    int table = k.add_mutex(), log = k.add_mutex();
    int log_req = k.add_event(), commit_done = k.add_event();
    double j = w.get("jitter");
    int queries = w.geti("queries");
    for (int i = 0; i < count_or_vcpus(w, "clients", n); ++i) {
      int req = k.add_event(), rep = k.add_event();
      std::vector<Phase> client = {{PhaseKind::Run, w.getd("client_work"), -1, j},
                                   {PhaseKind::Wake, 0, req},
                                   {PhaseKind::Wait, 0, rep},
                                   {PhaseKind::Loop, queries, 0}};
      std::vector<Phase> server;
      if (queries > 1)
        server = {{PhaseKind::Wait, 0, req},
                  {PhaseKind::Run, w.getd("query_work"), -1, j},
                  {PhaseKind::Lock, 0, table},
                  {PhaseKind::Run, w.getd("lock_work"), -1, j},
                  {PhaseKind::Unlock, 0, table},
                  {PhaseKind::Wake, 0, rep},
                  {PhaseKind::Loop, queries - 1, 0}};
      // the commit: write the redo record under the log mutex, hand it to the log
      // writer and wait for its flush
      std::vector<Phase> commit = {{PhaseKind::Wait, 0, req},
                                   {PhaseKind::Run, w.getd("commit_work"), -1, j},
                                   {PhaseKind::Lock, 0, log},
                                   {PhaseKind::Run, w.getd("lock_work"), -1, j},
                                   {PhaseKind::Unlock, 0, log},
                                   {PhaseKind::Wake, 0, log_req},
                                   {PhaseKind::Wait, 0, commit_done},
                                   {PhaseKind::Wake, 0, rep}};
      server.insert(server.end(), commit.begin(), commit.end());
      Task& c = add_task(k, "sysbench-" + std::to_string(i), client, i % n, all_cpus(n));
      c.measure_ops = true;
      clients_.push_back(&c);
      add_task(k, "mysqld-conn" + std::to_string(i), server, (i + 1) % n, all_cpus(n));
    }
    add_task(k, "log-writer", {{PhaseKind::Wait, 0, log_req}, {PhaseKind::Run, w.getd("log_work"), -1, j}, {PhaseKind::Io, 0, -1},
                              {PhaseKind::Wake, 0, commit_done}}, 0, all_cpus(n));
    Task& purge = add_task(k, "purge", {{PhaseKind::Sleep, w.getd("purge_period"), -1, 0.1}, {PhaseKind::Run, w.getd("purge_work"), -1, j}},
                             n - 1, all_cpus(n));
    Rng rng(seed, "workload/oltp/purge");
    k.delay_start(purge, rng.uniform(0, w.getd("purge_period")));
  }
  std::uint64_t ops(const GuestKernel&) const override {  // transactions: the clients'
    std::uint64_t ops = 0;
    for (const Task* c : clients_) ops += c->ops;
    return ops;
  }

 private:
  std::vector<const Task*> clients_;
};
}  // namespace

WorkloadKind oltp_kind() {
  return {WorkloadKindId::Oltp, "sysbench OLTP against a MySQL-like server in the guest: one client and one server thread per connection, "
               "queries over a local socket, a table lock, commits flushed by a log writer through the block device, a purge thread",
       "transactions",
       {{"clients", 'i', 0, 0, 4096, "client threads = connections = server threads (0: one per vCPU)"},
        {"queries", 'i', 18, 1, 1000, "statements per transaction, the last is the commit (oltp_read_write: 18)"},
        {"client_work", 'd', 15 * US, 0, 10 * MS, "client CPU per statement (Lua, protocol) [EST]"},
        {"query_work", 'd', 40 * US, 0, 10 * MS, "server CPU per statement (parse, execute) [EST]"},
        {"lock_work", 'd', 5 * US, 0, 10 * MS, "server CPU under the table lock per statement [EST]"},
        {"commit_work", 'd', 30 * US, 0, 10 * MS, "server CPU for the commit before the log flush [EST]"},
        {"log_work", 'd', 10 * US, 0, 10 * MS, "log writer CPU per flush [EST]"},
        {"purge_period", 'd', 10 * MS, 1 * MS, 10 * S, "purge thread period"},
        {"purge_work", 'd', 300 * US, 0, 100 * MS, "purge thread CPU per period [EST]"},
        {"jitter", 'f', 0.3, 0, 1, "CPU bursts vary uniformly by +/- this fraction"}},
          factory<Oltp>()};
}

}  // namespace vtick
