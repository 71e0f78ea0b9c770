// Writes the outcome codec's fuzz seed (the sample outcome in this build's format) to the file
// given: scripts/outcome_fuzz_seed.sh runs it after a format change.
#include <cstdio>
#include <fstream>

#include "outcome_sample.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT.bin\n", argv[0]);
    return 2;
  }
  std::ofstream out(argv[1], std::ios::binary | std::ios::trunc);
  out << qb::engine::encode_outcome(qb::engine::sample_fuzz_seed());
  out.close();
  if (!out) {
    std::fprintf(stderr, "%s: cannot write %s\n", argv[0], argv[1]);
    return 1;
  }
  return 0;
}
