import { shapeObjectType } from '../model-types';
import { attr } from '../../infra/dynamo/entity';
import { UPLOAD_STATES, UPLOAD_STATUS } from '../entities';
import { registerDeclaredEnum } from '../model-types';
import { enumObject } from '../../infra/dynamo/entity';

/** Where an upload stands: requested (a presigned PUT handed out) until confirmed by HeadObject. */
export const UploadStatus = enumObject(UPLOAD_STATES);
export type UploadStatus = (typeof UploadStatus)[keyof typeof UploadStatus];
// Registered here, before the declarations that name it (an inspiration's file) are made into types.
registerDeclaredEnum(UploadStatus, UPLOAD_STATUS);

export const HttpHeader = shapeObjectType({
  name: 'HttpHeader',
  description: 'A header the upload request must send exactly as given.',
  fields: {
    name: attr.string({ required: true, description: "The header's name." }),
    value: attr.string({ required: true, description: "The header's value, to send exactly." }),
  },
});
export type HttpHeader = InstanceType<typeof HttpHeader>;

export const UploadTarget = shapeObjectType({
  name: 'UploadTarget',
  description: 'Where and how to upload: send exactly these headers, before expiresAt.',
  fields: {
    url: attr.string({ required: true, description: 'The presigned URL to send the file to.' }),
    method: attr.string({ required: true, description: 'The HTTP method to use: PUT.' }),
    headers: attr.json<HttpHeader[]>()({
      required: true,
      apiType: '[HttpHeader]',
      description: 'Headers to send exactly as given (the content type, among them).',
    }),
    expiresAt: attr.dateTime({ required: true, description: 'When the URL stops working (UPLOAD_URL_TTL_SECONDS after it was made).' }),
  },
});
export type UploadTarget = InstanceType<typeof UploadTarget>;

/**
 * The file an upload request names (its name, media type and exact size), which the presigned URL
 * binds: the fields of every request for an upload URL, in its own words where `described` gives them.
 */
export const uploadedFile = (described: { fileName?: string; contentType?: string; size?: string } = {}) => ({
  fileName: attr.string({ required: true, description: described.fileName ?? "The file's name; it ends the object key." }),
  contentType: attr.string({
    required: true,
    description: described.contentType ?? "The file's media type: the upload must send exactly this.",
  }),
  size: attr.int({ required: true, description: described.size ?? "The file's size in bytes: the upload must be exactly this long." }),
});
