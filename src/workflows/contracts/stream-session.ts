import { defineSignal } from '@temporalio/workflow';
import type { PrincipalSnapshot } from '../../identity/principal.js';

/**
 * The contract of `streamSession` (workflows/stream-session.ts): one live session of a stream
 * artifact (issue #36), id `stream-<stream id>`, so a stream has at most one at a time. Its long
 * activity listens for RTMP on the worker's host and records into the stream's workspace; the
 * session's record (store/stream-sessions.ts) is what GET /artifacts/{id}/status reads.
 */
export const streamSessionType = 'streamSession';
export type StreamSession = (input: StreamSessionInput) => Promise<StreamSessionResult>;

/** A stream's session workflow id: one live session per stream. */
export const streamWorkflowId = (streamId: string) => `stream-${streamId}`;

/** Ends the session: the recording stops, files in progress are closed and kept. */
export const stopStreamSignal = defineSignal('stop');

/** The failure type of a session that may not go on (the stream or its key gone, the grant withdrawn). */
export const streamRefusedFailure = 'stream-refused';

export interface StreamSessionInput {
  streamId: string;
  sessionId: string;
  workspaceId: string;
  principal: PrincipalSnapshot;
  /** Seconds the session may run (the content's max_duration_seconds under the operator's cap). */
  maxSeconds: number;
}

export interface RecordStreamInput extends StreamSessionInput {
  /** Epoch ms by which recording ends, fixed by the workflow (the same for every attempt). */
  endsBy: number;
}

export interface StreamSessionResult {
  state: 'ended' | 'failed';
  error: string | null;
}
