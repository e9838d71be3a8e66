// Checks a LeRobot v3.0 dataset written by `robot-train record` against
// the recorder's own report (record --json), reading the parquet files with
// DuckDB (@duckdb/node-api) and the videos with ffprobe:
//   row counts, episode boundaries, index continuity, column types,
//   feature shapes, timestamps, tasks, stats and video frame counts.
// usage: node lerobot-check.mjs DATASET_DIR REPORT.json
import { DuckDBInstance } from '@duckdb/node-api';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const [dir, reportPath] = process.argv.slice(2);
if (!dir || !reportPath) {
  console.error('usage: node lerobot-check.mjs DATASET_DIR REPORT.json');
  process.exit(2);
}
const report = JSON.parse(readFileSync(reportPath, 'utf8'));
const info = JSON.parse(readFileSync(join(dir, 'meta/info.json'), 'utf8'));
const stats = JSON.parse(readFileSync(join(dir, 'meta/stats.json'), 'utf8'));
let failures = 0;
let checks = 0;
function check(what, got, want) {
  checks++;
  const ok = JSON.stringify(got) === JSON.stringify(want);
  if (!ok) {
    failures++;
    console.error(`FAIL ${what}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
  }
}

const db = await (await DuckDBInstance.create(':memory:')).connect();
const q = async (sql) => (await db.runAndReadAll(sql)).getRowObjectsJson();
const data = `read_parquet('${join(dir, 'data/chunk-000/file-000.parquet')}')`;
const episodes = `read_parquet('${join(dir, 'meta/episodes/chunk-000/file-000.parquet')}')`;
const tasks = `read_parquet('${join(dir, 'meta/tasks.parquet')}')`;
const n = report.frames;
const lengths = report.lengths;

// info.json
check('codebase_version', info.codebase_version, 'v3.0');
check('total_frames', info.total_frames, n);
check('total_episodes', info.total_episodes, report.episodes);
check('splits', info.splits, { train: `0:${report.episodes}` });
check('data_path', info.data_path, 'data/chunk-{chunk_index:03d}/file-{file_index:03d}.parquet');

// row counts
check('data rows', Number((await q(`SELECT count(*) AS n FROM ${data}`))[0].n), n);
check('episode rows', Number((await q(`SELECT count(*) AS n FROM ${episodes}`))[0].n), report.episodes);

// column types (the Arrow types LeRobot's features map to)
const types = Object.fromEntries((await q(`DESCRIBE SELECT * FROM ${data}`)).map((r) => [r.column_name, r.column_type]));
const wantTypes = { timestamp: 'FLOAT', frame_index: 'BIGINT', episode_index: 'BIGINT', index: 'BIGINT', task_index: 'BIGINT' };
for (const [k, f] of Object.entries(info.features)) {
  if (f.dtype === 'video') continue;
  const vector = ['observation.state', 'action', 'next.observation.state'].includes(k);
  const t = { float32: vector ? 'FLOAT[]' : 'FLOAT', int64: 'BIGINT', bool: 'BOOLEAN', float64: 'DOUBLE' }[f.dtype];
  check(`type of ${k}`, types[k], wantTypes[k] ?? t);
}

// feature shapes: every row's vectors have the declared length
for (const k of ['observation.state', 'action', 'next.observation.state']) {
  if (!info.features[k]) continue;
  const rows = await q(`SELECT DISTINCT len("${k}") AS l FROM ${data}`);
  check(`lengths of ${k}`, rows.map((r) => Number(r.l)), info.features[k].shape);
  check(`names of ${k}`, (info.features[k].names ?? []).length, info.features[k].shape[0]);
}

// index continuity: index is 0..n-1 in file order
const idx = (await q(`SELECT min(index) AS lo, max(index) AS hi, count(DISTINCT index) AS d,
  bool_and(index = rn - 1) AS ordered FROM (SELECT index, row_number() OVER () AS rn FROM ${data})`))[0];
check('index range and order', [Number(idx.lo), Number(idx.hi), Number(idx.d), idx.ordered], [0, n - 1, n, true]);

// episode boundaries: per episode, frame_index 0..len-1, contiguous global
// indices, done only on the last frame, timestamps frame_index/fps
const per = await q(`SELECT episode_index AS e, count(*) AS c, min(frame_index) AS f0, max(frame_index) AS f1,
  min(index) AS i0, max(index) AS i1, count(DISTINCT task_index) AS nt,
  max(abs(timestamp - frame_index / ${info.fps})) AS dt
  ${info.features['next.done'] ? ', count(*) FILTER (WHERE "next.done") AS nd, max(frame_index) FILTER (WHERE "next.done") AS fd' : ''}
  FROM ${data} GROUP BY episode_index ORDER BY episode_index`);
check('episodes in the data', per.map((r) => Number(r.e)), lengths.map((_, i) => i));
let from = 0;
const epMeta = await q(`SELECT episode_index, length, dataset_from_index AS a, dataset_to_index AS b, tasks FROM ${episodes} ORDER BY episode_index`);
for (const [i, r] of per.entries()) {
  const len = lengths[i];
  check(`episode ${i} frames`, [Number(r.c), Number(r.f0), Number(r.f1)], [len, 0, len - 1]);
  check(`episode ${i} global indices`, [Number(r.i0), Number(r.i1)], [from, from + len - 1]);
  check(`episode ${i} one task`, Number(r.nt), 1);
  check(`episode ${i} timestamps = frame_index/fps`, Number(r.dt) < 1e-5, true);
  if (r.nd !== undefined) check(`episode ${i} done on its last frame only`, [Number(r.nd), Number(r.fd)], [1, len - 1]);
  const m = epMeta[i];
  check(`episode ${i} meta`, [Number(m.episode_index), Number(m.length), Number(m.a), Number(m.b)], [i, len, from, from + len]);
  from += len;
}

// tasks: task_index 0..T-1, every frame's task_index known, pandas index metadata
const trows = await q(`SELECT task_index, task FROM ${tasks} ORDER BY task_index`);
check('tasks', trows.map((r) => Number(r.task_index)), [...Array(info.total_tasks).keys()]);
const unknown = await q(`SELECT count(*) AS n FROM ${data} d ANTI JOIN ${tasks} t ON d.task_index = t.task_index`);
check('frames with an unknown task', Number(unknown[0].n), 0);
const kv = await q(`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata('${join(dir, 'meta/tasks.parquet')}')`);
const pandas = kv.find((r) => r.k === 'pandas');
check('tasks.parquet pandas index', pandas ? JSON.parse(pandas.v).index_columns : null, ['task']);
const epTask = await q(`SELECT d.episode_index AS e, any_value(t.task) AS task FROM ${data} d JOIN ${tasks} t USING (task_index) GROUP BY 1 ORDER BY 1`);
check('episode tasks = their frames\' task', epMeta.map((m) => m.tasks), epTask.map((r) => [r.task]));

// stats.json: one entry per vector element, counted over every frame
for (const k of ['observation.state', 'action']) {
  if (!info.features[k]) continue;
  check(`stats ${k} sizes`, ['min', 'max', 'mean', 'std'].map((s) => stats[k][s].length), Array(4).fill(info.features[k].shape[0]));
  check(`stats ${k} count`, stats[k].count, [n]);
  const mean0 = Number((await q(`SELECT avg("${k}"[1]) AS m FROM ${data}`))[0].m);
  check(`stats ${k} mean[0] vs DuckDB`, Math.abs(mean0 - stats[k].mean[0]) < 1e-4, true);
  // quantiles (LeRobot v3): ordered, inside [min, max] (the first bin's edge
  // may sit 1e-10 below min), and the dataset's are the frame-weighted mean
  // of the episodes' stats/FEATURE/qNN columns, read here by DuckDB
  const qs = ['q01', 'q10', 'q50', 'q90', 'q99'];
  const dim = info.features[k].shape[0];
  check(`stats ${k} quantile sizes`, qs.map((s) => (stats[k][s] ?? []).length), Array(5).fill(dim));
  let ordered = true;
  for (let d = 0; d < dim; d++) {
    const v = qs.map((s) => stats[k][s][d]);
    ordered &&= v.every((x, i) => i === 0 || x >= v[i - 1] - 1e-9) && v[0] >= stats[k].min[d] - 1e-6 && v[4] <= stats[k].max[d] + 1e-6;
  }
  check(`stats ${k} quantiles ordered within [min, max]`, ordered, true);
  const epq = await q(`SELECT "stats/${k}/q50"[1] AS q, "stats/${k}/count"[1] AS c FROM ${episodes} ORDER BY episode_index`);
  let agg = 0, tot = 0;
  for (const r of epq) { agg += Number(r.c) * Number(r.q); tot += Number(r.c); }
  check(`stats ${k} q50[0] = frame-weighted mean of the episodes' (DuckDB)`, tot === n && Math.abs(agg / tot - stats[k].q50[0]) < 1e-9, true);
}

// videos: ffprobe counts the frames; codec, pixel format and size as declared
for (const [k, f] of Object.entries(info.features)) {
  if (f.dtype !== 'video') continue;
  const path = join(dir, info.video_path.replace('{video_key}', k).replace('{chunk_index:03d}', '000').replace('{file_index:03d}', '000'));
  const out = JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-count_frames', '-select_streams', 'v:0',
    '-show_entries', 'stream=codec_name,pix_fmt,width,height,nb_read_frames', '-of', 'json', path]).toString()).streams[0];
  check(`${k} frames (ffprobe)`, Number(out.nb_read_frames), n);
  check(`${k} codec, pix_fmt, size`, [out.codec_name, out.pix_fmt, out.width, out.height],
    [f.info['video.codec'], 'yuv420p', f.info['video.width'], f.info['video.height']]);
  check(`${k} shape`, f.shape, [report.height, report.width, 3]);
  const spans = await q(`SELECT "videos/${k}/from_timestamp" AS a, "videos/${k}/to_timestamp" AS b FROM ${episodes} ORDER BY episode_index`);
  let t = 0;
  for (const [i, s] of spans.entries()) {
    check(`${k} episode ${i} video span`, [Math.abs(s.a - t) < 1e-9, Math.abs(s.b - (t + lengths[i] / info.fps)) < 1e-9], [true, true]);
    t += lengths[i] / info.fps;
  }
}

if (failures > 0) {
  console.error(`lerobot-check: ${failures} of ${checks} checks failed for ${dir}`);
  process.exit(1);
}
console.log(`lerobot-check: ${dir}: ${checks} checks passed (${report.episodes} episodes, ${n} frames, ${Object.values(info.features).filter((f) => f.dtype === 'video').length} video(s))`);
