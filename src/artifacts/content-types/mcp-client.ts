import { z } from 'zod';

/** `content` of an `application/vnd.platform.mcp-client+json` artifact (SPEC §2.2, issue #36). */
export const mcpClientContent = z.record(z.string(), z.unknown());
export type McpClientContent = z.infer<typeof mcpClientContent>;
