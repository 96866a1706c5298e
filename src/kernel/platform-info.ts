/** The platform's name and version, as its MCP server announces itself and its MCP client introduces itself. */
export const platformInfo = { name: 'platform', version: '1.0.0-mvp' };
