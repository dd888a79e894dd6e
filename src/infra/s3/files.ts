import {
  CreateBucketCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  GetObjectTaggingCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  PutObjectTaggingCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { errorName, httpStatusCodeOf } from '../../guards';
import { attr, type ShapeValues } from '../dynamo/entity';
import { sendWithinBudget } from '../deadline';
import { instrumentClient, transportOptions } from '../dependency';
import type { Metrics } from '../metrics';
import type { OutageLog } from '../outage';

export interface FileStoreOptions {
  bucket: string;
  region: string;
  endpoint?: string;
  forcePathStyle?: boolean;
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Timeout of one attempt of a call (default 5000 ms); a request budget may cut it shorter. */
  requestTimeoutMs?: number;
  /** Time allowed to connect (default 1000 ms). */
  connectTimeoutMs?: number;
  metrics?: Metrics;
  outage?: OutageLog;
}

/**
 * Where and how to upload one object, declared once: its type here (UploadTarget), and the API's
 * UploadTarget and HttpHeader (src/common/files/upload.type.ts). The headers are part of the
 * signature, so the upload must send them exactly as given.
 */
export const UPLOAD_TARGET = {
  name: 'UploadTarget',
  description: 'Where and how to upload: send exactly these headers, before expiresAt.',
  fields: {
    url: attr.string({ required: true, description: 'The presigned URL to send the file to.' }),
    method: attr.string({ required: true, description: 'The HTTP method to use: PUT.' }),
    headers: attr.listOf({
      name: 'HttpHeader',
      description: 'A header the upload request must send exactly as given.',
      fields: {
        name: attr.string({ required: true, description: "The header's name." }),
        value: attr.string({ required: true, description: "The header's value, to send exactly." }),
      },
    })({ required: true, description: 'Headers to send exactly as given (the content type, among them).' }),
    expiresAt: attr.dateTime({ required: true, description: 'When the URL stops working (UPLOAD_URL_TTL_SECONDS after it was made).' }),
  },
} as const;
export type UploadTarget = ShapeValues<typeof UPLOAD_TARGET>;

/**
 * The bucket, behind the only code that talks to S3. Objects are addressed by key; URLs are made
 * on demand and never stored.
 */
export class FileStore {
  readonly client: S3Client;
  /** Signs URLs only, making no call: kept apart so presigning is not counted as S3 calls. */
  private readonly presigner: S3Client;

  constructor(readonly options: FileStoreOptions) {
    const config = {
      region: options.region,
      endpoint: options.endpoint,
      forcePathStyle: options.forcePathStyle,
      credentials: options.credentials,
      // Without this the SDK signs a checksum of an empty body into presigned URLs, and real S3
      // then refuses the upload (s3rver does not check, so only a test of the URL shows it).
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 3,
      retryMode: 'standard',
      requestHandler: transportOptions(options.requestTimeoutMs ?? 5000, options.connectTimeoutMs ?? 1000),
    } as const;
    this.client = new S3Client(config);
    this.presigner = new S3Client(config);
    // Outages become SERVICE_UNAVAILABLE and are counted; calls keep to the request budget.
    instrumentClient(this.client.middlewareStack, { dependency: 's3', metrics: options.metrics, outage: options.outage });
    sendWithinBudget(this.client, options.requestTimeoutMs ?? 5000);
  }

  /**
   * A presigned PUT for `key` that S3 accepts only with exactly this content type and length,
   * because both are signed headers.
   */
  async presignUpload(key: string, contentType: string, size: number, expiresIn: number): Promise<UploadTarget> {
    const url = await getSignedUrl(
      this.presigner,
      new PutObjectCommand({ Bucket: this.options.bucket, Key: key, ContentType: contentType, ContentLength: size }),
      {
        expiresIn,
        signableHeaders: new Set(['content-type', 'content-length']),
      },
    );
    return {
      url,
      method: 'PUT',
      headers: [
        { name: 'Content-Type', value: contentType },
        { name: 'Content-Length', value: String(size) },
      ],
      expiresAt: new Date(Date.now() + expiresIn * 1000).toISOString(),
    };
  }

  /** A presigned GET for `key`, valid `expiresIn` seconds. Made locally: no call to S3. */
  presignDownload(key: string, expiresIn: number): Promise<string> {
    return getSignedUrl(this.presigner, new GetObjectCommand({ Bucket: this.options.bucket, Key: key }), { expiresIn });
  }

  /** The object's size and content type, or null when there is no object at `key`. */
  async head(key: string): Promise<{ size: number; contentType?: string } | null> {
    try {
      const out = await this.client.send(new HeadObjectCommand({ Bucket: this.options.bucket, Key: key }));
      return { size: out.ContentLength ?? 0, contentType: out.ContentType };
    } catch (error) {
      if (httpStatusCodeOf(error) === 404 || errorName(error) === 'NotFound') return null;
      throw error;
    }
  }

  /**
   * Writes `body` at `key` with its content type and encoding, and `metadata` (S3's user metadata:
   * small strings, read back by `read`). Throws what S3 threw.
   */
  async write(
    key: string,
    body: Uint8Array,
    options: { contentType: string; contentEncoding?: string; metadata?: Record<string, string> },
  ) {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.options.bucket,
        Key: key,
        Body: body,
        ContentType: options.contentType,
        ContentEncoding: options.contentEncoding,
        Metadata: options.metadata,
      }),
    );
  }

  /** The object's bytes and user metadata, or null when there is no object at `key`. */
  async read(key: string): Promise<{ body: Uint8Array; metadata: Record<string, string>; lastModified?: Date } | null> {
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.options.bucket, Key: key }));
      const body = await out.Body?.transformToByteArray();
      return { body: body ?? new Uint8Array(), metadata: out.Metadata ?? {}, lastModified: out.LastModified };
    } catch (error) {
      if (httpStatusCodeOf(error) === 404 || errorName(error) === 'NoSuchKey') return null;
      throw error;
    }
  }

  /** Adds `tag` to the object's tags (keeping the others), e.g. the archive tag the lifecycle rule acts on. */
  async addTag(key: string, tag: { key: string; value: string }): Promise<void> {
    const current = await this.tags(key);
    const TagSet = [...Object.entries(current).filter(([k]) => k !== tag.key), [tag.key, tag.value]].map(([Key, Value]) => ({
      Key,
      Value,
    }));
    await this.client.send(new PutObjectTaggingCommand({ Bucket: this.options.bucket, Key: key, Tagging: { TagSet } }));
  }

  /** The object's tags, by key. */
  async tags(key: string): Promise<Record<string, string>> {
    const out = await this.client.send(new GetObjectTaggingCommand({ Bucket: this.options.bucket, Key: key }));
    return Object.fromEntries((out.TagSet ?? []).map((t) => [t.Key ?? '', t.Value ?? '']));
  }

  /** Deletes the objects (1000 keys a call); missing ones are no error. */
  async deleteMany(keys: string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += 1000) {
      await this.client.send(
        new DeleteObjectsCommand({
          Bucket: this.options.bucket,
          Delete: { Objects: keys.slice(i, i + 1000).map((Key) => ({ Key })), Quiet: true },
        }),
      );
    }
  }

  /** Resolves when the bucket answers a HEAD within `signal` (readiness). */
  async check(signal: AbortSignal): Promise<void> {
    await this.client.send(new HeadBucketCommand({ Bucket: this.options.bucket }), { abortSignal: signal });
  }

  /** Creates the bucket when it does not exist (the embedded S3 starts empty). */
  async ensureBucket(): Promise<'created' | 'exists'> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.options.bucket }));
      return 'exists';
    } catch {
      try {
        await this.client.send(new CreateBucketCommand({ Bucket: this.options.bucket }));
        return 'created';
      } catch (error) {
        // Another process sharing the folder (a second instance started at the same moment) made it first.
        const name = errorName(error);
        if (name === 'BucketAlreadyOwnedByYou' || name === 'BucketAlreadyExists') return 'exists';
        throw error;
      }
    }
  }

  destroy(): void {
    this.client.destroy();
    this.presigner.destroy();
  }
}
