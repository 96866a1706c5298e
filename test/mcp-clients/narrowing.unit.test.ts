// What an MCP client configuration leaves a caller: the intersection of scopes (fine ones included)
// and of workspaces and collections; the server name and snippets it renders.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { ScopeSet, userPrincipal, type Principal } from '../../src/identity/principal.js';
import { narrowedPrincipal, narrowFilters, narrowScopes } from '../../src/operations/mcp-clients.js';
import { clientSnippets, serverName } from '../../src/presenters/mcp-clients.js';
import { mcpClientContent, type McpClientContent } from '../../src/artifacts/content-types/mcp-client.js';

const [a, b, c] = ['0190c1d2-7a4b-7c3d-8e9f-0a1b2c3d4e5a', '0190c1d2-7a4b-7c3d-8e9f-0a1b2c3d4e5b', '0190c1d2-7a4b-7c3d-8e9f-0a1b2c3d4e5c'];

const config = (over: Partial<McpClientContent> = {}): McpClientContent => ({
  workspaces: '*',
  collections: '*',
  tools: ['search'],
  scopes: ['artifact:read', 'search:read'],
  auth: { type: 'oauth' },
  ...over,
});

describe('narrowing a caller by a configuration', () => {
  it('keeps the scopes both hold, fine scopes by their action', () => {
    const held = new ScopeSet(['artifact:read', 'artifact:write', 'search:read', 'resource:text/*:write', 'resource:image/*:read']);
    assert.deepEqual(narrowScopes(held, ['artifact:read', 'events:subscribe']).toJSON(), ['artifact:read', 'resource:image/*:read']);
    assert.deepEqual(narrowScopes(new ScopeSet(['search:read']), ['artifact:read']).toJSON(), []);
  });

  it('keeps the containers both reach; * yields to a list, two lists to their common ids', () => {
    assert.deepEqual(narrowFilters({ workspaces: '*', collections: '*' }, { workspaces: [a], collections: '*' }), {
      workspaces: [a],
      collections: '*',
    });
    assert.deepEqual(narrowFilters({ workspaces: [a, b], collections: [c] }, { workspaces: [b, c], collections: [] }), {
      workspaces: [b],
      collections: [],
    });
    assert.deepEqual(narrowFilters({ workspaces: [a], collections: [c] }, { workspaces: '*', collections: '*' }), {
      workspaces: [a],
      collections: [c],
    });
  });

  it('never serves an administrator as one', () => {
    const admin: Principal = userPrincipal(a, true);
    const narrowed = narrowedPrincipal(admin, config({ workspaces: [b] }));
    assert.equal(narrowed.isAdmin, false);
    assert.deepEqual(narrowed.scopes.toJSON(), ['artifact:read', 'search:read']);
    assert.deepEqual(narrowed.filters, { workspaces: [b], collections: '*' });
    assert.equal(narrowed.subject, a);
  });
});

describe('the rendered configuration', () => {
  it('names the server from the title when the configuration does not', () => {
    assert.equal(serverName({ title: 'Team Notes (OAuth)' }, config()), 'team-notes-oauth');
    assert.equal(serverName({ title: 'Équipe  café' }, config()), 'equipe-cafe');
    assert.equal(serverName({ title: '!!!' }, config()), 'platform');
    assert.equal(serverName({ title: 'ignored' }, config({ name: 'mine' })), 'mine');
  });

  it('puts no header in OAuth snippets, and reads the key from the environment or a prompt in api_key ones', () => {
    const url = 'https://platform.example/mcp/clients/x';
    for (const s of clientSnippets('n', url, { type: 'oauth' })) assert.doesNotMatch(s.text, /Authorization|Bearer/, s.client);
    const keyed = clientSnippets('n', url, { type: 'api_key' });
    for (const s of keyed)
      assert.match(
        s.text,
        /Bearer (\$PLATFORM_API_KEY|\$\{env:PLATFORM_API_KEY\}|\$\{input:platform-api-key\})|Authorization:\$\{PLATFORM_AUTH_HEADER\}/,
        s.client,
      );
    // Claude Desktop's bridge (mcp-remote): the header from its env, no space in any argument (Windows splits them).
    const desktop = JSON.parse(keyed.find((s) => s.client === 'claude-desktop')!.text).mcpServers.n;
    assert.deepEqual(desktop.args, ['-y', 'mcp-remote', url, '--header', 'Authorization:${PLATFORM_AUTH_HEADER}']);
    assert.deepEqual(desktop.env, { PLATFORM_AUTH_HEADER: 'Bearer <your API key>' });
  });
});

describe('the snippets against hostile input', () => {
  it('keep a hostile title, name or URL one word of the Claude Code command, and valid JSON elsewhere', () => {
    const title = `x"; touch /tmp/owned; echo "$(id) \`id\` 'q' \\`;
    const name = serverName({ title }, config());
    assert.match(name, /^[a-z0-9-]+$/, name);
    // The URL is the API's own (configured, or a host the operator allowed); quoted all the same.
    const endpoint = `https://platform.example/mcp/clients/a'b"$(id);c`;
    for (const auth of [{ type: 'oauth' as const }, { type: 'api_key' as const }]) {
      const snippets = clientSnippets(name, endpoint, auth);
      const command = snippets.find((s) => s.client === 'claude-code')!.text;
      assert.match(command, /^claude mcp add /);
      // What a POSIX shell makes of it: the same words, nothing run.
      const words = execFileSync('sh', ['-c', `set -- ${command.slice('claude '.length)}; printf '%s\\n' "$@"`], {
        env: { PATH: process.env.PATH, PLATFORM_API_KEY: 'k' },
        encoding: 'utf8',
      });
      assert.deepEqual(words.trimEnd().split('\n'), [
        'mcp',
        'add',
        '--transport',
        'http',
        name,
        endpoint,
        ...(auth.type === 'api_key' ? ['--header', 'Authorization: Bearer k'] : []),
      ]);
      for (const s of snippets.filter((s) => s.format === 'json')) assert.doesNotThrow(() => JSON.parse(s.text), s.client);
    }
  });
});

describe('the content schema', () => {
  it('normalises lists and refuses what is not a configuration', () => {
    const parsed = mcpClientContent.parse({
      ...config(),
      workspaces: [a, a],
      tools: ['search', 'search'],
      scopes: ['search:read', 'artifact:read'],
    });
    assert.deepEqual(parsed.workspaces, [a]);
    assert.deepEqual(parsed.tools, ['search']);
    assert.deepEqual(parsed.scopes, ['artifact:read', 'search:read']);
    assert.equal(mcpClientContent.safeParse({ ...config(), scopes: ['artifact:read', 'resource:text/*:read'] }).success, false);
    assert.equal(mcpClientContent.safeParse({ ...config(), auth: { type: 'api_key', client_id: 'x' } }).success, false);
    assert.equal(mcpClientContent.safeParse({ ...config(), tools: ['DROP TABLE'] }).success, false);
  });
});
