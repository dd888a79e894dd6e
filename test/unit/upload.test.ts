import { FilesService } from '../../src/common/files/files.service';
import { Uploads } from '../../src/common/files/upload';
import { UploadStatus } from '../../src/common/files/upload.type';

/* The parts of the upload lifecycle that need no bucket; confirming against S3 is in test/e2e/files.test.ts. */
describe('the upload lifecycle', () => {
  const limits = {
    uploadMaxBytes: 1000,
    uploadUrlTtlSeconds: 60,
    downloadUrlTtlSeconds: 60,
    downloadUrlMaxTtlSeconds: 60,
    uploadExpiryHours: 24,
  };
  const uploads = new Uploads(new FilesService(undefined, 't', limits), () => new Date());

  it('refuses a declared upload that is too large or has no type/subtype', () => {
    expect(() => uploads.check({ size: 1001, contentType: 'image/png' })).toThrow(/size must be between 1 and 1000/);
    expect(() => uploads.check({ size: 10, contentType: 'png' })).toThrow(/contentType must look like type\/subtype/);
    expect(() => uploads.check({ size: 10, contentType: 'image/png' })).not.toThrow();
  });

  it('starts an upload UPLOADING with a deadline the configured hours away', () => {
    const started = uploads.start('tenants/t/x', { size: 10, contentType: 'image/png' });
    expect(started).toMatchObject({ s3Key: 'tenants/t/x', size: 10, contentType: 'image/png', status: UploadStatus.UPLOADING });
    expect(started.uploadExpiresAt - Math.floor(Date.now() / 1000)).toBeGreaterThan(24 * 3600 - 5);
  });

  it('shows confirmed uploads always, and pending ones only within their window', () => {
    const past = Math.floor(Date.now() / 1000) - 1;
    expect(uploads.isLive({ status: UploadStatus.READY, uploadExpiresAt: past })).toBe(true);
    expect(uploads.isLive({ status: UploadStatus.UPLOADING, uploadExpiresAt: past })).toBe(false);
    expect(uploads.isLive({ status: UploadStatus.UPLOADING, uploadExpiresAt: past + 100 })).toBe(true);
  });
});
