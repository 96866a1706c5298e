import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { Config } from '../../kernel/config/env.js';
import type { Logger } from '../../kernel/logging/logger.js';
import { appPageConsoleSlot, appPageFile } from '../../console/build-console.js';

// The built-in artifact viewer's page (web/console/viewer/app-viewer.tsx). It is built with the console
// (src/console/build-console.ts), into the same output: CONSOLE_ASSETS_DIR's build (`npm start`, the
// image's console stage, the test runner), or else the one the API makes at startup in
// <PLATFORM_DEV_DIR>/console (src/main/api.ts). A read only reads that file, once per process; web/ is
// not read here (the production image has none).

/** What the page is read with: where the console's build is, and where to say it is missing. */
export interface AppPageSource {
  config: Pick<Config, 'CONSOLE_ASSETS_DIR' | 'PLATFORM_DEV_DIR'>;
  logger: Pick<Logger, 'error'>;
}

/** A value safe inside a double-quoted HTML attribute. */
const attribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A JSON-RPC error the SDK sends as it is (as server.ts's rpcError). */
const unavailable = (message: string) => Object.assign(new Error(message), { code: ProtocolErrorCode.InternalError });

/** The directory the console's build is in: the same choice as src/api/routes/console.ts's consoleFiles. */
export const consoleBuildDir = (config: AppPageSource['config']) =>
  resolve(config.CONSOLE_ASSETS_DIR ?? join(config.PLATFORM_DEV_DIR, 'console'));

/** The page by build directory. A failed read is kept too: it is logged once, not tried again per read. */
const pages = new Map<string, Promise<string>>();

/**
 * The built page of `source`'s console build, read once. A build without it (one made before the page
 * was part of it, or a broken deployment) is logged once; every read then answers -32603 until the
 * process restarts with a complete build.
 */
export function loadArtifactViewer(source: AppPageSource): Promise<string> {
  const dir = consoleBuildDir(source.config);
  let page = pages.get(dir);
  if (!page) {
    const file = join(dir, appPageFile);
    page = readFile(file, 'utf8').catch((err: unknown) => {
      source.logger.error({ err, file }, 'MCP App page missing from the console build: rebuild it (buildConsole) and restart');
      throw unavailable('The platform app page is unavailable on this server (its build is missing; see the server log).');
    });
    page.catch(() => {}); // kept for the reads; logged above
    pages.set(dir, page);
  }
  return page;
}

/**
 * The viewer's HTML, with the console's address under `publicBase` (the API's base as the client
 * reached it), where the page sends a person to see an artifact in its type's own viewer. Without a
 * base, the page gives no link.
 */
export async function artifactViewerHtml(source: AppPageSource, publicBase?: string): Promise<string> {
  const page = await loadArtifactViewer(source);
  const consoleUri = publicBase ? `${publicBase.replace(/\/+$/, '')}/console/` : '';
  return page.replace(appPageConsoleSlot, () => attribute(consoleUri));
}
