// The list of the platform's tool names an MCP client configuration is checked against
// (kernel/platform-tools.ts) is the tool table's, name for name: the API and the worker, which never
// loads the MCP server, validate a configuration alike.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mcpClientContent } from '../../src/artifacts/content-types/mcp-client.js';
import { platformToolNames } from '../../src/kernel/platform-tools.js';
import { toolTable } from '../../src/mcp-server/tool-table.js';

describe("the platform's tool names", () => {
  it('are exactly the tool table', () => {
    assert.deepEqual(
      [...platformToolNames].sort(),
      [...toolTable.keys()].sort(),
      'src/kernel/platform-tools.ts must list every tool of src/mcp-server/tool-table.ts, and only those',
    );
  });

  it('decide what a configuration may name, with or without the MCP server loaded', () => {
    const valid = { workspaces: '*', collections: '*', scopes: ['artifact:read'], auth: { type: 'oauth' } };
    for (const name of platformToolNames) assert.equal(mcpClientContent.safeParse({ ...valid, tools: [name] }).success, true, name);
    const unknown = mcpClientContent.safeParse({ ...valid, tools: ['get_artifact', 'drop_everything'] });
    assert.equal(unknown.success, false);
    assert.deepEqual(unknown.error?.issues[0]?.path, ['tools', 1]);
    assert.match(unknown.error?.issues[0]?.message ?? '', /not a tool of the platform/);
  });
});
