import { z } from 'zod';
import { problems } from '../kernel/errors/problem.js';
import { defaultAperture } from '../search/rrf-fusion.js';
import { presetNames } from '../search/presets.js';
import type { OperationContext } from './services.js';
import { uuid } from '../kernel/json/schemas.js';
import { searchCandidates, searchDuration } from '../observability/metrics.js';

/** The largest `limit` (and candidate pool) a search may ask for. */
export const maxSearchLimit = 100;
export const maxCandidates = 1000;

const uuids = z.array(uuid()).min(1).max(1000);
/** The body of `POST /artifacts/search` and the input of the `search` tool. */
export const searchBody = z.strictObject({
  query: z.string().trim().min(1, 'must not be empty').max(1000),
  limit: z.int().min(1).max(maxSearchLimit).default(10),
  preset: z.enum(presetNames, { error: `must be one of ${presetNames.join(', ')}` }).default('balanced'),
  workspace_ids: uuids.optional(),
  collection_ids: uuids.optional(),
  content_types: z.array(z.string().min(1).max(255)).min(1).max(50).optional(),
  candidates: z.int().min(1).max(maxCandidates).default(100),
  aperture: z
    .strictObject({
      enabled: z.boolean().default(true),
      min_score: z.number().min(-1).max(1).optional(),
      min_keep: z.int().min(1).max(maxCandidates).default(defaultAperture.minKeep),
      min_candidates: z.int().min(2).max(maxCandidates).default(defaultAperture.minCandidates),
      flat_spread: z.number().min(0).max(2).default(defaultAperture.flatSpread),
    })
    .default({
      enabled: true,
      min_keep: defaultAperture.minKeep,
      min_candidates: defaultAperture.minCandidates,
      flat_spread: defaultAperture.flatSpread,
    }),
});
export type SearchRequest = z.infer<typeof searchBody>;

/** Hybrid search over every container the principal may search (S grant), within its read scopes. */
export async function runSearch(ctx: OperationContext, req: SearchRequest) {
  const started = performance.now();
  const principal = ctx.state.principal;
  if (!principal.scopes.allows('artifact:read')) throw problems.insufficientScope('artifact:read');
  let containerIds = new Set(await ctx.services.containers.searchableIds(principal));
  if (req.workspace_ids || req.collection_ids) {
    const wanted = new Set([...(req.workspace_ids ?? []), ...(req.collection_ids ?? [])]);
    containerIds = new Set([...containerIds].filter((id) => wanted.has(id)));
  }
  const outcome = await ctx.services.search.search({
    text: req.query,
    limit: req.limit,
    preset: req.preset,
    candidates: Math.max(req.candidates, req.limit),
    aperture: req.aperture.enabled
      ? {
          minScore: req.aperture.min_score ?? ctx.services.search.embedder.similarityFloor,
          minKeep: req.aperture.min_keep,
          minCandidates: req.aperture.min_candidates,
          flatSpread: req.aperture.flat_spread,
        }
      : null,
    scope: { containerIds, contentTypes: req.content_types ?? null, typeLimits: principal.scopes.typeLimits('artifact:read') },
  });
  const tookMs = performance.now() - started;
  searchDuration.observe({ preset: req.preset }, tookMs / 1000);
  searchCandidates.observe({ retriever: 'lexical' }, outcome.lexical);
  searchCandidates.observe({ retriever: 'semantic' }, outcome.semantic);
  return {
    query: req.query,
    preset: req.preset,
    results: outcome.hits.map((h) => ({
      id: h.id,
      title: h.doc.title,
      content_type: h.doc.content_type,
      container: { kind: h.doc.container_kind, id: h.doc.collection_id },
      score: h.score,
      retrievers: h.retrievers,
    })),
    retrievers: {
      // Each ranking's weight in RRF: a result's score is Σ weight / (60 + rank).
      lexical: { candidates: outcome.lexical, weight: 1 },
      semantic: {
        candidates: outcome.semantic,
        kept: outcome.semanticKept,
        embedder: ctx.services.search.embedder.id,
        weight: ctx.services.search.semanticWeight,
      },
    },
    took_ms: Math.round(tookMs * 100) / 100,
  };
}
