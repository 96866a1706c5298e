import { counted } from '../wording.js';
import { z } from 'zod';
import { defineAgent, isTextual, type AgentArtifact } from '../types.js';

/** The content's words (a copy often gets a new title, so titles do not count unless there is no content). */
const words = (a: AgentArtifact) =>
  (a.content.trim() ? a.content : a.title)
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

/** Word 3-grams (single words for very short texts): near-identical texts share almost all of them. */
function shingles(a: AgentArtifact): Set<string> {
  const w = words(a);
  if (w.length < 3) return new Set(w);
  const out = new Set<string>();
  for (let i = 0; i + 2 < w.length; i++) out.add(`${w[i]} ${w[i + 1]} ${w[i + 2]}`);
  return out;
}

function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  const [small, large] = a.size < b.size ? [a, b] : [b, a];
  let shared = 0;
  for (const s of small) if (large.has(s)) shared++;
  return shared / (a.size + b.size - shared);
}

/**
 * Finds near-identical drafts and proposes deleting the later copies, keeping the oldest of each
 * group (ids are time-ordered). Similarity is the Jaccard index of word 3-grams.
 */
export const dedupe = defineAgent({
  name: 'dedupe',
  title: 'Remove near-identical artifacts',
  description:
    'Proposes deleting workspace drafts whose content is near-identical to an older one (Jaccard similarity of word 3-grams at or above the threshold). The oldest of each group is kept.',
  usesLlm: false,
  actions: ['delete'],
  params: z.strictObject({
    threshold: z.number().min(0.5).max(1).default(0.9).describe('Similarity from which two artifacts count as copies.'),
  }),
  async run({ artifacts, params }) {
    const candidates = artifacts.filter((a) => a.in_workspace && isTextual(a)).sort((x, y) => (x.id < y.id ? -1 : 1));
    const kept: { artifact: AgentArtifact; shingles: Set<string> }[] = [];
    const actions = [];
    for (const artifact of candidates) {
      const own = shingles(artifact);
      let best: { artifact: AgentArtifact; similarity: number } | null = null;
      for (const k of kept) {
        const similarity = jaccard(own, k.shingles);
        if (similarity >= params.threshold && (!best || similarity > best.similarity)) best = { artifact: k.artifact, similarity };
      }
      if (!best) {
        kept.push({ artifact, shingles: own });
        continue;
      }
      actions.push({
        kind: 'delete' as const,
        target: artifact.id,
        payload: {},
        rationale: `"${artifact.title}" is near-identical to the older "${best.artifact.title}" (${best.artifact.id}): ${Math.round(best.similarity * 100)}% of word 3-grams shared. The older one is kept.`,
      });
    }
    return {
      actions,
      output: `${actions.length} of ${counted(candidates.length, 'artifact')} ${actions.length === 1 ? 'is a near-identical copy' : 'are near-identical copies'}.`,
    };
  },
});
