# attack: the sandbox's uid maps to the server's outside; try the kernel's writable knobs
# expect: wrong_answer
SYSCTLS = ("/proc/sys/vm/drop_caches", "/proc/sysrq-trigger", "/proc/sys/kernel/pid_max",
           "/proc/sys/kernel/core_pattern", "/sys/fs/cgroup/cgroup.procs",
           "/proc/sys/vm/overcommit_memory")


def ring_all_reduce(t):
    for path in SYSCTLS:
        try:
            with open(path, "w") as f:
                f.write("")
        except OSError:
            continue
        raise RuntimeError(f"LEAKED could open {path} for writing")
