"""Stand-in meshes for bench/menagerie.sh.

For each <mesh file=...> in the MJCF file (and the files it includes) whose
file is absent, or is a Git LFS pointer, writes a 2 cm cube centred on the
origin (OBJ, or binary STL for .stl) and prints how many it wrote. The
compiler's meshdir and assetdir are honoured.
"""
import os
import re
import struct
import sys

CUBE = [(x, y, z) for x in (-.01, .01) for y in (-.01, .01) for z in (-.01, .01)]
FACES = [(0, 1, 3), (0, 3, 2), (4, 6, 7), (4, 7, 5), (0, 4, 5), (0, 5, 1),
         (2, 3, 7), (2, 7, 6), (0, 2, 6), (0, 6, 4), (1, 5, 7), (1, 7, 3)]


def absent(path):
    if not os.path.isfile(path):
        return True
    with open(path, "rb") as f:
        return f.read(40).startswith(b"version https://git-lfs")


def write(path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if path.lower().endswith(".stl"):
        with open(path, "wb") as f:
            f.write(b"stand-in cube".ljust(80, b" "))
            f.write(struct.pack("<I", len(FACES)))
            for a, b, c in FACES:
                f.write(struct.pack("<3f", 0, 0, 0))
                for v in (a, b, c):
                    f.write(struct.pack("<3f", *CUBE[v]))
                f.write(b"\0\0")
    else:
        with open(path, "w") as f:
            for v in CUBE:
                f.write("v %g %g %g\n" % v)
            for a, b, c in FACES:
                f.write("f %d %d %d\n" % (a + 1, b + 1, c + 1))


def main():
    model = sys.argv[1]
    root = os.path.dirname(os.path.abspath(model))
    seen, todo, n = set(), [os.path.abspath(model)], 0
    meshdir = ""
    while todo:
        p = todo.pop()
        if p in seen or not os.path.isfile(p):
            continue
        seen.add(p)
        text = open(p, encoding="utf-8", errors="replace").read()
        m = re.search(r'<compiler[^>]*\b(?:meshdir|assetdir)="([^"]*)"', text)
        if m:
            meshdir = m.group(1)
        for inc in re.findall(r'<include[^>]*file="([^"]*)"', text):
            todo.append(os.path.join(os.path.dirname(p), inc))
        for tag in re.findall(r"<mesh\b[^>]*>", text):
            f = re.search(r'\bfile="([^"]*)"', tag)
            if not f:
                continue
            path = os.path.join(root, meshdir, f.group(1))
            if absent(path):
                write(path)
                n += 1
    print(n)


main()
