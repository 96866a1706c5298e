/** §2.12: where nothing names an icon, the generic MCP icon. */
export const genericMcpIcon = 'mcp';

/**
 * An item's icon by §2.12 precedence: its own `_meta.icon` (or the first of the MCP `icons` list),
 * else the fallback (the server's icon, which itself falls back to the generic MCP icon).
 */
export function iconOf(item: { _meta?: Record<string, unknown>; icons?: { src: string }[] } | undefined, fallback: string = genericMcpIcon): string {
  const meta = item?._meta?.icon;
  if (typeof meta === 'string' && meta) return meta;
  const listed = item?.icons?.[0]?.src;
  return listed || fallback;
}
