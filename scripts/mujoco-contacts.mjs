// Prints what MuJoCo 3.3.8 (npm mujoco-js 0.0.7, WebAssembly) computes for
// an MJCF scene after mj_forward: every geom as compiled (type, size, world
// pose, margin, gap, mesh vertices and faces in the geom frame), every
// contact (geom1, geom2, dist, pos, frame, includemargin) and every body's
// mass properties. sim/convex's tests compare against this output.
//
//   MUJOCO_JS_DIR=DIR node scripts/mujoco-contacts.mjs SCENE.xml > SCENE.json
//
// scripts/mujoco-contacts.sh installs mujoco-js and regenerates the files.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const file = process.argv[2];
if (!file) throw new Error("usage: node scripts/mujoco-contacts.mjs SCENE.xml");
const dir = process.env.MUJOCO_JS_DIR;
if (!dir) throw new Error("MUJOCO_JS_DIR must name the folder holding node_modules/mujoco-js");
const entry = path.join(dir, "node_modules", "mujoco-js", "dist", "mujoco_wasm.js");
const mj = await (await import(pathToFileURL(entry).href)).default();

try { mj.FS.mkdir("/scene"); } catch {}
mj.FS.writeFile("/scene/s.xml", fs.readFileSync(file));
// mesh files beside the scene (OBJ, STL), for <mesh file="...">
for (const f of fs.readdirSync(path.dirname(file))) {
  if (/\.(obj|stl)$/i.test(f)) mj.FS.writeFile("/scene/" + f, fs.readFileSync(path.join(path.dirname(file), f)));
}
const m = mj.MjModel.loadFromXML("/scene/s.xml");
const d = new mj.MjData(m);
mj.mj_forward(m, d);

const arr = (a, i, n) => Array.from(a.slice(i * n, i * n + n));
const geoms = [];
for (let g = 0; g < m.ngeom; g++) {
  const geom = {
    type: m.geom_type[g], body: m.geom_bodyid[g],
    size: arr(m.geom_size, g, 3), pos: arr(d.geom_xpos, g, 3), mat: arr(d.geom_xmat, g, 9),
    margin: m.geom_margin[g], gap: m.geom_gap[g], rbound: m.geom_rbound[g],
  };
  const id = m.geom_dataid[g];
  if (geom.type === 7 && id >= 0) {
    const va = m.mesh_vertadr[id], vn = m.mesh_vertnum[id];
    const fa = m.mesh_faceadr[id], fn = m.mesh_facenum[id];
    geom.vert = Array.from(m.mesh_vert.slice(3 * va, 3 * (va + vn)));
    geom.face = Array.from(m.mesh_face.slice(3 * fa, 3 * (fa + fn)));
  }
  geoms.push(geom);
}
const contacts = [];
for (let i = 0; i < d.ncon; i++) {
  const c = d.contact.get(i);
  contacts.push({ geom1: c.geom1, geom2: c.geom2, dist: c.dist, pos: Array.from(c.pos),
    frame: Array.from(c.frame), includemargin: c.includemargin,
    dim: c.dim, friction: Array.from(c.friction), solref: Array.from(c.solref), solimp: Array.from(c.solimp) });
}
const bodies = [];
for (let b = 0; b < m.nbody; b++) {
  bodies.push({ mass: m.body_mass[b], inertia: arr(m.body_inertia, b, 3), ipos: arr(m.body_ipos, b, 3) });
}
// one geom, contact or body per line: small files, readable diffs
const list = (xs) => "[\n" + xs.map((x) => JSON.stringify(x)).join(",\n") + "\n]";
process.stdout.write(`{"mujoco": ${JSON.stringify(mj.mj_versionString())}, "scene": ${JSON.stringify(path.basename(file))},\n` +
  `"geoms": ${list(geoms)},\n"contacts": ${list(contacts)},\n"bodies": ${list(bodies)}}\n`);
d.delete();
m.delete();
