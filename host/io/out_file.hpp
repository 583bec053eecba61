// The one way impactbatch writes a file: every write and the close are checked (a full disk is an
// error naming the file, never a silently short table), and the file appears all at once: the
// bytes go to a temporary file in the target's folder (created anew, never through a link), renamed
// onto the target by commit(). An OutFile destroyed without commit() (an exception, an error exit)
// removes its temporary file and leaves the target as it was; SIGINT, SIGTERM, SIGHUP and SIGPIPE
// remove the temporaries before the process ends. The path "-" is standard output, all at once
// too: the bytes are spooled to an anonymous temporary file (tmpfile(3), in /tmp) and copied to
// stdout by commit(), so a run that fails half-way writes nothing there.
//
// Links: a file of a run's folder (a study's tables, a calibration's samples, a checkpoint) never
// follows one (Links::replace, the default): a link of its name is replaced by the file, and a
// folder that is a link is refused, so that a run writes nothing outside its folder
// (resume/owned_folder.hpp). A file the user names on the command line (eval --out, --timeline, reduce
// --out, bench --json, ...) is written where its name leads (Links::follow): a link to a file
// replaces that file, a dangling link creates its target, and a device or a FIFO (or a link to
// one) is written in place.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

namespace impact::io {

// Whether an OutFile writes through a link of its name (see above).
enum class Links { replace, follow };

class OutFile {
 public:
  OutFile() = default;
  explicit OutFile(const std::string& path, Links links = Links::replace) { open(path, links); }
  OutFile(OutFile&& o) noexcept;
  OutFile& operator=(OutFile&& o) noexcept;
  OutFile(const OutFile&) = delete;
  OutFile& operator=(const OutFile&) = delete;
  ~OutFile();

  // Starts the file (std::runtime_error "PATH: cannot open for writing: REASON").
  void open(const std::string& path, Links links = Links::replace);
  explicit operator bool() const { return f_ != nullptr; }
  const std::string& path() const { return path_; }

  // Appends bytes (std::runtime_error "PATH: write failed: REASON").
  void put(const void* data, std::size_t n);
  void put(const std::string& s) { put(s.data(), s.size()); }

  // Writes the buffered bytes out and checks them (a full disk, a device that refuses them); throws
  // like put(). commit() after it can then fail only to move the file into place.
  void flush();

  // Closes the file and moves it onto its path; throws like put(). A closed or never opened file:
  // nothing to do.
  void commit();

 private:
  [[noreturn]] void fail(const char* what);
  void discard() noexcept;
  std::FILE* f_ = nullptr;
  bool to_stdout_ = false;  // "-": f_ is the spool
  int slot_ = -1;           // of the temporary in the signal handler's table
  std::string path_;        // as given (messages)
  std::string tmp_;         // the temporary file; empty when writing in place (stdout, a device, a FIFO)
  std::string final_;       // where commit() renames it (the path; with Links::follow, its destination())
};

// True when both paths name the same existing regular file (device and inode: links, "./a" and
// "a" included); a command refuses to write its output over its input.
bool same_file(const std::string& a, const std::string& b);
// The file an OutFile with Links::follow writes for `path`, existing or not: the absolute path with
// its folder's links, "." and ".." resolved as the system resolves them, then, while the name is a
// link (dangling or not), where it points. "-" stays "-".
std::string destination(const std::string& path);
// True when two outputs would land in one file: the same existing file (same_file: hard links
// included) or the same destination() ("r.csv", "./r.csv", "sub/../r.csv", its absolute path and
// a link to it, existing or not, are one; "-" is standard output, as /dev/stdout and /dev/fd/1 are).
bool same_destination(const std::string& a, const std::string& b);

// Writes `text` to `path` ("-": standard output) through an OutFile.
void write_file(const std::string& path, const std::string& text, Links links = Links::replace);

// The temporary an OutFile of NAME writes beside it is ".NAME.tmp-PID-N" (PID its process, N a
// counter of the process). parse_temporary() reads an entry of a folder as one: NAME into `stem`,
// PID into `pid`; false for any other name.
bool parse_temporary(const std::string& entry, std::string& stem, long& pid);
// Whether a process of that id runs (this one and another user's included).
bool process_alive(long pid);

// Creates a folder and its parents (std::runtime_error "WHAT: PATH: cannot create the folder: ...").
void make_dirs(const std::string& path, const std::string& what);

// Removes the file at path if there is one (std::runtime_error if it exists and cannot be removed).
void remove_if_exists(const std::string& path);

// Removes what earlier writers of `path` left beside it and can no longer finish: the temporaries of
// an OutFile of `path` (.NAME.tmp-PID-N), and of the shares of a run over several processes
// (`impact eval` under mpirun: .NAME.partR.tmp-PID-N), whose process no longer runs. A committed
// share (NAME.partR) is left: its name proves no run's. Called before a command writes `path`.
// Returns the names removed.
std::vector<std::string> remove_stale_writes(const std::string& path);

}  // namespace impact::io
