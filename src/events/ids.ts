// The stable event id lives with the revision claims that fix it (store/revisions.ts): the store
// computes it in the same insert as the claim, and sits below this layer.
export { stableEventId } from '../store/revisions.js';
