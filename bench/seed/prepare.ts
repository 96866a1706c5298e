// A store made ready for seeding as a first start would leave it (indexes, the administrator), then seeded.
import { ensureAdmin } from '../../src/main/bootstrap/admin.js';
import type { Services } from '../../src/operations/services.js';
import { createEmbedder } from '../../src/search/embedder.js';
import { ensureIndexes } from '../../src/store/mongo.js';
import { PgStoreClient } from '../../src/store/postgres/client.js';
import { outbox } from '../../src/store/revisions.js';
import { EventStore } from '../../src/store/events.js';
import { seedStore, type SeedOptions, type SeedResult } from './seed.js';

/**
 * Seeds the store of `services` (dropped or fresh) with `artifacts` artifacts, vectors by the embedder
 * its configuration names. The indexes are made first, as the platform's first start makes them.
 */
export async function prepareAndSeed(services: Services, options: Omit<SeedOptions, 'embedder'>): Promise<SeedResult> {
  const { db, config, users, logger } = services;
  await ensureIndexes(db);
  await Promise.all([outbox.ensureIndex(db), new EventStore(db).ensureIndexes()]);
  const admin = await ensureAdmin(config, users, logger);
  const adminDoc = admin && (await users.findByEmail(admin.email));
  if (!adminDoc) throw new Error('seed: no administrator (set PLATFORM_ADMIN_EMAIL and PLATFORM_ADMIN_PASSWORD)');
  // Both cores: nothing else runs yet (the platform starts after the seeding).
  const embedder = await createEmbedder({ ...config, EMBEDDINGS_THREADS: 2 });
  const seeded = await seedStore(db, adminDoc._id, { ...options, embedder });
  // A store filled by use has had its planner statistics gathered many times over; one loaded in a
  // minute has not until autovacuum comes by, and its first queries are planned blind (the walk to
  // page 100 read 130 ms a page for the first half minute). So: as autovacuum would.
  if (services.store instanceof PgStoreClient) await services.store.analyze(config.MONGODB_DB);
  return seeded;
}
