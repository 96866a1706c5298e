// A workspace's or collection's artifacts (issue #37): each with its type's badge (SPEC §2.10) and who
// last changed it, by name. Loaded with the container's page, not on a first visit.
import { artifactPath, type Artifact, type ContainerKind } from './browse-api';
import { Problem } from './commits';
import { NameOf } from './names';
import { usePaged } from './paged';
import { follow } from './router';
import { TypeBadge, useRegisteredTypes } from './type-badge';

export function ArtifactsList({ kind, id }: { kind: ContainerKind; id: string }) {
  const { items, error, loading, more } = usePaged<Artifact>(`/artifacts?collection_id=${encodeURIComponent(id)}`);
  const registered = useRegisteredTypes(kind === 'workspace' ? id : null);
  return (
    <section aria-labelledby="artifacts-title">
      <h2 id="artifacts-title">Artifacts</h2>
      <Problem error={error} />
      {!error && items === null && <p role="status">Loading artifacts…</p>}
      {items?.length === 0 && <p>No artifacts here yet.</p>}
      {items && items.length > 0 && (
        <ul class="artifacts" aria-label="Artifacts">
          {items.map((a) => (
            <li key={a.id} class="artifact-item">
              <TypeBadge contentType={a.content_type} registered={registered} />{' '}
              <a href={artifactPath(a.id)} onClick={follow}>
                {a.title}
              </a>{' '}
              <span class="meta">
                {a.state} · {kind === 'collection' ? `version ${a.version ?? a.revision}` : `revision ${a.revision}`}
                {a.provenance && (
                  <>
                    {' · updated by '}
                    <NameOf kind="people" id={a.provenance.updated_by} />
                  </>
                )}
              </span>
            </li>
          ))}
        </ul>
      )}
      {more && (
        <button type="button" disabled={loading} onClick={more}>
          Show more artifacts
        </button>
      )}
    </section>
  );
}
