// How a SimModel holds what it has one of per host (NIC state, completion lane, scheduler):
// a std::vector for the Fabric shape, and for SingleLink a container of exactly one element
// kept inline, so the per-packet path reaches its one host without a pointer to chase.
#pragma once

#include <cstddef>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace qb::drv::sim {

/// The slice of std::vector's interface the model uses, for at most one element.
template <class T>
class OneOf {
 public:
  T& operator[](size_t /*index: 0*/) noexcept { return *value_; }
  const T& operator[](size_t /*index: 0*/) const noexcept { return *value_; }
  T& front() noexcept { return *value_; }
  const T& front() const noexcept { return *value_; }
  size_t size() const noexcept { return value_ ? 1 : 0; }
  bool empty() const noexcept { return !value_; }
  T* begin() noexcept { return value_ ? &*value_ : nullptr; }
  T* end() noexcept { return value_ ? &*value_ + 1 : nullptr; }
  const T* begin() const noexcept { return value_ ? &*value_ : nullptr; }
  const T* end() const noexcept { return value_ ? &*value_ + 1 : nullptr; }

  /// count: 0 or 1.
  void assign(size_t count, const T& value) {
    if (count == 0) {
      value_.reset();
    } else {
      value_ = value;
    }
  }
  template <class... Args>
  T& emplace_back(Args&&... args) {
    return value_.emplace(std::forward<Args>(args)...);
  }
  void clear() noexcept { value_.reset(); }
  void reserve(size_t /*count*/) noexcept {}

 private:
  std::optional<T> value_;
};

/// What a model of shape `kFabric` holds one of per host.
template <bool kFabric, class T>
using PerHost = std::conditional_t<kFabric, std::vector<T>, OneOf<T>>;

}  // namespace qb::drv::sim
