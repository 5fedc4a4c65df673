#!/usr/bin/python3
"""A FUSE file system over a mirror folder whose owner swaps a file the
moment a reader closes it: after the first close of a file that was read,
each file NAME that has a NAME.swap beside it in the backing folder is
replaced by it (a rename, as an attacker with write access to a lab's NFS
mirror would do). The swap happens in flush, which close(2) waits for, so
a reader that opens the file again by name always gets the other bytes,
and one that keeps its first descriptor never does. It prints "swapped
NAME" on stdout for each swap. NAME.swap files are hidden from listings.

Usage: swap_on_close_fs.py BACKING MOUNTPOINT   (foreground)
Needs python3-fusepy and /dev/fuse (as root, or with fusermount).
"""
import errno
import os
import sys
import threading

from fusepy import FUSE, FuseOSError, Operations


class SwapOnCloseFs(Operations):
    def __init__(self, backing):
        self.backing = backing
        self.lock = threading.Lock()
        self.read_from = set()  # descriptors some bytes were read through

    def _real(self, path):
        return os.path.join(self.backing, path.lstrip("/"))

    def getattr(self, path, fh=None):
        try:
            st = os.lstat(self._real(path))
        except OSError as e:
            raise FuseOSError(e.errno)
        return {key: getattr(st, key) for key in
                ("st_mode", "st_nlink", "st_uid", "st_gid", "st_size", "st_atime", "st_mtime", "st_ctime")}

    def readdir(self, path, fh):
        return [".", ".."] + [n for n in os.listdir(self._real(path)) if not n.endswith(".swap")]

    def open(self, path, flags):
        if flags & (os.O_WRONLY | os.O_RDWR):
            raise FuseOSError(errno.EROFS)
        return os.open(self._real(path), os.O_RDONLY)

    def read(self, path, size, offset, fh):
        with self.lock:
            self.read_from.add(fh)
        return os.pread(fh, size, offset)

    def flush(self, path, fh):
        with self.lock:
            if fh not in self.read_from:
                return 0
            self.read_from.discard(fh)
            replacement = self._real(path) + ".swap"
            if os.path.exists(replacement):
                os.rename(replacement, self._real(path))
                print("swapped", path.lstrip("/"), flush=True)
        return 0

    def lock(self, path, fh, cmd, lock):
        raise FuseOSError(errno.ENOSYS)  # the kernel's own locks, as on a local disk

    def release(self, path, fh):
        os.close(fh)
        return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    FUSE(SwapOnCloseFs(sys.argv[1]), sys.argv[2], foreground=True, nothreads=False, allow_other=True)
