#include "resume/sampler_checkpoint.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "io/checksum.hpp"
#include "io/folder_names.hpp"
#include "io/out_file.hpp"

namespace impact::resume {

namespace {

constexpr const char kMagic[] = "impactbatch calibration checkpoint 1\n";

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// The state as bytes: fixed-width little-endian numbers (x86-64's own), each array after its
// length. Doubles travel as their bits, so that a resumed run has the exact state.
class Writer {
 public:
  void u64(std::uint64_t v) { b_.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void f64(double v) { b_.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void f64s(const double* v, std::size_t n) {
    u64(n);
    b_.append(reinterpret_cast<const char*>(v), n * sizeof(double));
  }
  void f64s(const std::vector<double>& v) { f64s(v.data(), v.size()); }
  void u64s(const std::vector<std::uint64_t>& v) {
    u64(v.size());
    b_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(std::uint64_t));
  }
  std::string& bytes() { return b_; }

 private:
  std::string b_;
};

class Reader {
 public:
  Reader(const std::string& b, std::string path) : b_(b), path_(std::move(path)) {}
  std::uint64_t u64() {
    std::uint64_t v;
    take(&v, sizeof v);
    return v;
  }
  double f64() {
    double v;
    take(&v, sizeof v);
    return v;
  }
  std::vector<double> f64s() {
    const std::uint64_t n = count(sizeof(double));
    std::vector<double> v(n);
    take(v.data(), n * sizeof(double));
    return v;
  }
  std::vector<std::uint64_t> u64s() {
    const std::uint64_t n = count(sizeof(std::uint64_t));
    std::vector<std::uint64_t> v(n);
    take(v.data(), n * sizeof(std::uint64_t));
    return v;
  }
  void end() const {
    if (at_ != b_.size()) throw damaged("bytes after the state");
  }
  std::invalid_argument damaged(const std::string& why) const {
    return std::invalid_argument(path_ + ": a damaged checkpoint (" + why + "); remove it to start afresh");
  }

 private:
  std::uint64_t count(std::size_t size) {
    const std::uint64_t n = u64();
    if (n > (b_.size() - at_) / size) throw damaged("an array longer than the file");
    return n;
  }
  void take(void* out, std::size_t n) {
    if (b_.size() - at_ < n) throw damaged("the file ends early");
    std::memcpy(out, b_.data() + at_, n);
    at_ += n;
  }
  const std::string& b_;
  std::string path_;
  std::size_t at_ = 0;
};

// The bytes of DIR/checkpoint.bin, read without following a link; false when there is no such entry.
bool read_file(const std::string& path, std::string& out) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return false;
    throw std::invalid_argument(path + ": cannot read the checkpoint: " + std::strerror(errno) +
                                (errno == ELOOP ? " (a link: a checkpoint is never read through one)" : ""));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw std::invalid_argument(path + ": not a regular file");
  }
  out.clear();
  char buf[1 << 16];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  if (n < 0) throw std::invalid_argument(path + ": cannot read the checkpoint");
  return true;
}

void put_stage(Writer& w, const infer::SmcStage& s) {
  w.f64(s.beta), w.f64(s.ess), w.f64(s.log_z_step), w.f64(s.acceptance), w.u64(s.moves), w.f64(s.scale);
}

infer::SmcStage get_stage(Reader& r) {
  infer::SmcStage s;
  s.beta = r.f64(), s.ess = r.f64(), s.log_z_step = r.f64(), s.acceptance = r.f64();
  s.moves = static_cast<std::size_t>(r.u64());
  s.scale = r.f64();
  return s;
}

// Names the top-level keys whose values differ (or that one side lacks).
std::string differences(const nlohmann::ordered_json& a, const nlohmann::ordered_json& b) {
  std::string d;
  for (auto it = a.begin(); it != a.end(); ++it)
    if (!b.contains(it.key()) || b.at(it.key()) != it.value()) d += (d.empty() ? "" : ", ") + it.key();
  for (auto it = b.begin(); it != b.end(); ++it)
    if (!a.contains(it.key())) d += (d.empty() ? "" : ", ") + it.key();
  return d;
}

}  // namespace

FolderRequest checkpoint_request(const CheckpointOptions& o) {
  FolderRequest r;
  r.dir = o.dir;
  r.kind = kCheckpointKind;
  r.files = {kCheckpointFile};
  r.what = "--checkpoint";
  return r;
}

SamplerCheckpoint::SamplerCheckpoint(CheckpointOptions o, const nlohmann::ordered_json& fingerprint, bool writer)
    : o_(std::move(o)), fingerprint_(fingerprint.dump()), writer_(writer), last_(now_s()) {
  const std::string path = o_.dir + "/" + kCheckpointFile;
  std::string bytes;
  const bool found = read_file(path, bytes);
  if (!o_.resume) {
    if (found)
      throw std::invalid_argument("--checkpoint: " + o_.dir +
                                  " holds a checkpoint of a run that did not finish: "
                                  "go on from it with --resume, or remove " +
                                  path + " to start afresh");
    return;
  }
  if (!found) throw std::invalid_argument("--resume: " + o_.dir + " holds no checkpoint (" + kCheckpointFile + ") to go on from");
  const std::size_t m = sizeof kMagic - 1;
  if (bytes.size() < m + 12 || bytes.compare(0, m, kMagic) != 0)
    throw std::invalid_argument(path + ": not an impactbatch calibration checkpoint");
  // the CRC-32 of everything before it ends the file: a torn or altered file is refused
  std::uint32_t crc;
  std::memcpy(&crc, bytes.data() + bytes.size() - 4, 4);
  io::Crc32 c;
  c.add(bytes.data(), bytes.size() - 4);
  Reader r(bytes, path);
  if (c.value() != crc) throw r.damaged("its CRC-32 does not match");
  const std::string body = bytes.substr(m, bytes.size() - m - 4);
  Reader in(body, path);
  const std::uint64_t flen = in.u64();
  if (flen > body.size() - 8) throw in.damaged("a fingerprint longer than the file");
  const std::string theirs = body.substr(8, flen);
  if (theirs != fingerprint_) {
    const nlohmann::ordered_json t = nlohmann::ordered_json::parse(theirs, nullptr, false);
    throw std::invalid_argument(
        "--resume: " + path + " is the checkpoint of another run (" +
        (t.is_discarded() ? std::string("its fingerprint is not readable") : "these differ: " + differences(t, fingerprint)) +
        "); a run goes on only from its own checkpoint");
  }
  const std::string state = body.substr(8 + flen);
  Reader s(state, path);
  counters_.rows = s.u64();
  if (fingerprint.at("method") == "smc") {
    smc_.x = s.f64s(), smc_.log_prior = s.f64s(), smc_.log_like = s.f64s();
    smc_.evaluations = s.u64(), smc_.failed = s.u64();
    const std::uint64_t runs = s.u64();
    if (runs > state.size()) throw s.damaged("more runs than bytes");
    for (std::uint64_t k = 0; k < runs; ++k) {
      infer::SmcRunState q;
      q.beta = s.f64(), q.log_z = s.f64(), q.scale = s.f64();
      q.stage = s.u64();
      q.done = s.u64() != 0;
      const std::uint64_t n = s.u64();
      if (n > state.size()) throw s.damaged("more stages than bytes");
      for (std::uint64_t i = 0; i < n; ++i) q.stages.push_back(get_stage(s));
      smc_.runs.push_back(std::move(q));
    }
  } else {
    infer::EnsembleChain& ch = ens_.chain;
    ch.walkers = static_cast<std::size_t>(s.u64());
    ch.dim = static_cast<std::size_t>(s.u64());
    ch.steps = s.u64();
    ch.x = s.f64s(), ch.logp = s.f64s(), ch.accepted = s.u64s();
    ch.evaluations = s.u64(), ch.failed_proposals = s.u64();
  }
  s.end();
  resuming_ = true;
}

std::string SamplerCheckpoint::where() const {
  if (smc_.runs.empty()) return "step " + std::to_string(ens_.chain.steps) + " of the ensemble";
  std::uint64_t stage = 0;
  double beta = 1;
  for (const infer::SmcRunState& r : smc_.runs) stage = std::max(stage, r.stage), beta = std::min(beta, r.beta);
  char b[96];
  std::snprintf(b, sizeof b, "stage %llu of SMC (the least beta %.4g)", static_cast<unsigned long long>(stage), beta);
  return b;
}

bool SamplerCheckpoint::due() {
  if (!writer_ || o_.dir.empty()) return false;
  const double t = now_s();
  if (o_.every_s > 0 && t - last_ < o_.every_s) return false;
  last_ = t;
  return true;
}

void SamplerCheckpoint::write(const std::string& body) {
  Writer w;
  w.bytes() = kMagic;
  w.u64(fingerprint_.size());
  w.bytes() += fingerprint_;
  w.bytes() += body;
  io::Crc32 c;
  c.add(w.bytes());
  const std::uint32_t crc = c.value();
  w.bytes().append(reinterpret_cast<const char*>(&crc), 4);
  io::OutFile f(o_.dir + "/" + kCheckpointFile);
  f.put(w.bytes());
  f.commit();
}

void SamplerCheckpoint::save(const infer::EnsembleChain& c, std::uint64_t steps_done, const CheckpointCounters& k) {
  if (!due()) return;
  Writer w;
  w.u64(k.rows);
  w.u64(c.walkers), w.u64(c.dim), w.u64(steps_done);
  w.f64s(c.x.data(), steps_done * c.walkers * c.dim);
  w.f64s(c.logp.data(), steps_done * c.walkers);
  w.u64s(c.accepted);
  w.u64(c.evaluations), w.u64(c.failed_proposals);
  write(w.bytes());
}

void SamplerCheckpoint::save(const infer::SmcState& s, const CheckpointCounters& k) {
  if (!due()) return;
  Writer w;
  w.u64(k.rows);
  w.f64s(s.x), w.f64s(s.log_prior), w.f64s(s.log_like);
  w.u64(s.evaluations), w.u64(s.failed);
  w.u64(s.runs.size());
  for (const infer::SmcRunState& q : s.runs) {
    w.f64(q.beta), w.f64(q.log_z), w.f64(q.scale);
    w.u64(q.stage), w.u64(q.done ? 1 : 0);
    w.u64(q.stages.size());
    for (const infer::SmcStage& st : q.stages) put_stage(w, st);
  }
  write(w.bytes());
}

void SamplerCheckpoint::finish() {
  if (!writer_ || o_.dir.empty()) return;
  io::remove_if_exists(o_.dir + "/" + kCheckpointFile);
  io::remove_if_exists(o_.dir + "/" + io::kFolderManifest);
}

}  // namespace impact::resume
