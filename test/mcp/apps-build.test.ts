// The platform's MCP App page comes from the console's build (CONSOLE_ASSETS_DIR), made with the console by
// buildConsole: the API serves that file (web/ is not read on a request; the production image has none).
// A build without the page answers -32603 on every read, logged once, and is not tried again per read.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { appPageFile, buildConsole } from '../../src/console/build-console.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

const viewerUri = 'ui://platform/artifact-viewer.html';

let buildDir: string;
const platforms: TestPlatform[] = [];
const clients: Client[] = [];

before(async () => {
  buildDir = await mkdtemp(join(process.env.TEST_STATE_DIR ?? '/tmp', 'apps-build-'));
  await buildConsole(buildDir);
});
after(async () => {
  for (const client of clients) await client.close();
  for (const platform of platforms) await platform.close();
  await rm(buildDir, { recursive: true, force: true });
});

/** A platform whose CONSOLE_ASSETS_DIR is `dir`, and an MCP client of a user of it. */
async function platformWith(dir: string): Promise<{ platform: TestPlatform; client: Client }> {
  const platform = await startPlatform({ CONSOLE_ASSETS_DIR: dir }, { worker: false });
  platforms.push(platform);
  const user = await platform.newUser();
  const client = new Client({ name: 'apps-build-test', version: '1.0.0' });
  clients.push(client);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${platform.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${user.token!}` } },
    }),
  );
  return { platform, client };
}

const pageOf = async (client: Client) => {
  const { contents } = await client.readResource({ uri: viewerUri });
  return (contents[0] as { text: string }).text;
};

describe('the MCP App page from the console build', () => {
  it('buildConsole writes the page next to the console, with the slot for the console address', async () => {
    const page = await readFile(join(buildDir, appPageFile), 'utf8');
    assert.match(page, /^<!doctype html>/);
    assert.match(page, /<meta name="platform-console" content="__PLATFORM_CONSOLE__">/);
    assert.match(page, /<script>[^]+<\/script>/, 'the script inline');
  });

  it("serves CONSOLE_ASSETS_DIR's file, with the console address filled per read", async () => {
    // A build of our own, marked: only that file carries the mark, not a page bundled from web/.
    const dir = `${buildDir}-marked`;
    await cp(buildDir, dir, { recursive: true });
    const mark = `<!-- build ${randomBytes(6).toString('hex')} -->`;
    const built = await readFile(join(dir, appPageFile), 'utf8');
    await writeFile(join(dir, appPageFile), built.replace('</body>', `${mark}\n</body>`));
    try {
      const { platform, client } = await platformWith(dir);
      const text = await pageOf(client);
      assert.ok(text.includes(mark), 'the page is the build directory’s file');
      assert.ok(text.includes(`<meta name="platform-console" content="${platform.url}/console/">`), 'console address filled');
      assert.ok(!text.includes('__PLATFORM_CONSOLE__'));
      // Read once and kept: changing the file does not change what is served.
      await writeFile(join(dir, appPageFile), 'changed');
      assert.ok((await pageOf(client)).includes(mark));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a build without the page answers -32603 on every read, logged once and not tried again', async () => {
    const dir = `${buildDir}-without-page`;
    await cp(buildDir, dir, { recursive: true });
    const page = await readFile(join(dir, appPageFile), 'utf8');
    await rm(join(dir, appPageFile));
    try {
      const { platform, client } = await platformWith(dir);
      for (let read = 0; read < 2; read++) {
        await assert.rejects(pageOf(client), (err: Error & { code?: number }) => {
          assert.equal(err.code, -32603, err.message);
          assert.match(err.message, /app page is unavailable/);
          return true;
        });
      }
      // The page back in place: still refused, since a failed read is not tried again per read.
      await writeFile(join(dir, appPageFile), page);
      await assert.rejects(pageOf(client), (err: Error & { code?: number }) => err.code === -32603);
      const logged = platform.logs.filter((line) => line.includes('MCP App page missing from the console build'));
      assert.equal(logged.length, 1, logged.join('\n'));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
