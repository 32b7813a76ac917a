"""CUDA IPC between the judge and the candidate worker, through the driver API
(libcuda.so.1, with ctypes): no torch pickling, no file names chosen by the
peer (torch's own _share_cuda_ carries a shared-memory ref-counter name that
the importer would open; a plain CUipcMemHandle carries nothing to open).

- The judge's inputs live in an InputArena: one cuMemAlloc of their own, so
  the handle the worker maps exposes the inputs and nothing else (a caching-
  allocator segment could also hold the reference's outputs).
- The worker exports an output by the handle of the allocation holding it and
  its offset; the judge opens the handle once per request (Mappings) and
  checks that the range the worker names lies inside the mapped allocation.

Thread: the caller's thread, with the device's primary context current (torch
makes it current once CUDA is initialised)."""

import ctypes
import sys
import traceback

IPC_LAZY_ENABLE_PEER_ACCESS = 1
ALIGN = 512   # the coverage scan's unit; every arena slot starts on one


class IpcHandle(ctypes.Structure):
    _fields_ = [("reserved", ctypes.c_ubyte * 64)]


class CudaError(RuntimeError):
    pass


class Driver:
    def __init__(self, path="libcuda.so.1"):
        lib = ctypes.CDLL(path)
        U64, I, P = ctypes.c_uint64, ctypes.c_int, ctypes.c_void_p
        sig = {
            "cuInit": [ctypes.c_uint],
            "cuDeviceGet": [ctypes.POINTER(I), I],
            "cuDeviceGetAttribute": [ctypes.POINTER(I), I, I],
            "cuCtxGetCurrent": [ctypes.POINTER(P)],
            "cuMemAlloc_v2": [ctypes.POINTER(U64), ctypes.c_size_t],
            "cuMemFree_v2": [U64],
            "cuMemsetD8_v2": [U64, ctypes.c_ubyte, ctypes.c_size_t],
            "cuIpcGetMemHandle": [ctypes.POINTER(IpcHandle), U64],
            "cuIpcOpenMemHandle_v2": [ctypes.POINTER(U64), IpcHandle, ctypes.c_uint],
            "cuIpcCloseMemHandle": [U64],
            "cuMemGetAddressRange_v2": [ctypes.POINTER(U64), ctypes.POINTER(ctypes.c_size_t), U64],
            "cuGetErrorString": [I, ctypes.POINTER(ctypes.c_char_p)],
        }
        for name, args in sig.items():
            fn = getattr(lib, name)
            fn.restype = I
            fn.argtypes = args
        self.lib = lib

    def call(self, name, *args):
        rc = getattr(self.lib, name)(*args)
        if rc != 0:
            text = ctypes.c_char_p()
            self.lib.cuGetErrorString(rc, ctypes.byref(text))
            raise CudaError("%s failed: %s (%d)" % (name, (text.value or b"?").decode("ascii", "replace"), rc))

    def capability(self, ordinal=0):
        """(major, minor) of a device, read without creating a context: a build
        lane needs the architecture to build for, not 500 MiB of the GPU."""
        self.call("cuInit", 0)
        dev = ctypes.c_int()
        self.call("cuDeviceGet", ctypes.byref(dev), ordinal)
        out = []
        for attribute in (75, 76):  # CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, _MINOR
            v = ctypes.c_int()
            self.call("cuDeviceGetAttribute", ctypes.byref(v), attribute, dev)
            out.append(v.value)
        return tuple(out)

    def require_context(self):
        ctx = ctypes.c_void_p()
        self.call("cuCtxGetCurrent", ctypes.byref(ctx))
        if not ctx.value:
            raise CudaError("no CUDA context is current on this thread (initialise torch.cuda first)")

    def address_range(self, ptr):
        base, size = ctypes.c_uint64(), ctypes.c_size_t()
        self.call("cuMemGetAddressRange_v2", ctypes.byref(base), ctypes.byref(size), ctypes.c_uint64(ptr))
        return base.value, size.value

    def export(self, base):
        h = IpcHandle()
        self.call("cuIpcGetMemHandle", ctypes.byref(h), ctypes.c_uint64(base))
        return bytes(h.reserved)

    def open(self, handle):
        if len(handle) != 64:
            raise CudaError("a CUDA IPC handle is 64 bytes, not %d" % len(handle))
        h = IpcHandle()
        ctypes.memmove(h.reserved, handle, 64)
        ptr = ctypes.c_uint64()
        self.call("cuIpcOpenMemHandle_v2", ctypes.byref(ptr), h, IPC_LAZY_ENABLE_PEER_ACCESS)
        return ptr.value

    def close(self, ptr):
        self.call("cuIpcCloseMemHandle", ctypes.c_uint64(ptr))


def align(n, a=ALIGN):
    return (int(n) + a - 1) // a * a


def arena_layout(sizes):
    """Offsets of slots of `sizes` bytes in an arena (each ALIGN-aligned and
    padded by `pad(size)` bytes of its own), and the arena's total size."""
    offsets, total = [], 0
    for s in sizes:
        offsets.append(total)
        total += align(max(int(s), 1))
    return offsets, max(total, ALIGN)


class InputArena:
    """The judge's input buffers, in one allocation of their own."""

    def __init__(self, driver, slot_bytes):
        self.driver = driver
        driver.require_context()
        self.offsets, self.size = arena_layout(slot_bytes)
        ptr = ctypes.c_uint64()
        driver.call("cuMemAlloc_v2", ctypes.byref(ptr), self.size)
        self.base = ptr.value
        driver.call("cuMemsetD8_v2", ctypes.c_uint64(self.base), 0, self.size)
        self.handle = driver.export(self.base)

    def ptr(self, slot):
        return self.base + self.offsets[slot]

    def free(self):
        if self.base:
            self.driver.call("cuMemFree_v2", ctypes.c_uint64(self.base))
            self.base = 0


def free_all(arenas):
    """Frees each arena; one that fails is reported and does not keep the others."""
    for arena in arenas:
        try:
            arena.free()
        except Exception:
            traceback.print_exc(file=sys.stderr)


class Mappings:
    """Allocations of the peer opened in this process, one mapping per handle."""

    def __init__(self, driver):
        self.driver = driver
        self.open_maps = {}   # handle bytes -> (pointer, size)

    def resolve(self, handle, offset, nbytes):
        """The local pointer to [offset, offset + nbytes) of the peer's
        allocation `handle`, and how many bytes of it lie at and after that
        pointer; CudaError when the range is not inside the allocation."""
        if handle not in self.open_maps:
            ptr = self.driver.open(handle)
            _base, size = self.driver.address_range(ptr)
            self.open_maps[handle] = (ptr, size)
        ptr, size = self.open_maps[handle]
        if offset < 0 or nbytes < 0 or offset + nbytes > size:
            raise CudaError("the peer names bytes [%d, %d) of an allocation of %d bytes" % (offset, offset + nbytes,
                                                                                         size))
        return ptr + offset, size - offset

    def close_all(self):
        for ptr, _size in self.open_maps.values():
            try:
                self.driver.close(ptr)
            except CudaError:
                pass
        self.open_maps = {}


class Exporter:
    """The worker side: the handle and offset of the allocation holding a pointer."""

    def __init__(self, driver):
        self.driver = driver

    def describe(self, ptr):
        """(handle hex, offset, allocation size). Not cached: a base address
        freed and allocated again is another allocation with another handle."""
        base, size = self.driver.address_range(ptr)
        return self.driver.export(base).hex(), ptr - base, size
