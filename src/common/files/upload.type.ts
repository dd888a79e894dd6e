import { Field, ObjectType } from 'type-graphql';
import { UPLOAD_STATES, UPLOAD_STATUS } from '../entities';
import { registerDeclaredEnum } from '../model-types';
import { DateTime } from '../scalars';
import { enumObject } from '../../infra/dynamo/entity';

/** Where an upload stands: requested (a presigned PUT handed out) until confirmed by HeadObject. */
export const UploadStatus = enumObject(UPLOAD_STATES);
export type UploadStatus = (typeof UploadStatus)[keyof typeof UploadStatus];
// Registered here, before the declarations that name it (an inspiration's file) are made into types.
registerDeclaredEnum(UploadStatus, UPLOAD_STATUS);

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
