// The one-process-per-GPU bootstrap as plain C++ (g++, no GPU): the
// launcher's rank from each launcher's variables, NCCL unique ids as text,
// and their exchange through a file between rank 0 and the others (here two
// "ranks" of one process, one after the other).
#include <nccl.h>
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstring>
#include <streamdsl/backend/cuda/nccl_communicator.hpp>
#include <streamdsl/streamdsl.hpp>
#include <string>

namespace {

// Sets the variables given (name, value pairs), after clearing every
// launcher's, for one scope.
struct launcher_environment {
  static constexpr const char* all[] = {"RANK",
                                        "WORLD_SIZE",
                                        "LOCAL_RANK",
                                        "OMPI_COMM_WORLD_RANK",
                                        "OMPI_COMM_WORLD_SIZE",
                                        "OMPI_COMM_WORLD_LOCAL_RANK",
                                        "PMI_RANK",
                                        "PMI_SIZE",
                                        "MPI_LOCALRANKID",
                                        "SLURM_PROCID",
                                        "SLURM_NTASKS",
                                        "SLURM_LOCALID"};
  launcher_environment(std::initializer_list<std::pair<const char*, const char*>> vars) {
    clear();
    for (const auto& [name, value] : vars) setenv(name, value, 1);
  }
  ~launcher_environment() { clear(); }
  static void clear() {
    for (const char* name : all) unsetenv(name);
  }
};

}  // namespace

TEST_CASE("launcher_rank reads torchrun's, Open MPI's, PMI's and Slurm's variables", "[nccl][bootstrap]") {
  {
    launcher_environment env{{"RANK", "3"}, {"WORLD_SIZE", "8"}, {"LOCAL_RANK", "1"}};
    const auto r = sd::launcher_rank::from_environment();
    CHECK((r.rank == 3 && r.size == 8 && r.local_rank == 1));
    CHECK(std::string(r.launcher) == "torchrun");
  }
  {
    launcher_environment env{
        {"OMPI_COMM_WORLD_RANK", "5"}, {"OMPI_COMM_WORLD_SIZE", "6"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "2"}};
    const auto r = sd::launcher_rank::from_environment();
    CHECK((r.rank == 5 && r.size == 6 && r.local_rank == 2));
    CHECK(std::string(r.launcher) == "Open MPI");
  }
  {
    launcher_environment env{{"PMI_RANK", "1"}, {"PMI_SIZE", "2"}};  // no local rank: the rank
    const auto r = sd::launcher_rank::from_environment();
    CHECK((r.rank == 1 && r.size == 2 && r.local_rank == 1));
  }
  {
    launcher_environment env{{"SLURM_PROCID", "7"}, {"SLURM_NTASKS", "16"}, {"SLURM_LOCALID", "3"}};
    const auto r = sd::launcher_rank::from_environment();
    CHECK((r.rank == 7 && r.size == 16 && r.local_rank == 3));
    CHECK(std::string(r.launcher) == "Slurm");
  }
  {
    launcher_environment env{};
    const auto r = sd::launcher_rank::from_environment();
    CHECK((r.rank == 0 && r.size == 1 && r.local_rank == 0));
  }
  {
    launcher_environment env{{"RANK", "4"}, {"WORLD_SIZE", "4"}};
    CHECK_THROWS_WITH(sd::launcher_rank::from_environment(),
                      Catch::Contains("RANK=4") && Catch::Contains("WORLD_SIZE=4"));
  }
}

TEST_CASE("NCCL unique ids as text, and their exchange through a file", "[nccl][bootstrap]") {
  sd::nccl_unique_id u;
  for (std::size_t i = 0; i < sizeof u.id.internal; ++i) u.id.internal[i] = static_cast<char>(i * 37 + 11);
  char hex[sd::nccl_unique_id::hex_size + 1];
  u.to_hex(hex);
  CHECK(std::strlen(hex) == 2 * sizeof(ncclUniqueId));
  const auto back = sd::nccl_unique_id::from_hex(hex);
  CHECK(std::memcmp(&back.id, &u.id, sizeof u.id) == 0);
  CHECK_THROWS_WITH(sd::nccl_unique_id::from_hex("abc"), Catch::Contains("got 3 characters"));
  hex[5] = 'g';
  CHECK_THROWS(sd::nccl_unique_id::from_hex(hex));

  const std::string path = "nccl_bootstrap_test.ncclid";
  std::remove(path.c_str());
  CHECK_THROWS_WITH(sd::nccl_unique_id::exchange_through_file(path.c_str(), 1, 0.05),
                    Catch::Contains("rank 1 found no NCCL unique id at " + path));
  sd::nccl_unique_id made;
  try {
    made = sd::nccl_unique_id::exchange_through_file(path.c_str(), 0);
  } catch (const sd::nccl_error& e) {  // ncclGetUniqueId needs a network interface NCCL accepts
    WARN("ncclGetUniqueId failed here, the exchange is not tested: " << e.what());
    return;
  }
  const auto read = sd::nccl_unique_id::exchange_through_file(path.c_str(), 1);
  CHECK(std::memcmp(&read.id, &made.id, sizeof made.id) == 0);
  std::remove(path.c_str());
}
