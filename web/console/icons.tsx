// Icons (SPEC §2.12): an item's `_meta.icon`, else its server's, else the generic MCP icon. Values are
// emoji or short text, `data:` images, the markers `platform` and `mcp`, or image URLs, which are not
// loaded: the console's CSP allows images from itself and data: only (docs/decisions.md), so a URL
// shows the generic icon. The catalog of a workspace's servers (GET /mcp/workspaces/{id}/servers) is
// read once per page and shared by the type badges, the Hosts page and its tool lists.
import { useEffect, useState } from 'preact/hooks';
import { api } from './api';

/** What one server of the catalog says of its looks and its types. */
export interface CatalogServer {
  id: string;
  icon?: string;
  tools: { name: string; title?: string; icon?: string }[];
  content_types: { mime?: string; ui?: { label?: string; icon?: string; color?: string } }[];
}

const dataImage = /^data:image\/(png|gif|jpeg|webp|svg\+xml);/i;

/** An icon as the page may show it, decorative (its label is next to it). */
export function Icon({ icon, label }: { icon: string | undefined; label: string }) {
  if (icon && dataImage.test(icon)) return <img class="icon" src={icon} alt="" aria-hidden="true" />;
  if (icon === 'platform')
    return (
      <span class="icon icon-platform" aria-hidden="true">
        ◉
      </span>
    );
  if (!icon || icon.includes(':') || icon === 'mcp' || icon.length > 16)
    return (
      <span class="icon icon-generic" aria-hidden="true" title={label}>
        ◆
      </span>
    );
  return (
    <span class="icon" aria-hidden="true">
      {icon}
    </span>
  );
}

/** An item's icon by §2.12 precedence. */
export const iconFor = (item: { icon?: string } | undefined, server: { icon?: string } | undefined) => item?.icon ?? server?.icon ?? 'mcp';

const catalogs = new Map<string, Promise<CatalogServer[]>>();

/** The servers of a workspace (null: every server the person sees); none when they cannot be read. */
export function catalogOf(workspaceId: string | null): Promise<CatalogServer[]> {
  const key = workspaceId ?? '*';
  let found = catalogs.get(key);
  if (!found) {
    const path = workspaceId ? `/mcp/workspaces/${encodeURIComponent(workspaceId)}/servers` : '/mcp/servers';
    found = api<{ servers: CatalogServer[] }>(path).then(
      (answer) => answer.servers,
      () => [],
    );
    catalogs.set(key, found);
    // Read again on the next page that asks: a server registered or listed meanwhile says more.
    setTimeout(() => catalogs.delete(key), 30_000);
  }
  return found;
}

export function useCatalog(workspaceId: string | null): CatalogServer[] | undefined {
  const [servers, setServers] = useState<CatalogServer[] | undefined>(undefined);
  useEffect(() => {
    let live = true;
    void catalogOf(workspaceId).then((s) => live && setServers(s));
    return () => {
      live = false;
    };
  }, [workspaceId]);
  return servers;
}

/** A registered server's icon (its own, else the generic one), from the catalog. */
export function ServerIcon({ workspaceId, serverId, label }: { workspaceId: string; serverId: string; label: string }) {
  const server = useCatalog(workspaceId)?.find((s) => s.id === serverId);
  return <Icon icon={iconFor(undefined, server)} label={label} />;
}

/** A registered server's tools, each with its icon (item, then server, then generic). */
export function ToolIcons({ workspaceId, serverId, label }: { workspaceId: string; serverId: string; label: string }) {
  const server = useCatalog(workspaceId)?.find((s) => s.id === serverId);
  if (!server || server.tools.length === 0) return null;
  return (
    <ul class="tool-icons" aria-label={`Tools of ${label}`}>
      {server.tools.map((t) => (
        <li key={t.name}>
          <Icon icon={iconFor(t, server)} label={t.title ?? t.name} /> {t.title ?? t.name}
        </li>
      ))}
    </ul>
  );
}
