"""The memory this machine can still give, for checks made before large allocations."""

import os


def available_memory():
    """Bytes the system can allocate without swapping, or None where unknown.

    Linux's ``MemAvailable`` (free memory plus the page cache it can drop),
    else the free pages. Used to refuse a fit or a join that could not
    finish before it starts.

    Returns
    -------
    n_bytes : int or None
    """
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None
