// A progress bar on stderr for long runs: instances done, rate, time left. Silent for the first
// second (short runs print nothing). On a terminal it redraws one line; otherwise (a log file, a
// pipe, CI) it prints a plain line at most every `plain_interval` seconds and at the end.
#pragma once
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

namespace impact::io {

class Progress {
 public:
  using Clock = std::chrono::steady_clock;
  Progress(std::FILE* out, std::uint64_t total, std::string what, double plain_interval = 5.0)
      : out_(out), total_(total), what_(std::move(what)), plain_interval_(plain_interval), start_(Clock::now()) {
    tty_ = out_ && isatty(fileno(out_));
  }
  ~Progress() { finish(); }

  // Instances done so far (monotone).
  void update(std::uint64_t done) {
    done_ = done;
    if (!out_) return;
    const double t = seconds();
    if (t < 1.0) return;
    if (tty_) {
      if (t - last_ < 0.1 && done < total_) return;
    } else if (t - last_ < plain_interval_ && done < total_) {
      return;
    }
    last_ = t;
    draw(t, false);
  }

  // Ends the bar (a final line if anything was drawn).
  void finish() {
    if (finished_ || !out_) return;
    finished_ = true;
    if (drawn_) draw(seconds(), true);
  }

  double seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  // "1.23e+06" style rates and "1 h 02 min" style durations.
  static std::string duration(double s) {
    char b[64];
    if (!(s >= 0) || s > 1e8) return "?";
    if (s < 60) std::snprintf(b, sizeof b, "%.0f s", s);
    else if (s < 3600) std::snprintf(b, sizeof b, "%d min %02d s", int(s / 60), int(s) % 60);
    else std::snprintf(b, sizeof b, "%d h %02d min", int(s / 3600), int(s / 60) % 60);
    return b;
  }

 private:
  void draw(double t, bool final_line) {
    drawn_ = true;
    const double frac = total_ ? double(done_) / double(total_) : 1.0;
    const double rate = t > 0 ? double(done_) / t : 0.0;
    const double left = rate > 0 ? double(total_ - done_) / rate : -1.0;
    char line[256];
    if (tty_) {
      constexpr int kWidth = 28;
      char bar[kWidth + 1];
      const int full = static_cast<int>(std::lround(frac * kWidth));
      for (int i = 0; i < kWidth; ++i) bar[i] = i < full ? '#' : '.';
      bar[kWidth] = 0;
      std::snprintf(line, sizeof line, "\r%s [%s] %5.1f%% %llu/%llu  %.3g/s  %s %s\x1b[K", what_.c_str(), bar, 100 * frac,
                    (unsigned long long)done_, (unsigned long long)total_, rate, final_line ? "took" : "left",
                    final_line ? duration(t).c_str() : duration(left).c_str());
      std::fputs(line, out_);
      if (final_line) std::fputc('\n', out_);
    } else {
      std::snprintf(line, sizeof line, "%s: %llu/%llu (%.1f%%), %.3g/s, %s %s\n", what_.c_str(), (unsigned long long)done_,
                    (unsigned long long)total_, 100 * frac, rate, final_line ? "took" : "left",
                    final_line ? duration(t).c_str() : duration(left).c_str());
      std::fputs(line, out_);
    }
    std::fflush(out_);
  }

  std::FILE* out_;
  std::uint64_t total_, done_ = 0;
  std::string what_;
  double plain_interval_;
  Clock::time_point start_;
  double last_ = -1e9;  // the first update after one second draws
  bool tty_ = false, drawn_ = false, finished_ = false;
};

}  // namespace impact::io
