"""The seccomp program's bytes, judged by running them: a classic-BPF evaluator for both architectures.

The real kernel judges the program for this machine in test_unix_sockets.py; this evaluator also
covers aarch64, which no machine here runs, and every branch of the program on both.
"""

from __future__ import annotations

import os
import struct

import pytest

from engine.sandbox.seccomp import (
    ALLOW,
    ARCHITECTURES,
    JUMP_IF_AT_LEAST,
    JUMP_IF_EQUAL,
    KILL_PROCESS,
    LOAD_WORD,
    REFUSE,
    RETURN,
    TIOCLINUX,
    TIOCSTI,
    Architecture,
    Label,
    answer,
    assemble,
    filter_lines,
    if_equal,
    native_architecture,
    program_fd,
    seccomp_program,
)

AF_UNIX, AF_INET = 1, 2
TCGETS = 0x5401
AUDIT_ARCH_I386 = 0x40000003


def evaluate(program: bytes, nr: int, arch: int, *args: int) -> int:
    """What the kernel would answer for one call: ``struct seccomp_data`` run through ``program``."""
    data = struct.pack("=iIQ6Q", nr, arch, 0, *(list(args) + [0] * (6 - len(args))))
    instructions = [struct.unpack("=HBBI", program[i : i + 8]) for i in range(0, len(program), 8)]
    accumulator, pc = 0, 0
    while True:
        code, jump_true, jump_false, k = instructions[pc]
        if code == LOAD_WORD:
            accumulator = struct.unpack_from("=I", data, k)[0]
            pc += 1
        elif code in (JUMP_IF_EQUAL, JUMP_IF_AT_LEAST):
            taken = accumulator == k if code == JUMP_IF_EQUAL else accumulator >= k
            pc += 1 + (jump_true if taken else jump_false)
        else:
            assert code == RETURN, f"unexpected opcode {code:#x}"
            return k


@pytest.mark.parametrize("name", sorted(ARCHITECTURES))
def test_the_filter_refuses_unix_sockets_io_uring_and_terminal_injection_and_allows_the_rest(name: str) -> None:
    arch = ARCHITECTURES[name]
    program = assemble(filter_lines(arch))

    def judge(nr: int, *args: int) -> int:
        return evaluate(program, nr, arch.audit_arch, *args)

    assert judge(arch.socket, AF_UNIX, 1, 0) == REFUSE
    assert judge(arch.socket, 1 << 32 | AF_UNIX, 1, 0) == REFUSE  # the kernel reads an int: still AF_UNIX
    assert judge(arch.socket, AF_INET, 1, 0) == ALLOW
    assert judge(arch.socket, 1 << 32 | AF_INET, 1, 0) == ALLOW
    assert [judge(nr, 4, 0) for nr in arch.io_uring] == [REFUSE] * 3
    assert judge(arch.ioctl, 0, TIOCSTI, 0) == REFUSE
    assert judge(arch.ioctl, 0, 0xFFFF_FFFF_0000_0000 | TIOCSTI, 0) == REFUSE
    assert judge(arch.ioctl, 0, TIOCLINUX, 0) == REFUSE
    assert judge(arch.ioctl, 0, TCGETS, 0) == ALLOW
    assert judge(arch.ioctl, TIOCSTI, TCGETS, 0) == ALLOW  # the request is the second argument, not the first
    assert judge(0, 0, 0) == ALLOW and judge(arch.socket + 1, AF_UNIX) == ALLOW
    assert evaluate(program, arch.socket, AUDIT_ARCH_I386, AF_INET) == KILL_PROCESS


def test_the_x32_abi_is_refused_on_x86_64() -> None:
    x86 = ARCHITECTURES["x86_64"]
    program = assemble(filter_lines(x86))
    assert evaluate(program, 0x40000000 | x86.socket, x86.audit_arch, AF_INET) == REFUSE
    assert evaluate(program, 0x40000000, x86.audit_arch) == REFUSE


@pytest.mark.parametrize("name", sorted(ARCHITECTURES))
def test_allowing_unix_sockets_drops_only_that_rule(name: str) -> None:
    arch = ARCHITECTURES[name]
    program = assemble(filter_lines(arch, refuse_unix_sockets=False))
    assert evaluate(program, arch.socket, arch.audit_arch, AF_UNIX) == ALLOW
    assert evaluate(program, arch.io_uring[0], arch.audit_arch) == REFUSE
    assert evaluate(program, arch.ioctl, arch.audit_arch, 0, TIOCSTI) == REFUSE
    assert evaluate(program, arch.socket, AUDIT_ARCH_I386, AF_UNIX) == KILL_PROCESS


def test_the_program_is_struct_sock_filter_and_its_hot_path_is_short() -> None:
    program = assemble(filter_lines(ARCHITECTURES["x86_64"]))
    assert len(program) % 8 == 0 and len(program) // 8 < 32
    first = struct.unpack("=HBBI", program[:8])
    assert first == (LOAD_WORD, 0, 0, 4)  # the architecture comes first, whatever else the filter does


def test_a_jump_the_program_cannot_make_is_an_error_not_a_wrong_filter() -> None:
    with pytest.raises(ValueError, match="no label 'nowhere'"):
        assemble([if_equal(1, then="nowhere"), answer(ALLOW)])
    with pytest.raises(ValueError, match="cannot be made"):
        assemble([Label("back"), answer(ALLOW), if_equal(1, then="back"), answer(ALLOW)])
    far = [if_equal(1, then="end"), *[answer(ALLOW)] * 256, Label("end"), answer(REFUSE)]
    with pytest.raises(ValueError, match="cannot be made"):
        assemble(far)


def test_this_machine_gets_its_table_once_per_process() -> None:
    arch = native_architecture()
    assert isinstance(arch, Architecture)  # x86_64 or aarch64 runs these tests
    assert seccomp_program() is seccomp_program()
    assert seccomp_program() == assemble(filter_lines(arch))
    assert seccomp_program(refuse_unix_sockets=False) == assemble(filter_lines(arch, refuse_unix_sockets=False))


def test_the_descriptor_holds_the_program_from_the_start_and_is_not_inherited() -> None:
    program = seccomp_program()
    assert program is not None
    fd = program_fd(program)
    try:
        assert not os.get_inheritable(fd)
        assert os.read(fd, 4096) == program
    finally:
        os.close(fd)
