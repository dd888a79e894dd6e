import 'reflect-metadata';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
import { type DriftView, driftView } from '../common/drift';
import { errorMessage } from '../guards';
import { toolTarget } from './system-tool';
import { commandLine } from './cli';

/*
 * `npm run verify-model`: the drift check. Reads the whole table and prints, per entity type, the
 * stored items whose key, index attributes or search words differ from what today's declaration
 * derives (src/common/drift.ts), with samples. Exits 1 when any item drifted (a migration is
 * due: npm run migrate), 0 when every item is as declared.
 *   npm run verify-model -- [--samples 5] [--json] [--url http://…/graphql]
 */

const QUERY = `query($n: Int) { modelDrift(maxSamples: $n) { drifted undeclared types { entityType checked drifted fields { field items } samples { pk sk fields } } } }`;

async function main() {
  const values = commandLine(
    {
      url: { type: 'string' },
      samples: { type: 'string', default: '5' },
      json: { type: 'boolean', default: false },
    },
    'Usage: npm run verify-model -- [--samples 5] [--json] [--url http://…/graphql]\nThe drift check: see docs/operations.md.\n',
  );
  if (!values) return;
  const maxSamples = Number(values.samples);
  if (!(Number.isInteger(maxSamples) && maxSamples >= 0 && maxSamples <= 50))
    throw new Error('--samples takes a whole number from 0 to 50.');
  const target = await toolTarget(values.url);
  let report: DriftView;
  if (target.kind === 'table') {
    const found = await target.migrations.drift({ maxSamples });
    await target.close();
    report = driftView(found);
  } else {
    report = (await target.request<{ modelDrift: DriftView }>(QUERY, { n: maxSamples })).modelDrift;
  }
  if (values.json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    for (const t of report.types) {
      const fields = t.fields.map((f) => `${f.field} ${f.items}`).join(', ');
      process.stdout.write(`${t.entityType}: ${t.checked} checked, ${t.drifted} drifted${fields ? ` (${fields})` : ''}\n`);
      for (const s of t.samples) process.stdout.write(`  ${s.pk} ${s.sk}: ${s.fields.join(', ')}\n`);
    }
    process.stdout.write(
      `${report.drifted} drifted item${report.drifted === 1 ? '' : 's'}; ${report.undeclared} of no declared type.` +
        `${report.drifted ? ' A migration is due: npm run migrate.' : ''}\n`,
    );
  }
  if (report.drifted > 0) process.exitCode = 1;
}

main().catch((error) => {
  process.stderr.write(`${errorMessage(error)}\n`);
  process.exit(1);
});
