import { migration } from './migration';

/**
 * The claim order of a job's items (src/common/entities.ts, WorkItem.claimableInJob): items that
 * became claimable at the same moment were listed by their sequence as text, so a claim took item
 * 10 before item 2. The index now pads the sequence (00002 before 00010); re-deriving each item
 * still listed the old way writes its padded entry. Only waiting and running items are in that
 * index, so a table's finished items are read and left alone.
 */
export const claimOrder = migration({
  id: '003',
  name: 'claim-order',
  description: 'Lists the waiting and running work items of each job in the claim index by their sequence as a number (9 before 10).',
  entities: ['WorkItem'],
});
