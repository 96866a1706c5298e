import { z } from 'zod';

/** `content` of an `application/vnd.platform.view+json` artifact (SPEC §2.2, issue #36). */
export const viewContent = z.record(z.string(), z.unknown());
export type ViewContent = z.infer<typeof viewContent>;
