// The host side of the check pipeline, which the executor's steps and the
// bridge's session share, without a GPU: the worst-trial fold of the
// correctness trials, the input-hash fold, a shape mismatch's metrics, the
// CUPTI summary over synthetic activity records and its library kernels by
// the rule table. Runs on any machine (no device needed).
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "gpu/checks/output_checks.h"
#include "gpu/pipeline/sanitizer_pass.h"
#include "gpu/timing/cupti_summary.h"
#include "gpu_test.h"

namespace {

constexpr const char* kTestName = "tst_gpu_check_folds";

kwb::OutputMetrics metrics(double share, double relL2, bool allclose)
{
    kwb::OutputMetrics m;
    m.count = 100;
    m.outOfTolerance = static_cast<std::int64_t>(share * 100);
    m.outOfToleranceShare = share;
    m.relL2Error = relL2;
    m.allclose = allclose;
    return m;
}

void correctnessFold()
{
    // Copy-assigned: assigning a literal here trips GCC 12's -Wrestrict false positive.
    const std::string name("C");
    kwb::OutputCheck c;
    c.output = name;
    kwb::gpu::addCorrectnessTrial(c, metrics(0.0, 1e-7, true), false);
    kwb::gpu::addCorrectnessTrial(c, metrics(0.25, 1e-2, false), true);
    kwb::gpu::addCorrectnessTrial(c, metrics(0.25, 1e-3, false), false); // equal share, smaller error: not worse
    kwb::gpu::addCorrectnessTrial(c, metrics(0.0, 1e-6, true), false);
    kwb::gpu::finishCorrectness(c);
    GT_CHECK_EQ(c.trials, 4);
    GT_CHECK_EQ(c.trialsPassed, 2);
    GT_CHECK(!c.passed);
    GT_CHECK(c.zerosPass); // any trial's zero acceptance counts
    GT_CHECK(c.outOfToleranceShare == 0.25 && c.relL2Error == 1e-2);
    GT_CHECK_EQ(c.outOfTolerance, 25);
    GT_CHECK(c.output == name);

    kwb::OutputCheck ok;
    kwb::gpu::addCorrectnessTrial(ok, metrics(0.0, 0.0, true), false);
    kwb::gpu::finishCorrectness(ok);
    GT_CHECK(ok.passed && !ok.zerosPass);
    kwb::OutputCheck none;
    kwb::gpu::finishCorrectness(none);
    GT_CHECK(!none.passed); // no trial is no pass

    const kwb::OutputMetrics mm = kwb::gpu::shapeMismatchMetrics(64);
    GT_CHECK(!mm.allclose && mm.outOfTolerance == 64 && mm.outOfToleranceShare == 1.0 && mm.firstMismatch == 0);
    GT_CHECK(std::isinf(mm.relL2Error) && std::isinf(mm.maxAbsError));
}

void inputFold()
{
    kwb::InputCheck ic;
    kwb::gpu::addInputHashes(ic, 0x11, 0x11);
    GT_CHECK(!ic.mutated && ic.hashBefore == ic.hashAfter && ic.hashBefore.size() == 16);
    kwb::gpu::addInputHashes(ic, 0x22, 0x23); // a later trial mutates: its pair is kept
    GT_CHECK(ic.mutated && ic.hashBefore != ic.hashAfter);
    const std::string before = ic.hashBefore;
    kwb::gpu::addInputHashes(ic, 0x33, 0x33); // and stays kept
    GT_CHECK(ic.mutated && ic.hashBefore == before);
}

void cuptiSummary()
{
    const auto& classifier = kwb::gpu::KernelClassifier::instance();
    std::printf("rule table: %s\n", classifier.source().c_str());
    GT_CHECK(classifier.isLibrary("void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>(Params)"));
    GT_CHECK(classifier.isLibrary("nvjet_tst_128x64_64x8_1x1_v_bz_coopA_NNT"));
    GT_CHECK(classifier.isLibrary("sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32_warpgroupsize1x1x1"));
    GT_CHECK(classifier.isLibrary("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"));
    // Framework kernels a generated kernel could replace, and the candidate's own: not library.
    GT_CHECK(!classifier.isLibrary("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>"));
    GT_CHECK(!classifier.isLibrary("relu_kernel(float const*, float*, long)"));

    std::vector<kwb::gpu::TracedKernel> kernels{
        {"relu_kernel", 7, 1000, 3000},
        {"relu_kernel", 7, 4000, 6000},
        {"nvjet_tst_128x64_64x8_1x1_v_bz_coopA_NNT", 13, 1000, 11000},
    };
    std::vector<kwb::gpu::TracedMemOp> memOps{{true, 7, 64, 0, 10}, {false, 9, 64, 0, 10}};
    const kwb::CuptiSummary s = kwb::gpu::summarizeCupti(kernels, memOps, 7, 2);
    GT_CHECK(s.available);
    GT_CHECK_EQ(s.kernelCount, 3);
    GT_CHECK_EQ(s.timedStreamKernels, 2);
    GT_CHECK_EQ(s.otherStreamKernels, 1);
    GT_CHECK(std::abs(s.kernelMs - 0.004) < 1e-12 && std::abs(s.otherStreamMs - 0.010) < 1e-12);
    GT_CHECK_EQ(s.memsetCount, 1);
    GT_CHECK_EQ(s.memcpyCount, 1);
    GT_CHECK_EQ(s.streams.size(), 3u);
    GT_CHECK_EQ(s.kernels.size(), 2u);
    if (s.kernels.size() == 2) {
        GT_CHECK(s.kernels[0].library && s.kernels[0].streamId == 13); // longest first
        GT_CHECK(!s.kernels[1].library && s.kernels[1].count == 2);
    }
    GT_CHECK(s.note.find("dropped 2") != std::string::npos);
}

// compute-sanitizer's report as the runner reads it (the format of CUDA 12/13's
// compute-sanitizer; the sanitizer pass itself needs a GPU and runs on the H200).
void sanitizerReport()
{
    const std::string memcheck = "========= COMPUTE-SANITIZER\n"
                                 "========= Invalid __global__ read of size 4 bytes\n"
                                 "=========     at relu_oob+0x90\n"
                                 "=========     by thread (31,0,0) in block (3906,0,0)\n"
                                 "=========     Address 0x7f2a3c3d0900 is out of bounds\n"
                                 "=========     and is 16,129 bytes after the nearest allocation at 0x7f2a3c000000 of size 256,000,000 bytes\n"
                                 "=========\n"
                                 "========= Invalid __global__ read of size 4 bytes\n"
                                 "=========     at relu_oob+0x90\n"
                                 "========= ERROR SUMMARY: 4096 errors\n"
                                 "========= Target application returned an error\n";
    const kwb::SanitizerReport r = kwb::gpu::parseSanitizerLog("memcheck", memcheck);
    GT_CHECK(r.tool == "memcheck");
    GT_CHECK_EQ(r.errors, 4096);
    GT_CHECK(r.firstReport.rfind("Invalid __global__ read of size 4 bytes\nat relu_oob+0x90", 0) == 0);
    GT_CHECK(r.firstReport.find("out of bounds") != std::string::npos);
    GT_CHECK(r.firstReport.find("ERROR SUMMARY") == std::string::npos);
    const kwb::SanitizerReport clean = kwb::gpu::parseSanitizerLog("racecheck",
        "========= COMPUTE-SANITIZER\n========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n"
        "========= ERROR SUMMARY: 0 errors\n");
    GT_CHECK_EQ(clean.errors, 0);
    GT_CHECK(clean.firstReport.empty());
    const kwb::SanitizerReport init = kwb::gpu::parseSanitizerLog("initcheck",
        "========= Uninitialized __global__ memory read of size 4 bytes\n=========     at k+0x10\n"
        "========= ERROR SUMMARY: 1 error\n");
    GT_CHECK_EQ(init.errors, 1);
    GT_CHECK(init.firstReport.rfind("Uninitialized __global__ memory read", 0) == 0);
    // An error in the harness's own kernels is not the candidate's.
    const kwb::SanitizerReport harness = kwb::gpu::parseSanitizerLog("initcheck",
        "========= Uninitialized __global__ memory read of size 16 bytes\n"
        "=========     at void kwb::gpu::(anonymous namespace)::scanPassA(const uint4 *, long)+0x40\n"
        "========= ERROR SUMMARY: 1 error\n");
    GT_CHECK_EQ(harness.errors, 0);
    GT_CHECK(harness.firstReport.empty());
    // A run that did not answer is never "0 errors", whatever the log says.
    const kwb::SanitizerReport silent = kwb::gpu::sanitizerReportOfRun("memcheck",
        "========= Target application terminated before first instrumented API call\n========= ERROR SUMMARY: 0 errors\n",
        false, "the worker died");
    GT_CHECK_EQ(silent.errors, -1);
    GT_CHECK(silent.firstReport.find("returned no result (the worker died)") != std::string::npos);
    // The tool's status lines after a death are not errors.
    const kwb::SanitizerReport died = kwb::gpu::sanitizerReportOfRun("memcheck",
        "========= Error: process didn't terminate successfully\n========= Target application returned an error\n"
        "========= ERROR SUMMARY: 0 errors\n", false, "the candidate worker exited with status 6");
    GT_CHECK_EQ(died.errors, -1);
    // Errors found before the program died are a finding, not "did not run" (the sample
    // form of oob_read on the H200: memcheck failed the kernel, the worker aborted).
    const kwb::SanitizerReport foundThenDied = kwb::gpu::sanitizerReportOfRun("memcheck",
        memcheck + "========= Error: process didn't terminate successfully\n", false,
        "the candidate worker exited with status 6");
    GT_CHECK_EQ(foundThenDied.errors, 4096);
    GT_CHECK(foundThenDied.firstReport.rfind("Invalid __global__ read of size 4 bytes", 0) == 0);
    GT_CHECK(foundThenDied.firstReport.find("then returned no result: the candidate worker exited with status 6")
             != std::string::npos);
    // The log's tail as the H200 run recorded it (the sample form of oob_read under memcheck).
    const kwb::SanitizerReport recorded = kwb::gpu::sanitizerReportOfRun("memcheck",
        "      Host Frame: _wrapped_call_impl in module.py:1779\n=========         Host Frame: forward in "
        "kwb_candidate_worker.py:329\n========= \n========= Error: process didn't terminate successfully\n"
        "========= Target application returned an error\n========= ERROR SUMMARY: 162434 errors\n"
        "========= ERROR SUMMARY: 162414 errors were not printed. Use --print-limit option to adjust the number of "
        "printed errors\n",
        false, "end of the worker's replies: the candidate worker exited with status 6");
    GT_CHECK_EQ(recorded.errors, 162434);
    GT_CHECK_EQ(kwb::gpu::sanitizerReportOfRun("memcheck", "", true, "exit status 1").errors, -1);
    GT_CHECK_EQ(kwb::gpu::sanitizerReportOfRun("memcheck", memcheck, true, "").errors, 4096);
}

} // namespace

int main()
{
    correctnessFold();
    inputFold();
    cuptiSummary();
    sanitizerReport();
    return kwb::gputest::finish(kTestName);
}
