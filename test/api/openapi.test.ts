import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { routes } from '../../src/api/app.js';
import { templateOf } from '../../src/api/openapi/document.js';
import { jsonSchemaOf } from '../../src/api/openapi/json-schema.js';
import { referenceCsp } from '../../src/api/openapi/reference-page.js';
import type { Api } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
let platform: TestPlatform;
let doc: any;

before(async () => {
  platform = await startPlatform({}, { worker: false });
  doc = (await platform.api.get('/openapi.json')).body;
});
after(() => platform.close());

const operation = (method: string, path: string) => doc.paths[templateOf(path).template]?.[method];
const bodySchema = (method: string, path: string) => operation(method, path).requestBody.content['application/json'].schema;
const named = (reply: { body: any }, name: string) => reply.body.invalid_params?.some((p: { name: string }) => p.name === name);

/**
 * Sends bodies the document's schema refuses, each derived from the document itself (a field it does
 * not list, a required field left out, a string over its maxLength, a value outside its enum), and
 * checks the route refuses each with a 400 naming that field; then the valid body, accepted.
 */
async function refusesWhatTheDocumentRefuses(api: Api, method: string, template: string, path: string, valid: Record<string, unknown>) {
  const schema = bodySchema(method, template);
  const send = (body: unknown) => api.request(method.toUpperCase(), path, { body });
  const tried: string[] = [];
  assert.equal(schema.additionalProperties, false);
  const extra = await send({ ...valid, not_in_the_document: 1 });
  assert.equal(extra.status, 400, extra.text);
  assert.ok(named(extra, 'not_in_the_document'), extra.text);
  for (const field of schema.required ?? []) {
    const { [field]: _left, ...rest } = valid;
    const reply = await send(rest);
    assert.equal(reply.status, 400, `${field} left out: ${reply.text}`);
    assert.ok(named(reply, field), reply.text);
    tried.push(`required ${field}`);
  }
  for (const [field, property] of Object.entries<any>(schema.properties)) {
    if (typeof property.maxLength === 'number') {
      const reply = await send({ ...valid, [field]: 'x'.repeat(property.maxLength + 1) });
      assert.equal(reply.status, 400, `${field} over maxLength: ${reply.text}`);
      assert.ok(named(reply, field), reply.text);
      tried.push(`maxLength ${field}`);
    }
    if (Array.isArray(property.enum)) {
      const reply = await send({ ...valid, [field]: 'not-one-of-them' });
      assert.equal(reply.status, 400, `${field} outside its enum: ${reply.text}`);
      assert.ok(named(reply, field), reply.text);
      tried.push(`enum ${field}`);
    }
  }
  assert.ok(tried.length >= 2, `too little to check in the document's schema of ${method} ${template}: ${tried.join(', ')}`);
  const accepted = await send(valid);
  const success = Object.keys(operation(method, template).responses).find((s) => s.startsWith('2'));
  assert.equal(String(accepted.status), success, accepted.text);
}

describe('the OpenAPI document', () => {
  it('is served at /openapi.json and validates as OpenAPI 3.1', async () => {
    const reply = await platform.api.get('/openapi.json');
    assert.equal(reply.status, 200);
    assert.match(reply.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(reply.body.openapi, '3.1.0');
    const result = await new Validator().validate(reply.body);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 1));
    assert.deepEqual(reply.body.servers, [{ url: platform.config.apiUri }]);
  });

  it('lists every route of the route table with its method and path parameters, and nothing else', () => {
    const missing = routes.filter((r) => !operation(r.method, r.path)).map((r) => `${r.method} ${r.path}`);
    assert.deepEqual(missing, []);
    const operations = Object.values<Record<string, unknown>>(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
    assert.equal(operations, routes.length);
    for (const route of routes) {
      const declared = (operation(route.method, route.path).parameters ?? []).filter((p: any) => p.in === 'path').map((p: any) => p.name);
      assert.deepEqual(declared, templateOf(route.path).params, `${route.method} ${route.path}`);
    }
  });

  it('says what each route needs: nothing for public routes, a person for human ones, its scope otherwise', () => {
    for (const route of routes) {
      const op = operation(route.method, route.path);
      const where = `${route.method} ${route.path}`;
      if (route.access === 'public') {
        assert.deepEqual(op.security, [], where);
        // A public route that checks something itself (a cookie) says so in its own doc.errors.
        if (!route.doc?.errors?.includes(401)) assert.equal(op.responses['401'], undefined, where);
      } else {
        assert.ok(op.responses['401'] && op.responses['403'], where);
        if (route.access === 'human' || route.access === 'admin') assert.deepEqual(op.security, [{ bearerToken: [] }], where);
        else if (route.access !== 'authenticated') assert.deepEqual(op.security.find((s: any) => s.oauth2)?.oauth2, [route.access], where);
      }
    }
    assert.deepEqual(Object.keys(doc.components.securitySchemes).sort(), ['apiKey', 'bearerToken', 'oauth2']);
  });

  it('answers errors as the Problem schema, with their stable types', () => {
    const problem = doc.components.schemas.Problem;
    assert.deepEqual(problem.required, ['type', 'title', 'status']);
    const created = operation('post', '/artifacts').responses;
    for (const status of ['400', '401', '403', '409', '413', '415', '429'])
      assert.equal(created[status].$ref.split('/').slice(0, 3).join('/'), '#/components/responses', status);
    assert.match(doc.components.responses.BadRequest.description, /`validation-error`/);
    assert.equal(doc.components.responses.BadRequest.content['application/problem+json'].schema.$ref, '#/components/schemas/Problem');
    assert.ok(operation('patch', '/artifacts/:id').responses['412']);
  });

  it('shows, for every route that declares one, the very schema it validates its body with, and examples it accepts', () => {
    let checked = 0;
    for (const route of routes.filter((r) => r.request && r.body === 'json')) {
      const content = operation(route.method, route.path).requestBody.content['application/json'];
      assert.deepEqual(content.schema, jsonSchemaOf(route.request!), `${route.method} ${route.path}`);
      if (content.example !== undefined)
        assert.ok(route.request!.safeParse(content.example).success, `${route.method} ${route.path} example`);
      checked++;
    }
    assert.ok(checked >= 20, `${checked} routes`);
  });

  it('is refused by POST /workspaces, /artifacts and /secrets wherever its schema refuses', async () => {
    const alice = await platform.newUser();
    await refusesWhatTheDocumentRefuses(alice, 'post', '/workspaces', '/workspaces', { name: 'Research', description: 'd' });
    const ws = (await alice.post('/workspaces', { name: 'target' })).body.id;
    const example = operation('post', '/artifacts').requestBody.content['application/json'].example;
    await refusesWhatTheDocumentRefuses(alice, 'post', '/artifacts', '/artifacts', { ...example, collection_id: ws });
    await refusesWhatTheDocumentRefuses(alice, 'post', '/secrets', '/secrets', { name: 'crm-token', value: 's3cret' });
  });

  it('lists the query parameters a route takes, and the route refuses any other', async () => {
    const alice = await platform.newUser();
    const names = operation('get', '/artifacts')
      .parameters.filter((p: any) => p.in === 'query')
      .map((p: any) => p.name);
    assert.deepEqual(names.sort(), ['collection_id', 'content_type', 'cursor', 'limit']);
    const limit = operation('get', '/artifacts').parameters.find((p: any) => p.name === 'limit').schema;
    assert.equal((await alice.get(`/artifacts?limit=${limit.maximum}`)).status, 200);
    const over = await alice.get(`/artifacts?limit=${limit.maximum + 1}`);
    assert.equal(over.status, 400, over.text);
    const unknown = await alice.get('/artifacts?not_listed=1');
    assert.equal(unknown.status, 400);
    assert.ok(named(unknown, 'not_listed'));
  });

  it('is built once and served the same', async () => {
    const [a, b] = await Promise.all([platform.api.get('/openapi.json'), platform.api.get('/openapi.json')]);
    assert.equal(a.text, b.text);
  });
});

describe('the reference page at /docs', () => {
  it('is served under a strict CSP, with no inline script, from assets served here', async () => {
    const csp = referenceCsp(platform.config.apiUri);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/);
    const page = await platform.api.get('/docs');
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.equal(page.headers.get('content-security-policy'), csp);
    assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
    assert.doesNotMatch(page.text, /<script(?![^>]*\ssrc=)[^>]*>/, 'an inline script');
    assert.doesNotMatch(page.text, /\sstyle=|<style/, 'an inline style');
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    assert.deepEqual(assets.sort(), ['/docs/favicon-32x32.png', '/docs/init.js', '/docs/swagger-ui-bundle.js', '/docs/swagger-ui.css']);
    const types: Record<string, RegExp> = { js: /^text\/javascript/, css: /^text\/css/, png: /^image\/png/ };
    for (const asset of assets) {
      const reply = await platform.api.get(asset);
      assert.equal(reply.status, 200, asset);
      assert.match(reply.headers.get('content-type') ?? '', types[asset.split('.').pop()!]!, asset);
      assert.equal(reply.headers.get('content-security-policy'), csp, asset);
    }
    assert.match((await platform.api.get('/docs/init.js')).text, /url: '\/openapi\.json'/);
    assert.match((await platform.api.get('/docs/swagger-ui-bundle.js')).text, /SwaggerUIBundle/);
  });

  it('serves no other file', async () => {
    for (const path of ['/docs/package.json', '/docs/swagger-ui.js', '/docs/..%2Fpackage.json', '/docs/%2e%2e', '/docs/index.html']) {
      const reply = await platform.api.get(path);
      assert.equal(reply.status, 404, path);
      assert.match(reply.headers.get('content-type') ?? '', /problem\+json/, path);
    }
  });
});
