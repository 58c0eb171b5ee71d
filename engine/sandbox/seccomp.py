"""The seccomp filter bubblewrap loads for every sandboxed command (``bwrap --seccomp FD``).

It is a classic-BPF program, assembled here from named instructions (no compiler, no library) into
the bytes of ``struct sock_filter`` (u16 code, u8 jt, u8 jf, u32 k, native byte order): the format
bwrap reads to the end of the file descriptor it is given. For each system call the filter:

* kills the process when the call comes from another ABI than the native one (32-bit x86 code would
  reach sockets through ``socketcall``, which this filter does not look into);
* refuses the x32 ABI (x86_64 numbers with bit 30 set);
* refuses ``io_uring_setup``, ``io_uring_enter`` and ``io_uring_register`` (io_uring can make sockets
  without the ``socket`` call);
* refuses ``socket(AF_UNIX, ...)``, so a command cannot reach a daemon's socket in a folder it can
  read (a git credential cache, a docker daemon); ``socketpair`` stays allowed, its two ends reach
  only each other. :func:`seccomp_program` leaves this rule out when the user allows unix sockets;
* refuses ``ioctl(fd, TIOCSTI)`` and ``ioctl(fd, TIOCLINUX)``, which push input into a terminal;
* allows everything else.

Refused means the call fails with ``EPERM``. Arguments are compared as 32-bit values, the low word of
the 64-bit argument: the kernel reads the socket domain and the ioctl request as 32-bit integers, so a
64-bit compare would let ``socket(1 << 32 | AF_UNIX, ...)`` through.

Only x86_64 and aarch64 have a table here; elsewhere there is no filter (:func:`missing_filter_notice`).
"""

from __future__ import annotations

import errno
import functools
import os
import platform
import struct
import sys
import tempfile
from collections.abc import Sequence

from msgspec import Struct

# Classic BPF (linux/bpf_common.h): the parts of an opcode, and the three instructions the filter uses:
# load a 32-bit word at a fixed offset, compare the accumulator with a constant and jump, return a constant.
BPF_LD, BPF_JMP, BPF_RET = 0x00, 0x05, 0x06
BPF_W, BPF_ABS, BPF_K = 0x00, 0x20, 0x00
BPF_JEQ, BPF_JGE = 0x10, 0x30
LOAD_WORD = BPF_LD | BPF_W | BPF_ABS
JUMP_IF_EQUAL = BPF_JMP | BPF_JEQ | BPF_K
JUMP_IF_AT_LEAST = BPF_JMP | BPF_JGE | BPF_K
RETURN = BPF_RET | BPF_K

# What the filter answers (linux/seccomp.h).
KILL_PROCESS = 0x80000000  # SECCOMP_RET_KILL_PROCESS
ALLOW = 0x7FFF0000  # SECCOMP_RET_ALLOW
REFUSE = 0x00050000 | errno.EPERM  # SECCOMP_RET_ERRNO with EPERM

# Offsets in struct seccomp_data { int nr; u32 arch; u64 instruction_pointer; u64 args[6]; }.
SYSCALL_NUMBER = 0
ARCHITECTURE = 4
_ARGUMENTS = 16

X32_SYSCALL_BIT = 0x40000000  # arch/x86/include/uapi/asm/unistd.h
AF_UNIX = 1  # include/linux/socket.h
TIOCSTI = 0x5412  # include/uapi/asm-generic/ioctls.h (x86 and arm64 use the generic values)
TIOCLINUX = 0x541C
_INSTRUCTION = struct.Struct("=HBBI")  # struct sock_filter, native byte order


class Architecture(Struct, frozen=True, kw_only=True):
    """The numbers the filter needs for one architecture."""

    audit_arch: int
    """``AUDIT_ARCH_*`` (include/uapi/linux/audit.h): the ELF machine with the 64-bit and little-endian bits."""
    socket: int
    ioctl: int
    io_uring: tuple[int, int, int]
    """``io_uring_setup``, ``io_uring_enter``, ``io_uring_register``."""
    x32: bool = False
    """Whether the x32 ABI shares this architecture's ``audit_arch`` (told apart by its syscall bit)."""


ARCHITECTURES = {
    # arch/x86/entry/syscalls/syscall_64.tbl; AUDIT_ARCH_X86_64 = EM_X86_64 (62) | 64-bit | little-endian.
    "x86_64": Architecture(audit_arch=0xC000003E, socket=41, ioctl=16, io_uring=(425, 426, 427), x32=True),
    # include/uapi/asm-generic/unistd.h; AUDIT_ARCH_AARCH64 = EM_AARCH64 (183) | 64-bit | little-endian.
    "aarch64": Architecture(audit_arch=0xC00000B7, socket=198, ioctl=29, io_uring=(425, 426, 427)),
}
"""The supported architectures, by ``platform.machine()``; syscall numbers from the kernel's unistd tables."""


class Instruction(Struct, frozen=True):
    """One BPF instruction; a jump names the labels it goes to (None: the next instruction)."""

    code: int
    k: int
    then: str | None = None
    otherwise: str | None = None


class Label(Struct, frozen=True):
    """A place in the program that jumps name."""

    name: str


Line = Instruction | Label


def load(offset: int) -> Instruction:
    """Load the 32-bit word at ``offset`` of ``struct seccomp_data`` into the accumulator."""
    return Instruction(LOAD_WORD, offset)


def if_equal(value: int, *, then: str | None = None, otherwise: str | None = None) -> Instruction:
    """Jump to ``then`` when the accumulator equals ``value``, else to ``otherwise``."""
    return Instruction(JUMP_IF_EQUAL, value, then, otherwise)


def if_at_least(value: int, *, then: str | None = None, otherwise: str | None = None) -> Instruction:
    """Jump to ``then`` when the accumulator is at least ``value`` (unsigned), else to ``otherwise``."""
    return Instruction(JUMP_IF_AT_LEAST, value, then, otherwise)


def answer(action: int) -> Instruction:
    """Return ``action`` for this system call."""
    return Instruction(RETURN, action)


def low_word(argument: int) -> int:
    """The offset of the low 32 bits of system call argument ``argument`` (0-5), in native byte order."""
    offset = _ARGUMENTS + 8 * argument
    return offset if sys.byteorder == "little" else offset + 4


def filter_lines(arch: Architecture, *, refuse_unix_sockets: bool = True) -> list[Line]:
    """The filter for ``arch`` as labelled instructions (see the module's description)."""
    setup, enter, register = arch.io_uring
    lines: list[Line] = [
        load(ARCHITECTURE),
        if_equal(arch.audit_arch, otherwise="kill"),
        load(SYSCALL_NUMBER),
    ]
    if arch.x32:
        lines.append(if_at_least(X32_SYSCALL_BIT, then="refuse"))
    lines += [
        if_equal(setup, then="refuse"),
        if_equal(enter, then="refuse"),
        if_equal(register, then="refuse"),
        if_equal(arch.ioctl, then="ioctl"),
    ]
    if refuse_unix_sockets:
        lines.append(if_equal(arch.socket, then="socket"))
    lines += [
        answer(ALLOW),
        Label("ioctl"),
        load(low_word(1)),
        if_equal(TIOCSTI, then="refuse"),
        if_equal(TIOCLINUX, then="refuse"),
        answer(ALLOW),
    ]
    if refuse_unix_sockets:
        lines += [Label("socket"), load(low_word(0)), if_equal(AF_UNIX, then="refuse"), answer(ALLOW)]
    return [*lines, Label("kill"), answer(KILL_PROCESS), Label("refuse"), answer(REFUSE)]


def assemble(lines: Sequence[Line]) -> bytes:
    """The program as ``struct sock_filter`` bytes; raises ValueError for a jump BPF cannot make."""
    places: dict[str, int] = {}
    instructions: list[Instruction] = []
    for line in lines:
        if isinstance(line, Label):
            places[line.name] = len(instructions)
        else:
            instructions.append(line)
    packed = []
    for index, ins in enumerate(instructions):
        jump_true = _distance(index, ins.then, places)
        jump_false = _distance(index, ins.otherwise, places)
        packed.append(_INSTRUCTION.pack(ins.code, jump_true, jump_false, ins.k))
    return b"".join(packed)


def _distance(index: int, label: str | None, places: dict[str, int]) -> int:
    """How many instructions a jump at ``index`` skips to reach ``label`` (BPF jumps only forward, at most 255)."""
    if label is None:
        return 0
    if label not in places:
        raise ValueError(f"no label {label!r} in the program")
    skipped = places[label] - index - 1
    if not 0 <= skipped <= 255:
        raise ValueError(f"a jump to {label!r} from instruction {index} cannot be made")
    return skipped


def native_architecture() -> Architecture | None:
    """The table for the machine hive runs on, or None when there is none (or this Python is 32-bit)."""
    if struct.calcsize("P") != 8:  # a 32-bit userland on a 64-bit kernel: its calls carry another audit arch
        return None
    return ARCHITECTURES.get(platform.machine())


@functools.cache
def seccomp_program(*, refuse_unix_sockets: bool = True) -> bytes | None:
    """The filter for this machine (built once per process), or None where there is no table for it."""
    arch = native_architecture()
    if arch is None:
        return None
    return assemble(filter_lines(arch, refuse_unix_sockets=refuse_unix_sockets))


def missing_filter_notice() -> str | None:
    """One line for the person when this machine gets no filter; None when it gets one."""
    if native_architecture() is not None:
        return None
    return (
        f"the sandbox has no seccomp filter for this machine ({platform.machine()}, {struct.calcsize('P') * 8}-bit "
        "Python): sandboxed commands can reach the unix sockets they can see, io_uring and TIOCSTI"
    )


def program_fd(program: bytes) -> int:
    """A new file descriptor holding ``program`` from offset 0, not inherited unless passed on.

    bwrap reads it to the end, so each command needs its own; the caller closes it.
    """
    try:
        fd = os.memfd_create("hive-seccomp", os.MFD_CLOEXEC)
    except (AttributeError, OSError):  # no memfd here: an unlinked temporary file does the same
        fd, path = tempfile.mkstemp(prefix="hive-seccomp-")
        os.unlink(path)
    try:
        written = 0
        while written < len(program):
            written += os.write(fd, program[written:])
        os.lseek(fd, 0, os.SEEK_SET)
    except OSError:
        os.close(fd)
        raise
    return fd
