// ESLint runs only on schema.graphql, with @graphql-eslint's schema rules; Biome lints the
// TypeScript. test/unit/schema-lint.test.ts runs it, so `npm test` and `npm run test:quick` fail
// on any error. Rules turned off or narrowed below fight a deliberate choice, each said why.
const graphql = require('@graphql-eslint/eslint-plugin');

module.exports = [
  {
    files: ['schema.graphql'],
    languageOptions: {
      parser: graphql.parser,
      parserOptions: { graphQLConfig: { schema: 'schema.graphql' } },
    },
    plugins: { '@graphql-eslint': graphql },
    rules: {
      ...graphql.configs['flat/schema-recommended'].rules,
      // Stricter than the recommended set: every field, argument and enum value is described too.
      '@graphql-eslint/require-description': [
        'error',
        {
          types: true,
          rootField: true,
          DirectiveDefinition: true,
          FieldDefinition: true,
          InputValueDefinition: true,
          EnumValueDefinition: true,
        },
      ],
      // Off: `Project.projectId`, `Log.logId` … are the fields the frontend's queries select (the
      // seed's GetProjectLogs asks for `logId` verbatim), so they keep their names; `id` beside
      // them is the global id that caches key on.
      '@graphql-eslint/no-typename-prefix': 'off',
      // Entities (the Node types) have `id: ID!`. The types listed here have no identity of their
      // own: pages of a list and where a page ends (the Connection types, PageInfo); values inside
      // their parent (Approval, Budget, ChangelogEntry, JobError, PlannedStep, AssetVersion, the
      // fields and stages of a job kind); answers that are not stored (uploads, headers, claimed
      // work, material usage, the viewer, what a dead-letter replay did); the edges of a page (a
      // cursor and its node); a job's counters, which are values of the job; a stage's retry
      // backoff, a value of its declaration; a search hit, which wraps an entity (the entity has
      // its id) with how well it matched; and where a reused step's or item's outputs came from
      // (ReuseSource, ReusedWork), values of the step, item or event that carries them; and a
      // worker's WorkSignal, a hint pushed to it and stored nowhere.
      '@graphql-eslint/strict-id-in-types': [
        'error',
        {
          exceptions: {
            suffixes: ['Connection', 'Edge'],
            types: [
              'PageInfo',
              'MigrationCounts',
              'ModelDrift',
              'EntityDrift',
              'DriftCount',
              'DriftSample',
              'Approval',
              'Budget',
              'ChangelogEntry',
              'JobError',
              'PoolShare',
              'ArchivedJob',
              'ArchiveRun',
              'PlannedStep',
              'JobKind',
              'JobField',
              'JobStage',
              'AssetUpload',
              'InspirationUpload',
              'UploadTarget',
              'HttpHeader',
              'ClaimedWork',
              'MaterialUsage',
              'Viewer',
              'ItemCounts',
              'SearchHit',
              'FanOutStage',
              'RetryBackoff',
              'DeadLetterReplay',
              'ReuseSource',
              'ReusedWork',
              'PlanLimits',
              'QuotaUsage',
              'TenantUsage',
              'WorkSignal',
            ],
          },
        },
      ],
    },
  },
];
