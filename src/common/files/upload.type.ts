import { Field, ObjectType, registerEnumType } from 'type-graphql';
import { UPLOAD_STATES } from '../entities';
import { DateTime } from '../scalars';
import { enumObject } from '../../infra/dynamo/entity';

/** Where an upload stands: requested (a presigned PUT handed out) until confirmed by HeadObject. */
export const UploadStatus = enumObject(UPLOAD_STATES);
export type UploadStatus = (typeof UploadStatus)[keyof typeof UploadStatus];
// The GraphQL name stays `AssetStatus`, because assets introduced it and clients already use it;
// the same type serves inspiration's `fileStatus`.
registerEnumType(UploadStatus, {
  name: 'AssetStatus',
  description: 'uploading → ready',
  valuesConfig: {
    UPLOADING: { description: 'Its upload URL is handed out; the file is not confirmed yet.' },
    READY: { description: 'Uploaded and confirmed: readable.' },
  },
});

@ObjectType({ simpleResolvers: true, description: 'A header the upload request must send exactly as given.' })
export class HttpHeader {
  @Field({ description: "The header's name." })
  name!: string;

  @Field({ description: "The header's value, to send exactly." })
  value!: string;
}

@ObjectType({ simpleResolvers: true, description: 'Where and how to upload: send exactly these headers, before expiresAt.' })
export class UploadTarget {
  @Field({ description: 'The presigned URL to send the file to.' })
  url!: string;

  @Field({ description: 'The HTTP method to use: PUT.' })
  method!: string;

  @Field(() => [HttpHeader], { description: 'Headers to send exactly as given (the content type, among them).' })
  headers!: HttpHeader[];

  @Field(() => DateTime, { description: 'When the URL stops working (UPLOAD_URL_TTL_SECONDS after it was made).' })
  expiresAt!: string;
}
