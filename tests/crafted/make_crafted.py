#!/usr/bin/env python3
"""Writes the crafted inputs of the security issue (#10) into a folder, one
file each, for the end-to-end tests and as fuzz seeds:

  zip64-wrap.zip       zip64 central directory whose offset + size wraps past 2**64
  zip64-wrap-3g.zip    the same, sized to claim a 3 GiB central directory
  mz-lfanew.dll        64 bytes: 'MZ' with e_lfanew = 0xFFFFFFFF
  overlap.zip          eight names sharing one deflated body (overlapping entries)
  bomb.zip             one entry of 1 GiB of zeros, about 1 MB deflated
  escape.zip           an entry whose name carries terminal escapes and climbs out

Usage: make_crafted.py OUTDIR
"""
import os
import struct
import sys
import zlib


def local_header(name, crc, csize, size, method=8):
    return struct.pack('<IHHHHHIIIHH', 0x04034B50, 20, 0, method, 0, 0, crc, csize, size, len(name), 0) + name


def central_header(name, crc, csize, size, offset, method=8):
    return struct.pack('<IHHHHHHIIIHHHHHII', 0x02014B50, 0x031E, 20, 0, method, 0, 0, crc, csize, size,
                       len(name), 0, 0, 0, 0, 0o100644 << 16, offset) + name


def end_record(count, cd_size, cd_offset):
    return struct.pack('<IHHHHIIH', 0x06054B50, 0, 0, count, count, cd_size, cd_offset, 0)


def zip64_wrap(cd_offset, cd_size):
    # A fake local header first, so that the file starts like a zip.
    head = struct.pack('<IHHHHHIIIHH', 0x04034B50, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    end64_at = len(head)
    end64 = struct.pack('<IQHHIIQQQQ', 0x06064B50, 44, 45, 45, 0, 0, 1, 1, cd_size, cd_offset)
    locator = struct.pack('<IIQI', 0x07064B50, 0, end64_at, 1)
    end = struct.pack('<IHHHHIIH', 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    return head + end64 + locator + end


def deflate_zeros(total, chunk=1 << 20):
    engine = zlib.compressobj(9, zlib.DEFLATED, -15)
    out = []
    crc = 0
    block = bytes(chunk)
    for _ in range(total // chunk):
        out.append(engine.compress(block))
        crc = zlib.crc32(block, crc)
    out.append(engine.flush())
    return b''.join(out), crc


def single_entry_zip(name, data, crc, size):
    body = local_header(name, crc, len(data), size) + data
    central = central_header(name, crc, len(data), size, 0)
    return body + central + end_record(1, len(central), len(body))


def overlap_zip(body_size=64 << 20):
    data, crc = deflate_zeros(body_size)
    first = b'cuda/bin/a.dll'
    body = local_header(first, crc, len(data), body_size) + data
    central = b''
    names = [b'cuda/bin/%c.dll' % c for c in b'abcdefgh']
    for name in names:
        central += central_header(name, crc, len(data), body_size, 0)
    return body + central + end_record(len(names), len(central), len(body))


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)

    def write(name, data):
        with open(os.path.join(out, name), 'wb') as f:
            f.write(data)

    write('zip64-wrap.zip', zip64_wrap(16, 2**64 - 8))
    write('zip64-wrap-3g.zip', zip64_wrap(2**64 - (3 << 30) + 8, 3 << 30))
    write('mz-lfanew.dll', b'MZ' + bytes(0x3A) + struct.pack('<I', 0xFFFFFFFF))
    write('overlap.zip', overlap_zip())
    data, crc = deflate_zeros(1 << 30)
    write('bomb.zip', single_entry_zip(b'cuda/bin/zeros.dll', data, crc, 1 << 30))
    escape = b'\x1b[2J\x1b]0;owned\x07/../evil.dll'
    raw = b'x'
    write('escape.zip', single_entry_zip(escape, zlib.compress(raw)[2:-4], zlib.crc32(raw), 1))
    control = b'cuda/lib/\x1b[31mred\x07.so'
    write('control.zip', single_entry_zip(control, zlib.compress(raw)[2:-4], zlib.crc32(raw), 1))


if __name__ == '__main__':
    main()
