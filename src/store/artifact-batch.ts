import { createHash } from 'node:crypto';
import type { Db } from 'mongodb';
import { appendKey, type NewArtifact } from './artifacts.js';
import type { ArtifactDoc } from './artifact-doc.js';
import { findByIds } from './by-id.js';
import type { ContainerDoc } from './containers.js';
import { insertNew } from './mongo.js';
import { claimWithOutboxEvent, revisionsCollection, revisionState, type RevisionDoc, type WriteCause } from './revisions.js';

/** A draft of a batch: its id is fixed (a retried batch makes each once); `search_text` when content is not the text (a PDF). */
export type NewDraft = NewArtifact & { id: string; search_text?: string };

const keyRetries = 5;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Creates drafts in one workspace, in the given order, with one insert of the artifacts and one of
 * their first revision claims (each carrying its artifact_created event: the outbox, issue #21), where
 * ArtifactStore.create makes two round trips per draft. What it guarantees is create's, for each:
 * an id that exists already (the batch retried after a crash) is returned as it is and its first
 * claim completed; a draft is answered only once its claim is in. Returns the drafts and the claims
 * inserted now (their events wait for the relay's fast path; the sweeper has any it leaves).
 */
export async function createDrafts(
  db: Db,
  actor: string,
  container: ContainerDoc,
  inputs: NewDraft[],
): Promise<{ docs: ArtifactDoc[]; claims: RevisionDoc[] }> {
  if (container.kind !== 'workspace') throw new Error('createDrafts: drafts live in workspaces');
  const artifacts = db.collection<ArtifactDoc>('artifacts');
  const now = new Date();
  const made = new Map<string, ArtifactDoc>();
  let todo = inputs;
  let last = container.last_order_key;
  for (let attempt = 0; todo.length > 0; attempt++) {
    const docs = todo.map((input): ArtifactDoc => {
      const { source, id, search_text, ...fields } = input;
      last = appendKey(last, now.getTime());
      return {
        _id: id,
        ...fields,
        collection_id: container._id,
        container_kind: 'workspace',
        order_key: last,
        revision: 1,
        provenance: { created_by: actor, created_at: now, updated_by: actor, updated_at: now, source },
        ...(search_text !== undefined ? { search_text: { revision: 1, text: search_text, content_sha256: sha256(fields.content) } } : {}),
      };
    });
    const collided = await insertNew(artifacts, docs);
    docs.forEach((doc, i) => collided.has(i) || made.set(doc._id, doc));
    if (collided.size === 0) break;
    // A collision is the id (made by an earlier attempt of this batch: kept as it is) or, vanishingly
    // rarely, the order key (another writer's append in the same millisecond): that one gets a new key.
    const ids = docs.filter((_, i) => collided.has(i)).map((d) => d._id);
    for (const existing of await findByIds(artifacts, ids)) made.set(existing._id, existing);
    todo = todo.filter((input) => !made.has(input.id));
    if (todo.length > 0 && attempt >= keyRetries) throw new Error(`createDrafts: ${todo.length} order keys collided ${keyRetries} times`);
  }
  const ordered = inputs.map((input) => made.get(input.id)!);
  // First claims only while a draft is at revision 1 (a later revision's state is not the first one's).
  const first = ordered.filter((doc) => doc.revision === 1);
  const claims = first.map((doc) => {
    const cause: WriteCause = { kind: 'artifact_created', actor: doc.provenance.created_by, source: doc.provenance.source };
    return claimWithOutboxEvent(doc, 1, revisionState(doc), cause);
  });
  const claimedBefore = await insertNew(revisionsCollection(db), claims);
  return { docs: ordered, claims: claims.filter((_, i) => !claimedBefore.has(i)) };
}
