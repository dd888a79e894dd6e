import { ARCHIVE_MANIFEST } from './archive.format';
import { ARCHIVE_RUN } from '../common/feature';
import { shapeObjectType } from '../common/model-types';
import { attr, pickAttributes } from '../infra/dynamo/entity';

export const ArchivedJob = shapeObjectType({
  name: 'ArchivedJob',
  description: 'A finished job as cold storage holds it: read back from its gzip JSON Lines object, checked against its manifest.',
  fields: {
    jobId: attr.string({ required: true, description: "The job's id." }),
    archivedAt: attr.dateTime({ required: true, description: 'When it was exported.' }),
    ...pickAttributes(ARCHIVE_MANIFEST, {
      sha256: "SHA-256 of the archived object (hex), as its manifest names it; the object's bytes were checked against it.",
      bytes: 'The archived object’s size (gzip), in bytes.',
      rows: 'Table rows the archive holds (the job, its steps, items and events).',
    }),
    job: attr.jsonObject()({ required: true, description: 'The job as it was stored, without its keys.' }),
    steps: attr.jsonObjects()({ required: true, description: 'Its step attempts as stored.' }),
    items: attr.jsonObjects()({ required: true, description: 'Its work items as stored.' }),
    events: attr.jsonObjects()({ required: true, description: 'Its events (its own stream), in order.' }),
  },
});
export type ArchivedJob = InstanceType<typeof ArchivedJob>;

/** An archive run's outcome, from its declaration (ARCHIVE_RUN, src/common/feature.ts). */
export const ArchiveRun = shapeObjectType(ARCHIVE_RUN);
