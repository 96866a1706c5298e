import type { ToolDef } from '../tool-def.js';

/** The stream content type's tools on the platform's own MCP server (issue #36). */
export const streamTools: ToolDef[] = [];
