// The Communicator over MPI (built when CMake finds MPI). Collectives are the non-blocking
// ones (MPI_Igather, MPI_Ibcast, MPI_Ibarrier), polled with MPI_Test so that every wait can
// give up on the stop flag or a deadline; only the calling thread uses MPI (FUNNELED).
#include <fmt/format.h>
#include <mpi.h>

#include <limits>
#include <thread>

#include "qb/cluster/job.hpp"

namespace qb::cluster {
namespace {

using Clock = std::chrono::steady_clock;

class MpiCommunicator final : public Communicator {
 public:
  MpiCommunicator() {
    int rank = 0;
    int size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    rank_ = static_cast<uint32_t>(rank);
    size_ = static_cast<uint32_t>(size);
    char name[MPI_MAX_PROCESSOR_NAME] = {};
    int length = 0;
    MPI_Get_processor_name(name, &length);
    host_ = std::string(name, static_cast<size_t>(length));
  }
  ~MpiCommunicator() override {
    // A collective given up half way leaves a request MPI_Finalize would wait for: end the
    // job instead (the results are written by then).
    if (abandoned_) MPI_Abort(MPI_COMM_WORLD, abandon_exit_code_);
    MPI_Finalize();
  }

  uint32_t rank() const override { return rank_; }
  uint32_t size() const override { return size_; }
  const std::string& host_name() const override { return host_; }

  Result<std::vector<std::string>> gather(const std::string& mine, uint32_t root,
                                          const Wait& wait) override {
    if (mine.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
      return make_error(Errc::runtime, fmt::format("rank {}: {} bytes to gather are more than "
                                                   "MPI counts hold",
                                                   rank_, mine.size()));
    }
    const int my_bytes = static_cast<int>(mine.size());
    std::vector<int> sizes(rank_ == root ? size_ : 0);
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Igather(&my_bytes, 1, MPI_INT, sizes.data(), 1, MPI_INT, static_cast<int>(root),
                MPI_COMM_WORLD, &request);
    if (auto s = complete(request, wait, "the other ranks' result sizes"); !s) {
      return std::move(s).error();
    }
    std::vector<int> offsets(sizes.size(), 0);
    int64_t total = 0;
    for (size_t r = 0; r < sizes.size(); ++r) {
      if (total + sizes[r] > std::numeric_limits<int>::max()) {
        return make_error(Errc::runtime, "the ranks' results together are more than 2 GiB");
      }
      offsets[r] = static_cast<int>(total);
      total += sizes[r];
    }
    std::string all(static_cast<size_t>(total), '\0');
    MPI_Igatherv(mine.data(), my_bytes, MPI_BYTE, all.data(), sizes.data(), offsets.data(),
                 MPI_BYTE, static_cast<int>(root), MPI_COMM_WORLD, &request);
    if (auto s = complete(request, wait, "the other ranks' results"); !s) {
      return std::move(s).error();
    }
    std::vector<std::string> out;
    for (size_t r = 0; r < sizes.size(); ++r) {
      out.push_back(all.substr(static_cast<size_t>(offsets[r]), static_cast<size_t>(sizes[r])));
    }
    return out;
  }

  Result<std::string> broadcast(const std::string& value, uint32_t root,
                                const Wait& wait) override {
    uint64_t bytes = value.size();
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Ibcast(&bytes, 1, MPI_UINT64_T, static_cast<int>(root), MPI_COMM_WORLD, &request);
    if (auto s = complete(request, wait, fmt::format("rank {}", root)); !s) {
      return std::move(s).error();
    }
    if (bytes > static_cast<uint64_t>(std::numeric_limits<int>::max())) {
      return make_error(Errc::runtime, "a broadcast of more than 2 GiB");
    }
    std::string out = rank_ == root ? value : std::string(bytes, '\0');
    MPI_Ibcast(out.data(), static_cast<int>(bytes), MPI_BYTE, static_cast<int>(root),
               MPI_COMM_WORLD, &request);
    if (auto s = complete(request, wait, fmt::format("rank {}", root)); !s) {
      return std::move(s).error();
    }
    return out;
  }

  Status barrier(const Wait& wait) override {
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Ibarrier(MPI_COMM_WORLD, &request);
    return complete(request, wait, "every rank at the barrier");
  }

  Result<PingPong> ping_pong(uint32_t peer, int64_t (*now_ns)(), const Wait& wait) override {
    constexpr int kTag = 4242;
    PingPong out;
    int64_t stamp = 0;
    MPI_Request request = MPI_REQUEST_NULL;
    if (rank_ == 0) {
      out.sent_ns = now_ns();
      MPI_Isend(&out.sent_ns, 1, MPI_INT64_T, static_cast<int>(peer), kTag, MPI_COMM_WORLD,
                &request);
      if (auto s = complete(request, wait, fmt::format("rank {}", peer), true); !s) {
        return std::move(s).error();
      }
      MPI_Irecv(&stamp, 1, MPI_INT64_T, static_cast<int>(peer), kTag, MPI_COMM_WORLD, &request);
      if (auto s = complete(request, wait, fmt::format("rank {}", peer), true); !s) {
        return std::move(s).error();
      }
      out.received_ns = now_ns();
      out.peer_ns = stamp;
    } else if (rank_ == peer) {
      MPI_Irecv(&stamp, 1, MPI_INT64_T, 0, kTag, MPI_COMM_WORLD, &request);
      if (auto s = complete(request, wait, "rank 0", true); !s) return std::move(s).error();
      stamp = now_ns();
      MPI_Isend(&stamp, 1, MPI_INT64_T, 0, kTag, MPI_COMM_WORLD, &request);
      if (auto s = complete(request, wait, "rank 0", true); !s) return std::move(s).error();
    }
    return out;
  }

  [[noreturn]] void abort(int exit_code) override {
    MPI_Abort(MPI_COMM_WORLD, exit_code);
    std::_Exit(exit_code);  // MPI_Abort does not return; should it, end this rank anyway
  }

 private:
  // Polls `request` until it completes, the deadline passes, or the stop flag has been set for
  // longer than the grace. `spin`: no sleep between polls (the clock ping-pong times each
  // message; a sleep would be part of the round trip).
  Status complete(MPI_Request& request, const Wait& wait, const std::string& waiting_for,
                  bool spin = false) {
    std::optional<Clock::time_point> give_up = wait.deadline;
    for (;;) {
      int done = 0;
      MPI_Test(&request, &done, MPI_STATUS_IGNORE);
      if (done != 0) return {};
      const auto now = Clock::now();
      if (wait.stop != nullptr && wait.stop->load(std::memory_order_relaxed)) {
        if (!stop_seen_) stop_seen_ = now;
        const auto limit = *stop_seen_ + wait.after_stop;
        if (!give_up || limit < *give_up) give_up = limit;
      }
      if (give_up && now >= *give_up) {
        abandoned_ = true;
        return make_error(
            Errc::runtime,
            fmt::format("rank {} ({}) gave up waiting for {}{}", rank_, host_, waiting_for,
                        stop_seen_ ? " after the run was stopped (mpirun names a rank that died)"
                                   : " (a rank died or hangs)"));
      }
      if (!spin) std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }

  uint32_t rank_ = 0;
  uint32_t size_ = 1;
  std::string host_;
  std::optional<Clock::time_point> stop_seen_;
  bool abandoned_ = false;
  int abandon_exit_code_ = 3;
};

}  // namespace

bool mpi_built() {
  return true;
}

std::string mpi_status() {
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(version, &length);
  std::string text(version, static_cast<size_t>(length));
  if (const size_t comma = text.find(','); comma != std::string::npos) text.resize(comma);
  return "built with " + text;
}

Result<std::unique_ptr<Communicator>> join_job() {
  if (!detect_launch().by_mpi) return std::unique_ptr<Communicator>{};
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    return make_error(Errc::runtime, "MPI_Init_thread failed: cannot join the MPI job");
  }
  if (provided < MPI_THREAD_FUNNELED) {
    MPI_Finalize();
    return make_error(Errc::runtime,
                      "this MPI library does not allow threads beside the one calling MPI "
                      "(MPI_THREAD_FUNNELED), which the engine's workers need");
  }
  return std::unique_ptr<Communicator>(std::make_unique<MpiCommunicator>());
}

}  // namespace qb::cluster
