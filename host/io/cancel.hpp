// Stopping a long run early at a front end's request: a front end that can be
// interrupted without ending the process (the Python package: Ctrl-C raises KeyboardInterrupt)
// installs a hook; the long loops (a study's chunks and pieces) call check_cancelled() between
// pieces of work, which throws Cancelled when the hook says stop. The run then unwinds like any
// error: its OutFiles are destroyed uncommitted, so their temporaries are removed and no target
// is written. Without a hook (the CLI, whose SIGINT ends the process through OutFile's handler) a
// check is one atomic load and never throws: no behaviour change.
#pragma once
#include <cstdint>
#include <exception>

namespace impact::io {

// What check_cancelled() throws; deliberately not a std::runtime_error, so that no handler of
// ordinary errors takes it for one.
struct Cancelled : std::exception {
  const char* what() const noexcept override { return "cancelled"; }
};

// true: stop now. Called from whichever thread runs a check (a study's second thread included),
// possibly from several at once: it must be thread-safe and cheap (it runs between pieces of
// about a thousand instances).
using CancelHook = bool (*)();

// Installs `hook` for the whole process (nullptr: none, the default); returns the previous one.
CancelHook set_cancel_hook(CancelHook hook) noexcept;

// Throws Cancelled when a hook is installed and returns true.
void check_cancelled();

// The flag an integrator polls on the host to end an instance early when a front end stops its
// run (LawOptions::stop, set by engine::stoppable()): a front end raises it with its hook's stop, so
// that every batch evaluated with it raised is followed by a check_cancelled() that throws, and no
// row of such a batch is used. Raised while any stop is pending; a plain int read by the laws (the
// header-only physics knows no atomics), written only here.
const volatile std::int32_t* stop_flag() noexcept;
void raise_stop_flag(bool on) noexcept;

// How many stops were raised in this process so far (raise_stop_flag(true) counts one before it
// raises the flag). A run given the flag reads it before a piece and passes it to
// check_cancelled(since) after: a stop raised meanwhile (its own or another run's, even one that
// has ended since and lowered the flag) may have ended some of the piece's instances early, so the
// piece is never used: Cancelled is thrown.
std::uint64_t stop_epoch() noexcept;
void check_cancelled(std::uint64_t since);

// Installs a hook for a scope, restoring the previous one at its end.
class CancelScope {
 public:
  explicit CancelScope(CancelHook hook) noexcept : previous_(set_cancel_hook(hook)) {}
  ~CancelScope() { set_cancel_hook(previous_); }
  CancelScope(const CancelScope&) = delete;
  CancelScope& operator=(const CancelScope&) = delete;

 private:
  CancelHook previous_;
};

}  // namespace impact::io
