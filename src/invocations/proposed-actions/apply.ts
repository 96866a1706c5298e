import { v5 as uuidv5 } from 'uuid';
import type { Principal } from '../../identity/principal.js';
import type { EventKind } from '../../events/types.js';
import { RevisionMismatch, type ArtifactDoc, type ArtifactStore, type Provenance } from '../../store/artifacts.js';
import type { ContainerDoc } from '../../store/containers.js';
import { missingPermission } from './permissions.js';
import type { ActionOutcome, RecordedAction } from './schema.js';

const createdNamespace = '6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f';

/** The id an action's `create` gets: fixed by invocation and action, so a retried apply finds what it made. */
export const createdArtifactId = (invocationId: string, actionId: string) => uuidv5(`${invocationId}:${actionId}`, createdNamespace);

export interface ApplyScope {
  invocationId: string;
  agent: string;
  workspace: ContainerDoc;
  principal: Principal;
  /** Set when an automation started the invocation: every write carries it, for the loop guard. */
  automation?: NonNullable<Provenance['source']['automation']>;
}

/**
 * What follows a write: search index, embedding, workspace event. Done by the caller (the activity);
 * `key` names the action, so doing it again for a write already reported changes nothing.
 */
/**
 * Artifacts read for a batch just before it applies, by id (null: none there). The first action on an
 * artifact takes its look from here instead of a read of its own (a later one on the same artifact
 * reads it again); what it then writes is still guarded by its revision claim, so a write made in
 * between is found as a conflict, as before.
 */
export type Prefetched = Map<string, ArtifactDoc | null>;

export type AfterWrite = (kind: EventKind, doc: ArtifactDoc, key: string, changed?: string[]) => Promise<void>;

/**
 * Applies recorded actions to workspace drafts, each at most once however often it is retried: a
 * create has a fixed id; an update or delete applies only to the revision it was proposed against,
 * and a retry recognises its own earlier write by the provenance it left (invocation and action).
 */
export class ActionApplier {
  constructor(
    private readonly artifacts: ArtifactStore,
    private readonly afterWrite: AfterWrite,
  ) {}

  async apply(scope: ApplyScope, action: RecordedAction, read?: Prefetched): Promise<ActionOutcome> {
    const get = (id: string) => {
      if (!read?.has(id)) return this.artifacts.current(id);
      const doc = read.get(id) ?? null;
      read.delete(id);
      return Promise.resolve(doc);
    };
    const source: Provenance['source'] = {
      kind: 'agent',
      invocation_id: scope.invocationId,
      action_id: action.id,
      agent: scope.agent,
      ...(scope.automation ? { automation: scope.automation } : {}),
      // The credential that started the run, when not the person's own token (as a REST write records it).
      ...(scope.principal.actor.kind !== 'user' ? { via: { kind: scope.principal.actor.kind, id: scope.principal.actor.id } } : {}),
    };
    const ours = (doc: ArtifactDoc | null) =>
      doc?.provenance.source.invocation_id === scope.invocationId && doc.provenance.source.action_id === action.id;
    const key = `${scope.invocationId}:${action.id}`;
    const done = (artifactId?: string): ActionOutcome => ({
      id: action.id,
      status: 'applied',
      ...(artifactId ? { artifact_id: artifactId } : {}),
    });
    const refused = (reason: string): ActionOutcome => ({ id: action.id, status: 'refused', reason });

    if (action.kind === 'log') return done();
    const current = action.kind === 'create' ? null : await get(action.target);
    const contentType = action.kind === 'create' ? action.payload.content_type : current?.content_type;
    if (contentType) {
      const missing = missingPermission(scope.principal, scope.workspace, action.kind, contentType);
      if (missing) return refused(`forbidden: ${missing}`);
    }

    if (action.kind === 'create') {
      const id = createdArtifactId(scope.invocationId, action.id);
      const { title, content_type, content, context } = action.payload;
      // A retry finds the artifact made by the attempt before, and reports it again (its event id is fixed);
      // one deleted since is not made again (its first revision is still recorded). It goes through
      // create all the same: an attempt whose worker died between the artifact's insert and its
      // revision claim left no claim and no event, which create completes (a kill test lost events so).
      const made = await get(id);
      if (!made && (await this.artifacts.revisionAt(id, 1))) return { ...done(id), reason: 'created, and deleted since' };
      const doc = await this.artifacts.create(scope.principal, scope.workspace, {
        id,
        title,
        content_type,
        content,
        context: context ?? {},
        source,
      });
      await this.afterWrite('artifact_created', doc, key);
      return done(id);
    }

    const conflict = (why: string): ActionOutcome => ({
      id: action.id,
      status: 'conflict',
      artifact_id: action.target,
      reason: `conflict: ${why}`,
    });
    if (action.kind === 'delete') {
      if (!current) {
        await this.artifacts.settle(action.target); // a writer repairs what a deleter that died left
        return { ...done(action.target), reason: 'already deleted' };
      }
      if (current.revision !== action.base_revision)
        return conflict(
          `artifact ${action.target} changed since it was proposed (revision ${action.base_revision}, now ${current.revision})`,
        );
      try {
        if (await this.artifacts.delete(action.target, action.base_revision, { actor: scope.principal.subject, source }))
          await this.afterWrite('artifact_deleted', current, key);
      } catch (err) {
        if (!(err instanceof RevisionMismatch)) throw err;
        if (err.current === null) return { ...done(action.target), reason: 'already deleted' };
        return conflict(`artifact ${action.target} changed since it was proposed (revision ${action.base_revision}, now ${err.current})`);
      }
      return done(action.target);
    }

    // This very action, applied by an earlier attempt, or applied now.
    // An earlier attempt's write may be known from its claim only (read in memory): the retry, a writer,
    // settles the document as every writer does after its write.
    if (ours(current)) await this.artifacts.settle(action.target);
    const updated = ours(current)
      ? current
      : await this.artifacts.updateAt(scope.principal, action.target, action.base_revision!, action.payload, source);
    if (updated) {
      await this.afterWrite('artifact_updated', updated, key, Object.keys(action.payload));
      return done(action.target);
    }
    const now = await this.artifacts.current(action.target);
    if (ours(now)) return done(action.target);
    if (!now) return conflict(`artifact ${action.target} was deleted since it was proposed`);
    if (now.archived_at) return conflict(`artifact ${action.target} was archived since it was proposed`);
    return conflict(`artifact ${action.target} changed since it was proposed (revision ${action.base_revision}, now ${now.revision})`);
  }
}
