// The fake FlexIO SDK enforces the SDK's rules: the loader's tests would mean nothing against a
// fake that accepts anything.
#include "qb/dpa/flexio/fake_flexio.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cerrno>

#include "flexio_test_support.hpp"

namespace qb::dpa::flexio {
namespace {

using testing::program_image;

class FakeFlexioRules : public ::testing::Test {
 protected:
  void SetUp() override {
    context_ = fake_.open_device("mlx5_0");
    ASSERT_NE(context_, nullptr);
    ASSERT_EQ(fake_.app_create(AppAttr{"prog", image_}, &app_), FlexioStatus::success);
    ASSERT_EQ(fake_.func_register(app_, testing::kHandlerSymbol, &function_),
              FlexioStatus::success);
    ASSERT_EQ(fake_.process_create(context_, app_, ProcessAttr{}, &process_),
              FlexioStatus::success);
  }
  flexio_event_handler* handler(Affinity affinity = {}) {
    flexio_event_handler* out = nullptr;
    return fake_.event_handler_create(process_, EventHandlerAttr{function_, affinity}, &out) ==
                   FlexioStatus::success
               ? out
               : nullptr;
  }
  DeviceAddress buffer(size_t bytes) {
    std::vector<std::byte> zeros(bytes);
    DeviceAddress address = 0;
    EXPECT_EQ(fake_.copy_from_host(process_, zeros, &address), FlexioStatus::success);
    return address;
  }
  // A CQ of 2^4 entries bound to `h`'s thread, with its ring and doorbell record.
  FlexioStatus cq(flexio_event_handler* h, flexio_cq** out, uint8_t log_depth = 4) {
    const DeviceAddress dbr = buffer(8);
    const DeviceAddress ring = buffer(size_t{64} << 4);
    const CqAttr attr{log_depth, fake_.event_handler_thread(h), fake_.process_uar_id(process_),
                      ring, dbr};
    return fake_.cq_create(process_, attr, out);
  }

  FakeFlexio fake_;
  std::vector<std::byte> image_ = program_image({std::string(testing::kHandlerSymbol)});
  ibv_context* context_ = nullptr;
  flexio_app* app_ = nullptr;
  DeviceFunction function_ = nullptr;
  flexio_process* process_ = nullptr;
};

TEST_F(FakeFlexioRules, OnlyTheConfiguredDeviceOpens) {
  errno = 0;
  EXPECT_EQ(fake_.open_device("mlx5_7"), nullptr);
  EXPECT_EQ(errno, ENODEV);
}

TEST_F(FakeFlexioRules, AnAppNeedsAnElfImageAndAFunctionASymbolInIt) {
  flexio_app* app = nullptr;
  const std::array<std::byte, 4> text{std::byte{'#'}, std::byte{'!'}, std::byte{'/'},
                                      std::byte{'b'}};
  EXPECT_EQ(fake_.app_create(AppAttr{"prog", text}, &app), FlexioStatus::failed);
  EXPECT_EQ(fake_.app_create(AppAttr{"", image_}, &app), FlexioStatus::failed);
  DeviceFunction function = nullptr;
  EXPECT_EQ(fake_.func_register(app_, "not_in_the_image", &function), FlexioStatus::failed);
  EXPECT_EQ(fake_.func_register(app_, "", &function), FlexioStatus::failed);
  EXPECT_EQ(fake_.func_register(app_, std::string(257, 'x'), &function), FlexioStatus::failed);
  EXPECT_EQ(function, nullptr);
}

TEST_F(FakeFlexioRules, AHandlerNeedsALiveProcessAndAFunctionOfItsApp) {
  flexio_event_handler* out = nullptr;
  EXPECT_EQ(fake_.event_handler_create(nullptr, EventHandlerAttr{function_, {}}, &out),
            FlexioStatus::failed);
  EXPECT_EQ(fake_.event_handler_create(process_, EventHandlerAttr{nullptr, {}}, &out),
            FlexioStatus::failed);
  // A function registered on another app.
  flexio_app* other = nullptr;
  ASSERT_EQ(fake_.app_create(AppAttr{"other", image_}, &other), FlexioStatus::success);
  DeviceFunction foreign = nullptr;
  ASSERT_EQ(fake_.func_register(other, testing::kHandlerSymbol, &foreign), FlexioStatus::success);
  EXPECT_EQ(fake_.event_handler_create(process_, EventHandlerAttr{foreign, {}}, &out),
            FlexioStatus::failed);
  EXPECT_EQ(out, nullptr);
  EXPECT_NE(handler(), nullptr);
}

TEST_F(FakeFlexioRules, AffinityIdsMustExist) {
  EXPECT_EQ(handler({AffinityKind::none, 1}), nullptr);
  EXPECT_EQ(handler({AffinityKind::strict, 254}), nullptr);
  EXPECT_EQ(handler({AffinityKind::group, 16}), nullptr);
  EXPECT_NE(handler({AffinityKind::strict, 253}), nullptr);
  EXPECT_NE(handler({AffinityKind::group, 15}), nullptr);
}

TEST_F(FakeFlexioRules, ACqNeedsALiveHandlersThreadTheProcessUarAndItsHeapBuffers) {
  flexio_event_handler* h = handler();
  ASSERT_NE(h, nullptr);
  flexio_thread* thread = fake_.event_handler_thread(h);
  const uint32_t uar = fake_.process_uar_id(process_);
  const DeviceAddress dbr = buffer(8);
  const DeviceAddress ring = buffer(64 << 4);
  flexio_cq* out = nullptr;
  EXPECT_EQ(fake_.cq_create(process_, CqAttr{4, nullptr, uar, ring, dbr}, &out),
            FlexioStatus::failed);
  EXPECT_EQ(fake_.cq_create(process_, CqAttr{4, thread, uar + 1, ring, dbr}, &out),
            FlexioStatus::failed)
      << "another UAR";
  EXPECT_EQ(fake_.cq_create(process_, CqAttr{5, thread, uar, ring, dbr}, &out),
            FlexioStatus::failed)
      << "a ring too small for 2^5 CQEs";
  EXPECT_EQ(fake_.cq_create(process_, CqAttr{4, thread, uar, ring, 0x999}, &out),
            FlexioStatus::failed)
      << "a doorbell record not on the heap";
  EXPECT_EQ(out, nullptr);
  EXPECT_EQ(fake_.cq_create(process_, CqAttr{4, thread, uar, ring, dbr}, &out),
            FlexioStatus::success);
  // A thread of another process's handler.
  flexio_process* second = nullptr;
  ASSERT_EQ(fake_.process_create(context_, app_, ProcessAttr{}, &second), FlexioStatus::success);
  flexio_event_handler* foreign = nullptr;
  ASSERT_EQ(fake_.event_handler_create(second, EventHandlerAttr{function_, {}}, &foreign),
            FlexioStatus::success);
  flexio_cq* cross = nullptr;
  EXPECT_EQ(fake_.cq_create(process_,
                            CqAttr{4, fake_.event_handler_thread(foreign), uar, ring, dbr}, &cross),
            FlexioStatus::failed);
}

TEST_F(FakeFlexioRules, RunNeedsABoundCqAndHappensOnce) {
  flexio_event_handler* h = handler();
  EXPECT_EQ(fake_.event_handler_run(h, 0), FlexioStatus::failed) << "no CQ wakes it";
  flexio_cq* c = nullptr;
  ASSERT_EQ(cq(h, &c), FlexioStatus::success);
  EXPECT_EQ(fake_.event_handler_run(h, 0), FlexioStatus::success);
  EXPECT_EQ(fake_.running_handlers(), 1u);
  EXPECT_EQ(fake_.event_handler_run(h, 0), FlexioStatus::failed) << "already running";
}

TEST_F(FakeFlexioRules, DestroyOnlyLiveObjectsInReverseAndTheProcessLast) {
  flexio_event_handler* h = handler();
  flexio_cq* c = nullptr;
  ASSERT_EQ(cq(h, &c), FlexioStatus::success);
  flexio_outbox* outbox = nullptr;
  ASSERT_EQ(fake_.outbox_create(process_, OutboxAttr{}, &outbox), FlexioStatus::success);

  EXPECT_EQ(fake_.process_destroy(process_), FlexioStatus::failed) << "objects alive on it";
  EXPECT_EQ(fake_.app_destroy(app_), FlexioStatus::failed) << "its process is alive";
  EXPECT_EQ(fake_.close_device(context_), EBUSY);
  EXPECT_EQ(fake_.event_handler_destroy(h), FlexioStatus::failed) << "its CQ is alive";
  EXPECT_TRUE(fake_.violations().empty());

  EXPECT_EQ(fake_.outbox_destroy(outbox), FlexioStatus::success);
  EXPECT_EQ(fake_.outbox_destroy(outbox), FlexioStatus::failed);
  EXPECT_EQ(fake_.outbox_id(outbox), kInvalidId);
  EXPECT_EQ(fake_.violations().size(), 2u) << "use after destroy, twice";
  EXPECT_EQ(fake_.cq_destroy(c), FlexioStatus::success);
  EXPECT_EQ(fake_.event_handler_thread(h) != nullptr, true);
  EXPECT_EQ(fake_.event_handler_destroy(h), FlexioStatus::success);
  EXPECT_EQ(fake_.event_handler_thread(h), nullptr);
  // The CQ's buffers were not freed: process_destroy frees them but reports it.
  EXPECT_EQ(fake_.live().heap_buffers, 2u);
  const size_t before = fake_.violations().size();
  EXPECT_EQ(fake_.process_destroy(process_), FlexioStatus::success);
  EXPECT_EQ(fake_.violations().size(), before + 1);
  EXPECT_EQ(fake_.app_destroy(app_), FlexioStatus::success);
  EXPECT_EQ(fake_.close_device(context_), 0);
  EXPECT_EQ(fake_.live().total(), 0u) << fake_.live().describe();
}

TEST_F(FakeFlexioRules, HeapBuffersAreFreedOnceAndTheHeapIsFinite) {
  const DeviceAddress a = buffer(100);
  EXPECT_EQ(fake_.heap_bytes(a).size(), 100u);
  EXPECT_EQ(fake_.buf_dev_free(process_, 0), FlexioStatus::success) << "0 is valid";
  EXPECT_EQ(fake_.buf_dev_free(process_, a), FlexioStatus::success);
  EXPECT_EQ(fake_.buf_dev_free(process_, a), FlexioStatus::failed);
  EXPECT_EQ(fake_.violations().size(), 1u);
  std::vector<std::byte> huge((size_t{1} << 20) + 1);
  DeviceAddress address = 0;
  EXPECT_EQ(fake_.copy_from_host(process_, huge, &address), FlexioStatus::failed);
  EXPECT_EQ(fake_.copy_from_host(process_, {}, &address), FlexioStatus::failed);
}

TEST_F(FakeFlexioRules, MessageStreamsTakeAPowerOfTwoBufferAndAnOutput) {
  flexio_msg_stream* stream = nullptr;
  EXPECT_EQ(fake_.msg_stream_create(process_, MsgStreamAttr{"s", MessageLevel::info, 1024}, stderr,
                                    &stream),
            FlexioStatus::failed);
  EXPECT_EQ(fake_.msg_stream_create(process_, MsgStreamAttr{"s", MessageLevel::info, 3000}, stderr,
                                    &stream),
            FlexioStatus::failed);
  EXPECT_EQ(fake_.msg_stream_create(process_, MsgStreamAttr{"s", MessageLevel::info, 4096}, nullptr,
                                    &stream),
            FlexioStatus::failed);
  ASSERT_EQ(fake_.msg_stream_create(process_, MsgStreamAttr{"s", MessageLevel::debug, 4096}, stderr,
                                    &stream),
            FlexioStatus::success);
  EXPECT_EQ(fake_.msg_stream_id(stream), 1) << "0 is the default stream";
  EXPECT_EQ(fake_.msg_stream_flush(stream), FlexioStatus::success);
  EXPECT_EQ(fake_.msg_stream_destroy(stream), FlexioStatus::success);
  EXPECT_EQ(fake_.msg_stream_flush(stream), FlexioStatus::failed);
}

TEST_F(FakeFlexioRules, TheWindowTakesTheProcessPd) {
  flexio_window* window = nullptr;
  EXPECT_EQ(fake_.window_create(process_, nullptr, &window), FlexioStatus::failed);
  ibv_pd* pd = fake_.process_pd(process_);
  ASSERT_NE(pd, nullptr);
  EXPECT_EQ(fake_.window_create(process_, pd, &window), FlexioStatus::success);
  EXPECT_NE(fake_.window_id(window), kInvalidId);
}

TEST_F(FakeFlexioRules, FailCallFailsExactlyThatCallAndMakesNothing) {
  const auto calls = static_cast<uint32_t>(fake_.calls().size());
  fake_.fail_call(calls + 2, FlexioStatus::fatal_error);
  flexio_outbox* first = nullptr;
  flexio_outbox* second = nullptr;
  EXPECT_EQ(fake_.outbox_create(process_, OutboxAttr{}, &first), FlexioStatus::success);
  EXPECT_EQ(fake_.outbox_create(process_, OutboxAttr{true}, &second), FlexioStatus::fatal_error);
  EXPECT_EQ(second, nullptr);
  EXPECT_EQ(fake_.live().outboxes, 1u);
  EXPECT_EQ(fake_.calls().back(),
            "flexio_outbox_create(process#3, en_pcc=1) -> injected FLEXIO_STATUS_FATAL_ERR");
  fake_.fail_call(calls + 3);
  EXPECT_EQ(fake_.outbox_id(first), kInvalidId) << "a getter fails with its error value";
}

}  // namespace
}  // namespace qb::dpa::flexio
