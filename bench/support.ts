import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
process.env.LOG_LEVEL ??= 'silent';

/** The q-quantile (0..1) of `values`, by the nearest-rank method. */
export function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/** Writes a run's figures as JSON under bench/results (git-ignored). */
export function saveResult(name: string, data: unknown): string {
  const dir = join(__dirname, '../../bench/results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
  return file;
}
