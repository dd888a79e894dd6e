import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { printAppSchema } from '../schema';

/** Writes schema.graphql from the type-graphql classes (`npm run schema`). */
const file = resolve(__dirname, '../../../schema.graphql');
writeFileSync(file, printAppSchema());
process.stdout.write(`Wrote ${file}\n`);
