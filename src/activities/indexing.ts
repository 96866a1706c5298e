import { embedArtifacts, type EmbedOutcome } from '../search/embed-artifacts.js';
import type { Embedder } from '../search/embedder.js';
import type { ArtifactStore } from '../store/artifacts.js';
import type { SearchChangeStore } from '../store/search-changes.js';
import type { IndexArtifactInput } from '../workflows/contracts/index-artifact.js';

/** The activity of `indexArtifact`: the embedding of one artifact revision. */
export function createIndexingActivities(deps: { artifacts: ArtifactStore; changes: SearchChangeStore; embedder: Embedder }) {
  return {
    /** Embeds one revision of an artifact, unless it is no longer current. */
    async embedArtifact(input: IndexArtifactInput): Promise<EmbedOutcome> {
      const doc = await deps.artifacts.get(input.artifactId);
      if (!doc || doc.revision !== input.revision) return 'superseded';
      return (await embedArtifacts([doc], deps))[0]!;
    },
  };
}
