import { z } from 'zod';

/** `content` of an `application/vnd.platform.stream+json` artifact (SPEC §2.2, issue #36). */
export const streamContent = z.record(z.string(), z.unknown());
export type StreamContent = z.infer<typeof streamContent>;
