// The baseline: the least a server can do for the same operations (create, get, search), raw Koa and the MongoDB driver,
// no auth, validation, provenance, ordering or events.
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import Koa from 'koa';
import type { Db } from 'mongodb';

export function baselineServer(db: Db, port: number): Promise<Server> {
  const items = db.collection<{ _id: string; [k: string]: unknown }>('items');
  const app = new Koa();
  app.use(async (ctx) => {
    if (ctx.method === 'POST' && ctx.path === '/items') {
      let raw = '';
      for await (const chunk of ctx.req) raw += chunk;
      const doc = { _id: randomUUID(), ...JSON.parse(raw) };
      await items.insertOne(doc);
      ctx.status = 201;
      ctx.body = doc;
    } else if (ctx.method === 'GET' && ctx.path === '/items') {
      // Search's baseline: a bounded regex match on the title, the least a store-only search does.
      const q = String(ctx.query.q ?? '').replace(/[^a-z0-9 ]/gi, '');
      ctx.body = { items: await items.find({ title: { $regex: q, $options: 'i' } }, { limit: 10, maxTimeMS: 5000 }).toArray() };
    } else if (ctx.method === 'GET' && ctx.path.startsWith('/items/')) {
      const doc = await items.findOne({ _id: ctx.path.slice(7) });
      ctx.status = doc ? 200 : 404;
      ctx.body = doc ?? {};
    }
  });
  return new Promise((resolve) => {
    const server = app.listen(port, '127.0.0.1', () => resolve(server));
  });
}
