// Loaded by path (DataConverter.failureConverterPath), by the worker for activity failures and, when the
// workflow bundle is built with it, inside the workflow sandbox: @temporalio/common only.
import { DefaultFailureConverter } from '@temporalio/common';

/** Failures' messages and stack traces go into an encoded payload (sealed by the codec), not in clear beside it. */
export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
