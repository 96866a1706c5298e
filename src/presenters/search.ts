import { z } from 'zod';
import { containerKinds, count } from './schemas.js';

const retrieverScore = z.object({ rank: count, score: z.number(), imputed: z.literal(true).optional() });

/** `POST /artifacts/search`: the fused results, and what each retriever contributed. */
export const searchResultsSchema = z
  .object({
    query: z.string(),
    preset: z.string(),
    results: z.array(
      z.object({
        id: z.string(),
        title: z.string(),
        content_type: z.string(),
        container: z.object({ kind: z.enum(containerKinds), id: z.string() }),
        score: z.number().describe('Σ weight / (60 + rank) over the retrievers that found it.'),
        retrievers: z.record(z.string(), retrieverScore).describe('Each retriever that found it: its rank and own score.'),
      }),
    ),
    retrievers: z.object({
      lexical: z.object({ candidates: count, weight: z.number() }),
      semantic: z.object({ candidates: count, kept: count, embedder: z.string(), weight: z.number() }),
    }),
    took_ms: z.number(),
  })
  .meta({ id: 'SearchResults' });
