import { createHash } from 'node:crypto';
import { Binary } from 'mongodb';
import type { ArtifactDoc } from '../store/artifacts.js';
import type { SearchableDoc } from './memory-index.js';

/** Text that describes an artifact beyond its title: `context.description` when it is a string. */
export function descriptionOf(doc: Pick<ArtifactDoc, 'context'>): string {
  const d = doc.context?.description;
  return typeof d === 'string' ? d : '';
}

/** Only so much text goes into one embedding: models have input limits and long tails add little. */
const embeddedChars = 8_000;

/**
 * The text search indexes as an artifact's content: what was extracted from it (its content-type
 * server's text for this version, or an imported file's text while the content is still that file),
 * else the content.
 */
export function indexedContent(doc: Pick<ArtifactDoc, 'content'> & Partial<Pick<ArtifactDoc, 'search_text' | 'revision'>>): string {
  const extracted = doc.search_text;
  if (!extracted) return doc.content;
  if (extracted.revision === doc.revision) return extracted.text;
  return extracted.content_sha256 !== undefined && extracted.content_sha256 === contentHash(doc.content) ? extracted.text : doc.content;
}

export function embeddingText(
  doc: Pick<ArtifactDoc, 'title' | 'context' | 'content'> & Partial<Pick<ArtifactDoc, 'search_text' | 'revision'>>,
): string {
  return [doc.title, descriptionOf(doc), indexedContent(doc)].filter(Boolean).join('\n').slice(0, embeddedChars);
}

/** A stored vector as floats, whichever way it was stored. */
export function storedVector(vector: Binary | number[]): Float32Array {
  return Array.isArray(vector) ? Float32Array.from(vector) : vector.toFloat32Array();
}

export const vectorForStorage = (vector: Float32Array): Binary => Binary.fromFloat32Array(vector);

export function contentHash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Whether the stored vector is of this revision, by this embedder: only then does it count. */
export function hasCurrentVector(doc: Pick<ArtifactDoc, 'search' | 'revision'>, embedderId: string): boolean {
  return doc.search?.embedder === embedderId && doc.search.revision === doc.revision;
}

/** The index's view of an artifact; the stored vector counts only if it is current. */
export function searchable(doc: ArtifactDoc, embedderId: string): SearchableDoc {
  const s = doc.search;
  const current = s && hasCurrentVector(doc, embedderId);
  return {
    id: doc._id,
    title: doc.title,
    description: descriptionOf(doc),
    content: indexedContent(doc),
    content_type: doc.content_type,
    collection_id: doc.collection_id,
    container_kind: doc.container_kind,
    revision: doc.revision,
    ...(doc.archived_at ? { archived: true } : {}),
    ...(current ? { vector: storedVector(s.vector) } : {}),
  };
}
