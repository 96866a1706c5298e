import type { McpServer } from '@modelcontextprotocol/server';
import type { ToolDef } from './tools.js';

// MCP Apps (issue #35): the `ui://` resources of the platform's artifact viewers, and the tools that
// carry one. Being built: until then no tool carries an app and no `ui://` resource is listed.

/** The `_meta` a tool carries for its MCP App (`ui.resourceUri`), or nothing. */
export function toolAppMeta(_def: ToolDef): Record<string, unknown> {
  return {};
}

/** Registers the `ui://` resources the tools' apps name. */
export function registerApps(_server: McpServer): void {}
