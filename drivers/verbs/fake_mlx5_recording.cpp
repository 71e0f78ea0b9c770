// The fake ConnectX's records of what it was asked: the control-path call log with its texts,
// injected failures, violations, and the counts of live objects.
#include <fmt/format.h>

#include "fake_mlx5_state.hpp"

namespace qb::drv::verbs {

namespace fake {

std::string label_of(const Record* record) {
  return record == nullptr ? "null" : record->label();
}

std::string sched_flags_text(uint32_t flags) {
  if (flags == 0) return "0";
  std::string text;
  if ((flags & MLX5DV_SCHED_ELEM_ATTR_FLAGS_BW_SHARE) != 0) text = "BW_SHARE";
  if ((flags & MLX5DV_SCHED_ELEM_ATTR_FLAGS_MAX_AVG_BW) != 0) {
    text += text.empty() ? "MAX_AVG_BW" : "|MAX_AVG_BW";
  }
  if ((flags & ~kKnownSchedFlags) != 0) {
    text += fmt::format("{}0x{:x}", text.empty() ? "" : "|", flags & ~kKnownSchedFlags);
  }
  return text;
}

std::string sched_call(const char* name, const mlx5dv_sched_attr* attr) {
  if (attr == nullptr) return fmt::format("{}(null)", name);
  return fmt::format("{}(parent={}, flags={}, bw_share={}, max_avg_bw={}, comp_mask={})", name,
                     label_of(FakeMlx5::State::record_of(attr->parent)),
                     sched_flags_text(attr->flags), attr->bw_share, attr->max_avg_bw,
                     attr->comp_mask);
}

std::string modify_qp_call(const Record* qp, const ibv_qp_attr& attr, int mask) {
  std::string text = fmt::format("modify_qp({}", label_of(qp));
  if ((mask & IBV_QP_STATE) != 0)
    text += fmt::format(", state={}", static_cast<int>(attr.qp_state));
  if ((mask & IBV_QP_AV) != 0) {
    text += fmt::format(", sl={}, is_global={}", attr.ah_attr.sl, attr.ah_attr.is_global);
    if (attr.ah_attr.is_global != 0) {
      text += fmt::format(", traffic_class={}, sgid_index={}", attr.ah_attr.grh.traffic_class,
                          attr.ah_attr.grh.sgid_index);
    } else {
      text += fmt::format(", dlid={}", attr.ah_attr.dlid);
    }
  }
  if ((mask & IBV_QP_PATH_MTU) != 0) text += fmt::format(", path_mtu={}", 128 << attr.path_mtu);
  if ((mask & IBV_QP_DEST_QPN) != 0) text += fmt::format(", dest_qp_num=0x{:x}", attr.dest_qp_num);
  return text + ")";
}

}  // namespace fake

bool FakeMlx5::State::begin(std::string text) {
  calls.push_back(std::move(text));
  if (fail_at != 0 && calls.size() == fail_at) {
    calls.back() += fmt::format(" -> injected {}", fail_error);
    return true;
  }
  return false;
}

void FakeMlx5::State::result(std::string_view text) {
  calls.back() += fmt::format(" = {}", text);
}

int FakeMlx5::State::refuse(int error, std::string_view why) {
  calls.back() += fmt::format(" -> {} ({})", error, why);
  return error;
}

std::string FakeLiveObjects::describe() const {
  return fmt::format("{} contexts, {} PDs, {} MRs, {} CQs, {} QPs, {} nodes, {} leaves", contexts,
                     pds, mrs, cqs, qps, nodes, leaves);
}

const std::vector<std::string>& FakeMlx5::calls() const noexcept {
  return state_->calls;
}
const std::vector<std::string>& FakeMlx5::violations() const noexcept {
  return state_->violations;
}
void FakeMlx5::fail_call(uint32_t call, int error) noexcept {
  state_->fail_at = call;
  state_->fail_error = error;
}
void FakeMlx5::fail_next_poll(int error) noexcept {
  state_->fail_next_poll = error;
}

uint64_t FakeMlx5::posted_sends() const noexcept {
  return state_->posted_sends.load(std::memory_order_relaxed);
}

FakeLiveObjects FakeMlx5::live() const noexcept {
  FakeLiveObjects live;
  auto count = [](const auto& records) {
    uint32_t n = 0;
    for (const auto& r : records) n += r->alive ? 1 : 0;
    return n;
  };
  live.contexts = count(state_->context_records);
  live.pds = count(state_->pd_records);
  live.mrs = count(state_->mr_records);
  live.cqs = count(state_->cq_records);
  live.qps = count(state_->qp_records);
  for (const auto& e : state_->element_records) {
    if (e->alive) ++(e->leaf ? live.leaves : live.nodes);
  }
  return live;
}

}  // namespace qb::drv::verbs
