// The FlexIO loader against the fake SDK: the order and arguments of a load, teardown in exact
// reverse on unload and after a failure injected at every single step, and bad requests
// refused before any SDK call.
#include "qb/dpa/flexio/flexio_loader.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "flexio_test_support.hpp"
#include "qb/dpa/flexio/fake_flexio.hpp"
#include "qb_dpa_flexio/thread_args.h"

namespace qb::dpa::flexio {
namespace {

using testing::first_argument_of;
using testing::function_of;
using testing::result_of;
using testing::write_program_file;

LoadRequest two_thread_request() {
  LoadRequest request;
  request.elf_path = write_program_file("pcc_prog.elf");
  request.handler_name = std::string(testing::kHandlerSymbol);
  request.threads = 2;
  request.placement = ThreadPlacement{AffinityKind::strict, 4};
  request.message_level = MessageLevel::info;
  request.pcc = true;
  request.cq_log_depth = 7;
  return request;
}

std::vector<std::string> functions(const std::vector<std::string>& calls, size_t from = 0,
                                   size_t to = SIZE_MAX) {
  std::vector<std::string> names;
  for (size_t i = from; i < std::min(to, calls.size()); ++i) names.push_back(function_of(calls[i]));
  return names;
}

// The calls that undo what calls[0, end) made, in the order they must come: the reverse of
// creation, each naming what it destroys; a message stream is flushed before it is destroyed.
std::vector<std::string> expected_teardown(const std::vector<std::string>& calls, size_t end) {
  static const std::map<std::string, std::string> kDestroyOf{
      {"ibv_open_device", "ibv_close_device"},
      {"flexio_app_create", "flexio_app_destroy"},
      {"flexio_process_create", "flexio_process_destroy"},
      {"flexio_event_handler_create", "flexio_event_handler_destroy"},
      {"flexio_cq_create", "flexio_cq_destroy"},
      {"flexio_outbox_create", "flexio_outbox_destroy"},
      {"flexio_window_create", "flexio_window_destroy"},
  };
  std::vector<std::string> undo;  // in creation order
  for (size_t i = 0; i < end; ++i) {
    const std::string function = function_of(calls[i]);
    const std::string made = result_of(calls[i]);
    if (made.empty()) continue;
    if (function == "flexio_copy_from_host") {
      undo.push_back(fmt::format("flexio_buf_dev_free({}, {})", first_argument_of(calls[i]), made));
    } else if (function == "flexio_msg_stream_create") {
      undo.push_back(fmt::format("flexio_msg_stream_destroy({})", made));
      undo.push_back(fmt::format("flexio_msg_stream_flush({})", made));
    } else if (auto found = kDestroyOf.find(function); found != kDestroyOf.end()) {
      undo.push_back(fmt::format("{}({})", found->second, made));
    }
  }
  std::reverse(undo.begin(), undo.end());
  return undo;
}

std::vector<std::string> calls_from(const FakeFlexio& fake, size_t from) {
  return {fake.calls().begin() + static_cast<std::ptrdiff_t>(from), fake.calls().end()};
}

const std::vector<std::string> kTwoThreadLoad{
    "ibv_open_device", "flexio_app_create", "flexio_func_register", "flexio_process_create",
    "flexio_uar_get_id",
    // thread 1
    "flexio_event_handler_create", "flexio_event_handler_get_thread", "flexio_copy_from_host",
    "flexio_copy_from_host", "flexio_cq_create", "flexio_cq_get_cq_num",
    // thread 2
    "flexio_event_handler_create", "flexio_event_handler_get_thread", "flexio_copy_from_host",
    "flexio_copy_from_host", "flexio_cq_create", "flexio_cq_get_cq_num",
    // device access, messages, the threads' args, run, check
    "flexio_outbox_create", "flexio_outbox_get_id", "flexio_process_get_pd", "flexio_window_create",
    "flexio_window_get_id", "flexio_msg_stream_create", "flexio_msg_stream_get_id",
    "flexio_copy_from_host", "flexio_copy_from_host", "flexio_event_handler_run",
    "flexio_event_handler_run", "flexio_err_status_get"};

TEST(FlexioLoader, LoadsInTheSdkOrderWithTheRequestedArguments) {
  FakeFlexio fake;
  FlexioLoader loader(fake);
  const LoadRequest request = two_thread_request();
  ASSERT_TRUE(loader.load(request)) << fake.calls().back();
  const auto& calls = fake.calls();
  ASSERT_EQ(functions(calls), kTwoThreadLoad);
  EXPECT_TRUE(fake.violations().empty());
  EXPECT_TRUE(loader.loaded());
  EXPECT_EQ(fake.running_handlers(), 2u);

  EXPECT_EQ(calls[0], "ibv_open_device(mlx5_0) = context#1");
  EXPECT_EQ(calls[1], "flexio_app_create(name=pcc_prog, elf=82 bytes) = app#2");
  EXPECT_EQ(calls[2], "flexio_func_register(app#2, qb_flexio_handler) = func#2.1");
  EXPECT_EQ(calls[3], "flexio_process_create(context#1, app#2, en_pcc=1) = process#3");
  const std::string uar_id = result_of(calls[4]);
  // Per thread: strict affinity on consecutive EUs from 4, the CQ on that handler's thread,
  // the process's UAR, a doorbell record and a ring of 64 << 7 bytes on the DPA heap.
  for (size_t t = 0; t < 2; ++t) {
    const size_t at = 5 + 6 * t;
    EXPECT_EQ(calls[at], fmt::format("flexio_event_handler_create(process#3, func=func#2.1, "
                                     "affinity=STRICT:{}) = {}",
                                     4 + t, result_of(calls[at])));
    const std::string thread = result_of(calls[at + 1]);
    EXPECT_EQ(first_argument_of(calls[at + 1]), result_of(calls[at]));
    EXPECT_NE(calls[at + 2].find("(process#3, 8 bytes)"), std::string::npos) << calls[at + 2];
    EXPECT_NE(calls[at + 3].find("(process#3, 8192 bytes)"), std::string::npos) << calls[at + 3];
    EXPECT_EQ(calls[at + 4],
              fmt::format("flexio_cq_create(process#3, log_depth=7, element=DPA_THREAD, "
                          "thread={}, uar_id={}, ring={}, dbr={}) = {}",
                          thread, uar_id, result_of(calls[at + 3]), result_of(calls[at + 2]),
                          result_of(calls[at + 4])));
    const std::vector<std::byte> ring =
        fake.heap_bytes(std::stoull(result_of(calls[at + 3]), nullptr, 16));
    ASSERT_EQ(ring.size(), 8192u);
    for (size_t cqe = 0; cqe < ring.size(); cqe += 64) {
      ASSERT_EQ(ring[cqe + 63], std::byte{1}) << "CQE " << cqe / 64 << " owned by software";
    }
  }
  EXPECT_EQ(calls[17], "flexio_outbox_create(process#3, en_pcc=1) = " + result_of(calls[17]));
  EXPECT_EQ(calls[20], fmt::format("flexio_window_create(process#3, {}) = {}", result_of(calls[19]),
                                   result_of(calls[20])));
  EXPECT_EQ(calls[22],
            "flexio_msg_stream_create(process#3, name=qosbench, level=INFO, "
            "data_bsize=8192, sync_mode=ASYNC) = " +
                result_of(calls[22]));
  // Each thread runs with the address of its own args, which say where its queues are.
  const LoadedProgram& program = loader.program();
  ASSERT_EQ(program.thread_args.size(), 2u);
  ASSERT_EQ(program.cq_numbers.size(), 2u);
  for (uint32_t t = 0; t < 2; ++t) {
    EXPECT_EQ(calls[26 + t], fmt::format("flexio_event_handler_run({}, user_arg=0x{:x})",
                                         result_of(calls[5 + 6 * t]), program.thread_args[t]));
    const std::vector<std::byte> bytes = fake.heap_bytes(program.thread_args[t]);
    ASSERT_EQ(bytes.size(), sizeof(qb_flexio_thread_args));
    qb_flexio_thread_args args{};
    std::memcpy(&args, bytes.data(), sizeof args);
    EXPECT_EQ(args.version, QB_FLEXIO_THREAD_ARGS_VERSION);
    EXPECT_EQ(args.thread_index, t);
    EXPECT_EQ(args.thread_count, 2u);
    EXPECT_EQ(args.cq_number, program.cq_numbers[t]);
    EXPECT_EQ(std::to_string(args.cq_number), result_of(calls[10 + 6 * t]));
    EXPECT_EQ(args.cq_log_depth, 7u);
    EXPECT_EQ(args.outbox_id, program.outbox_id);
    EXPECT_EQ(args.window_id, program.window_id);
    EXPECT_EQ(static_cast<int>(args.msg_stream_id), program.msg_stream_id);
    EXPECT_EQ(fmt::format("0x{:x}", args.cq_ring_daddr), result_of(calls[8 + 6 * t]));
    EXPECT_EQ(fmt::format("0x{:x}", args.cq_dbr_daddr), result_of(calls[7 + 6 * t]));
  }
  EXPECT_EQ(std::to_string(program.outbox_id), result_of(calls[18]));
  EXPECT_EQ(std::to_string(program.window_id), result_of(calls[21]));
  EXPECT_EQ(std::to_string(program.msg_stream_id), result_of(calls[23]));

  const size_t loaded_calls = calls.size();
  ASSERT_TRUE(loader.unload());
  EXPECT_EQ(calls_from(fake, loaded_calls), expected_teardown(calls, loaded_calls));
  EXPECT_EQ(functions(calls, loaded_calls),
            (std::vector<std::string>{
                "flexio_buf_dev_free", "flexio_buf_dev_free", "flexio_msg_stream_flush",
                "flexio_msg_stream_destroy", "flexio_window_destroy", "flexio_outbox_destroy",
                "flexio_cq_destroy", "flexio_buf_dev_free", "flexio_buf_dev_free",
                "flexio_event_handler_destroy", "flexio_cq_destroy", "flexio_buf_dev_free",
                "flexio_buf_dev_free", "flexio_event_handler_destroy", "flexio_process_destroy",
                "flexio_app_destroy", "ibv_close_device"}));
  EXPECT_EQ(fake.live().total(), 0u) << fake.live().describe();
  EXPECT_TRUE(fake.violations().empty()) << fake.violations().front();
  EXPECT_FALSE(loader.loaded());
}

// The heart of it: whichever call fails, what was made before it is torn down in exactly the
// reverse order, nothing is left alive, and the error names the call and what it returned.
TEST(FlexioLoader, AFailureAtEveryStepTearsDownInReverseAndLeavesNothing) {
  const LoadRequest request = two_thread_request();
  size_t steps = 0;
  {
    FakeFlexio fake;
    FlexioLoader loader(fake);
    ASSERT_TRUE(loader.load(request));
    steps = fake.calls().size();
  }
  ASSERT_EQ(steps, kTwoThreadLoad.size());
  const std::set<std::string> returns_status{
      "flexio_app_create",       "flexio_func_register",        "flexio_process_create",
      "flexio_copy_from_host",   "flexio_event_handler_create", "flexio_cq_create",
      "flexio_outbox_create",    "flexio_window_create",        "flexio_msg_stream_create",
      "flexio_event_handler_run"};
  for (uint32_t step = 1; step <= steps; ++step) {
    const std::string failing = kTwoThreadLoad[step - 1];
    SCOPED_TRACE(fmt::format("failure injected at call {} ({})", step, failing));
    FakeFlexio fake;
    fake.fail_call(step, FlexioStatus::timeout);
    FlexioLoader loader(fake);
    const Status status = loader.load(request);
    ASSERT_FALSE(status);
    EXPECT_EQ(status.error().code, Errc::runtime);
    const std::string& message = status.error().message;
    EXPECT_NE(message.find(failing), std::string::npos) << message;
    if (returns_status.count(failing) != 0) {
      EXPECT_NE(message.find("returned 2 (FLEXIO_STATUS_TIMEOUT)"), std::string::npos) << message;
    } else if (failing == "ibv_open_device") {
      EXPECT_NE(message.find("errno 5"), std::string::npos) << message;
    } else {
      EXPECT_NE(message.find("returned"), std::string::npos) << message;
    }
    EXPECT_EQ(message.find("teardown"), std::string::npos) << "teardown failed: " << message;

    const auto& calls = fake.calls();
    ASSERT_GE(calls.size(), step);
    EXPECT_EQ(functions(calls, 0, step),
              std::vector<std::string>(kTwoThreadLoad.begin(), kTwoThreadLoad.begin() + step));
    EXPECT_EQ(calls_from(fake, step), expected_teardown(calls, step - 1));
    EXPECT_EQ(fake.live().total(), 0u) << fake.live().describe();
    EXPECT_EQ(fake.running_handlers(), 0u);
    EXPECT_TRUE(fake.violations().empty()) << fake.violations().front();
    EXPECT_FALSE(loader.loaded());
    EXPECT_TRUE(loader.program().cq_numbers.empty());
    // And the loader is usable again.
    const size_t before_unload = calls.size();
    EXPECT_TRUE(loader.unload());
    EXPECT_EQ(fake.calls().size(), before_unload) << "nothing left to undo";
  }
}

TEST(FlexioLoader, UnloadTwiceIsHarmless) {
  FakeFlexio fake;
  FlexioLoader loader(fake);
  ASSERT_TRUE(loader.load(two_thread_request()));
  ASSERT_TRUE(loader.unload());
  const size_t after_first = fake.calls().size();
  EXPECT_TRUE(loader.unload());
  EXPECT_EQ(fake.calls().size(), after_first);
  EXPECT_TRUE(fake.violations().empty());
}

TEST(FlexioLoader, UnloadWithoutLoadDoesNothing) {
  FakeFlexio fake;
  {
    FlexioLoader loader(fake);
    EXPECT_TRUE(loader.unload());
    EXPECT_TRUE(loader.flush_messages());
  }
  EXPECT_TRUE(fake.calls().empty());
}

TEST(FlexioLoader, DestroyingTheLoaderUnloads) {
  FakeFlexio fake;
  {
    FlexioLoader loader(fake);
    ASSERT_TRUE(loader.load(two_thread_request()));
  }
  EXPECT_EQ(fake.live().total(), 0u) << fake.live().describe();
  EXPECT_EQ(function_of(fake.calls().back()), "ibv_close_device");
}

TEST(FlexioLoader, LoadingWhileLoadedIsAUsageErrorAndCallsNothing) {
  FakeFlexio fake;
  FlexioLoader loader(fake);
  ASSERT_TRUE(loader.load(two_thread_request()));
  const size_t calls = fake.calls().size();
  const Status again = loader.load(two_thread_request());
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, Errc::usage);
  EXPECT_EQ(fake.calls().size(), calls);
  EXPECT_TRUE(loader.loaded());
}

struct BadRequest {
  const char* name;
  void (*spoil)(LoadRequest&);
  Errc code;
  const char* says;
};

TEST(FlexioLoader, BadRequestsFailBeforeAnySdkCall) {
  const std::vector<BadRequest> cases{
      {"missing ELF file", [](LoadRequest& r) { r.elf_path = "/nonexistent/dir/prog.elf"; },
       Errc::io, "/nonexistent/dir/prog.elf"},
      {"no ELF path", [](LoadRequest& r) { r.elf_path.clear(); }, Errc::invalid_config,
       "no DPA program"},
      {"not an ELF file",
       [](LoadRequest& r) {
         r.elf_path += ".txt";
         std::ofstream(r.elf_path) << "#!/bin/sh\n";
       },
       Errc::invalid_config, "is not an ELF file"},
      {"empty handler name", [](LoadRequest& r) { r.handler_name.clear(); }, Errc::invalid_config,
       "handler name is empty"},
      {"handler name too long", [](LoadRequest& r) { r.handler_name.assign(257, 'h'); },
       Errc::invalid_config, "FLEXIO_MAX_NAME_LEN"},
      {"no device", [](LoadRequest& r) { r.device_name.clear(); }, Errc::invalid_config,
       "no RDMA device"},
      {"zero threads", [](LoadRequest& r) { r.threads = 0; }, Errc::invalid_config, "threads = 0"},
      {"too many threads", [](LoadRequest& r) { r.threads = 257; }, Errc::invalid_config,
       "threads = 257"},
      {"strict placement past the last EU",
       [](LoadRequest& r) {
         r.placement = {AffinityKind::strict, 255};
       },
       Errc::invalid_config, "execution unit 255"},
      {"placement none with an id",
       [](LoadRequest& r) {
         r.placement = {AffinityKind::none, 3};
       },
       Errc::invalid_config, "placement none"},
      {"zero CQ depth", [](LoadRequest& r) { r.cq_log_depth = 0; }, Errc::invalid_config,
       "cq_log_depth = 0"},
  };
  for (const BadRequest& bad : cases) {
    SCOPED_TRACE(bad.name);
    LoadRequest request = two_thread_request();
    bad.spoil(request);
    FakeFlexio fake;
    FlexioLoader loader(fake);
    const Status status = loader.load(request);
    ASSERT_FALSE(status);
    EXPECT_EQ(status.error().code, bad.code);
    EXPECT_NE(status.error().message.find(bad.says), std::string::npos) << status.error().message;
    EXPECT_TRUE(fake.calls().empty()) << fake.calls().front();
    EXPECT_FALSE(loader.loaded());
  }
}

TEST(FlexioLoader, AHandlerTheProgramDoesNotHaveIsRefusedByTheSdkAndTornDown) {
  FakeFlexio fake;
  FlexioLoader loader(fake);
  LoadRequest request = two_thread_request();
  request.handler_name = "no_such_handler";
  const Status status = loader.load(request);
  ASSERT_FALSE(status);
  EXPECT_NE(status.error().message.find("flexio_func_register(no_such_handler) returned 1 "
                                        "(FLEXIO_STATUS_FAILED)"),
            std::string::npos)
      << status.error().message;
  EXPECT_EQ(functions(fake.calls(), 3),
            (std::vector<std::string>{"flexio_app_destroy", "ibv_close_device"}));
  EXPECT_EQ(fake.live().total(), 0u);
}

TEST(FlexioLoader, MessageLevelOffMakesNoStream) {
  FakeFlexio fake;
  FlexioLoader loader(fake);
  LoadRequest request = two_thread_request();
  request.message_level = MessageLevel::off;
  request.threads = 1;
  request.placement = {};
  ASSERT_TRUE(loader.load(request));
  for (const std::string& call : fake.calls()) {
    EXPECT_EQ(call.find("msg_stream"), std::string::npos) << call;
  }
  EXPECT_NE(fake.calls()[5].find("affinity=NONE:0"), std::string::npos) << fake.calls()[5];
  EXPECT_EQ(loader.program().msg_stream_id, -1);
  qb_flexio_thread_args args{};
  const std::vector<std::byte> bytes = fake.heap_bytes(loader.program().thread_args[0]);
  ASSERT_EQ(bytes.size(), sizeof args);
  std::memcpy(&args, bytes.data(), sizeof args);
  EXPECT_EQ(args.msg_stream_id, QB_FLEXIO_NO_ID);
  EXPECT_TRUE(loader.flush_messages());
  const size_t loaded_calls = fake.calls().size();
  ASSERT_TRUE(loader.unload());
  EXPECT_EQ(calls_from(fake, loaded_calls), expected_teardown(fake.calls(), loaded_calls));
  EXPECT_EQ(fake.live().total(), 0u);
}

TEST(FlexioLoader, GroupPlacementPutsEveryThreadInTheGroup) {
  FakeFlexio fake;
  FlexioLoader loader(fake);
  LoadRequest request = two_thread_request();
  request.placement = {AffinityKind::group, 3};
  ASSERT_TRUE(loader.load(request));
  EXPECT_NE(fake.calls()[5].find("affinity=GROUP:3"), std::string::npos) << fake.calls()[5];
  EXPECT_NE(fake.calls()[11].find("affinity=GROUP:3"), std::string::npos) << fake.calls()[11];
}

TEST(FlexioLoader, FlushMessagesFlushesTheStream) {
  FakeFlexio fake;
  FlexioLoader loader(fake);
  ASSERT_TRUE(loader.load(two_thread_request()));
  ASSERT_TRUE(loader.flush_messages());
  EXPECT_EQ(function_of(fake.calls().back()), "flexio_msg_stream_flush");
  fake.fail_call(static_cast<uint32_t>(fake.calls().size() + 1));
  const Status failed = loader.flush_messages();
  ASSERT_FALSE(failed);
  EXPECT_NE(failed.error().message.find("flexio_msg_stream_flush returned 1"), std::string::npos);
}

TEST(FlexioLoader, ATeardownFailureIsReportedAndTheRestStillTornDown) {
  FakeFlexio fake;
  FlexioLoader loader(fake);
  ASSERT_TRUE(loader.load(two_thread_request()));
  // The third teardown call is the stream's flush.
  fake.fail_call(static_cast<uint32_t>(fake.calls().size() + 3));
  const Status status = loader.unload();
  ASSERT_FALSE(status);
  EXPECT_NE(status.error().message.find("flexio_msg_stream_flush returned 1 "
                                        "(FLEXIO_STATUS_FAILED)"),
            std::string::npos)
      << status.error().message;
  EXPECT_EQ(fake.live().total(), 0u) << fake.live().describe();
  EXPECT_FALSE(loader.loaded());
}

TEST(FlexioLoader, AnErrorTheDpaReportsAfterRunFailsTheLoad) {
  FakeFlexioConfig config;
  config.device_error_after_run = 1;  // FLEXIO_DEV_FATAL_ERROR
  FakeFlexio fake(config);
  FlexioLoader loader(fake);
  const Status status = loader.load(two_thread_request());
  ASSERT_FALSE(status);
  EXPECT_NE(status.error().message.find("flexio_err_status_get returned 1"), std::string::npos)
      << status.error().message;
  EXPECT_EQ(fake.live().total(), 0u);
}

TEST(FlexioLoader, AnUnknownDeviceNamesTheDeviceAndErrno) {
  FakeFlexio fake;
  FlexioLoader loader(fake);
  LoadRequest request = two_thread_request();
  request.device_name = "mlx5_9";
  const Status status = loader.load(request);
  ASSERT_FALSE(status);
  EXPECT_NE(status.error().message.find("ibv_open_device(mlx5_9) failed: errno 19"),
            std::string::npos)
      << status.error().message;
  EXPECT_EQ(fake.calls().size(), 1u);
}

}  // namespace
}  // namespace qb::dpa::flexio
