import type { CodegenConfig } from '@graphql-codegen/cli';
import { findRunningServer } from '../../src/scripts/running-server';

/**
 * Typed client code for a frontend, generated from a running server: its schema by introspection
 * (development servers allow it; production turns it off, so point production builds at the
 * committed schema.graphql instead) and your operations. Run it while `npm start` runs:
 *
 *   npx graphql-codegen --config examples/codegen/codegen.ts
 *
 * It finds the running server by itself, whatever its PORT and DATA_DIR (`npm start` announces
 * itself, see src/scripts/running-server.ts). GRAPHQL_URL, OPERATIONS and CODEGEN_OUT override
 * where it reads and writes.
 */
const url = process.env.GRAPHQL_URL ?? findRunningServer()?.url ?? 'http://127.0.0.1:4000/graphql';

const config: CodegenConfig = {
  schema: url,
  documents: [process.env.OPERATIONS ?? 'src/client/operations/**/*.graphql'],
  generates: {
    [process.env.CODEGEN_OUT ?? 'examples/codegen/generated/']: {
      preset: 'client',
      // The manifest of trusted documents comes with it (see docs/api.md, "Using it from a frontend").
      presetConfig: { fragmentMasking: false, persistedDocuments: { hashAlgorithm: 'sha256' } },
      config: { useTypeImports: true, enumsAsTypes: true },
    },
  },
};

export default config;
