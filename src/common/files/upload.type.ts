import { Field, ObjectType, registerEnumType } from 'type-graphql';
import { UPLOAD_STATES } from '../entities';
import { DateTime } from '../scalars';
import { enumObject } from '../../infra/dynamo/entity';

/** Where an upload stands: requested (a presigned PUT handed out) until confirmed by HeadObject. */
export const UploadStatus = enumObject(UPLOAD_STATES);
export type UploadStatus = (typeof UploadStatus)[keyof typeof UploadStatus];
// The GraphQL name stays `AssetStatus`, because assets introduced it and clients already use it;
// the same type serves inspiration's `fileStatus`.
registerEnumType(UploadStatus, { name: 'AssetStatus', description: 'uploading → ready' });

@ObjectType({ simpleResolvers: true, description: 'A header the upload request must send exactly as given.' })
export class HttpHeader {
  @Field()
  name!: string;

  @Field()
  value!: string;
}

@ObjectType({ simpleResolvers: true, description: 'Where and how to upload: send exactly these headers, before expiresAt.' })
export class UploadTarget {
  @Field()
  url!: string;

  @Field()
  method!: string;

  @Field(() => [HttpHeader])
  headers!: HttpHeader[];

  @Field(() => DateTime)
  expiresAt!: string;
}
