import type { DataConverter } from '@temporalio/common';
import type { Config } from '../kernel/config/env.js';

/** The data converter every client and worker of the platform uses: payloads sealed by the codec. (Filled in by the codec work.) */
export function platformDataConverter(_config: Config): DataConverter | undefined {
  return undefined;
}
