"""Stand-in meshes for bench/menagerie.sh.

For each <mesh file=...> (and <texture file=...>: a 2x2 grey PNG) in the MJCF file (and the files it includes) whose
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


def write(path, scale=(1.0, 1.0, 1.0)):
    # the cube is 2 cm after the mesh's scale, so MuJoCo's volume check passes
    cube = [tuple(c / s for c, s in zip(v, scale)) for v in CUBE]
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if path.lower().endswith(".stl"):
        with open(path, "wb") as f:
            f.write(b"stand-in cube".ljust(80, b" "))
            f.write(struct.pack("<I", len(FACES)))
            for a, b, c in FACES:
                f.write(struct.pack("<3f", 0, 0, 0))
                for v in (a, b, c):
                    f.write(struct.pack("<3f", *cube[v]))
                f.write(b"\0\0")
    else:
        with open(path, "w") as f:
            for v in cube:
                f.write("v %g %g %g\n" % v)
            for a, b, c in FACES:
                f.write("f %d %d %d\n" % (a + 1, b + 1, c + 1))


def png(path):
    """A 2x2 grey RGB PNG: the stand-in for an absent texture file."""
    import zlib
    def chunk(kind, data):
        c = kind + data
        return struct.pack(">I", len(data)) + c + struct.pack(">I", zlib.crc32(c) & 0xffffffff)
    raw = b"".join(b"\0" + b"\x80" * 6 for _ in range(2))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def main():
    model = sys.argv[1]
    root = os.path.dirname(os.path.abspath(model))
    seen, todo, n = set(), [os.path.abspath(model)], 0
    meshdir = texdir = ""
    scales = {}
    while todo:
        p = todo.pop()
        if p in seen or not os.path.isfile(p):
            continue
        seen.add(p)
        text = open(p, encoding="utf-8", errors="replace").read()
        m = re.search(r'<compiler[^>]*\b(?:meshdir|assetdir)="([^"]*)"', text)
        if m:
            meshdir = m.group(1)
        m = re.search(r'<compiler[^>]*\b(?:texturedir|assetdir)="([^"]*)"', text)
        if m:
            texdir = m.group(1)
        for f in re.findall(r'<texture\b[^>]*\bfile="([^"]*)"', text):
            path = os.path.join(root, texdir, f)
            if absent(path):
                png(path)
                n += 1
        for inc in re.findall(r'<include[^>]*file="([^"]*)"', text):
            todo.append(os.path.join(os.path.dirname(p), inc))
        for cls, sc in re.findall(r'<default\s+class="([^"]*)"\s*>\s*<mesh\s+scale="([^"]*)"', text):
            scales[cls] = tuple(abs(float(x)) or 1.0 for x in sc.split())
        for tag in re.findall(r"<mesh\b[^>]*>", text):
            f = re.search(r'\bfile="([^"]*)"', tag)
            if not f:
                continue
            path = os.path.join(root, meshdir, f.group(1))
            sc = re.search(r'\bscale="([^"]*)"', tag)
            cl = re.search(r'\bclass="([^"]*)"', tag)
            scale = (1.0, 1.0, 1.0)
            if sc:
                scale = tuple(abs(float(x)) or 1.0 for x in sc.group(1).split())
            elif cl and cl.group(1) in scales:
                scale = scales[cl.group(1)]
            if absent(path):
                write(path, scale)
                n += 1
    print(n)


main()
