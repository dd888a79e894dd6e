import { shapeObjectType } from '../model-types';
import { UPLOAD_TARGET } from '../../infra/s3/files';
import { type AttributeMap, attr, type ShapeDeclaration } from '../../infra/dynamo/entity';
import { UPLOAD_STATES, UPLOAD_STATUS } from '../entities';
import { registerDeclaredEnum } from '../model-types';
import { enumObject } from '../../infra/dynamo/entity';

/** Where an upload stands: requested (a presigned PUT handed out) until confirmed by HeadObject. */
export const UploadStatus = enumObject(UPLOAD_STATES);
export type UploadStatus = (typeof UploadStatus)[keyof typeof UploadStatus];
// Registered here, before the declarations that name it (an inspiration's file) are made into types.
registerDeclaredEnum(UploadStatus, UPLOAD_STATUS);

/** Where and how to upload, as the file store makes it (UPLOAD_TARGET, src/infra/s3/files.ts); its headers are HttpHeaders. */
export const UploadTarget = shapeObjectType(UPLOAD_TARGET);
export { UPLOAD_TARGET };
export type UploadTarget = InstanceType<typeof UploadTarget>;

/**
 * The answer of a request for an upload URL (AssetUpload, InspirationUpload): what the request
 * made, as `shape` declares it, and where and how to send the file (its `upload`).
 */
export function uploadPayload<const F extends AttributeMap>(shape: ShapeDeclaration<F>) {
  const upload = attr.objectOf(UPLOAD_TARGET)({ required: true, description: 'Where and how to send the file.' });
  return shapeObjectType({ ...shape, fields: { ...shape.fields, upload } });
}

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
