#include "qb/policies/sched_tree.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace qb::policy {
namespace {

using ::testing::HasSubstr;

constexpr double kPort = 100e9;

/// Builds specs the way the suite loader does: where = "sched.node[i]" / "sched.leaf[i]" and a
/// distinct line per entry (keys on the following lines).
class Specs {
 public:
  Specs& node(std::string name, std::string parent = {}) {
    return add(std::move(name), std::move(parent), false);
  }
  Specs& leaf(std::string name, std::string parent = {}) {
    return add(std::move(name), std::move(parent), true);
  }
  Specs& share(uint32_t bw_share) {
    auto& spec = specs_.back();
    spec.bw_share = bw_share;
    spec.has_bw_share = true;
    spec.bw_share_loc = SourceLoc{"suite.toml", spec.loc.line + 2, 12};
    return *this;
  }
  Specs& cap(double max_avg_bw_bps) {
    auto& spec = specs_.back();
    spec.max_avg_bw_bps = max_avg_bw_bps;
    spec.has_max_avg_bw = true;
    spec.max_avg_bw_loc = SourceLoc{"suite.toml", spec.loc.line + 3, 14};
    return *this;
  }
  const std::vector<SchedElementSpec>& get() const { return specs_; }

 private:
  Specs& add(std::string name, std::string parent, bool is_leaf) {
    SchedElementSpec spec;
    spec.name = std::move(name);
    spec.is_leaf = is_leaf;
    spec.where = std::string(is_leaf ? "sched.leaf[" : "sched.node[") +
                 std::to_string(is_leaf ? leaves_++ : nodes_++) + "]";
    spec.loc = SourceLoc{"suite.toml", line_, 1};
    if (!parent.empty()) {
      spec.parent = std::move(parent);
      spec.parent_loc = SourceLoc{"suite.toml", line_ + 1, 10};
    }
    line_ += 5;
    specs_.push_back(std::move(spec));
    return *this;
  }
  std::vector<SchedElementSpec> specs_;
  uint32_t nodes_ = 0, leaves_ = 0, line_ = 1;
};

Error compile_error(const Specs& specs, double port = kPort) {
  std::vector<Warning> warnings;
  auto tree = compile_sched_tree(specs.get(), port, warnings);
  EXPECT_FALSE(tree.ok());
  if (tree.ok()) return {};
  EXPECT_EQ(tree.error().code, Errc::invalid_config);
  return tree.error();
}

TEST(SchedTree, ManPageExampleCompiles) {
  Specs specs;
  specs.node("root").leaf("g1", "root").share(7).leaf("g2", "root").share(3).cap(4096e6);
  std::vector<Warning> warnings;
  auto tree = compile_sched_tree(specs.get(), kPort, warnings);
  ASSERT_TRUE(tree.ok()) << tree.error().to_string();
  EXPECT_TRUE(warnings.empty());
  ASSERT_EQ(tree->elements.size(), 3u);
  const auto& root = tree->elements[0];
  EXPECT_EQ(root.name, "root");
  EXPECT_EQ(root.parent, SchedTree::kNoParent);
  EXPECT_FALSE(root.is_leaf);
  EXPECT_EQ(root.depth, 0u);
  EXPECT_EQ(root.children, (std::vector<uint32_t>{1, 2}));
  const auto& g2 = tree->elements[2];
  EXPECT_EQ(g2.name, "g2");
  EXPECT_TRUE(g2.is_leaf);
  EXPECT_EQ(g2.parent, 0u);
  EXPECT_EQ(g2.bw_share, 3u);
  EXPECT_EQ(g2.weight, 3u);
  EXPECT_DOUBLE_EQ(g2.max_avg_bw_bps, 4096e6);
  EXPECT_EQ(g2.depth, 1u);
  EXPECT_EQ(tree->find("g1"), 1u);
  EXPECT_EQ(tree->find("nope"), SchedTree::kNoParent);
  EXPECT_EQ(tree->leaves(), (std::vector<uint32_t>{1, 2}));
}

TEST(SchedTree, RootMovesFirstOthersKeepSpecOrder) {
  // Children written before their parents, root written last.
  Specs specs;
  specs.leaf("l1", "a").leaf("l2", "b").node("a", "top").node("b", "top").leaf("l3", "a");
  specs.node("top");
  std::vector<Warning> warnings;
  auto tree = compile_sched_tree(specs.get(), kPort, warnings);
  ASSERT_TRUE(tree.ok()) << tree.error().to_string();
  std::vector<std::string> names;
  for (const auto& element : tree->elements) names.push_back(element.name);
  EXPECT_EQ(names, (std::vector<std::string>{"top", "l1", "l2", "a", "b", "l3"}));
  EXPECT_EQ(tree->elements[0].children, (std::vector<uint32_t>{3, 4}));
  EXPECT_EQ(tree->elements[3].children, (std::vector<uint32_t>{1, 5}));  // l1, l3 in spec order
  EXPECT_EQ(tree->elements[4].children, (std::vector<uint32_t>{2}));
  EXPECT_EQ(tree->elements[1].parent, 3u);
  EXPECT_EQ(tree->elements[1].depth, 2u);
  EXPECT_EQ(tree->elements[3].depth, 1u);
  EXPECT_EQ(tree->elements[5].depth, 2u);
}

TEST(SchedTree, EmptySpecGivesRootAndDefaultLeaf) {
  std::vector<Warning> warnings;
  auto tree = compile_sched_tree({}, kPort, warnings);
  ASSERT_TRUE(tree.ok());
  ASSERT_EQ(tree->elements.size(), 2u);
  EXPECT_EQ(tree->elements[0].name, "root");
  EXPECT_FALSE(tree->elements[0].is_leaf);
  EXPECT_EQ(tree->elements[0].children, (std::vector<uint32_t>{1}));
  EXPECT_EQ(tree->elements[1].name, "default");
  EXPECT_TRUE(tree->elements[1].is_leaf);
  EXPECT_EQ(tree->elements[1].parent, 0u);
  EXPECT_EQ(tree->elements[1].depth, 1u);
  EXPECT_EQ(tree->leaves(), (std::vector<uint32_t>{1}));
  EXPECT_EQ(tree->find(kDefaultLeafName), 1u);
  EXPECT_TRUE(warnings.empty());
}

TEST(SchedTree, ZeroShareCountsAsDefaultWeight) {
  Specs specs;
  specs.node("root").leaf("a", "root").leaf("b", "root");
  std::vector<Warning> warnings;
  auto tree = compile_sched_tree(specs.get(), kPort, warnings);
  ASSERT_TRUE(tree.ok());
  EXPECT_EQ(tree->elements[1].bw_share, 0u);
  EXPECT_EQ(tree->elements[1].weight, SchedTree::kDefaultWeight);
  EXPECT_TRUE(warnings.empty());  // all zero: no mix, no warning
}

TEST(SchedTree, ErrorLeafWithoutParent) {
  Specs specs;
  specs.node("root").leaf("a", "root").leaf("orphan");
  const Error error = compile_error(specs);
  EXPECT_THAT(error.message, HasSubstr("a leaf needs a parent"));
  EXPECT_THAT(error.message, HasSubstr("'orphan'"));
  EXPECT_EQ(error.where, "sched.leaf[1]");
  EXPECT_EQ(error.loc.line, 11u);
}

TEST(SchedTree, ErrorOnlyLeaves) {
  Specs specs;
  specs.leaf("a");
  EXPECT_THAT(compile_error(specs).message, HasSubstr("a leaf needs a parent"));
}

TEST(SchedTree, ErrorTwoRoots) {
  Specs specs;
  specs.node("r1").node("r2").leaf("a", "r1");
  const Error error = compile_error(specs);
  EXPECT_THAT(error.message, HasSubstr("more than one root"));
  EXPECT_THAT(error.message, HasSubstr("'r1' (sched.node[0])"));
  EXPECT_EQ(error.where, "sched.node[1]");
  EXPECT_EQ(error.loc.line, 6u);
}

TEST(SchedTree, ErrorShareOnRoot) {
  Specs specs;
  specs.node("root").share(5).leaf("a", "root");
  const Error error = compile_error(specs);
  EXPECT_EQ(error.where, "sched.node[0].bw_share");
  EXPECT_EQ(error.loc.line, 3u);
  EXPECT_EQ(error.loc.column, 12u);
  EXPECT_THAT(error.message, HasSubstr("root"));
  EXPECT_EQ(error.to_string(), "suite.toml:3:12: error: sched.node[0].bw_share: " + error.message);
}

TEST(SchedTree, ErrorShareZeroWrittenOnRoot) {
  // Root flags must be 0: writing the key at all is refused, even as 0.
  Specs specs;
  specs.node("root").share(0).leaf("a", "root");
  EXPECT_EQ(compile_error(specs).where, "sched.node[0].bw_share");
}

TEST(SchedTree, ErrorCapOnRoot) {
  Specs specs;
  specs.node("root").cap(10e9).leaf("a", "root");
  const Error error = compile_error(specs);
  EXPECT_EQ(error.where, "sched.node[0].max_avg_bw");
  EXPECT_EQ(error.loc.line, 4u);
  EXPECT_THAT(error.message, HasSubstr("max_avg_bw"));
}

TEST(SchedTree, ErrorUnknownParentListsKnownNodes) {
  Specs specs;
  specs.node("root").node("a", "root").leaf("l0", "a").leaf("l1", "root").leaf("l2", "x");
  const Error error = compile_error(specs);
  EXPECT_EQ(error.where, "sched.leaf[2].parent");
  EXPECT_EQ(error.message, "unknown parent 'x' (known nodes: root, a)");
  EXPECT_EQ(error.loc.line, 22u);  // the parent key, one line below the entry
  EXPECT_EQ(error.to_string(),
            "suite.toml:22:10: error: sched.leaf[2].parent: unknown parent 'x' (known nodes: "
            "root, a)");
}

TEST(SchedTree, ErrorLeafAsParent) {
  Specs specs;
  specs.node("root").leaf("a", "root").leaf("b", "a");
  const Error error = compile_error(specs);
  EXPECT_EQ(error.where, "sched.leaf[1].parent");
  EXPECT_THAT(error.message, HasSubstr("leaves cannot have children"));
}

TEST(SchedTree, ErrorDuplicateNameSaysWhereTheFirstIs) {
  Specs specs;
  specs.node("root").leaf("a", "root").node("a", "root");
  const Error error = compile_error(specs);
  EXPECT_EQ(error.where, "sched.node[1].name");
  EXPECT_THAT(error.message, HasSubstr("duplicate name 'a'"));
  EXPECT_THAT(error.message, HasSubstr("sched.leaf[0] at suite.toml:6:1"));
}

TEST(SchedTree, ErrorEmptyName) {
  Specs specs;
  specs.node("root").leaf("", "root");
  EXPECT_EQ(compile_error(specs).where, "sched.leaf[0].name");
}

TEST(SchedTree, ErrorCycleIsReported) {
  Specs specs;
  specs.node("root").leaf("l", "a").node("a", "b").node("b", "a").leaf("m", "root");
  const Error error = compile_error(specs);
  EXPECT_THAT(error.message, HasSubstr("a -> b -> a"));
  EXPECT_EQ(error.where, "sched.node[1].parent");
}

TEST(SchedTree, ErrorCycleStartsAtFirstMemberInSpecOrder) {
  Specs specs;
  specs.node("root").node("c", "a").node("b", "c").node("a", "b").leaf("l", "root");
  const Error error = compile_error(specs);
  EXPECT_THAT(error.message, HasSubstr("c -> a -> b -> c"));
  EXPECT_EQ(error.where, "sched.node[1].parent");
}

TEST(SchedTree, ErrorSelfParent) {
  Specs specs;
  specs.node("root").node("a", "a").leaf("l", "root");
  EXPECT_THAT(compile_error(specs).message, HasSubstr("a -> a"));
}

TEST(SchedTree, ErrorCycleWithoutAnyRoot) {
  Specs specs;
  specs.node("a", "b").node("b", "a").leaf("l", "a");
  EXPECT_THAT(compile_error(specs).message, HasSubstr("a -> b -> a"));
}

TEST(SchedTree, DepthLimit) {
  auto chain = [](uint32_t depth) {
    Specs specs;
    specs.node("n0");
    for (uint32_t d = 1; d < depth; ++d) {
      specs.node("n" + std::to_string(d), "n" + std::to_string(d - 1));
    }
    specs.leaf("leaf", "n" + std::to_string(depth - 1));
    return specs;
  };
  std::vector<Warning> warnings;
  // Leaf at depth kMaxDepth: accepted.
  EXPECT_TRUE(compile_sched_tree(chain(SchedTree::kMaxDepth).get(), kPort, warnings).ok());
  const Error error = compile_error(chain(SchedTree::kMaxDepth + 1));
  EXPECT_EQ(error.where, "sched.leaf[0].parent");
  EXPECT_THAT(error.message, HasSubstr("depth 9"));
  EXPECT_THAT(error.message, HasSubstr("n0 -> n1"));
}

TEST(SchedTree, ErrorCapAbovePortRate) {
  Specs specs;
  specs.node("root").leaf("a", "root").cap(200e9);
  const Error error = compile_error(specs);
  EXPECT_EQ(error.where, "sched.leaf[0].max_avg_bw");
  EXPECT_EQ(error.loc.line, 9u);
  EXPECT_THAT(error.message, HasSubstr("above the port rate"));
  // Exactly the port rate is fine.
  Specs ok;
  ok.node("root").leaf("a", "root").cap(kPort);
  std::vector<Warning> warnings;
  EXPECT_TRUE(compile_sched_tree(ok.get(), kPort, warnings).ok());
}

TEST(SchedTree, ErrorCapOnNodeAbovePortRate) {
  Specs specs;
  specs.node("root").node("n", "root").cap(101e9).leaf("a", "n");
  EXPECT_EQ(compile_error(specs).where, "sched.node[1].max_avg_bw");
}

TEST(SchedTree, ErrorCapBelowOneMbit) {
  Specs specs;
  specs.node("root").leaf("a", "root").cap(500e3);
  EXPECT_THAT(compile_error(specs).message, HasSubstr("below 1 Mbit/s"));
}

TEST(SchedTree, ErrorCapNotFinite) {
  Specs specs;
  specs.node("root").leaf("a", "root").cap(-1.0);
  EXPECT_EQ(compile_error(specs).where, "sched.leaf[0].max_avg_bw");
}

TEST(SchedTree, UnknownPortRateSkipsTheCapCheck) {
  Specs specs;
  specs.node("root").leaf("a", "root").cap(400e9);
  std::vector<Warning> warnings;
  EXPECT_TRUE(compile_sched_tree(specs.get(), 0.0, warnings).ok());
}

TEST(SchedTree, WarnsOnNodeWithoutChildren) {
  Specs specs;
  specs.node("root").node("empty", "root").leaf("a", "root");
  std::vector<Warning> warnings;
  auto tree = compile_sched_tree(specs.get(), kPort, warnings);
  ASSERT_TRUE(tree.ok());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].where, "sched.node[1]");
  EXPECT_THAT(warnings[0].message, HasSubstr("'empty' has no children"));
}

TEST(SchedTree, WarnsOnZeroShareMixedWithNonZero) {
  Specs specs;
  specs.node("root").leaf("a", "root").share(7).leaf("b", "root").leaf("c", "root").share(0);
  std::vector<Warning> warnings;
  auto tree = compile_sched_tree(specs.get(), kPort, warnings);
  ASSERT_TRUE(tree.ok());
  ASSERT_EQ(warnings.size(), 1u);                          // one per sibling group
  EXPECT_EQ(warnings[0].where, "sched.leaf[1].bw_share");  // the first zero sibling
  EXPECT_EQ(warnings[0].loc.line, 11u);                    // key not written: the entry
  EXPECT_THAT(warnings[0].message, HasSubstr("a=7, b=0, c=0"));
  EXPECT_EQ(tree->elements[2].weight, 1u);
  EXPECT_EQ(tree->elements[1].weight, 7u);
}

TEST(SchedTree, NoMixWarningAcrossDifferentParents) {
  Specs specs;
  specs.node("root").node("x", "root").share(2).node("y", "root").share(3);
  specs.leaf("a", "x").leaf("b", "y").share(4);  // a=0 under x, b=4 under y: not siblings
  std::vector<Warning> warnings;
  ASSERT_TRUE(compile_sched_tree(specs.get(), kPort, warnings).ok());
  EXPECT_TRUE(warnings.empty());
}

}  // namespace
}  // namespace qb::policy

namespace qb::policy {
namespace {

TEST(SchedTreeBuilding, AddChildKeepsParentChildrenDepthAndWeight) {
  SchedTree tree = SchedTree::with_root("top");
  const uint32_t node = tree.add_child(0, "n", false, 3, 10e9);
  const uint32_t leaf = tree.add_child(node, "l", true, 0);
  EXPECT_EQ(tree.elements[0].name, "top");
  EXPECT_EQ(tree.elements[0].children, std::vector<uint32_t>{node});
  EXPECT_EQ(tree.elements[node].children, std::vector<uint32_t>{leaf});
  EXPECT_EQ(tree.elements[leaf].parent, node);
  EXPECT_EQ(tree.elements[leaf].depth, 2u);
  EXPECT_EQ(tree.elements[leaf].weight, SchedTree::kDefaultWeight);  // bw_share 0
  EXPECT_EQ(tree.elements[node].weight, 3u);
  EXPECT_DOUBLE_EQ(tree.elements[node].max_avg_bw_bps, 10e9);
  EXPECT_EQ(tree.find("l"), leaf);
}

}  // namespace
}  // namespace qb::policy
