import { z } from 'zod';

/** `content` of an `application/vnd.platform.chat+json` artifact (SPEC §2.2, issue #36). */
export const chatContent = z.record(z.string(), z.unknown());
export type ChatContent = z.infer<typeof chatContent>;
