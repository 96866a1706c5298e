// The names of the platform's own MCP tools (SPEC §4.5, and the content types' tools of issue #36).
// The tools themselves live in the MCP server layer (mcp-server/tool-table.ts); their names are here,
// at the bottom, because lower layers need them too: an MCP client configuration's schema
// (artifacts/content-types/mcp-client.ts) checks the tools it names against this list, the same way
// in the API and in the worker (which never loads the MCP server). test/mcp-clients/tool-names.unit.test.ts
// holds it equal to the tool table: add a tool's name here when you add the tool.
export const platformToolNames = [
  'search',
  'get_artifact',
  'browse_collections',
  'browse_workspaces',
  'ask',
  'create_artifact',
  'update_artifact',
  'manage_artifact',
  'extract_information',
  'commit_preview',
  'commit_workspace',
  'import_artifacts',
  'get_import',
  'call_server_tool',
  'relay_status',
  'get_view_results',
  'stream_status',
  'start_stream',
  'stop_stream',
] as const;
export type PlatformToolName = (typeof platformToolNames)[number];
