/** The platform's name and version, as its MCP server announces itself and its MCP client introduces itself. */
export const platformInfo = { name: 'platform', version: '1.0.0-mvp' };

/** The platform's icon as a data URI (§2.9 `icon`): nothing to fetch from anywhere. */
export const platformIcon = `data:image/svg+xml;base64,${Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#3b5bdb"/><path d="M9 8h9a6 6 0 0 1 0 12h-5v4H9z" fill="#fff"/></svg>',
).toString('base64')}`;
