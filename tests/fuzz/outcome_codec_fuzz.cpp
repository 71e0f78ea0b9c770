// libFuzzer target: decode_outcome() reads what another rank of an MPI job sent; bytes that are
// not an outcome must be an Errc::runtime error, never a crash, a hang or an allocation beyond
// the input's size; bytes it accepts encode back to exactly themselves.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_check.hpp"
#include "qb/engine/outcome_codec.hpp"

using qb::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto outcome = qb::engine::decode_outcome(bytes);
  if (!outcome) {
    check(outcome.error().code == qb::Errc::runtime && !outcome.error().message.empty());
    return 0;
  }
  check(qb::engine::encode_outcome(*outcome) == bytes);
  return 0;
}
