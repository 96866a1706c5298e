/** One call the platform makes to another system (issue #22): an external MCP server, or the LLM. */
export interface OutboundCall {
  kind: 'mcp' | 'llm';
  /** The MCP server's artifact id, or the LLM's model name. */
  target: string;
  /** What was asked: `tools/call`, `resources/read`, `catalog`, `chat.completions`. */
  operation: string;
  /** The tool's name, for a `tools/call`. */
  tool?: string;
}
