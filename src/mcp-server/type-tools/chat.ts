import type { ToolDef } from '../tool-def.js';

/** The chat content type's tools on the platform's own MCP server (issue #36). */
export const chatTools: ToolDef[] = [];
