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

Every system call the kernel has is classified here, allowed (:data:`ALLOWED`) or refused
(:data:`DENIED`), with the reason for its group; a number the kernel gave out after this
table was written answers ENOSYS. ``tests/core/test_seccomp.py`` checks the table against
the kernel's own (the headers of ``linux-libc-dev``, and libseccomp's), so a kernel with a
call that is in neither list fails the build instead of being allowed unseen.

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
import itertools
import platform
import struct

#: ``AUDIT_ARCH_*`` of each supported machine, as the kernel reports it in ``seccomp_data``.
AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}

#: Refused system calls, by group: the reason, then each call's numbers (x86_64, aarch64),
#: None where the machine does not have the call. Every refused call fails with EPERM.
DENIED: dict[str, tuple[str, dict[str, tuple[int | None, int | None]]]] = {
    "sysv_ipc": (
        "SysV IPC: memory outside RLIMIT_AS, and shared between sandboxes",
        {
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
        },
    ),
    "mqueue": (
        "POSIX message queues: the same, through mqueue",
        {
            "mq_open": (240, 180),
            "mq_unlink": (241, 181),
            "mq_timedsend": (242, 182),
            "mq_timedreceive": (243, 183),
            "mq_notify": (244, 184),
            "mq_getsetattr": (245, 185),
        },
    ),
    "memfd": (
        "anonymous files in memory: outside RLIMIT_AS, no use in a lesson",
        {"memfd_create": (319, 279), "memfd_secret": (447, 447)},
    ),
    "keyrings": (
        "keyrings: outlive the sandbox, shared by every process of the uid",
        {"add_key": (248, 217), "request_key": (249, 218), "keyctl": (250, 219)},
    ),
    "mounts": (
        "namespaces, mounts and the mount API: ways out of the sandbox's view of the files",
        {
            "unshare": (272, 97),
            "setns": (308, 268),
            "mount": (165, 40),
            "umount2": (166, 39),
            "pivot_root": (155, 41),
            "chroot": (161, 51),
            "open_tree": (428, 428),
            "open_tree_attr": (467, 467),
            "move_mount": (429, 429),
            "fsopen": (430, 430),
            "fsconfig": (431, 431),
            "fsmount": (432, 432),
            "fspick": (433, 433),
            "mount_setattr": (442, 442),
            "statmount": (457, 457),
            "listmount": (458, 458),
        },
    ),
    "other_processes": (
        "other processes' memory: reading, writing, comparing or moving it",
        {
            "ptrace": (101, 117),
            "process_vm_readv": (310, 270),
            "process_vm_writev": (311, 271),
            "process_madvise": (440, 440),
            "process_mrelease": (448, 448),
            "kcmp": (312, 272),
            "pidfd_getfd": (438, 438),
            "migrate_pages": (256, 238),
            "move_pages": (279, 239),
        },
    ),
    "attack_surface": (
        "kernel attack surface a lesson has no use for (each a known source of kernel exploits)",
        {
            "bpf": (321, 280),
            "perf_event_open": (298, 241),
            "userfaultfd": (323, 282),
            "io_uring_setup": (425, 425),
            "io_uring_enter": (426, 426),
            "io_uring_register": (427, 427),
            "io_setup": (206, 0),
            "io_destroy": (207, 1),
            "io_submit": (209, 2),
            "io_cancel": (210, 3),
            "io_getevents": (208, 4),
            "io_pgetevents": (333, 292),
            "vmsplice": (278, 75),
            "personality": (135, 92),
            "modify_ldt": (154, None),
            "set_thread_area": (205, None),
            "get_thread_area": (211, None),
        },
    ),
    "administrator": (
        "the administrator's (refused without capabilities anyway; refused here too)",
        {
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
            "quotactl_fd": (443, 443),
            "lookup_dcookie": (212, 18),
            "name_to_handle_at": (303, 264),
            "open_by_handle_at": (304, 265),
            "fanotify_init": (300, 262),
            "fanotify_mark": (301, 263),
            "vhangup": (153, 58),
            "settimeofday": (164, 170),
            "clock_settime": (227, 112),
            "clock_adjtime": (305, 266),
            "adjtimex": (159, 171),
            "sethostname": (170, 161),
            "setdomainname": (171, 162),
            "iopl": (172, None),
            "ioperm": (173, None),
        },
    ),
    "obsolete": (
        "obsolete or never implemented: nothing calls them",
        {
            "nfsservctl": (180, 42),
            "uselib": (134, None),
            "ustat": (136, None),
            "sysfs": (139, None),
            "_sysctl": (156, None),
            "create_module": (174, None),
            "get_kernel_syms": (177, None),
            "query_module": (178, None),
            "getpmsg": (181, None),
            "putpmsg": (182, None),
            "afs_syscall": (183, None),
            "tuxcall": (184, None),
            "security": (185, None),
            "vserver": (236, None),
            "epoll_ctl_old": (214, None),
            "epoll_wait_old": (215, None),
            "remap_file_pages": (216, 234),
        },
    ),
}
#: Every refused call's numbers, whatever its group.
SYSCALLS: dict[str, tuple[int | None, int | None]] = {
    name: numbers for _, calls in DENIED.values() for name, numbers in calls.items()
}
#: Allowed system calls, by group, with why: what Python 3.11 to 3.13 and a lesson's
#: answer need, inside the kernel's own checks, the sandbox's namespaces and its limits.
#: Names cover both machines (aarch64 lacks the old ``open``, ``stat``, ``fork``...;
#: ``fstatat`` is aarch64's name for x86-64's ``newfstatat``).
ALLOWED: dict[str, tuple[str, frozenset[str]]] = {
    "files": (
        "files and file descriptors: inside the sandbox's read-only view and its own /tmp",
        frozenset(
            """read write open close stat fstat lstat poll lseek pread64 pwrite64 readv writev
            access pipe select dup dup2 dup3 pipe2 sendfile fcntl flock fsync fdatasync truncate
            ftruncate getdents getdents64 getcwd chdir fchdir rename renameat renameat2 mkdir
            mkdirat rmdir creat link linkat unlink unlinkat symlink symlinkat readlink readlinkat
            chmod fchmod fchmodat fchmodat2 chown fchown lchown fchownat umask utime utimes
            utimensat futimesat mknod mknodat statfs fstatfs openat openat2 newfstatat fstatat
            faccessat faccessat2 statx readahead fadvise64 fallocate sync syncfs sync_file_range
            splice tee copy_file_range preadv pwritev preadv2 pwritev2 close_range ioctl cachestat
            setxattr lsetxattr fsetxattr getxattr lgetxattr fgetxattr listxattr llistxattr
            flistxattr removexattr lremovexattr fremovexattr setxattrat getxattrat listxattrat
            removexattrat file_getattr file_setattr""".split()
        ),
    ),
    "waiting": (
        "waiting on file descriptors: select, poll, epoll, inotify, eventfd, signalfd, timerfd",
        frozenset(
            """pselect6 ppoll epoll_create epoll_create1 epoll_ctl epoll_wait epoll_pwait
            epoll_pwait2 inotify_init inotify_init1 inotify_add_watch inotify_rm_watch eventfd
            eventfd2 signalfd signalfd4 timerfd_create timerfd_settime timerfd_gettime""".split()
        ),
    ),
    "memory": (
        "its own memory, within RLIMIT_AS and RLIMIT_MEMLOCK",
        frozenset(
            """brk mmap munmap mremap mprotect msync mincore madvise mlock mlock2 munlock mlockall
            munlockall pkey_mprotect pkey_alloc pkey_free membarrier mseal map_shadow_stack mbind
            get_mempolicy set_mempolicy set_mempolicy_home_node""".split()
        ),
    ),
    "processes": (
        "its own processes and threads: RLIMIT_NPROC and its pid namespace bound them "
        "(clone is checked for namespace flags; clone3 answers ENOSYS)",
        frozenset(
            """fork vfork execve execveat exit exit_group wait4 waitid kill tkill tgkill getpid
            getppid gettid getpgrp getpgid setpgid getsid setsid set_tid_address set_robust_list
            get_robust_list futex futex_waitv futex_wake futex_wait futex_requeue rseq arch_prctl
            prctl restart_syscall pidfd_open pidfd_send_signal sched_yield sched_setparam
            sched_getparam sched_setscheduler sched_getscheduler sched_get_priority_max
            sched_get_priority_min sched_rr_get_interval sched_setaffinity sched_getaffinity
            sched_setattr sched_getattr getpriority setpriority ioprio_set ioprio_get getcpu""".split()
        ),
    ),
    "confinement": (
        "confining itself further: seccomp and Landlock can only take away",
        frozenset("seccomp landlock_create_ruleset landlock_add_rule landlock_restrict_self".split()),
    ),
    "signals": (
        "signals: Python's own handlers, timers and alarms",
        frozenset(
            """rt_sigaction rt_sigprocmask rt_sigreturn rt_sigpending rt_sigtimedwait
            rt_sigqueueinfo rt_tgsigqueueinfo rt_sigsuspend sigaltstack pause alarm getitimer
            setitimer""".split()
        ),
    ),
    "time": (
        "reading clocks and sleeping (setting a clock is the administrator's)",
        frozenset(
            """nanosleep clock_nanosleep clock_gettime clock_getres gettimeofday time times
            timer_create timer_settime timer_gettime timer_getoverrun timer_delete""".split()
        ),
    ),
    "identity": (
        "who it is and its limits: the harness drops to an unprivileged user with setuid "
        "(no capabilities are left to gain anything back); limits can only be lowered",
        frozenset(
            """getuid geteuid getgid getegid getresuid getresgid getgroups setuid setgid setreuid
            setregid setresuid setresgid setfsuid setfsgid setgroups capget capset getrlimit
            setrlimit prlimit64 getrusage uname sysinfo getrandom lsm_get_self_attr
            lsm_set_self_attr lsm_list_modules""".split()
        ),
    ),
    "trampolines": (
        "the kernel's own uprobe trampolines: the kernel lets them past every seccomp filter, "
        "and called from anywhere else they kill the caller",
        frozenset({"uretprobe", "uprobe"}),
    ),
    "sockets": (
        "sockets: bubblewrap's network namespace has no network (the process sandbox is the "
        "host's, as the README says)",
        frozenset(
            """socket socketpair bind listen accept accept4 connect getsockname getpeername
            sendto recvfrom sendmsg recvmsg sendmmsg recvmmsg shutdown setsockopt
            getsockopt""".split()
        ),
    ),
}
#: The numbers the kernel has given out, per machine (inclusive ranges, up to Linux 6.17's
#: ``file_setattr``, 469). Anything outside them (a call of a newer kernel, not yet
#: classified here) answers ENOSYS, "not implemented", so a new kernel adds nothing.
KNOWN_NUMBERS = {"x86_64": ((0, 335), (424, 469)), "aarch64": ((0, 243), (260, 294), (424, 469))}
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


def known(name: str, number: int) -> bool:
    """True when ``number`` is one the kernel has given out on ``name`` (:data:`KNOWN_NUMBERS`)."""
    return any(low <= number <= high for low, high in KNOWN_NUMBERS[name])


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
    # Numbers outside the known ones (see KNOWN_NUMBERS): not implemented, as far as it knows.
    known = KNOWN_NUMBERS[name]
    code.append((_JGE, "nosys", 0, known[-1][1] + 1))
    for (_, high), (low, _) in itertools.pairwise(known):
        code.append((_JGE, 1, 0, low))  # in the next known range: on to the next check
        code.append((_JGE, "nosys", 0, high + 1))  # in the gap below it
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
