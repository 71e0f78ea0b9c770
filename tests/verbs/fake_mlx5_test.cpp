// The fake ConnectX enforces the man pages' rules: the tests the driver passes would mean
// nothing against a fake that accepts anything.
#include "fake_mlx5.hpp"

#include <gtest/gtest.h>

#include <cerrno>

namespace qb::drv::verbs {
namespace {

class FakeRules : public ::testing::Test {
 protected:
  void SetUp() override {
    context_ = fake_.open_device("mlx5_0");
    ASSERT_NE(context_, nullptr);
  }
  mlx5dv_sched_node* root() {
    mlx5dv_sched_attr attr{};
    return fake_.sched_node_create(context_, &attr);
  }
  mlx5dv_sched_leaf* leaf(mlx5dv_sched_node* parent, uint32_t flags = 0, uint32_t share = 0) {
    mlx5dv_sched_attr attr{};
    attr.parent = parent;
    attr.flags = flags;
    attr.bw_share = share;
    return fake_.sched_leaf_create(context_, &attr);
  }
  // An RC QP in RESET on fresh PD and CQ.
  ibv_qp* qp() {
    pd_ = pd_ != nullptr ? pd_ : fake_.alloc_pd(context_);
    if (cq_ == nullptr) {
      ibv_cq_init_attr_ex attr{};
      attr.cqe = 16;
      cq_ = fake_.create_cq(context_, &attr);
    }
    ibv_qp_init_attr attr{};
    attr.qp_type = IBV_QPT_RC;
    attr.send_cq = ibv_cq_ex_to_cq(cq_);
    attr.recv_cq = ibv_cq_ex_to_cq(cq_);
    attr.cap.max_send_wr = 4;
    attr.cap.max_recv_wr = 4;
    attr.cap.max_send_sge = 1;
    return fake_.create_qp(pd_, &attr);
  }
  int to_init(ibv_qp* q) {
    ibv_qp_attr attr{};
    attr.qp_state = IBV_QPS_INIT;
    attr.port_num = 1;
    return fake_.modify_qp(q, &attr,
                           IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
  }

  FakeMlx5 fake_{FakeDeviceConfig{}};
  ibv_context* context_ = nullptr;
  ibv_pd* pd_ = nullptr;
  ibv_cq_ex* cq_ = nullptr;
};

TEST_F(FakeRules, RootMustHaveFlagsZeroAndBeUnique) {
  mlx5dv_sched_attr attr{};
  attr.flags = MLX5DV_SCHED_ELEM_ATTR_FLAGS_BW_SHARE;
  attr.bw_share = 1;
  errno = 0;
  EXPECT_EQ(fake_.sched_node_create(context_, &attr), nullptr);
  EXPECT_EQ(errno, EINVAL);
  ASSERT_NE(root(), nullptr);
  errno = 0;
  EXPECT_EQ(root(), nullptr);
  EXPECT_EQ(errno, EEXIST);
}

TEST_F(FakeRules, LeafNeedsALiveNodeParentAndZeroCompMaskAndKnownFlags) {
  errno = 0;
  EXPECT_EQ(leaf(nullptr), nullptr);
  EXPECT_EQ(errno, EINVAL);
  mlx5dv_sched_node* r = root();
  mlx5dv_sched_attr attr{};
  attr.parent = r;
  attr.comp_mask = 1;
  EXPECT_EQ(fake_.sched_leaf_create(context_, &attr), nullptr);
  attr.comp_mask = 0;
  attr.flags = 0x80;
  EXPECT_EQ(fake_.sched_leaf_create(context_, &attr), nullptr);
  mlx5dv_sched_leaf* l = leaf(r);
  ASSERT_NE(l, nullptr);
  attr.flags = 0;
  attr.parent = reinterpret_cast<mlx5dv_sched_node*>(l);  // a leaf as parent
  EXPECT_EQ(fake_.sched_leaf_create(context_, &attr), nullptr);
  EXPECT_EQ(fake_.sched_leaf_destroy(l), 0);
  EXPECT_EQ(fake_.sched_node_destroy(r), 0);
  errno = 0;
  EXPECT_EQ(leaf(r), nullptr);  // a destroyed parent
  EXPECT_EQ(errno, EINVAL);
  EXPECT_FALSE(fake_.violations().empty()) << "use after destroy is reported";
}

TEST_F(FakeRules, NodeWithChildrenAndLeafWithQpsAreBusy) {
  mlx5dv_sched_node* r = root();
  mlx5dv_sched_leaf* l = leaf(r, MLX5DV_SCHED_ELEM_ATTR_FLAGS_BW_SHARE, 7);
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(fake_.sched_node_destroy(r), EBUSY);
  ibv_qp* q = qp();
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(fake_.modify_qp_sched_elem(q, l, nullptr), EINVAL) << "a QP in RESET";
  ASSERT_EQ(to_init(q), 0);
  EXPECT_EQ(fake_.modify_qp_sched_elem(q, l, nullptr), 0);
  EXPECT_EQ(fake_.sched_leaf_destroy(l), EBUSY);
  EXPECT_EQ(fake_.modify_qp_sched_elem(q, nullptr, nullptr), 0);
  EXPECT_EQ(fake_.sched_leaf_destroy(l), 0);
  EXPECT_EQ(fake_.sched_node_destroy(r), 0);
}

TEST_F(FakeRules, WithoutSchedulingSupportEveryElementCallIsEopnotsupp) {
  FakeDeviceConfig config;
  config.sched_support = false;
  FakeMlx5 fake(config);
  ibv_context* context = fake.open_device("mlx5_0");
  mlx5dv_sched_attr attr{};
  errno = 0;
  EXPECT_EQ(fake.sched_node_create(context, &attr), nullptr);
  EXPECT_EQ(errno, EOPNOTSUPP);
  EXPECT_EQ(fake.close_device(context), 0);
}

TEST_F(FakeRules, QpTransitionsNeedTheirAttributes) {
  ibv_qp* q = qp();
  ibv_qp_attr attr{};
  attr.qp_state = IBV_QPS_RTR;
  EXPECT_EQ(fake_.modify_qp(q, &attr, IBV_QP_STATE), EINVAL) << "RESET -> RTR";
  ASSERT_EQ(to_init(q), 0);
  EXPECT_EQ(fake_.modify_qp(q, &attr, IBV_QP_STATE), EINVAL) << "RTR without its attributes";
  attr.path_mtu = IBV_MTU_4096;
  attr.ah_attr.is_global = 0;  // RoCE needs a GRH
  const int rtr = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
  EXPECT_EQ(fake_.modify_qp(q, &attr, rtr), EINVAL);
  attr.ah_attr.is_global = 1;
  EXPECT_EQ(fake_.modify_qp(q, &attr, rtr), 0);
}

TEST_F(FakeRules, CountsLiveObjectsAndInjectsFailures) {
  ibv_qp* q = qp();
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(fake_.live().total(), 4u);  // context, PD, CQ, QP
  EXPECT_EQ(fake_.dealloc_pd(pd_), EBUSY) << "a QP uses it";
  EXPECT_EQ(fake_.destroy_qp(q), 0);
  EXPECT_EQ(fake_.destroy_cq(cq_), 0);
  EXPECT_EQ(fake_.dealloc_pd(pd_), 0);
  fake_.fail_call(static_cast<uint32_t>(fake_.calls().size()) + 1, ENOMEM);
  errno = 0;
  EXPECT_EQ(fake_.alloc_pd(context_), nullptr);
  EXPECT_EQ(errno, ENOMEM);
  EXPECT_EQ(fake_.close_device(context_), 0);
  EXPECT_EQ(fake_.live().total(), 0u);
}

TEST_F(FakeRules, ClosingWithObjectsLeftIsAViolation) {
  ASSERT_NE(fake_.alloc_pd(context_), nullptr);
  EXPECT_EQ(fake_.close_device(context_), 0);
  ASSERT_EQ(fake_.violations().size(), 1u);
  EXPECT_NE(fake_.violations()[0].find("1 objects still allocated (1 contexts, 1 PDs"), std::string::npos)
      << fake_.violations()[0];
}

}  // namespace
}  // namespace qb::drv::verbs
