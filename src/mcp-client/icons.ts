/** §2.12: where nothing names an icon, the generic MCP icon. */
export const genericMcpIcon = 'mcp';

/**
 * An item's icon by §2.12 precedence: its own `_meta.icon` (or the first of the MCP `icons` list),
 * else the fallback (the server's icon, which itself falls back to the generic MCP icon).
 */
export function iconOf(
  item: { _meta?: Record<string, unknown>; icons?: { src: string }[] } | undefined,
  fallback: string = genericMcpIcon,
): string {
  const meta = item?._meta?.icon;
  const candidates = [typeof meta === 'string' ? meta : undefined, item?.icons?.[0]?.src];
  return candidates.find((c): c is string => c !== undefined && displayable(c)) ?? fallback;
}

/**
 * What a client may show as it is: an https image, an image data URI, or a short marker or emoji. A
 * server's `javascript:` or `http:` URL is dropped for the next icon in line.
 */
function displayable(icon: string): boolean {
  if (/^https:\/\//i.test(icon) || /^data:image\//i.test(icon)) return icon.length <= 65_536;
  return !icon.includes(':') && icon.length > 0 && icon.length <= 64;
}
