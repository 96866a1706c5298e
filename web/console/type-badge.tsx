// A content type as a badge (SPEC §2.10 `ui.label`, `ui.icon`, `ui.color`; issue #37): the platform's
// own types from their definitions (the same table the API's open answers with), registered types
// from the type.json their content-type servers ship (GET /mcp/workspaces/{id}/servers), anything
// else by a label of its MIME type. Icons (§2.12) are emoji, data: images, or the markers `platform`
// and `mcp`; an image URL is not loaded (the console's CSP allows images from itself only), so it
// shows the generic icon instead.
import { useMemo } from 'preact/hooks';
import { Icon, useCatalog, type CatalogServer } from './icons';
import { baseType } from './artifact-body';
import { platformTypeDefinition } from '../../src/artifacts/content-types/platform-definitions';

export interface TypeUi {
  label?: string;
  icon?: string;
  color?: string;
}

/** Labels for the common types no server defines. */
const common: Record<string, TypeUi> = {
  'text/markdown': { label: 'Markdown', icon: '📝', color: '#2563eb' },
  'text/plain': { label: 'Text', icon: '📄', color: '#64748b' },
  'application/json': { label: 'JSON', icon: '🔣', color: '#0f766e' },
  'application/pdf': { label: 'PDF', icon: '📕', color: '#b91c1c' },
  'text/html': { label: 'HTML', icon: '🌐', color: '#c2410c' },
  'text/csv': { label: 'CSV', icon: '📊', color: '#15803d' },
};

const media: Record<string, TypeUi> = {
  image: { label: 'Image', icon: '🖼️', color: '#9333ea' },
  audio: { label: 'Audio', icon: '🎧', color: '#db2777' },
  video: { label: 'Video', icon: '🎬', color: '#e11d48' },
};

/** The §2.10 hints for a type: a registered definition first, then the platform's, then the common ones. */
export function typeUi(contentType: string, registered?: Map<string, TypeUi>): Required<Pick<TypeUi, 'label'>> & TypeUi {
  const mime = baseType(contentType);
  const ui = registered?.get(mime) ?? platformTypeDefinition(mime)?.ui ?? common[mime] ?? media[mime.split('/')[0] ?? ''];
  return { ...ui, label: ui?.label || mime };
}

const hex = /^#[0-9a-f]{3,8}$/i;

/** A type's badge: its icon and label on its colour; the MIME type as the tooltip. */
export function TypeBadge({ contentType, registered }: { contentType: string; registered?: Map<string, TypeUi> }) {
  const ui = typeUi(contentType, registered);
  const color = ui.color && hex.test(ui.color) ? ui.color : undefined;
  return (
    <span
      class="type-badge"
      title={baseType(contentType)}
      data-testid="type-badge"
      data-type={baseType(contentType)}
      style={color ? { borderColor: color, '--type-color': color } : undefined}
    >
      <Icon icon={ui.icon} label={ui.label} />
      <span class="type-label">{ui.label}</span>
    </span>
  );
}

/** The types the servers define (§2.10), by MIME type: the first server's definition of each. */
function registeredIn(servers: CatalogServer[]): Map<string, TypeUi> {
  const types = new Map<string, TypeUi>();
  for (const s of servers) for (const t of s.content_types) if (t.mime && t.ui && !types.has(t.mime)) types.set(t.mime, t.ui);
  return types;
}

/** The registered types for a list's badges (the workspace's servers; every server the person sees for a collection). */
export function useRegisteredTypes(workspaceId: string | null): Map<string, TypeUi> | undefined {
  const servers = useCatalog(workspaceId);
  return useMemo(() => servers && registeredIn(servers), [servers]);
}
