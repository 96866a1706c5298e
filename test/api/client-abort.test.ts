// A client that hangs up mid-body (issue #30) is not a server error: against a real API process (the
// production entry point), a raw socket sends a request's headers and half its body on the
// unauthenticated /auth/login and /oauth/register, then destroys itself. The request is counted under
// 499 (client closed request, as nginx does), never 5xx, and the process's log has no error-level
// line and no stack for it, only an info line.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { apiProcess, type ApiProcess } from '../helpers/api-process.js';
import { Api, eventually } from '../helpers/http.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';
import { parseExposition } from '../observability/metrics-exposition.js';

const token = randomBytes(24).toString('base64url');
let platform: TestPlatform;
let api: ApiProcess;
let client: Api;
/** Every line the API process wrote to stdout or stderr. */
const output: string[] = [];

before(async () => {
  platform = await startPlatform({}, { worker: false });
  api = await apiProcess(platform, { METRICS_TOKEN: token, AUTH_RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'info' });
  let partial = '';
  const collect = (chunk: Buffer) => {
    const lines = (partial + String(chunk)).split('\n');
    partial = lines.pop() ?? '';
    output.push(...lines);
  };
  api.child.stdout!.on('data', collect);
  api.child.stderr!.on('data', collect);
  client = new Api(api.url);
});
after(async () => {
  await api?.stop();
  await platform?.close();
});

/** Sends the headers and half of a declared body, waits until they are read, then destroys the socket. */
async function hangUpMidBody(path: string, requestId: string): Promise<void> {
  const body = JSON.stringify({ email: 'nobody@example.test', password: 'x'.repeat(64), redirect_uris: ['https://example.test/cb'] });
  const { port } = new URL(api.url);
  const socket = connect(Number(port), '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${body.length}\r\nX-Request-Id: ${requestId}\r\n\r\n${body.slice(0, body.length / 2)}`,
  );
  // Once the half body is flushed, hang up; the server's log line for the request id shows it had begun.
  await new Promise<void>((resolve) => socket.end(() => resolve()));
  socket.destroy();
}

const linesOf = (requestId: string) =>
  output.filter((line) => line.includes(requestId)).map((line) => JSON.parse(line) as Record<string, unknown>);

async function scrape() {
  const reply = await client.get('/metrics', { authorization: `Bearer ${token}` });
  assert.equal(reply.status, 200, reply.text);
  return parseExposition(reply.text);
}

describe('a client that hangs up mid-body', () => {
  for (const path of ['/auth/login', '/oauth/register']) {
    it(`on ${path}: counted as 499, never 5xx; logged at info, with no error line and no stack`, async () => {
      const requestId = `abort-${randomUUID()}`;
      await hangUpMidBody(path, requestId);
      // The request log's line comes when the request is done with.
      await eventually(async () => linesOf(requestId).some((line) => line.msg === 'request'), 15_000, `${path}'s request line`);
      const lines = linesOf(requestId);
      assert.ok(
        lines.every((line) => Number(line.level) < 50),
        `no error-level line: ${JSON.stringify(lines)}`,
      );
      assert.ok(
        lines.every((line) => !JSON.stringify(line).includes('"stack"')),
        `no stack: ${JSON.stringify(lines)}`,
      );
      const request = lines.find((line) => line.msg === 'request')!;
      assert.equal(request.status, 499);
      assert.ok(
        lines.some((line) => line.msg !== 'request' && Number(line.level) <= 30 && /client closed/i.test(String(line.msg))),
        `an info (or debug) line says the client closed the request: ${JSON.stringify(lines)}`,
      );

      const metrics = await scrape();
      const samples = metrics.samples.filter((s) => s.name === 'platform_http_requests_total' && s.labels.route === path);
      assert.deepEqual(
        samples.filter((s) => s.labels.status?.startsWith('5')),
        [],
        `no 5xx for ${path}`,
      );
      assert.ok(
        metrics.sum('platform_http_requests_total', { route: path, method: 'POST', status: '499' }) >= 1,
        `${path} counted under 499`,
      );
    });
  }

  it('still answers a whole request on the same routes normally', async () => {
    const reply = await client.post('/auth/login', { email: 'nobody@example.test', password: 'not the password' });
    assert.equal(reply.status, 401, reply.text);
  });
});
