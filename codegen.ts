import type { CodegenConfig } from '@graphql-codegen/cli';

/**
 * Typed client documents from the committed schema and the operations kept in
 * src/client/operations. Run `npm run codegen` after changing either.
 */
const config: CodegenConfig = {
  schema: 'schema.graphql',
  documents: ['src/client/operations/**/*.graphql'],
  ignoreNoDocuments: false,
  generates: {
    'src/client/gql/': {
      preset: 'client',
      // persisted-documents.json: every operation by its SHA-256, the manifest the server can be locked to (PERSISTED_DOCUMENTS).
      presetConfig: { fragmentMasking: false, persistedDocuments: { hashAlgorithm: 'sha256' } },
      config: {
        useTypeImports: true,
        enumsAsTypes: true,
        scalars: { DateTimeISO: 'string', LocalDate: 'string', JSONObject: 'Record<string, unknown>', JSON: 'unknown' },
      },
    },
  },
};

export default config;
