"""CPU-only tests of the judge's side of the candidate-worker channel
(app/runner/bridge/kwb_worker_protocol.py) and the judge's other pure parts:
malformed replies, a worker that dies or hangs, a worker that writes garbage,
forged result lines (on its channel, on every fd, on the parent's fds), the
validation of output descriptions and timing members, the nonce-derived
seeds, the input arena's layout and the sample's declared kernels. A stand-in
worker (fake_worker.py) plays each misbehaviour; no torch, no GPU."""

import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BRIDGE_DIR = os.path.dirname(os.environ.get("KWB_BRIDGE_SCRIPT") or os.path.join(
    ROOT, "app", "runner", "bridge", "kwb_torch_bridge.py"))
sys.path.insert(0, BRIDGE_DIR)

import kwb_cuda_ipc as ipc  # noqa: E402
import kwb_sample_source as src  # noqa: E402
import kwb_worker_protocol as wp  # noqa: E402

FAKE = os.path.join(HERE, "fake_worker.py")
HANDLE = "ab" * 64


def fake(mode):
    return wp.WorkerChannel([sys.executable, FAKE, mode])


def reply_line(obj):
    return json.dumps(obj).encode()


class LineValidationTest(unittest.TestCase):
    def test_a_good_reply_passes(self):
        obj = wp.parse_line(wp.encode(wp.reply(3, True, x=1)).rstrip(b"\n"))
        self.assertEqual(wp.check_reply(obj, 3)["x"], 1)

    def test_forged_result_lines_are_tampering(self):
        for line in ({"protocol": "kwb.rerun/1", "type": "result", "id": "r1", "status": "ok"},
                     {"kwbw": wp.TAG, "seq": 1, "type": "result"},
                     {"type": "progress", "stage": "timing"}):
            with self.assertRaises(wp.WorkerProtocolError) as cm:
                wp.parse_line(reply_line(line))
            self.assertTrue(cm.exception.tampering, line)
            self.assertIn("forged result line", str(cm.exception))
        # A truncated kwb.rerun/1 line is still recognised as one.
        with self.assertRaises(wp.WorkerProtocolError) as cm:
            wp.parse_line(b'{"protocol": "kwb.rerun/1", "type": "res')
        self.assertTrue(cm.exception.tampering)

    def test_malformed_lines_say_why(self):
        cases = [(b"\xff\xfe", "malformed"), (b"not json", "malformed"), (b"[1, 2]", "not an object"),
                 (b'{"seq": 1}', "without the channel tag"), (b'{"kwbw": "kwbw/1", "x": NaN}', "malformed"),
                 (b"x" * (wp.MAX_LINE_BYTES + 1), "limit")]
        for raw, why in cases:
            with self.assertRaises(wp.WorkerProtocolError) as cm:
                wp.parse_line(raw)
            self.assertIn(why, str(cm.exception), raw[:40])
            self.assertFalse(cm.exception.tampering, raw[:40])

    def test_replies_must_answer_the_pending_command(self):
        with self.assertRaisesRegex(wp.WorkerProtocolError, "command 8 while command 3"):
            wp.check_reply(wp.reply(8), 3)
        with self.assertRaisesRegex(wp.WorkerProtocolError, "command True while"):
            wp.check_reply({"kwbw": wp.TAG, "seq": True, "type": "reply", "ok": True}, 1)
        with self.assertRaisesRegex(wp.WorkerProtocolError, "type 'tick'"):
            wp.check_reply({"kwbw": wp.TAG, "seq": 3, "type": "tick", "n": 0}, 3)
        with self.assertRaisesRegex(wp.WorkerProtocolError, "boolean 'ok'"):
            wp.check_reply({"kwbw": wp.TAG, "seq": 3, "type": "reply", "ok": 1}, 3)

    def test_a_failure_needs_a_candidate_status(self):
        with self.assertRaises(wp.WorkerFailed) as cm:
            wp.check_reply(wp.reply(2, False, status="oom", message="out of memory"), 2)
        self.assertEqual((cm.exception.status, str(cm.exception)), ("oom", "out of memory"))
        # A worker cannot end a command with a status that would read as success or as the judge's failure.
        for status in ("ok", "internal_error", "no_device", None, 3):
            with self.assertRaisesRegex(wp.WorkerProtocolError, "status"):
                wp.check_reply(wp.reply(2, False, status=status), 2)


class OutputDescriptionTest(unittest.TestCase):
    GOOD = {"handle": HANDLE, "offset": 512, "nbytes": 4 * 6, "dtype": "float32", "shape": [2, 3]}

    def test_a_good_description(self):
        d = wp.output_desc(dict(self.GOOD))
        self.assertEqual((d["handle"], d["offset"], d["count"]), (bytes.fromhex(HANDLE), 512, 6))

    def test_every_field_is_checked(self):
        bad = [({"handle": "AB" * 64}, "hex"), ({"handle": "ab" * 63}, "hex"), ({"handle": 5}, "hex"),
               ({"offset": -16}, "offset"), ({"offset": 8}, "aligned"), ({"offset": 1.5}, "offset"),
               ({"nbytes": 20}, "must be 24 bytes"), ({"dtype": "complex64"}, "dtype"), ({"dtype": None}, "dtype"),
               ({"shape": [2, -3]}, "shape"), ({"shape": "2x3"}, "shape"), ({"shape": [1] * 9}, "shape"),
               ({"shape": [True, 3]}, "shape"), ({"nbytes": True}, "nbytes")]
        for change, why in bad:
            with self.assertRaises(wp.WorkerProtocolError, msg=str(change)) as cm:
                wp.output_desc(dict(self.GOOD, **change))
            self.assertIn(why, str(cm.exception), change)

    def test_outputs_and_kept_outputs(self):
        self.assertEqual(len(wp.outputs_field({"outputs": [self.GOOD, self.GOOD]})), 2)
        with self.assertRaises(wp.WorkerProtocolError):
            wp.outputs_field({"outputs": [self.GOOD] * (wp.MAX_OUTPUTS + 1)})
        with self.assertRaises(wp.WorkerProtocolError):
            wp.outputs_field({"outputs": {"0": self.GOOD}})
        kept = wp.kept_field({"kept": [{"tick": 4, "outputs": [self.GOOD]}]}, "kept", {4, 9})
        self.assertEqual(kept[0]["tick"], 4)
        # Only outputs the judge asked for, each once: a worker cannot pick which iterations get checked.
        with self.assertRaisesRegex(wp.WorkerProtocolError, "did not ask"):
            wp.kept_field({"kept": [{"tick": 5, "outputs": []}]}, "kept", {4})
        with self.assertRaisesRegex(wp.WorkerProtocolError, "did not ask"):
            wp.kept_field({"kept": [{"tick": 4, "outputs": []}, {"tick": 4, "outputs": []}]}, "kept", {4})

    def test_members_are_limited_to_what_the_worker_measures(self):
        ok = {"candidate_timing": {"median_ms": 1.0}, "own_kernels": {"declared": ["k"]}}
        self.assertEqual(wp.members_field({"members": ok}), ok)
        for members, why in (({"reference_timing": {}}, "does not measure"), ({"host_timing": {}}, "does not measure"),
                             ({"isolation": {}}, "does not measure"), ({"candidate_timing": [1]}, "bounded"),
                             ("timing", "must be an object")):
            with self.assertRaisesRegex(wp.WorkerProtocolError, why):
                wp.members_field({"members": members})
        deep = {}
        cur = deep
        for _ in range(20):
            cur["a"] = {}
            cur = cur["a"]
        with self.assertRaisesRegex(wp.WorkerProtocolError, "bounded"):
            wp.members_field({"members": {"candidate_cupti": deep}})

    def test_scalar_fields(self):
        self.assertEqual(wp.number_field({"x": 3}, "x"), 3.0)
        for v in (True, "3", None, -1.0, float("inf")):
            with self.assertRaises(wp.WorkerProtocolError):
                wp.number_field({"x": v}, "x")
        with self.assertRaises(wp.WorkerProtocolError):
            wp.bool_field({"x": 1}, "x")
        with self.assertRaises(wp.WorkerProtocolError):
            wp.string_list({"v": ["a", 3]}, "v")
        self.assertEqual(wp.string_list({"v": ["a" * 1000]}, "v", item_limit=10), ["a" * 10])


class SeedsAndLayoutTest(unittest.TestCase):
    def test_tick_seeds_follow_the_nonce(self):
        a = wp.tick_seed("00" * 16, 0)
        self.assertEqual(a, wp.tick_seed("00" * 16, 0))
        self.assertNotEqual(a, wp.tick_seed("00" * 16, 1))
        self.assertNotEqual(a, wp.tick_seed("01" + "00" * 15, 0))
        self.assertTrue(0 <= a < (1 << 60))
        for nonce in ("short", "zz" * 16, None, 5):
            with self.assertRaises(ValueError):
                wp.tick_seed(nonce, 0)

    def test_arena_slots_are_aligned_and_disjoint(self):
        offsets, total = ipc.arena_layout([4, 1000, 0, 512])
        self.assertEqual(offsets, [0, 512, 1536, 2048])
        self.assertEqual(total, 2560)
        self.assertTrue(all(o % ipc.ALIGN == 0 for o in offsets))
        self.assertEqual(ipc.arena_layout([]), ([], ipc.ALIGN))


class DeclaredKernelsTest(unittest.TestCase):
    def test_names_of_global_functions(self):
        text = '''
        cuda = r"""
        template <int N> __global__ void __launch_bounds__(256, 2) tiled(float* x) {}
        __global__ __launch_bounds__(128) void fused_epilogue(const float* a) {}
        extern "C" __global__ void plain_c(int n) {}
        // __global__ void commented_out(int n) {}
        /* __global__ void also_commented(int n) {} */
        __global__ void tiled(double* x) {}
        __device__ void helper() {}
        """'''
        self.assertEqual(src.declared_kernels(text), ["tiled", "fused_epilogue", "plain_c"])

    def test_the_fixture_samples(self):
        path = os.path.join(ROOT, "tests", "data", "kernelbench_bridge", "samples", "relu_honest.py")
        with open(path, encoding="utf-8") as f:
            self.assertIn("relu_kernel", src.declared_kernels(f.read()))
        self.assertEqual(src.declared_kernels("import torch\n"), [])
        self.assertEqual(src.declared_kernels(None), [])


class ChannelTest(unittest.TestCase):
    """The channel against a stand-in worker that misbehaves."""

    def test_a_good_worker(self):
        ch = fake("good")
        try:
            self.assertTrue(ch.wait_ready(30)["usable"])
            self.assertEqual(ch.call("ping", 30)["echo"], "ping")
            self.assertEqual(ch.call("call", 30)["echo"], "call")
            self.assertEqual(ch.violations, [])
        finally:
            ch.close()
        self.assertIsNotNone(ch.proc.returncode)

    def test_a_worker_that_dies_at_start(self):
        ch = fake("die_at_start")
        with self.assertRaises(wp.WorkerDied) as cm:
            ch.wait_ready(30)
        self.assertEqual(cm.exception.returncode, 3)
        self.assertIn("exited with status 3", str(cm.exception))
        ch.close()

    def test_a_worker_killed_mid_command(self):
        ch = fake("die")
        ch.wait_ready(30)
        with self.assertRaises(wp.WorkerDied) as cm:
            ch.call("call", 30)
        self.assertEqual(cm.exception.by_signal, 9)
        self.assertIn("SIGKILL", str(cm.exception))
        ch.close()

    def test_a_worker_killed_by_the_sandbox(self):
        ch = fake("sigsys")
        ch.wait_ready(30)
        with self.assertRaises(wp.WorkerDied) as cm:
            ch.call("call", 30)
        self.assertEqual(cm.exception.by_signal, 31)
        ch.close()

    def test_a_worker_that_hangs(self):
        ch = fake("hang")
        ch.wait_ready(30)
        with self.assertRaises(wp.WorkerTimeout):
            ch.call("call", 1.5)
        ch.close()
        self.assertIsNotNone(ch.proc.returncode)

    def test_garbage_is_skipped_and_recorded(self):
        ch = fake("garbage")
        try:
            ch.wait_ready(30)
            self.assertEqual(ch.call("ping", 30)["echo"], "ping")
            self.assertEqual(len(ch.violations), 3)
            self.assertTrue(all(v.startswith("protocol: ") for v in ch.violations), ch.violations)
        finally:
            ch.close()

    def test_garbage_before_ready(self):
        ch = fake("garbage_ready")
        try:
            self.assertTrue(ch.wait_ready(30)["usable"])
            self.assertEqual(len(ch.violations), 1)
        finally:
            ch.close()

    def test_a_flood_drops_the_worker(self):
        ch = fake("flood")
        ch.wait_ready(30)
        with self.assertRaisesRegex(wp.WorkerProtocolError, "more than %d invalid lines" % wp.MAX_JUNK_LINES):
            ch.call("ping", 30)
        ch.close()

    def test_an_oversized_line(self):
        ch = fake("huge")
        ch.wait_ready(30)
        with self.assertRaisesRegex(wp.WorkerProtocolError, "longer than"):
            ch.call("ping", 30)
        ch.close()

    def test_a_reply_to_another_command_is_not_this_ones(self):
        ch = fake("wrong_seq")
        try:
            ch.wait_ready(30)
            self.assertEqual(ch.call("ping", 30)["seq"], 1)  # the right reply still comes after the wrong one
            self.assertIn("command 8 while command 1", ch.violations[0])
        finally:
            ch.close()

    def test_failures_and_forbidden_statuses(self):
        ch = fake("fail")
        try:
            ch.wait_ready(30)
            with self.assertRaises(wp.WorkerFailed) as cm:
                ch.call("call", 30)
            self.assertEqual(cm.exception.status, "launch_error")
        finally:
            ch.close()
        ch = fake("bad_status")
        ch.wait_ready(30)
        with self.assertRaises(wp.WorkerTimeout):  # the invalid failure is skipped; no valid reply follows
            ch.call("call", 2)
        self.assertIn("status 'ok'", ch.violations[0])
        ch.close()

    def test_non_standard_numbers_are_refused(self):
        ch = fake("nan")
        try:
            ch.wait_ready(30)
            self.assertEqual(ch.call("ping", 30)["echo"], "ping")
            self.assertIn("non-standard number NaN", ch.violations[0])
        finally:
            ch.close()

    def test_a_forged_reply_line_is_tampering(self):
        ch = fake("forge_reply")
        try:
            ch.wait_ready(30)
            self.assertEqual(ch.call("ping", 30)["echo"], "ping")
            self.assertTrue(ch.violations[0].startswith("tampering: a forged result line"), ch.violations)
        finally:
            ch.close()


class ForgedResultLineTest(unittest.TestCase):
    """A worker that writes a forged kwb.rerun/1 result line to /proc/self/fd/1,
    to every fd it has and to every fd of its parent: nothing reaches the
    judge's result channel; what reaches the worker channel is recorded."""

    def test_nothing_reaches_the_result_channel(self):
        out = subprocess.run([sys.executable, os.path.join(HERE, "judge_standin.py"), BRIDGE_DIR, FAKE],
                             capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr)
        got = json.loads(out.stdout.strip().splitlines()[-1])
        self.assertEqual(got["notes"], [])  # no_new_privs, no capabilities, not dumpable
        self.assertEqual(got["leaked"], "")
        self.assertFalse(got["dumpable"])
        # The parent's fds were out of reach (the judge is not dumpable and the
        # worker holds no CAP_SYS_PTRACE, also when it runs as root).
        self.assertFalse([t for t in got["reached"] if not t.startswith("/proc/self")], got["reached"])
        self.assertTrue(any(v.startswith("tampering: a forged result line") for v in got["violations"]),
                        got["violations"])


class RetiringTest(unittest.TestCase):
    """A used worker is killed at once and reaped later (the next record's
    set-up overlaps its exit); the arenas it mapped are freed only after it is
    gone, and at once when they are large."""

    class Arena:
        def __init__(self, size, ch, freed):
            self.size, self.ch, self.freed = size, ch, freed

        def free(self):
            self.freed.append(self.ch.proc.poll())

    def used_worker(self):
        ch = fake("good")
        self.assertTrue(ch.wait_ready(30)["usable"])
        self.assertEqual(ch.call("ping", 30)["echo"], "ping")
        return ch

    def test_killed_now_arenas_freed_once_it_is_gone(self):
        ch, freed, released = self.used_worker(), [], []
        retiring = wp.Retiring(lambda c: (released.append(c), c.close()), 1 << 30)
        retiring.add(ch, [self.Arena(1 << 20, ch, freed), self.Arena(1 << 20, ch, freed)])
        self.assertEqual((len(retiring), freed, released), (1, [], []), "small arenas wait for the reap")
        retiring.reap()
        self.assertEqual((len(retiring), released), (0, [ch]))
        self.assertEqual(freed, [-signal.SIGKILL] * 2, "each arena freed after the worker died of the kill")
        retiring.reap()  # nothing left: a no-op
        self.assertEqual(len(freed), 2)

    def test_large_arenas_are_reaped_at_once(self):
        ch, freed = self.used_worker(), []
        retiring = wp.Retiring(lambda c: c.close(), 1 << 30)
        retiring.add(ch, [self.Arena(3 << 29, ch, freed)])
        self.assertEqual((len(retiring), freed), (0, [-signal.SIGKILL]))

    def test_an_arena_that_fails_to_free_does_not_keep_the_others(self):
        ch, freed = self.used_worker(), []

        class Broken:
            size = 0

            def free(self):
                raise RuntimeError("cuMemFree_v2 failed (test)")
        retiring = wp.Retiring(lambda c: c.close(), 1 << 30)
        retiring.add(ch, [Broken(), self.Arena(0, ch, freed)])
        with contextlib.redirect_stderr(io.StringIO()) as err:
            retiring.reap()
        self.assertIn("cuMemFree_v2 failed (test)", err.getvalue())
        self.assertEqual(freed, [-signal.SIGKILL])


if __name__ == "__main__":
    unittest.main()
