// The one way impactbatch writes a file: every write and the close are checked (a full disk is an
// error naming the file, never a silently short table), and the file appears all at once: the
// bytes go to a temporary file in the target's folder, renamed onto the target by commit(). An
// OutFile destroyed without commit() (an exception, an error exit) removes its temporary file and
// leaves the target as it was; SIGINT, SIGTERM, SIGHUP and SIGPIPE remove the temporaries before
// the process ends. The path "-" is standard output, all at once too: the bytes are spooled to an
// anonymous temporary file (tmpfile(3), in /tmp) and copied to stdout by commit(), so a run that
// fails half-way writes nothing there. A path that is a device or a FIFO (or a link to one) is
// written in place.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

namespace impact::io {

class OutFile {
 public:
  OutFile() = default;
  explicit OutFile(const std::string& path) { open(path); }
  OutFile(OutFile&& o) noexcept;
  OutFile& operator=(OutFile&& o) noexcept;
  OutFile(const OutFile&) = delete;
  OutFile& operator=(const OutFile&) = delete;
  ~OutFile();

  // Starts the file (std::runtime_error "PATH: cannot open for writing: REASON").
  void open(const std::string& path);
  explicit operator bool() const { return f_ != nullptr; }
  const std::string& path() const { return path_; }

  // Appends bytes (std::runtime_error "PATH: write failed: REASON").
  void put(const void* data, std::size_t n);
  void put(const std::string& s) { put(s.data(), s.size()); }

  // Closes the file and moves it onto its path; throws like put(). A closed or never opened file:
  // nothing to do.
  void commit();

 private:
  [[noreturn]] void fail(const char* what);
  void discard() noexcept;
  std::FILE* f_ = nullptr;
  bool to_stdout_ = false;  // "-": f_ is the spool
  int slot_ = -1;           // of the temporary in the signal handler's table
  std::string path_;   // as given (messages)
  std::string tmp_;    // the temporary file; empty when writing in place (stdout, a device, a FIFO)
  std::string final_;  // where commit() renames it (the path, links resolved)
};

// True when both paths name the same existing regular file (device and inode: links, "./a" and
// "a" included); a command refuses to write its output over its input.
bool same_file(const std::string& a, const std::string& b);
// True when two outputs would land in one file: the same existing file (same_file), or, where one
// does not exist yet, the same path once "." and ".." and the links of its existing part are
// resolved ("-" is standard output: the same as "-" only).
bool same_destination(const std::string& a, const std::string& b);

// Writes `text` to `path` ("-": standard output) through an OutFile.
void write_file(const std::string& path, const std::string& text);

// Creates a folder and its parents (std::runtime_error "WHAT: PATH: cannot create the folder: ...").
void make_dirs(const std::string& path, const std::string& what);

// Removes the file at path if there is one (std::runtime_error if it exists and cannot be removed).
void remove_if_exists(const std::string& path);

// Removes what earlier writers of `path` left beside it and can no longer finish: the temporaries of
// an OutFile of `path` (.NAME.tmp-PID-N) whose process no longer runs, and the shares of a run
// over several processes (`impact eval` under mpirun: NAME.partR, and their temporaries likewise).
// Called before a command writes `path`. Returns the names removed.
std::vector<std::string> remove_stale_writes(const std::string& path);

}  // namespace impact::io
