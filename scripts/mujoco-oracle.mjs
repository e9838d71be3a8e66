// MuJoCo 3.3.8 (npm mujoco-js 0.0.7, WebAssembly) as an oracle: loads an
// MJCF file (and the files beside it), optionally resets to a keyframe and
// holds controls, steps, and prints JSON lines {"time","qpos","qvel"} at
// time 0 and every N steps: the format of `robot-train simulate --json`.
//
//   node scripts/mujoco-oracle.mjs --model F.xml [--keyframe K] [--ctrl a,b]
//        [--duration S] [--every N] [--timestep H] [--speed]
//        [--mocap-vel vx,vy,vz]
//
// --mocap-vel moves the first mocap body at a constant velocity (m/s) from
// where the keyframe (or the model) puts it: before step i its position is
// start + v·(i·dt), a scripted hand for mocap-welded grippers.
//
// MUJOCO_JS_DIR names the folder holding node_modules/mujoco-js
// (scripts/mujoco-oracle.sh installs it into a cache).
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const opt = { every: 1, duration: 1 };
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  const val = () => {
    if (i + 1 >= args.length) throw new Error(`${a} needs a value`);
    return args[++i];
  };
  switch (a) {
    case "--model": opt.model = val(); break;
    case "--keyframe": opt.keyframe = val(); break;
    case "--ctrl": opt.ctrl = val().split(",").map(Number); break;
    case "--duration": opt.duration = Number(val()); break;
    case "--every": opt.every = parseInt(val(), 10); break;
    case "--timestep": opt.timestep = Number(val()); break;
    case "--speed": opt.speed = true; break;
    case "--mocap-vel": opt.mocapVel = val().split(",").map(Number); break;
    default: throw new Error(`unknown argument ${a}`);
  }
}
if (!opt.model) throw new Error("--model is required");
if (!(opt.every >= 1)) throw new Error("--every must be >= 1");
const dir = process.env.MUJOCO_JS_DIR;
if (!dir) throw new Error("MUJOCO_JS_DIR must name the folder holding node_modules/mujoco-js");
const entry = path.join(dir, "node_modules", "mujoco-js", "dist", "mujoco_wasm.js");
const load = (await import(pathToFileURL(entry).href)).default;
const mj = await load();

// copy the model's folder into the in-memory file system, keeping layout
const root = path.dirname(path.resolve(opt.model));
function copyDir(src, dst) {
  try { mj.FS.mkdir(dst); } catch {}
  for (const ent of fs.readdirSync(src, { withFileTypes: true })) {
    const s = path.join(src, ent.name), d = dst + "/" + ent.name;
    if (ent.isDirectory()) copyDir(s, d);
    else if (ent.isFile() && fs.statSync(s).size < 64 << 20) mj.FS.writeFile(d, fs.readFileSync(s));
  }
}
copyDir(root, "/model");
const model = mj.MjModel.loadFromXML("/model/" + path.basename(opt.model));
const data = new mj.MjData(model);
if (opt.timestep) model.opt.timestep = opt.timestep;
if (opt.keyframe !== undefined) {
  let k = mj.mj_name2id(model, mj.mjtObj.mjOBJ_KEY.value, opt.keyframe);
  if (k < 0 && /^\d+$/.test(opt.keyframe)) k = parseInt(opt.keyframe, 10);
  if (k < 0 || k >= model.nkey) throw new Error(`keyframe ${opt.keyframe} does not exist`);
  mj.mj_resetDataKeyframe(model, data, k);
}
if (opt.ctrl) {
  if (opt.ctrl.length !== model.nu) throw new Error(`--ctrl has ${opt.ctrl.length} values; the model has ${model.nu} actuators`);
  data.ctrl.set(opt.ctrl);
}
const steps = Math.round(opt.duration / model.opt.timestep);
let mocapStart = null;
if (opt.mocapVel) {
  if (opt.mocapVel.length !== 3 || opt.mocapVel.some((v) => !Number.isFinite(v))) throw new Error("--mocap-vel needs three numbers vx,vy,vz");
  if (model.nmocap < 1) throw new Error("--mocap-vel: the model has no mocap body");
  mocapStart = Array.from(data.mocap_pos).slice(0, 3);
}
// moveMocap sets the first mocap body's position before step i (--mocap-vel)
const moveMocap = (i) => {
  if (!mocapStart) return;
  const mp = data.mocap_pos, t = i * model.opt.timestep;
  for (let k = 0; k < 3; k++) mp[k] = mocapStart[k] + opt.mocapVel[k] * t;
};
if (opt.speed) {
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  for (let i = 0; i < steps; i++) { moveMocap(i + 1); mj.mj_step(model, data); }
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  const c = process.cpuUsage(c0);
  const cpu = (c.user + c.system) / 1e6;
  console.log(JSON.stringify({ steps, seconds: s, steps_per_second: steps / s, cpu_seconds: cpu,
    steps_per_cpu_second: steps / cpu, timestep: model.opt.timestep, version: mj.mj_versionString() }));
} else {
  const out = [];
  const line = () => out.push(JSON.stringify({ time: data.time, qpos: Array.from(data.qpos), qvel: Array.from(data.qvel) }));
  line();
  for (let i = 1; i <= steps; i++) {
    moveMocap(i);
    mj.mj_step(model, data);
    if (i % opt.every === 0) line();
  }
  process.stdout.write(out.join("\n") + "\n");
}
data.delete();
model.delete();
