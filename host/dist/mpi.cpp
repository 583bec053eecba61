#include "dist/mpi.hpp"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace impact::dist {

namespace {

void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  throw std::runtime_error(std::string(what) + ": " + std::string(msg, static_cast<std::size_t>(len)));
}

}  // namespace

bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMI_RANK", "PMIX_RANK"})
    if (std::getenv(v)) return true;
  return false;
}

World::World(int* argc, char*** argv) {
  int provided = 0;
  check(MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm node;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  MPI_Comm_rank(node, &local_rank_);
  MPI_Comm_free(&node);
}

World::~World() { MPI_Finalize(); }

void World::abort(const std::string& why, int code) const {
  std::fprintf(stderr, "impact: rank %d of %d: %s\n", rank_, size_, why.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, code);
  std::abort();
}

bool World::all(bool mine) const {
  int v = mine ? 1 : 0, r = 0;
  check(MPI_Allreduce(&v, &r, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD), "MPI_Allreduce");
  return r != 0;
}

std::uint64_t World::exscan(std::uint64_t mine) const {
  std::uint64_t r = 0;
  check(MPI_Exscan(&mine, &r, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD), "MPI_Exscan");
  return rank_ == 0 ? 0 : r;  // undefined on rank 0
}

namespace {

// Every rank's size, on every rank; a total beyond MPI's int counts refused by all ranks alike (none
// left waiting in the gather that would follow).
std::vector<long long> sizes_of(const std::string& mine, int ranks, const std::string& what, const std::string& hint) {
  const long long n = static_cast<long long>(mine.size());
  std::vector<long long> sizes(static_cast<std::size_t>(ranks));
  check(MPI_Allgather(&n, 1, MPI_LONG_LONG, sizes.data(), 1, MPI_LONG_LONG, MPI_COMM_WORLD), "MPI_Allgather");
  long long total = 0;
  for (long long x : sizes) total += x;
  if (total > 0x7fffffffLL)
    throw std::runtime_error(what + ": " + std::to_string(total) + " bytes from the processes, more than MPI's 2 GB" +
                             (hint.empty() ? "" : " (" + hint + ")"));
  return sizes;
}

}  // namespace

std::vector<std::string> World::gather(const std::string& mine, const std::string& hint) const {
  const std::vector<long long> sizes = sizes_of(mine, size_, "gather", hint);
  std::vector<int> counts(rank_ == 0 ? size_ : 0), displ(rank_ == 0 ? size_ : 0);
  std::string all;
  if (rank_ == 0) {
    for (int p = 0, at = 0; p < size_; at += counts[p], ++p) {
      counts[p] = static_cast<int>(sizes[p]);
      displ[p] = at;
    }
    all.resize(static_cast<std::size_t>(displ.back()) + static_cast<std::size_t>(counts.back()));
  }
  check(MPI_Gatherv(mine.data(), static_cast<int>(mine.size()), MPI_CHAR, all.data(), counts.data(), displ.data(), MPI_CHAR, 0,
                    MPI_COMM_WORLD),
        "MPI_Gatherv");
  std::vector<std::string> out;
  for (int p = 0; rank_ == 0 && p < size_; ++p) out.push_back(all.substr(displ[p], counts[p]));
  return out;
}

std::vector<std::string> World::allgather(const std::string& mine, const std::string& hint) const {
  const std::vector<long long> sizes = sizes_of(mine, size_, "allgather", hint);
  std::vector<int> counts(size_), displ(size_);
  for (int p = 0, at = 0; p < size_; at += counts[p], ++p) {
    counts[p] = static_cast<int>(sizes[p]);
    displ[p] = at;
  }
  std::string all(static_cast<std::size_t>(displ.back()) + static_cast<std::size_t>(counts.back()), '\0');
  check(MPI_Allgatherv(mine.data(), static_cast<int>(mine.size()), MPI_CHAR, all.data(), counts.data(), displ.data(), MPI_CHAR,
                       MPI_COMM_WORLD),
        "MPI_Allgatherv");
  std::vector<std::string> out;
  out.reserve(static_cast<std::size_t>(size_));
  for (int p = 0; p < size_; ++p) out.push_back(all.substr(displ[p], counts[p]));
  return out;
}

void World::barrier() const { check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }

struct MpiGroup::Window {
  MPI_Win win = MPI_WIN_NULL;
  std::uint64_t* counter = nullptr;  // on rank 0: the next chunk to hand out
};

MpiGroup::MpiGroup(const World& w) : world_(w), win_(new Window) {
  const MPI_Aint bytes = w.rank() == 0 ? MPI_Aint(sizeof(std::uint64_t)) : 0;
  check(MPI_Win_allocate(bytes, sizeof(std::uint64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &win_->counter, &win_->win),
        "MPI_Win_allocate");
  if (w.rank() == 0) *win_->counter = 0;
  MPI_Barrier(MPI_COMM_WORLD);  // the counter is 0 before anyone takes a chunk
  check(MPI_Win_lock_all(0, win_->win), "MPI_Win_lock_all");
}

MpiGroup::~MpiGroup() {
  if (win_->win != MPI_WIN_NULL) {
    MPI_Win_unlock_all(win_->win);
    MPI_Win_free(&win_->win);
  }
}

bool MpiGroup::next(std::uint64_t count, std::uint64_t& index) {
  const std::uint64_t one = 1;
  std::uint64_t got = 0;
  check(MPI_Fetch_and_op(&one, &got, MPI_UINT64_T, 0, 0, MPI_SUM, win_->win), "MPI_Fetch_and_op");
  check(MPI_Win_flush(0, win_->win), "MPI_Win_flush");
  if (got >= count) return false;
  index = got;
  return true;
}

}  // namespace impact::dist
