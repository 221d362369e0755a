#pragma once
// NCCL communicators for the CUDA executor: failures as sd::nccl_error, an
// owned communicator (sd::nccl_communicator), and the bootstrap of one
// process per GPU (sd::launcher_rank, sd::nccl_unique_id). Include it where
// communicators are made, and link streamdsl::nccl. The executor itself does
// not include nccl.h: it holds the caller's ncclComm_t (bind_communicator),
// and backend/cuda/collectives.hpp issues the calls.
//
// One process per GPU (docs/collectives.md): each process learns its rank and
// the world size from its launcher (launcher_rank: mpirun's, torchrun's or
// Slurm's variables), rank 0 makes an NCCL unique id and hands it to the
// others by any channel (MPI_Bcast, a store, or a file on a shared file
// system: nccl_unique_id::exchange_through_file), and each calls
// ncclCommInitRank (nccl_communicator::init_rank). Several hosts are NCCL's
// concern: nothing here assumes one.
#include <cuda_runtime.h>
#include <nccl.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "../../detail/owned_string.hpp"
#include "../../detail/string_view.hpp"
#include "../../detail/text.hpp"
#include "../../diag/error.hpp"
#include "cuda_error.hpp"

namespace streamdsl {

// An NCCL call that failed: the call, NCCL's name for the result and its last
// error text (ncclGetLastError), and what it was for.
class nccl_error : public error {
 public:
  nccl_error(ncclResult_t code, detail::string_view what) : error(what), code_(code) {}
  ncclResult_t code() const { return code_; }

 private:
  ncclResult_t code_;
};

namespace cuda_detail {

[[gnu::cold]] inline void nccl_failed(ncclResult_t status, const char* call, ncclComm_t comm,
                                      detail::string_view where) {
  detail::text msg;
  msg << "streamdsl: " << call << " failed: " << ncclGetErrorString(status);
  const char* last = ncclGetLastError(comm);
  if (last != nullptr && last[0] != '\0') msg << " (" << last << ')';
  if (!where.empty()) msg << " for " << where;
  throw nccl_error(status, msg.view());
}

inline void check_nccl(ncclResult_t status, const char* call, ncclComm_t comm = nullptr,
                       detail::string_view where = {}) {
  if (status != ncclSuccess && status != ncclInProgress) nccl_failed(status, call, comm, where);
}

}  // namespace cuda_detail

// A communicator with one owner: destroyed (ncclCommDestroy) with it, moved
// and never copied. Its device is the one current when it was made.
class nccl_communicator {
 public:
  nccl_communicator() = default;
  explicit nccl_communicator(ncclComm_t comm) noexcept : comm_(comm) {}
  nccl_communicator(nccl_communicator&& o) noexcept : comm_(o.release()) {}
  nccl_communicator& operator=(nccl_communicator&& o) noexcept {
    if (this != &o) {
      reset();
      comm_ = o.release();
    }
    return *this;
  }
  nccl_communicator(const nccl_communicator&) = delete;
  nccl_communicator& operator=(const nccl_communicator&) = delete;
  ~nccl_communicator() { reset(); }

  // Rank `rank` of `nranks` on the current device (ncclCommInitRank): every
  // rank calls it with the same id, each from its own process or thread.
  static nccl_communicator init_rank(int nranks, const ncclUniqueId& id, int rank) {
    ncclComm_t comm = nullptr;
    cuda_detail::check_nccl(ncclCommInitRank(&comm, nranks, id, rank), "ncclCommInitRank");
    return nccl_communicator(comm);
  }

  ncclComm_t get() const noexcept { return comm_; }
  operator ncclComm_t() const noexcept { return comm_; }  // NOLINT: passed where NCCL takes one
  int size() const {
    int n = 0;
    cuda_detail::check_nccl(ncclCommCount(comm_, &n), "ncclCommCount", comm_);
    return n;
  }
  int rank() const {
    int r = 0;
    cuda_detail::check_nccl(ncclCommUserRank(comm_, &r), "ncclCommUserRank", comm_);
    return r;
  }
  int device() const {
    int d = 0;
    cuda_detail::check_nccl(ncclCommCuDevice(comm_, &d), "ncclCommCuDevice", comm_);
    return d;
  }
  ncclComm_t release() noexcept {
    ncclComm_t c = comm_;
    comm_ = nullptr;
    return c;
  }
  void reset() noexcept {
    if (comm_ != nullptr) (void)ncclCommDestroy(comm_);
    comm_ = nullptr;
  }

 private:
  ncclComm_t comm_ = nullptr;
};

// Where this process stands in a job started by a launcher: its rank, the
// world size and its rank on its host (which GPU it takes). Read from
// torchrun's RANK / WORLD_SIZE / LOCAL_RANK, Open MPI's
// OMPI_COMM_WORLD_{RANK,SIZE,LOCAL_RANK}, MPICH's and Intel MPI's PMI_RANK /
// PMI_SIZE (MPI_LOCALRANKID), or Slurm's SLURM_PROCID / SLURM_NTASKS /
// SLURM_LOCALID, in that order; a process started alone is rank 0 of 1.
struct launcher_rank {
  int rank = 0;
  int size = 1;
  int local_rank = 0;
  const char* launcher = "none";

  static launcher_rank from_environment() {
    struct scheme {
      const char *rank, *size, *local, *name;
    };
    static constexpr scheme schemes[] = {
        {"RANK", "WORLD_SIZE", "LOCAL_RANK", "torchrun"},
        {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "Open MPI"},
        {"PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "PMI (MPICH, Intel MPI)"},
        {"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "Slurm"},
    };
    for (const auto& s : schemes) {
      const char* r = std::getenv(s.rank);
      const char* n = std::getenv(s.size);
      if (r == nullptr || n == nullptr) continue;
      launcher_rank out;
      out.rank = std::atoi(r);
      out.size = std::atoi(n);
      const char* l = std::getenv(s.local);
      out.local_rank = l != nullptr ? std::atoi(l) : out.rank;
      out.launcher = s.name;
      if (out.size < 1 || out.rank < 0 || out.rank >= out.size)
        throw error((detail::text() << "streamdsl: the launcher's variables " << s.rank << "=" << r << " and "
                                    << s.size << "=" << n << " name no rank of the world")
                        .view());
      return out;
    }
    return {};
  }
};

// An NCCL unique id (ncclGetUniqueId): rank 0 makes it, every rank passes the
// same one to ncclCommInitRank. As text (hex) it travels through files,
// environment variables or a launcher's store.
struct nccl_unique_id {
  ncclUniqueId id{};

  static nccl_unique_id make() {
    nccl_unique_id u;
    cuda_detail::check_nccl(ncclGetUniqueId(&u.id), "ncclGetUniqueId");
    return u;
  }

  static constexpr std::size_t hex_size = 2 * sizeof(ncclUniqueId);
  // Writes hex_size characters and a terminating '\0' to `out`.
  void to_hex(char* out) const {
    static constexpr char digits[] = "0123456789abcdef";
    const auto* bytes = reinterpret_cast<const unsigned char*>(id.internal);
    for (std::size_t i = 0; i < sizeof(ncclUniqueId); ++i) {
      out[2 * i] = digits[bytes[i] >> 4];
      out[2 * i + 1] = digits[bytes[i] & 15];
    }
    out[hex_size] = '\0';
  }
  static nccl_unique_id from_hex(detail::string_view hex) {
    const auto value = [](char c) {
      return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    };
    nccl_unique_id u;
    auto* bytes = reinterpret_cast<unsigned char*>(u.id.internal);
    bool ok = hex.size() == hex_size;
    for (std::size_t i = 0; ok && i < sizeof(ncclUniqueId); ++i) {
      const int hi = value(hex[2 * i]), lo = value(hex[2 * i + 1]);
      ok = hi >= 0 && lo >= 0;
      bytes[i] = static_cast<unsigned char>(hi * 16 + lo);
    }
    if (!ok)
      throw error((detail::text() << "streamdsl: an NCCL unique id as text is " << hex_size
                                  << " lowercase hex digits; got " << hex.size() << " characters")
                      .view());
    return u;
  }

  // Rank 0 makes the id and writes it to `path` (through a file renamed into
  // place, so no rank reads half of it); the other ranks wait up to
  // `timeout_s` for the file and read it. `path` must be new for each job
  // (remove it after ncclCommInitRank) and on a file system every rank sees.
  static nccl_unique_id exchange_through_file(const char* path, int rank, double timeout_s = 120) {
    if (rank == 0) {
      const nccl_unique_id u = make();
      char hex[hex_size + 1];
      u.to_hex(hex);
      detail::text tmp;
      tmp << path << ".tmp";
      const detail::owned_string tmp_path(tmp.view());
      std::FILE* f = std::fopen(tmp_path.c_str(), "w");
      const bool written = f != nullptr && std::fputs(hex, f) >= 0;
      if (f != nullptr) std::fclose(f);
      if (!written || std::rename(tmp_path.c_str(), path) != 0)
        throw error(
            (detail::text() << "streamdsl: rank 0 could not write the NCCL unique id to " << path).view());
      return u;
    }
    for (double waited = 0; waited < timeout_s; waited += 0.01) {
      if (std::FILE* f = std::fopen(path, "r")) {
        char hex[hex_size + 1] = {};
        const std::size_t n = std::fread(hex, 1, hex_size, f);
        std::fclose(f);
        return from_hex(detail::string_view(hex, n));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    throw error((detail::text() << "streamdsl: rank " << rank << " found no NCCL unique id at " << path
                                << " after " << static_cast<long long>(timeout_s)
                                << " s (rank 0 writes it there)")
                    .view());
  }
};

}  // namespace streamdsl
