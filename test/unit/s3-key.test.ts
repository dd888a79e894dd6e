import { s3KeyViolation, validateS3Key } from '../../src/common/s3-key';

describe('S3 key validation', () => {
  const t = 'acme';
  const good = 'tenants/acme/projects/proj_1/assets/a/v1/photo.jpg';

  it('accepts a plain key under the tenant prefix', () => {
    expect(validateS3Key(good, t, 's3Key')).toBe(good);
  });

  it.each([
    ['http://bucket.s3.amazonaws.com/tenants/acme/a.jpg', 'url', /not a URL/],
    ['https://example.com/tenants/acme/a.jpg', 'url', /not a URL/],
    ['s3://bucket/tenants/acme/a.jpg', 'url', /not a URL/],
    ['tenants/acme/a.jpg?X-Amz-Signature=abc', 'presigned', /presigned signature/],
    ['tenants/acme/a.jpg?x-amz-credential=abc', 'presigned', /X-Amz-/],
    ['/tenants/acme/a.jpg', 'leading_slash', /must not start with "\/"/],
    ['tenants/acme/../other/a.jpg', 'dot_dot', /must not contain "\.\."/],
    ['tenants/other/a.jpg', 'tenant_prefix', /must begin with the tenant's prefix "tenants\/acme\/"/],
    ['tenants/acmeX/a.jpg', 'tenant_prefix', /tenants\/acme\//],
    ['', 'empty', /must not be empty/],
    ['tenants/acme/a\u0000.jpg', 'characters', /control characters/],
  ])('refuses %j (rule %s) with a message naming the rule', (key, rule, message) => {
    expect(s3KeyViolation(key, t)?.rule).toBe(rule);
    expect(() => validateS3Key(key, t, 's3Key')).toThrow(
      expect.objectContaining({
        message: expect.stringMatching(message),
        extensions: expect.objectContaining({ code: 'BAD_USER_INPUT', rule }),
      }),
    );
  });
});
