#!/usr/bin/env python3
"""The machine code of every kernel in a cubin, as a digest: one line per .text section with the
first 16 hex digits of its sha256, its size in bytes and its demangled name, sorted by name.

Two builds whose lines are equal run the same SASS, instruction for instance; the check needs no
nvdisasm (CI has none), only a cubin, e.g.

    nvcc <the build's flags for kernels/cuda/sampled.cu> -arch=sm_90 -cubin -o sampled.cubin
    python3 perf/sass/cubin_text.py sampled.cubin > before.txt   # then again after a change; diff

Line-table sections are left out on purpose: moving code between headers changes them, not the
instructions.
"""
import hashlib
import struct
import subprocess
import sys


def text_sections(data):
    """(mangled name, sha256 prefix, size) of each .text.* section of an ELF64 little-endian file."""
    if data[:4] != b"\x7fELF" or data[4] != 2:
        raise SystemExit("cubin_text: not an ELF64 file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    secs = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names_at = secs[shstrndx][4]

    def name(off):
        end = data.index(b"\0", names_at + off)
        return data[names_at + off:end].decode()

    out = []
    for sh_name, _, _, _, off, size in secs:
        n = name(sh_name)
        if n.startswith(".text."):
            out.append((n[len(".text."):], hashlib.sha256(data[off:off + size]).hexdigest()[:16], size))
    return out


def main(argv):
    if len(argv) != 2:
        raise SystemExit("usage: cubin_text.py FILE.cubin")
    rows = text_sections(open(argv[1], "rb").read())
    demangled = subprocess.run(["c++filt"], input="\n".join(r[0] for r in rows), capture_output=True,
                               text=True, check=True).stdout.split("\n")
    for (_, digest, size), name in sorted(zip(rows, demangled), key=lambda x: x[1]):
        print(digest, size, name)


if __name__ == "__main__":
    main(sys.argv)
