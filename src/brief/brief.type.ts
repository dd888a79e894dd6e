import { Node } from '../common/node.type';
import { ArgsType, Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { Connection, PageArgs } from '../common/pagination';
import { DateTime } from '../common/scalars';

export enum ApprovalDecision {
  APPROVED = 'approved',
  CHANGES_REQUESTED = 'changes_requested',
}
registerEnumType(ApprovalDecision, {
  name: 'ApprovalDecision',
  description: 'What a person decided about a brief version.',
  valuesConfig: {
    APPROVED: { description: 'Approved as it is.' },
    CHANGES_REQUESTED: { description: 'Not approved: changes are asked for, in a new version.' },
  },
});

@ObjectType({ simpleResolvers: true, description: "One person's decision on a brief version: who, approve or reject, when, and why." })
export class Approval {
  @Field(() => ID, { description: 'Who decided: the user id from their token.' })
  by!: string;

  @Field(() => ApprovalDecision, { description: 'Approved, or changes requested.' })
  decision!: ApprovalDecision;

  @Field(() => String, { nullable: true, description: 'Why, in their words; null when they gave none.' })
  comment?: string;

  @Field(() => DateTime, { description: 'When the decision was made.' })
  at!: string;
}

@ObjectType({ simpleResolvers: true, description: 'What changed from the previous brief version to this one, and who made the change.' })
export class ChangelogEntry {
  @Field(() => Int, { description: 'The version the entry describes.' })
  version!: number;

  @Field({ description: 'What changed, in a line.' })
  summary!: string;

  @Field(() => ID, { description: 'Who made it.' })
  by!: string;

  @Field(() => DateTime, { description: 'When the version was made.' })
  at!: string;
}

@ObjectType({
  simpleResolvers: true,
  implements: Node,
  description: "One immutable version of a project's planning brief; only approvals are added later.",
})
export class Brief {
  @Field(() => ID, { description: 'The project the brief is for.' })
  projectId!: string;

  @Field(() => Int, { description: 'The version number, from 1; versions are immutable but for their approvals.' })
  version!: number;

  @Field({ description: 'The version as stored, e.g. v000002.' })
  label!: string;

  @Field(() => [String], { description: 'What the work must satisfy.' })
  requirements!: string[];

  @Field(() => [String], { description: 'What will be delivered.' })
  deliverables!: string[];

  @Field(() => [Approval], { description: 'The decisions on this version, oldest first.' })
  approvals!: Approval[];

  @Field(() => [ChangelogEntry], { description: 'Every version up to this one, oldest first.' })
  changelog!: ChangelogEntry[];

  @Field(() => DateTime, { description: 'When this version was written.' })
  createdAt!: string;

  @Field(() => String, { description: 'Who wrote this version.' })
  createdBy!: string;
}

@ObjectType({ simpleResolvers: true, description: 'A page of brief versions, with the cursor to the next page.' })
export class BriefConnection extends Connection(Brief) {}

@InputType({ description: 'The content of a new brief version; the server numbers it and adds the changelog entry.' })
export class CreateBriefVersionInput {
  @Field(() => [String], { description: 'What the work must satisfy.' })
  requirements!: string[];

  @Field(() => [String], { description: 'What will be delivered.' })
  deliverables!: string[];

  @Field({ description: 'What changed in this version, for the changelog.' })
  changelogEntry!: string;

  @Field(() => Int, {
    nullable: true,
    description: 'The latest version you saw (0 for none); CONFLICT if another version was added since.',
  })
  expectedLatestVersion?: number | null;
}

@ArgsType()
export class BriefVersionsArgs extends PageArgs {
  @Field(() => ID, { description: "The project's id." })
  projectId!: string;
}
