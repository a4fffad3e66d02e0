// Not kernel code: the fibers of core/fiber.hpp.
#include "core/fiber.hpp"

#include <memory>
#include <utility>
#include <vector>

#include <boost/context/fiber.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>

// AddressSanitizer must be told of each stack switch (its fake stacks and the bounds it
// checks are per stack); GCC and clang say they instrument in different ways.
#if defined(__SANITIZE_ADDRESS__)
#define VTICK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define VTICK_ASAN 1
#endif
#endif
#ifdef VTICK_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

namespace vtick::fiber {

namespace ctx = boost::context;

namespace {

struct Fiber {
  ctx::fiber cont;  // where it goes on when control passes to it (empty while it runs, and once ended)
  std::function<long()> body;
  const void* stack_bottom = nullptr;
  std::size_t stack_size = 0;
  bool ended = false;
};

std::vector<std::unique_ptr<Fiber>> g_fibers;  // by id
ctx::fiber g_driver;                            // the driver's continuation while a fiber runs
#ifdef VTICK_ASAN
const void* g_driver_bottom = nullptr;  // the driver's stack, as AddressSanitizer reported it
std::size_t g_driver_size = 0;
#endif
long g_current = kDriver;
long g_from = kDriver;  // who passed control last: the continuation a switch returns is theirs

ctx::fiber& cont(long id) { return id == kDriver ? g_driver : g_fibers[static_cast<std::size_t>(id)]->cont; }

// A guard page below each stack (an overflow faults instead of writing over another
// actor's stack), and the stack's bounds kept for AddressSanitizer.
struct RecordedStack {
  ctx::protected_fixedsize_stack inner;
  Fiber* f;
  ctx::stack_context allocate() {
    ctx::stack_context sc = inner.allocate();
    f->stack_bottom = static_cast<char*>(sc.sp) - sc.size;
    f->stack_size = sc.size;
    return sc;
  }
  void deallocate(ctx::stack_context& sc) noexcept { inner.deallocate(sc); }
};

#ifdef VTICK_ASAN
void asan_leave(void** fake, long to) {
  if (to == kDriver) __sanitizer_start_switch_fiber(fake, g_driver_bottom, g_driver_size);
  else {
    const Fiber& f = *g_fibers[static_cast<std::size_t>(to)];
    __sanitizer_start_switch_fiber(fake, f.stack_bottom, f.stack_size);
  }
}
void asan_arrive(void* fake) {
  const void* bottom = nullptr;
  std::size_t size = 0;
  __sanitizer_finish_switch_fiber(fake, &bottom, &size);
  if (g_from == kDriver) {  // the stack control came from: the driver's is learnt this way
    g_driver_bottom = bottom;
    g_driver_size = size;
  }
}
#endif

// Back on this stack: keep the continuation of the one who passed control here.
void landed(ctx::fiber&& back) { cont(g_from) = std::move(back); }

}  // namespace

void reset() {
  for (auto& f : g_fibers)
    if (f->cont && !f->ended) {
      // Suspended (or never started): destroying it would unwind its stack through the
      // model's handlers; the vtick scheduler ends every actor first (own_queue.cpp
      // drive()), so this does not happen. Left as it is if it ever does.
      new ctx::fiber(std::move(f->cont));
    }
  g_fibers.clear();
  g_current = g_from = kDriver;
}

long create(std::function<long()> body, std::size_t stack_bytes) {
  const long id = static_cast<long>(g_fibers.size());
  g_fibers.push_back(std::make_unique<Fiber>());
  Fiber* f = g_fibers.back().get();
  f->body = std::move(body);
  f->cont = ctx::fiber(std::allocator_arg, RecordedStack{ctx::protected_fixedsize_stack(stack_bytes), f},
                       [f, id](ctx::fiber&& back) {
#ifdef VTICK_ASAN
                         asan_arrive(nullptr);
#endif
                         landed(std::move(back));
                         long next = f->body();
                         f->body = nullptr;  // the actor's captures end on its own stack
                         f->ended = true;
                         g_from = id;
                         g_current = next;
#ifdef VTICK_ASAN
                         asan_leave(nullptr, next);  // (null: this stack is gone)
#endif
                         return std::move(cont(next));
                       });
  return id;
}

void switch_to(long to) {
  g_from = g_current;
  g_current = to;
#ifdef VTICK_ASAN
  void* fake = nullptr;
  asan_leave(&fake, to);
#endif
  ctx::fiber back = std::move(cont(to)).resume();
#ifdef VTICK_ASAN
  asan_arrive(fake);
#endif
  landed(std::move(back));
}

long count() { return static_cast<long>(g_fibers.size()); }

}  // namespace vtick::fiber
