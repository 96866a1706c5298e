import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { stopStreamSignal, type StreamSessionInput, type StreamSessionResult } from './contracts/stream-session.js';

const { beginStream, finishStream } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 20 },
});

/**
 * One live session of a stream (id `stream-<stream id>`): the record begun, then one long activity
 * that listens and records until the deadline or a `stop` signal (which cancels it: it closes its
 * files, keeps them, and returns), then the record finished. A worker lost mid-session retries the
 * recording on another worker, on the same deadline; takes already recorded stay.
 */
export async function streamSession(input: StreamSessionInput): Promise<StreamSessionResult> {
  const endsBy = Date.now() + input.maxSeconds * 1000;
  const { recordStream } = proxyActivities<Activities>({
    startToCloseTimeout: `${input.maxSeconds + 120} seconds`,
    // Short: a stop (a cancellation) reaches the activity with a heartbeat's answer, at most about 8 s later.
    heartbeatTimeout: '10 seconds',
    // A stop waits for the activity to close its files and keep them.
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: { initialInterval: '2 seconds', maximumInterval: '30 seconds', maximumAttempts: 5 },
  });
  const recording = new CancellationScope();
  setHandler(stopStreamSignal, () => recording.cancel());
  await beginStream({ ...input, endsBy });
  let result: StreamSessionResult = { state: 'ended', error: null };
  try {
    await recording.run(() => recordStream({ ...input, endsBy }));
  } catch (err) {
    if (!isCancellation(err)) {
      const cause = err instanceof ActivityFailure ? err.cause : err;
      const message = cause instanceof Error ? cause.message : String(cause);
      result = { state: 'failed', error: message.slice(0, 1000) };
      if (!(err instanceof ActivityFailure) && !(err instanceof ApplicationFailure)) throw err;
    }
  }
  await CancellationScope.nonCancellable(() => finishStream({ streamId: input.streamId, sessionId: input.sessionId, ...result }));
  return result;
}
