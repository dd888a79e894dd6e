import { npmCommand } from '../../src/scripts/npm-command';

describe('npmCommand (how the start banner names an npm command)', () => {
  const npx = 'npx -y node@26 "$(command -v npm)"';

  it('is npm itself on a Node outside npm’s cache, or where npm set no cache', () => {
    expect(npmCommand('run demo', { npm_config_cache: '/home/ana/.npm' }, '/usr/local/bin/node')).toBe('npm run demo');
    expect(npmCommand('run demo', {}, '/home/ana/.npm/_npx/1f2e/node_modules/node/bin/node')).toBe('npm run demo');
    expect(npmCommand('run demo', { npm_config_cache: '' }, '/home/ana/.npm/_npx/1f2e/node_modules/node/bin/node')).toBe('npm run demo');
  });

  it('is the npx route on a Node that npx put in npm’s cache, with or without a trailing separator on the cache', () => {
    const fetched = '/home/ana/.npm/_npx/1f2e/node_modules/node/bin/node';
    expect(npmCommand('run token -- --tenant acme', { npm_config_cache: '/home/ana/.npm' }, fetched)).toBe(
      `${npx} run token -- --tenant acme`,
    );
    expect(npmCommand('run demo', { npm_config_cache: '/home/ana/.npm/' }, fetched)).toBe(`${npx} run demo`);
  });

  it('does not take a folder that merely begins with the cache’s name for the cache', () => {
    expect(npmCommand('run demo', { npm_config_cache: '/home/ana/.npm' }, '/home/ana/.npm-tools/node/bin/node')).toBe('npm run demo');
  });
});
