import type { ToolDef } from '../tool-def.js';

/** The view content type's tools on the platform's own MCP server (issue #36). */
export const viewTools: ToolDef[] = [];
