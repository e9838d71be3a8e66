"""Skeleton stand-ins for a robot's visual meshes, for pictures.

  python3 bench/skeleton_meshes.py MODEL.xml

Where a model's mesh files are not at hand (Menagerie's Panda OBJs are
megabytes each), bench/menagerie_meshes.py writes 2 cm cubes, which draw
a robot as a scatter of dots. This script overwrites, for each body, the
file of its first visual mesh (a mesh geom in a class named "visual", or
any mesh geom with contype and conaffinity 0) with a box that runs from
the body's origin to its first child body's origin (5 cm thick), or a
3 cm cube for a body without children, so the picture shows the links
where they are. The other meshes of the body are left as they are. Only
OBJ files are written (visual meshes); nothing of the model's physics
changes when its bodies have explicit <inertial> elements, as
mjx_panda.xml's do. Prints how many files it wrote.
"""
import math
import os
import sys
import xml.etree.ElementTree as ET


def vec(s, n=3):
    return [float(x) for x in s.split()][:n] if s else [0.0] * n


def box_obj(path, a, b, t=0.025):
    d = [b[i] - a[i] for i in range(3)]
    L = math.sqrt(sum(x * x for x in d))
    if L < 1e-6:
        a, b, d, L = [0, 0, -0.015], [0, 0, 0.015], [0, 0, 0.03], 0.03
        t = 0.015
    u = [x / L for x in d]
    ref = [1, 0, 0] if abs(u[0]) < 0.9 else [0, 1, 0]
    v = [u[1] * ref[2] - u[2] * ref[1], u[2] * ref[0] - u[0] * ref[2], u[0] * ref[1] - u[1] * ref[0]]
    n = math.sqrt(sum(x * x for x in v))
    v = [x / n for x in v]
    w = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]]
    verts = []
    for e in (a, b):
        for sv in (-t, t):
            for sw in (-t, t):
                verts.append([e[i] + sv * v[i] + sw * w[i] for i in range(3)])
    faces = [(1, 2, 4), (1, 4, 3), (5, 7, 8), (5, 8, 6), (1, 5, 6), (1, 6, 2),
             (3, 4, 8), (3, 8, 7), (1, 3, 7), (1, 7, 5), (2, 6, 8), (2, 8, 4)]
    with open(path, "w") as f:
        for p in verts:
            f.write("v %.6f %.6f %.6f\n" % tuple(p))
        for fc in faces:
            f.write("f %d %d %d\n" % fc)


def main(model):
    root = ET.parse(model).getroot()
    base = os.path.dirname(os.path.abspath(model))
    comp = root.find("compiler")
    meshdir = ""
    if comp is not None:
        meshdir = comp.get("meshdir", comp.get("assetdir", ""))
    files = {}
    for m in root.iter("mesh"):
        f = m.get("file")
        if f:
            files[m.get("name") or os.path.splitext(os.path.basename(f))[0]] = f
    wrote = 0

    def walk(body):
        nonlocal wrote
        kids = body.findall("body")
        for g in body.findall("geom"):
            mesh = g.get("mesh")
            visual = g.get("class") == "visual" or (g.get("contype") == "0" and g.get("conaffinity") == "0")
            if not mesh or not visual or mesh not in files or not files[mesh].lower().endswith(".obj"):
                continue
            end = vec(kids[0].get("pos")) if kids else [0, 0, 0]
            box_obj(os.path.join(base, meshdir, files[mesh]), [0, 0, 0], end)
            wrote += 1
            break
        for k in kids:
            walk(k)

    for b in root.find("worldbody").findall("body"):
        walk(b)
    print(wrote)


if __name__ == "__main__":
    main(sys.argv[1])
