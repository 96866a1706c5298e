import type { Payload, PayloadCodec } from '@temporalio/common';

/**
 * Every payload in a history (or any part of one), wherever it sits: a walk over the proto objects,
 * leaving out the fields named in `skip` (`searchAttributes`, `header`: what no codec sees).
 */
export function payloadsIn(value: unknown, skip: readonly string[] = [], found: Payload[] = []): Payload[] {
  if (!value || typeof value !== 'object' || ArrayBuffer.isView(value)) return found;
  const obj = value as Record<string, unknown>;
  if (obj.metadata && typeof obj.metadata === 'object' && 'data' in obj) {
    found.push(obj as Payload);
    return found;
  }
  for (const [k, v] of Object.entries(obj)) if (!skip.includes(k)) payloadsIn(v, skip, found);
  return found;
}

/**
 * A fetched history with its payloads opened by the codec, in place (fetchHistory answers them as
 * stored, sealed): for tests that look into payloads and for the fixture recorder, whose fixtures are
 * replayed without a key. Clear payloads stay as they are; one the codec cannot open throws.
 */
export async function decodeHistory<H>(history: H, codec: PayloadCodec): Promise<H> {
  const payloads = payloadsIn(history);
  const decoded = await codec.decode(payloads);
  payloads.forEach((p, i) => {
    p.metadata = decoded[i]!.metadata;
    p.data = decoded[i]!.data;
  });
  return history;
}
