"""The seccomp filter every sandboxed child runs under: kernel features a submission must not touch.

Namespaces hide files, processes and the network, and resource limits cap memory, but
some kernel objects are shared by every process of a user however it is sandboxed:

* **SysV IPC** (``shmget``, ``semget``, ``msgget``, ...): a shared memory segment stays
  allocated after it is detached, so ``RLIMIT_AS`` never counts it. One submission held
  over 1 GB of host memory under a 512 MB cap. POSIX message queues are the same story.
* **Anonymous files in memory** (``memfd_create``, ``memfd_secret``): their pages are not in
  the address space until mapped, so ``RLIMIT_AS`` does not count them either. Here they
  die with the child and ``RLIMIT_FSIZE`` and ``RLIMIT_NOFILE`` bound them (under 64 files
  of 1 MB), but that is up to 64 MB per sandbox beyond its cap, a lesson has no use for
  them, and a memfd is also a file to ``execveat`` without a path. Refused; ``/tmp`` and
  ``/dev/shm`` stay (16 MB each), since ``tempfile`` is ordinary Python.
* **Keyrings** (``add_key``, ``request_key``, ``keyctl``): every sandbox runs as uid 65534
  in the host's user namespace, and a key added to that uid's keyring outlives the
  sandbox; the next student's sandbox read it.
* Ways out of, or around, the sandbox: ``unshare``, ``setns``, ``mount`` and the new mount
  API, ``chroot``, ``ptrace`` and ``process_vm_*``, ``bpf``, ``perf_event_open``,
  ``userfaultfd``, ``io_uring_*`` (each a known source of kernel exploits), ``personality``,
  and the administrator's calls (modules, kexec, swap, reboot, ...) for defence in depth.
  ``clone`` is refused when it asks for a new namespace, and ``clone3`` (whose flags a
  filter cannot read) answers "not implemented", so libc falls back to ``clone``.

A refused call fails with ``EPERM``, as if the kernel forbade it; the submission goes on.
Calls of another ABI (32-bit calls on x86-64, the x32 ABI) are all refused.

Why a program built here, and not libseccomp's Python bindings: the filter is a short
list of system-call numbers, which is a dozen lines of classic BPF. Building it in pure
Python needs no compiled dependency (libseccomp's bindings are not on PyPI as a wheel),
runs anywhere the grader runs, and gives bwrap exactly the bytes it expects on its
``--seccomp FD``. The numbers are the kernel's ABI, fixed forever per architecture; a test
checks every one of them against libseccomp's own table where libseccomp is installed,
and another runs each refused call in a real sandbox and sees ``EPERM``.
"""

from __future__ import annotations

import errno
import platform
import struct

#: ``AUDIT_ARCH_*`` of each supported machine, as the kernel reports it in ``seccomp_data``.
AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}

#: System-call numbers per machine: (x86_64, aarch64); None where the call does not exist.
SYSCALLS: dict[str, tuple[int | None, int | None]] = {
    # SysV IPC: memory outside RLIMIT_AS, and shared between sandboxes
    "shmget": (29, 194),
    "shmat": (30, 196),
    "shmdt": (67, 197),
    "shmctl": (31, 195),
    "semget": (64, 190),
    "semop": (65, 193),
    "semctl": (66, 191),
    "semtimedop": (220, 192),
    "msgget": (68, 186),
    "msgsnd": (69, 189),
    "msgrcv": (70, 188),
    "msgctl": (71, 187),
    # POSIX message queues: the same, through mqueue
    "mq_open": (240, 180),
    "mq_unlink": (241, 181),
    "mq_timedsend": (242, 182),
    "mq_timedreceive": (243, 183),
    "mq_notify": (244, 184),
    "mq_getsetattr": (245, 185),
    # anonymous files in memory: outside RLIMIT_AS, no use in a lesson
    "memfd_create": (319, 279),
    "memfd_secret": (447, 447),
    # keyrings: outlive the sandbox, shared by every process of the uid
    "add_key": (248, 217),
    "request_key": (249, 218),
    "keyctl": (250, 219),
    # namespaces and mounts
    "unshare": (272, 97),
    "setns": (308, 268),
    "mount": (165, 40),
    "umount2": (166, 39),
    "pivot_root": (155, 41),
    "chroot": (161, 51),
    "open_tree": (428, 428),
    "move_mount": (429, 429),
    "fsopen": (430, 430),
    "fsconfig": (431, 431),
    "fsmount": (432, 432),
    "fspick": (433, 433),
    "mount_setattr": (442, 442),
    # other processes' memory
    "ptrace": (101, 117),
    "process_vm_readv": (310, 270),
    "process_vm_writev": (311, 271),
    "kcmp": (312, 272),
    "pidfd_getfd": (438, 438),
    # kernel attack surface
    "bpf": (321, 280),
    "perf_event_open": (298, 241),
    "userfaultfd": (323, 282),
    "io_uring_setup": (425, 425),
    "io_uring_enter": (426, 426),
    "io_uring_register": (427, 427),
    "personality": (135, 92),
    # the administrator's (already refused without capabilities; refused here too)
    "kexec_load": (246, 104),
    "kexec_file_load": (320, 294),
    "init_module": (175, 105),
    "finit_module": (313, 273),
    "delete_module": (176, 106),
    "acct": (163, 89),
    "swapon": (167, 224),
    "swapoff": (168, 225),
    "reboot": (169, 142),
    "syslog": (103, 116),
    "quotactl": (179, 60),
    "lookup_dcookie": (212, 18),
    "name_to_handle_at": (303, 264),
    "open_by_handle_at": (304, 265),
    "fanotify_init": (300, 262),
    "vhangup": (153, 58),
    "nfsservctl": (180, 42),
    "uselib": (134, None),
    "ustat": (136, None),
    "sysfs": (139, None),
    "iopl": (172, None),
    "ioperm": (173, None),
}
#: ``clone``, allowed unless it asks for a namespace; ``clone3``, answered "not implemented".
CLONE = (56, 220)
CLONE3 = (435, 435)
#: CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET
CLONE_NAMESPACES = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000
#: The x32 ABI on x86-64 marks its calls with this bit.
X32_SYSCALL_BIT = 0x40000000

# classic BPF, as seccomp reads it
_LD_W_ABS = 0x20
_JEQ = 0x15
_JGE = 0x35
_JSET = 0x45
_RET = 0x06
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
_OFFSET_NR, _OFFSET_ARCH, _OFFSET_ARG0 = 0, 4, 16


def machine() -> str:
    """This machine's name as :data:`AUDIT_ARCH` knows it (``arm64`` is ``aarch64``)."""
    name = platform.machine().lower()
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(name, name)


def supported(name: str | None = None) -> bool:
    """True when a filter can be built for this machine (x86-64 and aarch64 Linux)."""
    return platform.system() == "Linux" and (name or machine()) in AUDIT_ARCH


def denied_numbers(name: str) -> list[int]:
    """The numbers of the refused calls on machine ``name``, sorted."""
    column = 0 if name == "x86_64" else 1
    return sorted({number for pair in SYSCALLS.values() if (number := pair[column]) is not None})


def program(name: str | None = None) -> bytes:
    """The filter as the kernel (and ``bwrap --seccomp``) reads it: ``struct sock_filter[]``.

    Raises:
        ValueError: no filter is known for this machine.
    """
    name = name or machine()
    if name not in AUDIT_ARCH:
        raise ValueError(f"no seccomp filter for {name}")
    column = 0 if name == "x86_64" else 1
    # Instructions with symbolic jump targets, resolved once the layout is known.
    code: list[tuple[int, str | int, str | int, int]] = [
        (_LD_W_ABS, 0, 0, _OFFSET_ARCH),
        (_JEQ, 0, "deny", AUDIT_ARCH[name]),
        (_LD_W_ABS, 0, 0, _OFFSET_NR),
    ]
    if name == "x86_64":
        code.append((_JGE, "deny", 0, X32_SYSCALL_BIT))
    for number in denied_numbers(name):
        code.append((_JEQ, "deny", 0, number))
    code += [
        (_JEQ, "nosys", 0, CLONE3[column]),
        (_JEQ, 0, "allow", CLONE[column]),
        (_LD_W_ABS, 0, 0, _OFFSET_ARG0),
        (_JSET, "deny", "allow", CLONE_NAMESPACES),
    ]
    labels = {"allow": len(code), "deny": len(code) + 1, "nosys": len(code) + 2}
    code += [
        (_RET, 0, 0, _RET_ALLOW),
        (_RET, 0, 0, _RET_ERRNO | errno.EPERM),
        (_RET, 0, 0, _RET_ERRNO | errno.ENOSYS),
    ]
    out = bytearray()
    for index, (op, true, false, k) in enumerate(code):
        jt = labels[true] - index - 1 if isinstance(true, str) else true
        jf = labels[false] - index - 1 if isinstance(false, str) else false
        if not (0 <= jt <= 255 and 0 <= jf <= 255):
            raise ValueError("a jump too long for classic BPF")
        out += struct.pack("=HBBI", op, jt, jf, k)
    return bytes(out)
