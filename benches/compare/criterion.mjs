// Reads criterion's saved estimates under a group directory (target/criterion/<group>) and
// prints them as JSON: per benchmark id, the mean time per iteration and the throughput in
// MB/s (10^6 bytes per second) when the benchmark declared its bytes; with a second argument,
// the bench's own output, also its per-CPU-second line ({"cpu_parse": ...}).
import fs from 'node:fs';
import path from 'node:path';

const group = process.argv[2];
const benches = [];
for (const dir of fs.readdirSync(group, { recursive: true })) {
  const base = path.join(group, dir);
  const estimates = path.join(base, 'new/estimates.json');
  const meta = path.join(base, 'new/benchmark.json');
  if (!fs.existsSync(estimates) || !fs.existsSync(meta)) continue;
  const { mean } = JSON.parse(fs.readFileSync(estimates, 'utf8'));
  const { full_id: id, throughput } = JSON.parse(fs.readFileSync(meta, 'utf8'));
  const bytes = throughput?.Bytes ?? throughput?.BytesDecimal ?? null;
  const ns = mean.point_estimate;
  benches.push({ id, ns_per_iter: ns, bytes, mb_s: bytes ? bytes / (ns / 1e9) / 1e6 : null });
}
benches.sort((a, b) => a.id.localeCompare(b.id));
const printed = process.argv[3] ? fs.readFileSync(process.argv[3], 'utf8').split('\n').find((l) => l.startsWith('{"cpu_parse"')) : null;
const cpu = printed ? JSON.parse(printed).cpu_parse : null;
console.log(JSON.stringify({ measured: true, benches, cpu }, null, 2));
