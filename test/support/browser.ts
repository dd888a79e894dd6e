import { chromium, type Browser } from 'playwright-core';
import { fixture } from './fixtures';

/**
 * Chromium from the machine (never a downloaded browser), with its own background traffic off,
 * registered with the fixture registry: it is closed after the test file.
 */
export async function launchBrowser(): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
  return fixture('Chromium', browser, (b) => b.close());
}
