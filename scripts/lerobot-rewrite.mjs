// Rewrites the parquet files of a LeRobot v3.0 dataset with DuckDB's own
// parquet writer (a second, independent writer), copying the JSON and
// video files as they are, so that vlmrb's reader is checked on parquet
// it did not write.  usage: node lerobot-rewrite.mjs SRC_DIR DST_DIR
import { DuckDBInstance } from '@duckdb/node-api';
import { cpSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const [src, dst] = process.argv.slice(2);
if (!src || !dst) {
  console.error('usage: node lerobot-rewrite.mjs SRC_DIR DST_DIR');
  process.exit(2);
}
cpSync(src, dst, { recursive: true });
const db = await (await DuckDBInstance.create(':memory:')).connect();
const walk = (d) => readdirSync(d).flatMap((n) => (statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : [join(d, n)]));
let n = 0;
for (const p of walk(src).filter((p) => p.endsWith('.parquet'))) {
  const out = join(dst, relative(src, p));
  rmSync(out);
  await db.run(`COPY (SELECT * FROM read_parquet('${p}')) TO '${out}' (FORMAT parquet, COMPRESSION zstd)`);
  n++;
}
console.log(`lerobot-rewrite: ${n} parquet files rewritten by DuckDB into ${dst}`);
