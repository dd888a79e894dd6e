import { tableDefinition } from '../infra/dynamo/table';

/** Prints the table definition as JSON for `aws dynamodb create-table --cli-input-json` or IaC. */
process.stdout.write(`${JSON.stringify(tableDefinition(process.env.TABLE_NAME || 'Artissist'), null, 2)}\n`);
