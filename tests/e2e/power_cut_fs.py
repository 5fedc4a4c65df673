#!/usr/bin/python3
"""A FUSE file system that loses what a power cut loses: mounted over a
backing folder (the "disk"), it applies every change of names at once (mkdir,
create, rename, unlink, symlink: the journal, as ext4 commits them, possibly
before the data), but keeps the bytes written to a file in memory until that
file is fsync'ed. Killing this process is the power cut: the backing folder
then holds every name, and in each file only what was synced (a file created
and written but never synced is empty there).

Usage: power_cut_fs.py BACKING MOUNTPOINT   (foreground; kill -9 to cut)
Needs python3-fusepy and /dev/fuse (as root, or with fusermount).
"""
import errno
import os
import sys
import threading

from fusepy import FUSE, FuseOSError, Operations


class PowerCutFs(Operations):
    def __init__(self, backing):
        self.backing = backing
        self.pending = {}  # path -> bytearray: the file's bytes as the programs see them, not yet on "disk"
        self.lock = threading.Lock()

    def _real(self, path):
        return os.path.join(self.backing, path.lstrip("/"))

    def _content(self, path):
        """The bytes programs see: pending ones, else the disk's."""
        data = self.pending.get(path)
        if data is None:
            with open(self._real(path), "rb") as f:
                data = bytearray(f.read())
            self.pending[path] = data
        return data

    # names: at once
    def getattr(self, path, fh=None):
        try:
            st = os.lstat(self._real(path))
        except OSError as e:
            raise FuseOSError(e.errno)
        attrs = {k: getattr(st, k) for k in ("st_atime", "st_ctime", "st_gid", "st_mode", "st_mtime", "st_nlink",
                                              "st_size", "st_uid")}
        with self.lock:
            if path in self.pending:
                attrs["st_size"] = len(self.pending[path])
        return attrs

    def readdir(self, path, fh):
        return [".", ".."] + os.listdir(self._real(path))

    def readlink(self, path):
        return os.readlink(self._real(path))

    def mkdir(self, path, mode):
        os.mkdir(self._real(path), mode)

    def rmdir(self, path):
        os.rmdir(self._real(path))

    def symlink(self, target, source):
        os.symlink(source, self._real(target))

    def link(self, target, source):
        os.link(self._real(source), self._real(target))

    def unlink(self, path):
        os.unlink(self._real(path))
        with self.lock:
            self.pending.pop(path, None)

    def rename(self, old, new):
        os.rename(self._real(old), self._real(new))
        with self.lock:
            moved = {}
            for key in list(self.pending):
                if key == old or key.startswith(old + "/"):
                    moved[new + key[len(old):]] = self.pending.pop(key)
            self.pending.pop(new, None)
            self.pending.update(moved)

    def chmod(self, path, mode):
        os.chmod(self._real(path), mode)

    def chown(self, path, uid, gid):
        os.lchown(self._real(path), uid, gid)

    def utimens(self, path, times=None):
        os.utime(self._real(path), times, follow_symlinks=False)

    def statfs(self, path):
        st = os.statvfs(self._real(path))
        return {k: getattr(st, k) for k in ("f_bavail", "f_bfree", "f_blocks", "f_bsize", "f_favail", "f_ffree",
                                            "f_files", "f_flag", "f_frsize", "f_namemax")}

    def access(self, path, amode):
        if not os.access(self._real(path), amode):
            raise FuseOSError(errno.EACCES)

    # data: in memory until fsync
    def create(self, path, mode, fi=None):
        os.close(os.open(self._real(path), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode))
        with self.lock:
            self.pending[path] = bytearray()
        return 0

    def open(self, path, flags):
        if flags & os.O_TRUNC:
            self.truncate(path, 0)
        return 0

    def read(self, path, size, offset, fh):
        with self.lock:
            return bytes(self._content(path)[offset:offset + size])

    def write(self, path, data, offset, fh):
        with self.lock:
            content = self._content(path)
            if len(content) < offset:
                content.extend(b"\0" * (offset - len(content)))
            content[offset:offset + len(data)] = data
        return len(data)

    def truncate(self, path, length, fh=None):
        with self.lock:
            content = self._content(path)
            del content[length:]
            content.extend(b"\0" * (length - len(content)))

    def flush(self, path, fh):
        return 0  # close(2) puts nothing on disk

    def release(self, path, fh):
        return 0

    def fsync(self, path, datasync, fh):
        with self.lock:
            data = self.pending.get(path)
            if data is not None:
                with open(self._real(path), "r+b") as f:
                    f.truncate(0)
                    f.write(data)
        return 0

    def fsyncdir(self, path, datasync, fh):
        return 0  # names are on disk already


if __name__ == "__main__":
    FUSE(PowerCutFs(os.path.abspath(sys.argv[1])), sys.argv[2], foreground=True, nothreads=True,
         default_permissions=True)
