// Headless Chromium for the browser tests, driven by playwright-core: the executable is Debian's
// `chromium` (temporal-dev/install-browser.sh installs it) or CHROMIUM_PATH. playwright-core never
// downloads a browser.
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { chromium, type Browser, type Page } from 'playwright-core';

/** CHROMIUM_PATH, else Debian's launcher. */
export const chromiumPath = (): string => process.env.CHROMIUM_PATH || '/usr/bin/chromium';

export async function launchBrowser(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (!existsSync(executablePath)) {
    throw new Error(
      `no Chromium at ${executablePath}: run \`bash temporal-dev/install-browser.sh\` as root (npm test does), or set CHROMIUM_PATH`,
    );
  }
  // playwright-core runs Chromium without its own sandbox by default (chromiumSandbox: false), which
  // is what lets it start as root in CI.
  return chromium.launch({ executablePath, headless: true, timeout: 60_000 });
}

/**
 * Saves a screenshot the README links to: into docs/screenshots/ when UPDATE_SCREENSHOTS=1 (then
 * committed), else into .dev/screenshots/, so that a test run leaves the tree as it was. The whole
 * page by default; `fullPage: false` keeps just the viewport (small files for the README).
 */
export async function screenshot(page: Page, name: string, { fullPage = true } = {}): Promise<string> {
  const dir = process.env.UPDATE_SCREENSHOTS === '1' ? 'docs/screenshots' : '.dev/screenshots';
  await mkdir(dir, { recursive: true });
  const path = `${dir}/${name}.png`;
  await page.screenshot({ path, fullPage });
  return path;
}
