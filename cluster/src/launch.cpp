#include <cstdlib>

#include "qb/cluster/job.hpp"

namespace qb::cluster {

Launch detect_launch() {
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK"}) {
    if (const char* value = std::getenv(variable); value != nullptr && *value != '\0') {
      return Launch{true, std::string(variable) + "=" + value};
    }
  }
  return {};
}

}  // namespace qb::cluster
