// Not kernel code: the stacks the vtick scheduler runs its actors on (Boost.Context fibers).
// Used by core/own_queue.cpp (and the bench's bare loops). Under run.scheduler = vtick
// every actor is a fiber inside one SimGrid actor, so passing control from one actor to
// another is one jump between their stacks (a few ns), where two SimGrid actors pass it
// through SimGrid's maestro in two simcalls (110-170 ns, docs/performance.md). The fibers switch symmetrically: any
// one to any other, and to the driver (the SimGrid actor's own stack, id -1).
#pragma once
#include <cstddef>
#include <functional>

namespace vtick::fiber {

constexpr long kDriver = -1;

// Forgets every fiber. Each must have ended (or never started): a suspended fiber's stack
// holds live objects that only its own unwinding may destroy.
void reset();
// A new fiber, not started: `body` runs on its own stack of `stack_bytes` when control first
// passes to it, and returns the id to pass control to when it ends. Its id: 0, 1, ...
long create(std::function<long()> body, std::size_t stack_bytes);
// Passes control from the running fiber (or the driver) to `to`; returns when some fiber
// passes control back to the caller.
void switch_to(long to);
long count();

}  // namespace vtick::fiber
