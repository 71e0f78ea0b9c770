#include "qb/dpa/flexio/load_request.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

namespace qb::dpa::flexio {
namespace {

constexpr std::array<std::byte, 4> kElfMagic{std::byte{0x7f}, std::byte{'E'}, std::byte{'L'},
                                             std::byte{'F'}};

Error request_error(std::string message, std::string where) {
  return make_error(Errc::invalid_config, std::move(message), std::move(where));
}

}  // namespace

Affinity thread_affinity(const ThreadPlacement& placement, uint32_t index) noexcept {
  switch (placement.kind) {
    case AffinityKind::strict:
      return Affinity{AffinityKind::strict, placement.first_id + index};
    case AffinityKind::group:
      return Affinity{AffinityKind::group, placement.first_id};
    case AffinityKind::none:
      break;
  }
  return Affinity{};
}

Result<std::vector<std::byte>> read_program(const LoadRequest& request) {
  if (request.handler_name.empty()) {
    return request_error("the DPA program's handler name is empty", "handler");
  }
  if (request.handler_name.size() > kMaxNameLength) {
    return request_error(fmt::format("the handler name is {} bytes, FlexIO takes at most {} "
                                     "(FLEXIO_MAX_NAME_LEN)",
                                     request.handler_name.size(), kMaxNameLength),
                         "handler");
  }
  if (request.device_name.empty()) {
    return request_error("no RDMA device named for the DPA", "device");
  }
  if (request.threads == 0 || request.threads > kMaxThreads) {
    return request_error(fmt::format("threads = {}: a DPA program runs on 1 to {} threads",
                                     request.threads, kMaxThreads),
                         "threads");
  }
  if (request.placement.kind == AffinityKind::strict &&
      uint64_t{request.placement.first_id} + request.threads > kMaxThreads) {
    return request_error(fmt::format("strict placement from execution unit {} for {} threads "
                                     "goes past the DPA's {} units",
                                     request.placement.first_id, request.threads, kMaxThreads),
                         "placement");
  }
  if (request.placement.kind == AffinityKind::none && request.placement.first_id != 0) {
    return request_error("placement none takes no execution unit id", "placement");
  }
  if (request.cq_log_depth == 0 || request.cq_log_depth > kMaxCqLogDepth) {
    return request_error(
        fmt::format("cq_log_depth = {}: 1 to {}", request.cq_log_depth, kMaxCqLogDepth),
        "cq_log_depth");
  }
  if (request.elf_path.empty()) {
    return request_error("no DPA program (ELF file) given", "elf");
  }
  std::ifstream file(request.elf_path, std::ios::binary);
  if (!file) {
    const int error = errno;
    return make_error(
        Errc::io,
        fmt::format("cannot open the DPA program {}: {}", request.elf_path, std::strerror(error)),
        "elf");
  }
  std::vector<std::byte> image;
  std::transform(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>(),
                 std::back_inserter(image), [](char c) { return static_cast<std::byte>(c); });
  if (file.bad()) {
    return make_error(Errc::io, fmt::format("reading the DPA program {} failed", request.elf_path),
                      "elf");
  }
  // flexio_app_create would refuse it too, but only after the device was opened.
  if (image.size() < kElfMagic.size() ||
      !std::equal(kElfMagic.begin(), kElfMagic.end(), image.begin())) {
    return request_error(
        fmt::format("{} is not an ELF file (a DPA program built by dpacc)", request.elf_path),
        "elf");
  }
  return image;
}

}  // namespace qb::dpa::flexio
