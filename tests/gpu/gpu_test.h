#pragma once
// A tiny check harness for the GPU tests: they run where Qt is not installed
// (the GPU machine), so they are plain executables. Exit 0 = pass, 1 = fail,
// 77 = skipped (CTest SKIP_RETURN_CODE) with the reason on stdout.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "gpu/device/device_info.h"

namespace kwb::gputest {

inline int& failures()
{
    static int n = 0;
    return n;
}

// Skips the whole test program when there is no device; opens device 0 otherwise.
inline kwb::DeviceInfo requireDevice(const char* test)
{
    std::string why;
    if (kwb::gpu::deviceCount(&why) == 0) {
        std::printf("SKIP: %s: no CUDA device (%s)\n", test, why.c_str());
        std::exit(77);
    }
    auto d = kwb::gpu::openDevice(0);
    if (!d) {
        std::printf("FAIL: %s: cannot open device 0: %s\n", test, d.status().toString().c_str());
        std::exit(1);
    }
    std::printf("device: %s (%s, %d SMs)\n", d->name.c_str(), kwb::gpu::archName(*d).c_str(), d->smCount);
    return *d;
}

inline kwb::Status statusOf(const kwb::Status& s)
{
    return s;
}
template <typename T>
kwb::Status statusOf(const kwb::Result<T>& r)
{
    return r.status();
}

inline int finish(const char* test)
{
    if (failures()) {
        std::printf("FAIL: %s: %d check(s) failed\n", test, failures());
        return 1;
    }
    std::printf("PASS: %s\n", test);
    return 0;
}

} // namespace kwb::gputest

#define GT_CHECK(cond)                                                                        \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            std::printf("  check failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__);           \
            ++::kwb::gputest::failures();                                                     \
        }                                                                                     \
    } while (0)

#define GT_CHECK_EQ(a, b)                                                                     \
    do {                                                                                      \
        const auto gt_a_ = (a);                                                               \
        const auto gt_b_ = (b);                                                               \
        if (!(gt_a_ == gt_b_)) {                                                              \
            std::printf("  check failed: %s == %s: %lld vs %lld (%s:%d)\n", #a, #b,            \
                static_cast<long long>(gt_a_), static_cast<long long>(gt_b_), __FILE__, __LINE__); \
            ++::kwb::gputest::failures();                                                     \
        }                                                                                     \
    } while (0)

// Status / Result must be ok; on failure the message is printed and the test goes on.
#define GT_OK(expr)                                                                           \
    do {                                                                                      \
        auto gt_s_ = (expr);                                                                  \
        if (!gt_s_.isOk()) {                                                                  \
            std::printf("  not ok: %s: %s (%s:%d)\n", #expr, ::kwb::gputest::statusOf(gt_s_).toString().c_str(), \
                __FILE__, __LINE__);                                                          \
            ++::kwb::gputest::failures();                                                     \
        }                                                                                     \
    } while (0)

#define GT_REQUIRE_OK(expr)                                                                   \
    do {                                                                                      \
        auto gt_s_ = (expr);                                                                  \
        if (!gt_s_.isOk()) {                                                                  \
            std::printf("  fatal: %s: %s (%s:%d)\n", #expr, ::kwb::gputest::statusOf(gt_s_).toString().c_str(), \
                __FILE__, __LINE__);                                                          \
            ++::kwb::gputest::failures();                                                     \
            return ::kwb::gputest::finish(kTestName);                                         \
        }                                                                                     \
    } while (0)
