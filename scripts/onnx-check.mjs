// Runs vlmrb's exported ONNX policies in ONNX Runtime (onnxruntime-node)
// and compares them with vlmrb's own outputs, which
// onnx/onnxfixture/write left beside them.
//
//   node scripts/onnx-check.mjs FIXTURE_DIR
//
// ORT_NODE_DIR names the folder whose node_modules holds onnxruntime-node
// (scripts/onnx-check.sh installs it there). Exits 1 when a model does
// not load, does not run or differs by more than TOL (1e-5).
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const TOL = 1e-5;
const dir = process.argv[2];
if (!dir || !process.env.ORT_NODE_DIR) {
  console.error('usage: ORT_NODE_DIR=DIR node scripts/onnx-check.mjs FIXTURE_DIR');
  process.exit(2);
}
const require = createRequire(path.join(process.env.ORT_NODE_DIR, 'node_modules', 'x.js'));
const ort = require('onnxruntime-node');
const version = require('onnxruntime-node/package.json').version;

function f32(file) {
  const b = readFileSync(file);
  return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
}

const cases = JSON.parse(readFileSync(path.join(dir, 'cases.json'), 'utf8'));
let failed = 0;
for (const c of cases) {
  const t0 = performance.now();
  const session = await ort.InferenceSession.create(path.join(dir, c.name + '.onnx'));
  const loadMs = performance.now() - t0;
  const obs = f32(path.join(dir, c.name + '.obs.f32'));
  const want = f32(path.join(dir, c.name + '.want.f32'));
  const feeds = { [c.input]: new ort.Tensor('float32', obs, [c.n, c.obs_dim]) };
  const out = (await session.run(feeds))[c.output];
  const dims = out.dims.join(',');
  if (dims !== `${c.n},${c.out_dim}`) {
    console.log(`${c.name}: FAIL output shape [${dims}], want [${c.n},${c.out_dim}]`);
    failed++;
    continue;
  }
  let d = 0;
  for (let i = 0; i < want.length; i++) d = Math.max(d, Math.abs(out.data[i] - want[i]));
  const ok = d <= TOL;
  if (!ok) failed++;
  console.log(`${c.name}: onnxruntime-node ${version} vs vlmrb on ${c.n} observations: max |difference| = ${d.toExponential(3)} (loaded in ${loadMs.toFixed(0)} ms) ${ok ? 'ok' : 'FAIL'}`);
}
console.log(`${cases.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
