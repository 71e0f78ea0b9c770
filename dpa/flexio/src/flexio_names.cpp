// The SDK's names for the seam's enums, as the errors and the fake's call log print them.
#include "qb/dpa/flexio/flexio_ops.hpp"

namespace qb::dpa::flexio {

const char* flexio_status_name(FlexioStatus status) noexcept {
  switch (status) {
    case FlexioStatus::success:
      return "FLEXIO_STATUS_SUCCESS";
    case FlexioStatus::failed:
      return "FLEXIO_STATUS_FAILED";
    case FlexioStatus::timeout:
      return "FLEXIO_STATUS_TIMEOUT";
    case FlexioStatus::fatal_error:
      return "FLEXIO_STATUS_FATAL_ERR";
  }
  return "an unknown flexio_status";
}

const char* affinity_name(AffinityKind kind) noexcept {
  switch (kind) {
    case AffinityKind::none:
      return "NONE";
    case AffinityKind::strict:
      return "STRICT";
    case AffinityKind::group:
      return "GROUP";
  }
  return "?";
}

const char* message_level_name(MessageLevel level) noexcept {
  switch (level) {
    case MessageLevel::off:
      return "NO_PRINT";
    case MessageLevel::error:
      return "ERROR";
    case MessageLevel::warn:
      return "WARN";
    case MessageLevel::info:
      return "INFO";
    case MessageLevel::debug:
      return "DEBUG";
  }
  return "?";
}

}  // namespace qb::dpa::flexio
